"""Scoring: points, scores, pooled points with Clopper–Pearson boxes, the class's ε lower bound (the audit
harness of dpcore.audit: a mutant class crosses the curve, a calibrated one does not, at fixed seeds), the
sentence, and the dashboard figure."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from dpcore.audit import audit, halfline_events
from dpcore.classroom import scoring as K
from dpcore.classroom.figures import FONT_SIZE, dashboard_figure
from dpcore.classroom.scenarios import check_setting
from dpcore.errors import DPValueError


def test_score_and_points():
    assert [K.score(True, c) for c in (None, 1, 2, 3)] == [1, 1, 2, 3]
    assert [K.score(False, c) for c in (None, 1, 2, 3)] == [-1, -1, -2, -3]
    assert K.points(K.Answer(True, True, 3)) == 3 and K.points(K.Answer(False, True, 2)) == -2
    assert K.points(K.Answer(False, False, None)) == 1
    assert K.check_answer("in", None) == (True, None)
    for says, conf in (("maybe", None), ("in", 0), ("out", 4)):
        with pytest.raises(DPValueError):
            K.check_answer(says, conf)


def test_clopper_pearson_boxes_are_exact_and_cover():
    lo, hi = K.clopper_pearson(3, 10)
    assert binom.sf(2, 10, lo) == pytest.approx(0.025, rel=1e-6)     # P(X ≥ 3 | lo) = α/2
    assert binom.cdf(3, 10, hi) == pytest.approx(0.025, rel=1e-6)    # P(X ≤ 3 | hi) = α/2
    assert K.clopper_pearson(0, 10)[0] == 0.0 and K.clopper_pearson(10, 10)[1] == 1.0
    assert K.clopper_pearson(0, 0) == (0.0, 1.0)
    g = np.random.default_rng(0)                                       # coverage ≥ 95 % (exact intervals)
    k = g.binomial(40, 0.3, size=4000)
    box = [K.clopper_pearson(j, 40) for j in range(41)]
    cover = np.mean([box[x][0] <= 0.3 <= box[x][1] for x in k])
    assert cover >= 0.95


def test_pooled_points_per_confidence_threshold():
    answers = ([K.Answer(True, True, 3)] * 4 + [K.Answer(True, True, 1)] * 2 + [K.Answer(True, False, 2)] * 4
               + [K.Answer(False, True, 2)] * 1 + [K.Answer(False, False, None)] * 9)
    sc = K.class_score(answers, 1.0)
    assert (sc.n_in, sc.n_out) == (10, 10)
    by = {p.threshold: p for p in sc.points}
    assert [by[k].tpr for k in K.THRESHOLDS] == [0.4, 0.4, 0.6, 0.6, 1.0]
    assert [by[k].fpr for k in K.THRESHOLDS] == [0.0, 0.1, 0.1, 1.0, 1.0]
    assert all(p.fpr_lo <= p.fpr <= p.fpr_hi and p.tpr_lo <= p.tpr <= p.tpr_hi for p in sc.points)
    assert K.class_score([K.Answer(True, True)] * 5, 1.0).points == ()     # one side only: no point yet


def _class(mutant: bool, n: int, seed: int) -> K.ClassScore:
    """n simulated answers of best adversaries (threshold at the midpoint, confidence by distance) on the
    Laplace mean scenario: 'in' = f(D′) = 1."""
    s = check_setting("mean", "noise/laplace", mutant, 1.0)
    a, g = s.audit, np.random.default_rng(seed)
    kw = dict(epsilon=1.0, delta=0.0, override=a.mutant.override if mutant else None)
    coins = g.random(n) < 0.5
    x = np.where(coins, a.sampler(a.datasets[1], n, g, **kw), a.sampler(a.datasets[0], n, g, **kw)) - 0.5
    conf = np.where(abs(x) > 1.0, 3, np.where(abs(x) > 0.5, 2, 1))
    return K.class_score([K.Answer(bool(c), bool(v > 0), int(k)) for c, v, k in zip(coins, x, conf)], 1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_mutant_class_crosses_the_curve_and_a_calibrated_one_does_not(seed):
    broken, fine = _class(True, 600, seed), _class(False, 600, seed)
    assert broken.audit.rejected and broken.epsilon_lower_bound > 1.0
    assert "broken" in broken.sentence and "at least" in broken.sentence
    assert not fine.audit.rejected and fine.epsilon_lower_bound <= 1.0
    assert "Inside the promise" in fine.sentence


def test_the_lower_bound_is_the_harness_s_on_the_scores():
    sc = _class(True, 400, 9)
    # rebuild the scores from the points' counts, then run the harness directly
    by = {p.threshold: p for p in sc.points}
    counts_in = [by[3].k_in, by[2].k_in - by[3].k_in, by[1].k_in - by[2].k_in, by[-1].k_in - by[1].k_in,
                 by[-2].k_in - by[-1].k_in, sc.n_in - by[-2].k_in]
    counts_out = [by[3].k_out, by[2].k_out - by[3].k_out, by[1].k_out - by[2].k_out, by[-1].k_out - by[1].k_out,
                  by[-2].k_out - by[-1].k_out, sc.n_out - by[-2].k_out]
    levels = [3, 2, 1, -1, -2, -3]
    s_in = np.repeat(levels, counts_in).astype(float)
    s_out = np.repeat(levels, counts_out).astype(float)
    ref = audit(s_in, s_out, halfline_events([2.5, 1.5, 0.0, -1.5, -2.5]), epsilon=1.0, alpha=0.05)
    assert sc.audit == ref


def test_sentence_before_any_revealed_pair():
    assert "revealed answers so far" in K.class_score([], 1.0).sentence


def test_dashboard_figure_is_large_labelled_and_shows_the_class():
    s = check_setting("mean", "noise/laplace", True, 1.0)
    sc = _class(True, 300, 4)
    fig = dashboard_figure(s, sc)
    names = [t.name for t in fig.data]
    assert any("what ε = 1 allows" in n for n in names) and any("best possible adversary (exact" in n for n in names)
    assert "your class" in names and any("95 % boxes" in n for n in names)
    assert fig.layout.font.size >= FONT_SIZE >= 20
    assert "false-positive rate" in fig.layout.xaxis.title.text and "true-positive rate" in fig.layout.yaxis.title.text
    pts = next(t for t in fig.data if t.name == "your class")
    assert len(pts.x) == len(K.THRESHOLDS)
    assert len(dashboard_figure(s, K.class_score([], 1.0)).data) == 3      # no answers: curves only

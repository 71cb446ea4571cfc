"""Scenarios on declared audits, settings, releases and their display, and the best adversary's ROC."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from dpcore import registry
from dpcore.classroom import roc as R
from dpcore.classroom import scenarios as SC
from dpcore.errors import DPValueError
from dpcore.privacy.tradeoff import max_power_dp


def test_every_scenario_stands_on_declared_audits():
    keys = [s.key for s in SC.scenarios()]
    assert keys[:4] == ["mean", "count", "median", "histogram"] and SC.GENERIC in keys
    for sc in SC.scenarios():
        assert sc.audits and all(a in registry.audits() for a in sc.audits)
        assert sc.in_index in (0, 1) and sc.story.endswith("?")
    generic = SC.scenario(SC.GENERIC).audits
    assert "noise/laplace" in generic and "noise/gaussian-zcdp" not in generic   # a fixed-ρ sampler ignores ε


@pytest.mark.parametrize("args, what", [
    (("nope", "noise/laplace", False, 1.0), "scenario 'nope' is unknown"),
    (("median", "noise/laplace", False, 1.0), "not offered"),
    (("mean", "noise/laplace", False, 0.0), "ε = 0.0 must be"),
    (("mean", "noise/laplace", False, float("nan")), "ε = nan"),
    (("mean", "noise/laplace", False, 11), "ε = 11"),
    (("mean", "noise/laplace", False, "x"), "not a number"),
    (("count", "noise/gaussian", False, 1.0, 0.0), "δ = 0.0 must be in"),
    (("count", "noise/gaussian", False, 1.0, 0.5), "δ = 0.5"),
])
def test_bad_settings_are_refused_naming_the_field(args, what):
    with pytest.raises(DPValueError, match=what):
        SC.check_setting(*args)


def test_delta_applies_only_where_the_claim_has_one():
    assert SC.check_setting("mean", "noise/laplace", False, 1.0, 0.3).delta == 0.0
    assert SC.check_setting("count", "noise/gaussian", True, 2, 0.01) == SC.Setting("count", "noise/gaussian",
                                                                                    True, 2.0, 0.01)


def test_releases_come_from_the_coin_s_dataset_and_the_mutant_s_calibration():
    s = SC.check_setting("mean", "noise/laplace", False, 10.0)        # tiny noise: the release shows the coin
    g = np.random.default_rng(1)
    ins = [SC.draw_release(s, True, g)[0] for _ in range(50)]
    outs = [SC.draw_release(s, False, g)[0] for _ in range(50)]
    assert abs(np.median(ins) - 1.0) < 0.2 and abs(np.median(outs)) < 0.2    # "in" = D′ (f = 1) for noise/laplace
    cal = [SC.draw_release(SC.check_setting("mean", "noise/laplace", False, 1.0), False,
                           np.random.default_rng(7))[0]]
    mut = [SC.draw_release(SC.check_setting("mean", "noise/laplace", True, 1.0), False,
                           np.random.default_rng(7))[0]]
    assert mut[0] == pytest.approx(cal[0] / 2)                         # the mutant: half the Laplace scale


@pytest.mark.parametrize("sc", SC.scenarios()[:4], ids=lambda s: s.key)
def test_every_builtin_scenario_draws_and_displays(sc):
    for aid in sc.audits:
        rel = SC.draw_release(SC.check_setting(sc.key, aid, False, 1.0, 0.05), True, np.random.default_rng(3))
        shown = SC.display_release(sc.key, rel)
        assert len(shown) == max(1, len(sc.labels)) and all(text for _, text in shown)
        assert all(isinstance(v, float) for v in rel)


def test_display_rounds_only_the_shown_text():
    shown = SC.display_release("mean", [0.123456])
    assert shown == [("mean salary", "€51\u2009235")]                   # 50 000 + 10 000 × 0.123456
    assert SC.display_release("count", [-0.04]) == [("respondents earning over €100 000", "7.0 people")]
    assert SC.display_release(SC.GENERIC, [math.nan, 1.23456]) == [("output [1]", "⊥ (nothing released)"),
                                                                  ("output [2]", "1.235")]


def test_exact_laplace_roc_meets_the_curve_and_the_mutant_crosses():
    cal = R.best_roc(SC.check_setting("mean", "noise/laplace", False, 1.0))
    mut = R.best_roc(SC.check_setting("mean", "noise/laplace", True, 1.0))
    assert cal.exact and "exact" in cal.label and "Laplace scale 1" in cal.label
    bound = max_power_dp(cal.fpr, 1.0)
    assert np.all(cal.tpr <= bound + 1e-12)
    small = cal.fpr <= math.exp(-1) / 2                              # where the Laplace test attains e^ε α
    np.testing.assert_allclose(cal.tpr[small], math.e * cal.fpr[small], rtol=1e-9)
    assert np.interp(0.05, mut.fpr, mut.tpr) > max_power_dp(0.05, 1.0) + 0.2


def test_exact_gaussian_roc_is_the_gdp_curve():
    s = SC.check_setting("count", "noise/gaussian", False, 1.0, 0.05)
    r = R.best_roc(s)
    mu = s.audit.gdp_mu(1.0, 0.05)
    np.testing.assert_allclose(r.tpr, norm.cdf(norm.ppf(r.fpr) + mu), atol=1e-12)


@pytest.mark.parametrize("mutant", [False, True])
def test_closed_form_agrees_with_the_sampler(mutant):
    s = SC.check_setting("mean", "noise/laplace", mutant, 1.0)
    a = s.audit
    g = np.random.default_rng(5)
    kw = dict(epsilon=1.0, delta=0.0, override=a.mutant.override if mutant else None)
    fpr, tpr = R.empirical_roc(a.sampler(a.datasets[1], 200_000, g, **kw), a.sampler(a.datasets[0], 200_000, g, **kw))
    exact = R.best_roc(s)
    grid = np.linspace(0.01, 0.99, 50)
    assert np.max(np.abs(np.interp(grid, fpr, tpr) - np.interp(grid, exact.fpr, exact.tpr))) < 0.01


def test_estimated_rocs_say_so_and_order_the_mutant_above():
    for key, aid in (("median", "kng/median-exponential"), ("histogram", "histograms/laplace")):
        cal = R.best_roc(SC.check_setting(key, aid, False, 1.0))
        mut = R.best_roc(SC.check_setting(key, aid, True, 1.0))
        assert not cal.exact and "estimated from 100 000 draws" in cal.label and "best possible" in cal.label
        assert np.trapezoid(mut.tpr, mut.fpr) > np.trapezoid(cal.tpr, cal.fpr) + 0.03
        assert np.all(cal.tpr <= max_power_dp(cal.fpr, 1.0) + 0.01)     # within the estimate's error
    g = R.best_roc(SC.check_setting(SC.GENERIC, "noise/knorm-l2", False, 1.0))
    assert "threshold test on" in g.label and "not proven best" in g.label
    assert np.trapezoid(g.tpr, g.fpr) >= 0.5                            # oriented towards "in"


def test_estimated_curves_are_thinned_for_the_dashboard_without_moving():
    s = SC.check_setting("median", "kng/median-exponential", True, 1.0)
    r = R.best_roc(s)
    assert len(r.fpr) <= R.MAX_POINTS and r.fpr[0] == 0.0 and r.fpr[-1] == 1.0
    a = s.audit
    g_in, g_out = np.random.default_rng(R.ROC_SEED).spawn(2)
    kw = dict(epsilon=1.0, delta=0.0, override=a.mutant.override)
    stat = SC.scenario("median").statistic
    fpr, tpr = R.empirical_roc(stat(a.sampler(a.datasets[0], SC.ROC_DRAWS, g_in, **kw)),
                               stat(a.sampler(a.datasets[1], SC.ROC_DRAWS, g_out, **kw)))
    grid = np.linspace(0.001, 0.999, 300)
    assert np.max(np.abs(np.interp(grid, r.fpr, r.tpr) - np.interp(grid, *R.thin(fpr, tpr, 10 ** 9)))) < 2e-3
    f, t = R.thin(np.array([0, 0, 0.5, 0.5, 1]), np.array([0, 0.2, 0.6, 0.9, 1]))
    assert f.tolist() == [0, 0.5, 1] and t.tolist() == [0.2, 0.9, 1]        # the upper end of each vertical step

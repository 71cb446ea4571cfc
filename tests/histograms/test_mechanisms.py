"""Calibrations, configs, post-processing and the false-positive rate of the histogram mechanisms."""
import math
import time

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.mechanism import Release
from dpcore import histograms


def test_laplace_scale_is_2_over_eps_replace_one_and_1_over_eps_add_remove():
    c = histograms.calibrate_histogram(histograms.HistogramConfig(0.5, 16), (1,))
    assert (c.sensitivity, c.constant, c.neighbours) == (2.0, 4.0, "replace-one")
    c = histograms.calibrate_histogram(histograms.HistogramConfig(0.5, 16, neighbours="add/remove-one"), (1,))
    assert (c.sensitivity, c.constant, c.neighbours) == (1.0, 2.0, "add/remove-one")
    assert c.cost(1).epsilon == 0.5 and c.notion == "pure"


def test_threshold_tau_is_2_over_eps_log_p():
    t = histograms.SparseCounts.from_records([0, 0, 5], 64)
    r = histograms.release.threshold.release(t, histograms.ThresholdConfig(1.0, 64), rng=0)
    assert r.value.tau == pytest.approx(2 * math.log(64))
    r = histograms.release.threshold.release(t, histograms.ThresholdConfig(1.0, 64, neighbours="add/remove-one"), rng=0)
    assert r.value.tau == pytest.approx(math.log(64))                 # τ = b log p keeps the FP rate
    r = histograms.release.threshold.release(t, histograms.ThresholdConfig(2.0, 64, tau_rule="public q bound", q_bound=4), rng=0)
    assert r.value.tau == pytest.approx(math.log(16))


def test_noisy_q_is_charged_and_released():
    t = histograms.sparse_table(4096, 50, 500, rng=2)
    cfg = histograms.ThresholdConfig(1.0, 4096, tau_rule="noisy q", q_share=0.2)
    cal = histograms.calibrate_threshold(cfg, (1,))
    assert cal.cost(1).epsilon == 1.0                                 # total ε: ε_q + ε_h
    assert cal.params["epsilon_q"] == pytest.approx(0.2) and cal.constant == pytest.approx(2 / 0.8)
    r = histograms.release.threshold.release(t, cfg, rng=1)
    assert 1 <= r.value.q_hat <= 4096
    assert r.value.tau == pytest.approx(cal.constant * math.log(4096 / r.value.q_hat))
    assert any("q̂" in n for n in r.notes_of("output"))


def test_oracle_threshold_is_not_a_release_and_uses_the_true_q():
    t = histograms.sparse_table(4096, 64, 500, rng=2)
    b = histograms.oracle_threshold(t, histograms.ThresholdConfig(1.0, 4096), reps=3, rng=0)
    assert not isinstance(b, Release)
    np.testing.assert_allclose(b.tau, 2 * math.log(4096 / 64))


@pytest.mark.parametrize("kwargs, match", [
    (dict(epsilon=1.0, p=16, q_bound=3), "q_bound applies only"),
    (dict(epsilon=1.0, p=16, q_share=0.3), "q_share applies only"),
    (dict(epsilon=1.0, p=16, tau_rule="public q bound"), "needs q_bound"),
    (dict(epsilon=1.0, p=16, tau_rule="public q bound", q_bound=17), "q_bound = 17 is too large"),
    (dict(epsilon=1.0, p=16, tau_rule="noisy q", q_share=1.5), "q_share"),
    (dict(epsilon=1.0, p=2**30, sampler="dense"), "use sampler = 'sparse'"),
    (dict(epsilon=1.0, p=16, tau_rule="oracle"), "tau_rule"),
])
def test_threshold_config_refuses_bad_or_irrelevant_parameters(kwargs, match):
    with pytest.raises(DPValueError, match=match):
        histograms.ThresholdConfig(**kwargs)


def test_histogram_config_refusals():
    with pytest.raises(DPValueError, match="n is not public"):
        histograms.HistogramConfig(1.0, 16, neighbours="add/remove-one", postprocess="simplex")
    with pytest.raises(DPValueError, match="p = 1073741824 is too large"):
        histograms.HistogramConfig(1.0, 2**30)
    with pytest.raises(DPValueError, match="noise"):
        histograms.HistogramConfig(1.0, 16, noise="gaussian")


def test_postprocessing_gives_nonnegative_integers():
    t = histograms.SparseCounts.from_records(np.repeat(np.arange(5), [7, 0, 3, 1, 9]), 12)
    for post in ("clip-round", "simplex"):
        v = histograms.release.laplace.release(t, histograms.HistogramConfig(0.3, 12, postprocess=post), rng=4).value
        assert np.all(v >= 0) and np.all(v == np.round(v))
        if post == "simplex":
            assert v.sum() == t.n
    v = histograms.release.laplace.release(t, histograms.HistogramConfig(0.3, 12, noise="geometric"), rng=4).value
    assert np.all(v == np.round(v))
    s = histograms.release.threshold.release(t, histograms.ThresholdConfig(0.3, 12, postprocess="round"), rng=4).value
    assert np.all(s.values == np.round(s.values)) and np.all(s.values > 0)


def test_simplex_projection_is_the_euclidean_projection():
    g = np.random.default_rng(3)
    x = g.normal(0, 3, (4, 7))
    out = histograms.simplex_round(x, 10)
    assert np.all(out.sum(axis=1) == 10) and np.all(out >= 0)
    # the un-rounded projection: compare with a brute-force bisection on θ
    for row in x:
        lo, hi = row.min() - 20, row.max()
        for _ in range(200):
            th = (lo + hi) / 2
            lo, hi = (th, hi) if np.maximum(row - th, 0).sum() > 10 else (lo, th)
        h = np.maximum(row - th, 0)
        assert np.abs(histograms.simplex_round(row[None], 10)[0] - h).max() <= 1.0 + 1e-9


def test_clip_round_never_increases_cell_error():
    t = histograms.nlcs_shaped()
    raw = histograms.sample_histogram(t, histograms.calibrate_histogram(histograms.HistogramConfig(1.0, t.p), (1,)), 2, 0)
    clipped = np.maximum(np.round(raw), 0)
    d = t.to_dense()
    assert np.all(np.abs(clipped - d) <= np.abs(raw - d) + 0.5)


def test_false_positive_rate_is_one_over_2p_and_catches_a_threshold_without_log_p():
    # τ = (2/ε) log p: an empty cell survives w.p. 1/(2p), so ≈ (p − q)/(2p) ≈ 1/2 false positives per release.
    # A "threshold without its log p term" (τ = 0) is still post-processing of Laplace (so still ε-DP, no
    # privacy audit can reject it) — but it releases ≈ (p − q)/2 false positives, which this test catches.
    t = histograms.sparse_table(2**12, 40, 400, rng=5)
    reps = 4000
    ok = histograms.sample_threshold(t, histograms.calibrate_threshold(histograms.ThresholdConfig(1.0, t.p), (1,)), reps, 1)
    occupied = np.isin(ok.cells, t.cells)
    fp = np.bincount(ok.rep[~occupied], minlength=reps)
    expected = (t.p - t.q) / (2 * t.p)
    assert abs(fp.mean() - expected) < 5 * math.sqrt(expected / reps)
    assert histograms.survival_probability("laplace", 2.0, 2.0 * math.log(t.p)) == pytest.approx(1 / (2 * t.p))
    broken = histograms.calibrate_threshold(histograms.ThresholdConfig(1.0, t.p), (1,)).replace(params={"q_for_tau": t.p})   # τ = 0
    bad = histograms.sample_threshold(t, broken, 50, 2)
    fp_bad = np.bincount(bad.rep[~np.isin(bad.cells, t.cells)], minlength=50)
    assert fp_bad.mean() > 100 * expected


def test_sparse_sampler_at_p_2_30_is_fast_and_sorted():
    t = histograms.sparse_table(2**30, 10_000, 100_000, rng=3)
    cfg = histograms.ThresholdConfig(1.0, 2**30)
    histograms.release.threshold.release(t, cfg, rng=0)
    t0 = time.perf_counter()
    r = histograms.release.threshold.release(t, cfg, rng=1)
    assert time.perf_counter() - t0 < 2.0                   # benchmark: ~1 ms; loose bound on a shared machine
    assert np.all(np.diff(r.value.cells) > 0)
    assert any("running time" in w for w in r.notes_of("warning"))


def test_huge_epsilon_gives_the_true_counts():
    t = histograms.SparseCounts.from_records([0, 0, 3, 9], 10)
    for cfg in (histograms.HistogramConfig(1e9, 10), histograms.HistogramConfig(1e9, 10, noise="geometric")):
        np.testing.assert_allclose(histograms.release.laplace.release(t, cfg, rng=0).value, t.to_dense(), atol=1e-6)
    r = histograms.release.threshold.release(t, histograms.ThresholdConfig(1e9, 10, postprocess="round"), rng=0)
    np.testing.assert_array_equal(np.asarray(r.value), t.to_dense())


def test_dense_work_cap():
    t = histograms.SparseCounts.from_records([0], 2**20)
    with pytest.raises(DPValueError, match="exceeds the limit"):
        histograms.sample_histogram(t, histograms.calibrate_histogram(histograms.HistogramConfig(1.0, 2**20), (1,)), 100)


@pytest.mark.stat
def test_add_remove_neighbours_pass_their_audit_and_the_half_sensitivity_mutant_is_rejected():
    from dpcore.audit import run_audit
    from dpcore.histograms.declare import ADD_REMOVE_AUDIT
    assert not run_audit(ADD_REMOVE_AUDIT).result.rejected
    assert run_audit(ADD_REMOVE_AUDIT, mutant=True).result.rejected

"""Goodness of fit: per-cell noise against its exact law (with power checks), and the sparse sampler
against the naive all-cells mechanism (χ² on the number and locations of survivors, KS on their values)."""
import math

import numpy as np
import pytest
from dpcore import histograms
from scipy import stats


pytestmark = pytest.mark.stat


def _cal(**kw):
    return histograms.calibrate_threshold(histograms.ThresholdConfig(**kw), (1,))


def test_laplace_cells_ks_and_power():
    t = histograms.SparseCounts.from_records([0, 0, 0], 4)
    out = histograms.sample_histogram(t, histograms.calibrate_histogram(histograms.HistogramConfig(0.5, 4, noise="laplace"), (1,)), 5000, 1)
    z = (out - t.to_dense()).ravel()
    assert stats.kstest(z, stats.laplace(scale=4.0).cdf).pvalue > 1e-6
    assert stats.kstest(z, stats.laplace(scale=4.0 * 0.7).cdf).pvalue < 1e-6
    assert stats.kstest(z, stats.laplace(scale=4.0 * 1.3).cdf).pvalue < 1e-6


def _chi2_discrete(x, pmf, lo, hi):
    ks = np.arange(lo, hi + 1)
    obs = np.array([(x < lo).sum()] + [(x == k).sum() for k in ks] + [(x > hi).sum()], float)
    p = np.array([pmf(np.arange(-200, lo)).sum()] + list(pmf(ks)) + [pmf(np.arange(hi + 1, 200)).sum()])
    return stats.chisquare(obs, p / p.sum() * obs.sum()).pvalue


def test_geometric_cells_chi2_and_power():
    t = histograms.SparseCounts.from_records([1], 3)
    b = 2.0 / 1.0
    out = histograms.sample_histogram(t, histograms.calibrate_histogram(histograms.HistogramConfig(1.0, 3, noise="geometric"), (1,)), 10_000, 2)
    z = (out - t.to_dense()).ravel()

    def pmf(k, bb=b):
        a = math.exp(-1 / bb)
        return (1 - a) / (1 + a) * a ** np.abs(k)
    assert np.all(z == np.round(z))
    assert _chi2_discrete(z, pmf, -8, 8) > 1e-6
    assert _chi2_discrete(z, lambda k: pmf(k, 0.7 * b), -8, 8) < 1e-6


@pytest.mark.parametrize("noise", ["laplace", "geometric"])
def test_sparse_sampler_has_the_naive_law(noise):
    # small domain with τ = b·log(p/q_bound) moderate, so empty cells survive often enough to test
    t = histograms.SparseCounts.from_records([2, 2, 2, 7, 9, 9], 12)
    kw = dict(epsilon=1.0, p=12, noise=noise, tau_rule="public q bound", q_bound=4)
    reps = 40_000
    sp = histograms.sample_threshold(t, _cal(sampler="sparse", **kw), reps, 3)
    dn = histograms.sample_threshold(t, _cal(sampler="dense", **kw), reps, 4)
    # number of released cells per release: χ² two-sample (contingency)
    k = max(sp.nnz().max(), dn.nnz().max()) + 1
    table = np.array([np.bincount(sp.nnz(), minlength=k), np.bincount(dn.nnz(), minlength=k)])
    table = table[:, table.sum(axis=0) >= 10]
    assert stats.chi2_contingency(table).pvalue > 1e-6
    # which cells are released: χ² two-sample over the 12 cells
    cells = np.array([np.bincount(sp.cells, minlength=12), np.bincount(dn.cells, minlength=12)])
    assert stats.chi2_contingency(cells).pvalue > 1e-6
    # values of empty-cell survivors: KS two-sample, and against the exact tail law τ + (noise | noise > τ)
    empty = ~np.isin(sp.cells, t.cells)
    v_sp, v_dn = sp.values[empty], dn.values[~np.isin(dn.cells, t.cells)]
    tau = float(sp.tau[0])
    if noise == "laplace":
        assert stats.ks_2samp(v_sp, v_dn).pvalue > 1e-6
        assert stats.kstest(v_sp - tau, stats.expon(scale=2.0).cdf).pvalue > 1e-6
        assert stats.kstest(v_sp - tau, stats.expon(scale=1.4).cdf).pvalue < 1e-6
    else:
        lo, hi = int(v_sp.min()), int(np.quantile(v_sp, 0.99))
        both = np.array([[np.sum(v == j) for j in range(lo, hi + 1)] for v in (v_sp, v_dn)])
        assert stats.chi2_contingency(both[:, both.sum(axis=0) > 0]).pvalue > 1e-6
    # survivor count among empty cells: exact Binomial(p − q, P(noise > τ))
    fp = np.bincount(sp.rep[empty], minlength=reps)
    pi = float(histograms.survival_probability(noise, 2.0, tau))
    assert np.mean(fp) == pytest.approx((12 - t.q) * pi, abs=5 * math.sqrt((12 - t.q) * pi / reps))


def test_with_replacement_locations_fail_the_chi2():
    # power check: the broken (with replacement) sampler is told apart from the naive law at τ = 0
    t = histograms.SparseCounts.from_records([0, 0], 4)
    kw = dict(epsilon=1.0, p=4, tau_rule="public q bound", q_bound=4)
    bad = histograms.sample_threshold(t, _cal(**kw).replace(params={"locations": "with replacement"}), 40_000, 5)
    dn = histograms.sample_threshold(t, _cal(sampler="dense", **kw), 40_000, 6)
    table = np.array([np.bincount(bad.nnz(), minlength=5), np.bincount(dn.nnz(), minlength=5)])
    assert stats.chi2_contingency(table[:, table.sum(axis=0) > 0]).pvalue < 1e-6


def test_sparse_sampler_large_domain_matches_binomial_and_uniform_locations():
    # p = 2^20, q = 100, τ = b·log(p/q_bound) with q_bound = 2^6: ≈ p/(2·2^14) = 32 survivors per release
    t = histograms.sparse_table(2**20, 100, 1000, rng=7)
    cal = _cal(epsilon=1.0, p=2**20, tau_rule="public q bound", q_bound=2**6, noise="laplace")
    b = histograms.sample_threshold(t, cal, 2000, 8)
    empty = ~np.isin(b.cells, t.cells)
    pi = float(histograms.survival_probability("laplace", 2.0, b.tau[0]))
    fp = np.bincount(b.rep[empty], minlength=2000)
    M_ = 2**20 - 100
    assert stats.chisquare(*_binned(fp, stats.binom(M_, pi))).pvalue > 1e-6
    # locations: uniform over the empty cells (KS of cell index / p)
    assert stats.kstest(b.cells[empty] / 2**20, "uniform").pvalue > 1e-6
    # no duplicates within a release
    keys = b.rep * 2**20 + b.cells
    assert np.unique(keys).size == keys.size


def _binned(x, dist):
    lo, hi = int(dist.ppf(0.001)), int(dist.ppf(0.999))
    edges = np.arange(lo, hi + 2)
    obs = np.histogram(np.clip(x, lo, hi), bins=edges)[0].astype(float)
    p = np.diff(dist.cdf(edges - 1))
    p[0] += dist.cdf(lo - 1)
    p[-1] += dist.sf(hi)
    return obs, p / p.sum() * obs.sum()

"""Goodness of fit of the KNG samplers (fixed seeds, KS p > 1e-6, each with a power check).

Exact samplers are tested against exact CDFs; the MCMC samplers run thousands of vectorised chains
whose final states are tested against the exact 1-D law (median, quantile) or against densities
normalised on a fine grid (2-D linear and quantile regression, geometric median); too few sweeps
must fail the same test.
"""
import math

import numpy as np
import pytest
from scipy import stats

from dpcore import kng
from dpcore.kng import _exact
from dpcore.kng._location import exact_law
from tests.kng._helpers import mcmc_raw, prep, reg2

pytestmark = pytest.mark.stat
P_MIN = 1e-6


def _prep(problem, data, mech, eps=1.0, norm="linf", **kw):
    prob, P, cal, cfg = prep(problem, data, mech, eps, norm=norm, **kw)
    return (prob, P, cfg), cal


# ----------------------------------------------------------------------------- exact 1-D samplers
@pytest.mark.parametrize("n,window", [(300, None), (5000, None), (5000, 3)])
def test_quantile_kng_exact_sampler_ks(n, window):
    """Both paths: full sort (small n) and partition + window with lazily exact outer regions."""
    y = np.clip(np.random.default_rng(1).standard_t(3, size=n), -4, 4)
    y[:25] = 4.0  # ties and records at the boundary
    c = 0.5 if window is None else 0.05
    law = _exact.quantile_kng_pieces(np.sort(y), -4.0, 4.0, 0.3, c)
    g = np.random.default_rng(2)
    s = _exact.sample_quantile_kng(y, -4.0, 4.0, 0.3, c, 20_000, g, window=window)
    assert stats.kstest(s, law.cdf).pvalue > P_MIN
    wrong = _exact.quantile_kng_pieces(np.sort(y), -4.0, 4.0, 0.3, c * 0.6)  # power: a wider law fails
    assert stats.kstest(s, wrong.cdf).pvalue < P_MIN


def test_quantile_api_uses_calibrated_law():
    y = np.random.default_rng(3).normal(size=200)
    r = kng.sample("quantile", y, mechanism="kng", epsilon=0.5, tau=0.7, bounds=(-3, 3), size=20_000, rng=4)
    ys = np.sort(np.clip(y, -3, 3))
    law = _exact.quantile_kng_pieces(ys, -3, 3, 0.7, 0.25)  # c = ε/(2Δ), Δ = 1
    assert stats.kstest(r.value[:, 0], law.cdf).pvalue > P_MIN
    paper_like = _exact.quantile_kng_pieces(ys, -3, 3, 0.7, 0.5 / (4 * 0.3))  # eq. (3) constant
    assert stats.kstest(r.value[:, 0], paper_like.cdf).pvalue < P_MIN


@pytest.mark.parametrize("problem,tau", [("quantile", 0.2), ("median", 0.5)])
def test_exponential_mechanism_1d_exact_sampler_ks(problem, tau):
    y = np.random.default_rng(5).normal(size=100)
    kw = {"tau": tau} if problem == "quantile" else {}
    r = kng.sample(problem, y, mechanism="exponential", epsilon=1.0, bounds=(-3, 3), size=20_000, rng=6, **kw)
    P, cal = _prep(problem, y, "exponential", bounds=(-3, 3), **kw)
    law = exact_law(P[1], cal)
    assert stats.kstest(r.value[:, 0], law.cdf).pvalue > P_MIN
    # the density is exp(−c·ℓ) with ℓ = Σ|x−θ| for the median: check one value against the formula
    t = np.array([0.3])
    direct = -cal.constant * (np.abs(np.clip(y, -3, 3) - t).sum() if problem == "median" else
                                      np.sum((y - t) * (tau - (y - t <= 0))))
    assert law.logpdf(t)[0] - direct == pytest.approx(law.logpdf(np.array([-0.4]))[0] - (
        -cal.constant * (np.abs(np.clip(y, -3, 3) + 0.4).sum() if problem == "median" else
                                 np.sum((y + 0.4) * (tau - (y + 0.4 <= 0))))), abs=1e-9)
    wrong = _exact.quantile_exponential_pieces(np.sort(np.clip(y, -3, 3)), -3, 3, tau,
                                               cal.constant * (2 if problem == "median" else 1) * 1.5)
    assert stats.kstest(r.value[:, 0], wrong.cdf).pvalue < P_MIN


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_mean_kng_radius_is_gamma(norm):
    n, r, eps, d = 50, 2.0, 0.7, 3
    x = np.random.default_rng(7).uniform(-0.5, 0.5, (n, d))
    res = kng.sample("mean", x, mechanism="kng", epsilon=eps, radius=r, norm=norm, size=20_000, rng=8, noise="float")
    z = res.value - x.mean(axis=0)
    rad = {"l1": np.abs(z).sum(1), "l2": np.linalg.norm(z, axis=1), "linf": np.abs(z).max(1)}[norm]
    rate = n * eps / (2 * r)  # Remark 4.1 on R^d: exp(−(nε/(2r))‖θ − x̄‖_K)
    assert stats.kstest(rad, stats.gamma(d, scale=1 / rate).cdf).pvalue > P_MIN
    assert stats.kstest(rad, stats.gamma(d, scale=1.3 / rate).cdf).pvalue < P_MIN


def test_mean_exponential_exact_truncated_normal():
    n, r, eps = 20, 1.0, 1.0
    x = np.random.default_rng(9).uniform(0.5, 1.0, n)  # x̄ near the boundary of Θ = [−1, 1]
    res = kng.sample("mean", x, mechanism="exponential", epsilon=eps, radius=r, size=20_000, rng=10)
    assert res.diagnostics.mcmc is None  # exact sampler
    c = eps / (2 * (2 * r) ** 2)
    sd = 1 / math.sqrt(2 * c * n)
    m = x.mean()
    law = stats.truncnorm((-1 - m) / sd, (1 - m) / sd, loc=m, scale=sd)
    assert stats.kstest(res.value[:, 0], law.cdf).pvalue > P_MIN
    wrong = stats.truncnorm((-1 - m) / (0.7 * sd), (1 - m) / (0.7 * sd), loc=m, scale=0.7 * sd)
    assert stats.kstest(res.value[:, 0], wrong.cdf).pvalue < P_MIN


# ----------------------------------------------------------------------------- MCMC vs exact (1-D)
def _mcmc_raw(P, cal, mech, chains, sweeps, seed):
    prob, prepared, cfg = P
    return mcmc_raw(prob, prepared, cal, cfg, chains, sweeps, seed)


def _logpdf(P, cal):
    prob, prepared, _ = P
    return lambda t: prob.log_density(prepared, cal, t)


@pytest.mark.parametrize("problem,mech,kw", [
    ("median", "kng", {}),
    ("quantile", "kng", {"tau": 0.2}),
    ("quantile", "exponential", {"tau": 0.7}),
])
def test_mcmc_matches_exact_1d_law(problem, mech, kw):
    y = np.random.default_rng(11).normal(size=150)
    P, cal = _prep(problem, y, mech, bounds=(-3, 3), **kw)
    law = exact_law(P[1], cal)
    draws, diag = _mcmc_raw(P, cal, mech, 2000, 300, 12)
    assert stats.kstest(draws[:, 0], law.cdf).pvalue > P_MIN
    assert 0.3 < diag.acceptance < 0.6 and diag.max_rhat < 1.1 and diag.min_ess > 1000
    few, _ = _mcmc_raw(P, cal, mech, 2000, 4, 12)  # 4 sweeps: still near the start
    assert stats.kstest(few[:, 0], law.cdf).pvalue < P_MIN
    # the public API path: sampler="mcmc" releases the chains' last states
    r = kng.sample(problem, y, mechanism=mech, epsilon=1.0, bounds=(-3, 3), size=300, rng=13, sampler="mcmc",
                   n_sweeps=1000, **kw)
    assert r.released and r.diagnostics.mcmc is not None and stats.kstest(r.value[:, 0], law.cdf).pvalue > P_MIN


# ----------------------------------------------------------------------------- MCMC vs grid (2-D)
def _grid_marginal_cdfs(logpdf, lo, hi, m=601):
    """Marginal CDFs of a 2-D density on [lo, hi]² normalised on an m × m grid of cell centres."""
    edges = np.linspace(lo, hi, m + 1)
    ctr = 0.5 * (edges[1:] + edges[:-1])
    T1, T2 = np.meshgrid(ctr, ctr, indexing="ij")
    lp = logpdf(np.column_stack([T1.ravel(), T2.ravel()])).reshape(m, m)
    w = np.exp(lp - np.max(lp[np.isfinite(lp)]))
    w /= w.sum()
    cdfs = []
    for marg in (w.sum(axis=1), w.sum(axis=0)):
        cum = np.concatenate([[0.0], np.cumsum(marg)])
        cdfs.append(lambda t, cum=cum: np.interp(t, edges, cum))
    return cdfs


def _check_2d(draws, cdfs, expect_pass=True):
    ps = [stats.kstest(draws[:, j], cdfs[j]).pvalue for j in range(2)]
    if expect_pass:
        assert min(ps) > P_MIN, ps
    else:
        assert min(ps) < P_MIN, ps


_reg2 = reg2


@pytest.mark.parametrize("problem,mech,norm", [
    ("linear_regression", "kng", "linf"),
    ("linear_regression", "kng", "l2"),
    ("linear_regression", "exponential", "linf"),
    ("quantile_regression", "kng", "linf"),
    ("quantile_regression", "exponential", "linf"),
])
def test_regression_mcmc_matches_grid_density(problem, mech, norm):
    X, y = _reg2(40, 14)
    kw = {"tau": 0.5} if problem == "quantile_regression" else {}
    P, cal = _prep(problem, (X, y), mech, norm=norm, **kw)
    cdfs = _grid_marginal_cdfs(_logpdf(P, cal), -1.0, 1.0)
    draws, diag = _mcmc_raw(P, cal, mech, 2000, 400, 15)
    _check_2d(draws, cdfs)
    assert 0.3 < diag.acceptance < 0.6 and diag.max_rhat < 1.1
    few, _ = _mcmc_raw(P, cal, mech, 2000, 2, 15)
    _check_2d(few, cdfs, expect_pass=False)


def test_geometric_median_mcmc_matches_grid_density():
    x = np.random.default_rng(16).normal(size=(30, 2)) * 0.5
    P, cal = _prep("median", x, "kng", norm="l2", bounds=(-1.5, 1.5))
    cdfs = _grid_marginal_cdfs(_logpdf(P, cal), -1.5, 1.5, m=401)
    draws, diag = _mcmc_raw(P, cal, "kng", 2000, 300, 17)
    _check_2d(draws, cdfs)
    few, _ = _mcmc_raw(P, cal, "kng", 2000, 3, 17)
    _check_2d(few, cdfs, expect_pass=False)


def test_batched_suffstats_sampler_matches_grid_density():
    """The simulation entry point (one chain per replicate, replicates = copies of one dataset)."""
    X, y = _reg2(40, 18)
    P, cal = _prep("linear_regression", (X, y), "kng")
    cdfs = _grid_marginal_cdfs(_logpdf(P, cal), -1.0, 1.0)
    R = 2000
    res = kng.sample_linear_regression_suffstats(np.broadcast_to(X.T @ X, (R, 2, 2)), np.broadcast_to(X.T @ y, (R, 2)),
                                                 40, mechanism="kng", epsilon=1.0, n_sweeps=400, rng=19)
    _check_2d(res.theta, cdfs)
    assert np.median(res.replicate_rhat) < 1.1 and res.diagnostics.acceptance > 0.3


def test_long_chains_rhat_and_ess(monkeypatch):
    """The release path with a few long coordinate-wise chains: split R-hat < 1.01, large ESS, acceptance ≈ 0.44.

    Linear regression now samples exactly and its MCMC (fallback, or sampler="mcmc") is preconditioned; the
    coordinate-wise chain is forced here to keep testing it in the release path."""
    from dpcore.kng._regression import LinearRegression

    monkeypatch.setattr(LinearRegression, "mcmc_kind", lambda self, P, cfg: "coordinate")
    X, y = _reg2(200, 20)
    r = kng.sample("linear_regression", (X, y), mechanism="kng", epsilon=1.0, size=16, rng=21, n_sweeps=4000,
                   sampler="mcmc")
    d = r.diagnostics.mcmc
    assert r.released and d.max_rhat < 1.01 and d.min_ess > 1000 and abs(d.acceptance - 0.44) < 0.06


def test_banded_quantile_regression_kng_matches_grid_density(monkeypatch):
    """n = 1200 uses the banded target (re-basing, exact fallback for large moves) in the release path's
    coordinate-wise MCMC (forced: smaller releases use the preconditioned chain)."""
    from dpcore.kng import _targets
    from dpcore.kng._regression import QuantileRegression

    monkeypatch.setattr(QuantileRegression, "mcmc_kind", lambda self, P, cfg: "coordinate")

    X, y = _reg2(1200, 22)
    P, cal = _prep("quantile_regression", (X, y), "kng", tau=0.5)
    assert isinstance(_targets.quantile_regression_target(P[1].data["X"][None], P[1].data["y"][None], 0.5, "kng",
                                                          cal.constant, "linf"),
                      _targets.BandedQuantileRegressionTarget)
    th = P[1].nonprivate
    h, m = (0.08, 0.25), 241
    grid_lp = _logpdf(P, cal)  # noqa: E731
    edges = [np.linspace(th[k] - h[k], th[k] + h[k], m + 1) for k in range(2)]
    ctr = [0.5 * (e[1:] + e[:-1]) for e in edges]
    T1, T2 = np.meshgrid(*ctr, indexing="ij")
    lp = grid_lp(np.column_stack([T1.ravel(), T2.ravel()])).reshape(m, m)
    assert lp[[0, -1], :].max() < lp.max() - 30 and lp[:, [0, -1]].max() < lp.max() - 30  # window holds the mass
    w = np.exp(lp - lp.max())
    w /= w.sum()
    cdfs = [lambda t, e=edges[0], c=np.concatenate([[0], np.cumsum(w.sum(1))]): np.interp(t, e, c),
            lambda t, e=edges[1], c=np.concatenate([[0], np.cumsum(w.sum(0))]): np.interp(t, e, c)]
    draws, diag = _mcmc_raw(P, cal, "kng", 600, 300, 23)
    _check_2d(draws, cdfs)
    few, _ = _mcmc_raw(P, cal, "kng", 600, 2, 23)
    _check_2d(few, cdfs, expect_pass=False)


def test_box_banded_quantile_regression_exponential_matches_grid_density(monkeypatch):
    """n = 2400 uses the box-banded target (slices, re-basing, exact fallback) for the exponential mechanism
    (the coordinate-wise MCMC, forced: at this size a release would use the preconditioned chain)."""
    from dpcore.kng import _targets
    from dpcore.kng._regression import QuantileRegression

    monkeypatch.setattr(QuantileRegression, "mcmc_kind", lambda self, P, cfg: "coordinate")

    X, y = _reg2(2400, 24)
    P, cal = _prep("quantile_regression", (X, y), "exponential", tau=0.5)
    assert isinstance(_targets.quantile_regression_target(P[1].data["X"][None], P[1].data["y"][None], 0.5, "exponential",
                                                          cal.constant, "linf"),
                      _targets.BoxBandedQuantileRegressionTarget)
    th = P[1].nonprivate
    h, m = (0.2, 0.4), 241
    edges = [np.linspace(th[k] - h[k], th[k] + h[k], m + 1) for k in range(2)]
    ctr = [0.5 * (e[1:] + e[:-1]) for e in edges]
    T1, T2 = np.meshgrid(*ctr, indexing="ij")
    lp = _logpdf(P, cal)(np.column_stack([T1.ravel(), T2.ravel()])).reshape(m, m)
    assert lp[[0, -1], :].max() < lp.max() - 30 and lp[:, [0, -1]].max() < lp.max() - 30  # window holds the mass
    w = np.exp(lp - lp.max())
    w /= w.sum()
    cdfs = [lambda t, e=edges[0], c=np.concatenate([[0], np.cumsum(w.sum(1))]): np.interp(t, e, c),
            lambda t, e=edges[1], c=np.concatenate([[0], np.cumsum(w.sum(0))]): np.interp(t, e, c)]
    draws, diag = _mcmc_raw(P, cal, "exponential", 300, 150, 25)
    _check_2d(draws, cdfs)
    assert 0.3 < diag.acceptance < 0.6
    few, _ = _mcmc_raw(P, cal, "exponential", 300, 3, 25)
    _check_2d(few, cdfs, expect_pass=False)


@pytest.mark.stat
def test_objective_perturbation_1d_matches_exact_law():
    """d = 1: θ = clip((2Xᵀy − β)/(2XᵀX + γ), ±B) with β ~ Laplace(2Δ/ε), Δ = 4(1+B): an exact law
    (two point masses at ±B plus a Laplace density between). Chi-square over bins, power check ×1.3."""
    eps, B, n, N = 1.0, 1.0, 40, 20_000
    g = np.random.default_rng(7)
    X = g.uniform(-1, 1, (n, 1))
    y = np.clip(0.3 * X[:, 0] + 0.2 * g.normal(size=n), -1, 1)
    A, c = float(X[:, 0] @ X[:, 0]), float(X[:, 0] @ y)
    gamma = 2.0 / math.expm1(eps / 2)
    H = 2 * A + gamma
    theta = kng.sample_linear_regression_suffstats(np.full((N, 1, 1), A), np.full((N, 1), c), n,
                                                   mechanism="objective_perturbation", epsilon=eps, B=B,
                                                   rng=8).theta[:, 0]
    edges = np.r_[-np.inf, np.linspace(-B + 1e-9, B - 1e-9, 21), np.inf]

    def expected(scale_factor):
        lap = stats.laplace(scale=scale_factor * 2 * 4 * (1 + B) / eps)
        cdf = lambda t: np.where(np.isinf(t), (t > 0).astype(float), lap.sf(2 * c - t * H))  # P(θ ≤ t)
        return N * np.diff(cdf(edges))

    counts = np.histogram(theta, bins=edges)[0]
    assert stats.chisquare(counts, expected(1.0)).pvalue > 1e-6
    assert stats.chisquare(counts, expected(1.3)).pvalue < 1e-6

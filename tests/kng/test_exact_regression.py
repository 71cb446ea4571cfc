"""The exact linear-regression samplers (dpcore.kng._exact_regression): KNG's K-norm law mapped back and the
exponential mechanism's restricted Gaussian, against densities normalised on a fine grid (d = 2, KS on the
marginals and on two oblique projections, each with a power check), against the MCMC samplers, at huge ε,
and the fallback when rejection is hopeless."""
import numpy as np
import pytest
from scipy import stats

from dpcore import kng
from dpcore.kng import _exact_regression as ex
from tests.kng._helpers import PROJ, grid_projection_cdfs, mcmc_raw, prep, reg2

pytestmark = pytest.mark.stat
P_MIN = 1e-6




def _ks(draws, cdfs):
    return [stats.kstest(draws @ v, cdf).pvalue for v, cdf in zip(PROJ, cdfs)]


def _collinear(n, seed, rho=0.98):
    g = np.random.default_rng(seed)
    z = g.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    X = np.clip(z / 2.5, -1, 1)
    y = np.clip(0.3 * X[:, 0] - 0.1 * X[:, 1] + 0.3 * g.normal(size=n), -1, 1)
    return X, y


CASES = [("kng", "linf", "uniform"), ("kng", "l2", "uniform"), ("kng", "l1", "uniform"),
         ("exponential", "linf", "uniform"), ("kng", "linf", "collinear"), ("exponential", "linf", "collinear")]


@pytest.mark.parametrize("mech,norm,design", CASES)
def test_exact_law_matches_grid_density(mech, norm, design):
    """20 000 draws of the release (exact sampler, no MCMC diagnostics) vs the grid density of the target;
    the same draws must fail against the law with the density constant × 1.5 (power)."""
    X, y = reg2(40, 14) if design == "uniform" else _collinear(60, 3)
    prob, P, cal, cfg = prep("linear_regression", (X, y), mech, 1.0, norm=norm)
    r = kng.sample("linear_regression", (X, y), mechanism=mech, epsilon=1.0, norm=norm, size=20_000, rng=5)
    assert r.released and r.diagnostics.mcmc is None and r.diagnostics.values["sampler"] == "exact rejection sampler"
    # sampler="auto": the public statement covers the possible MCMC fallback whatever ran (issue 17, item 6)
    assert r.calibration.note == kng.FALLBACK_NOTE and r.notes_of("approximate") == (kng.FALLBACK_NOTE,)
    assert np.all(np.abs(r.value).sum(axis=1) <= 1.0)  # Θ = {‖θ‖₁ ≤ 1}, x_bound = y_bound = 1
    cdfs = grid_projection_cdfs(lambda t: prob.log_density(P, cal, t))
    assert min(_ks(r.value, cdfs)) > P_MIN, _ks(r.value, cdfs)
    wrong = cal.replace(constant=1.5 * cal.constant)
    bad = grid_projection_cdfs(lambda t: prob.log_density(P, wrong, t))
    assert min(_ks(r.value, bad)) < P_MIN


@pytest.mark.parametrize("mech", ["kng", "exponential"])
def test_exact_law_matches_the_mcmc_samplers(mech):
    """Two-sample KS: exact draws vs the release path's preconditioned chains and the simulations' batched
    coordinate-wise chains (both MCMC, same target)."""
    X, y = reg2(40, 18)
    prob, P, cal, cfg = prep("linear_regression", (X, y), mech, 1.0)
    exact = kng.sample("linear_regression", (X, y), mechanism=mech, epsilon=1.0, size=4000, rng=7).value
    pre, diag = mcmc_raw(prob, P, cal, cfg, 2000, 300, 8)
    assert diag.max_rhat < 1.1
    R = 2000
    coord = kng.sample_linear_regression_suffstats(np.broadcast_to(X.T @ X, (R, 2, 2)),
                                                   np.broadcast_to(X.T @ y, (R, 2)), 40, mechanism=mech,
                                                   epsilon=1.0, n_sweeps=400, rng=9).theta
    for other in (pre, coord):
        ps = [stats.ks_2samp(exact @ v, other @ v).pvalue for v in PROJ]
        assert min(ps) > P_MIN, ps


@pytest.mark.parametrize("mech,norm", [("kng", "linf"), ("kng", "l1"), ("kng", "l2"), ("exponential", "linf")])
def test_huge_epsilon_gives_ols(mech, norm):
    X, y = reg2(200, 3)
    r = kng.sample("linear_regression", (X, y), mechanism=mech, epsilon=1e9, norm=norm, size=50, rng=1)
    ols = np.linalg.solve(X.T @ X, X.T @ y)
    assert r.released and np.max(np.abs(r.value - ols)) < 1e-3


def test_unit_law_and_radius():
    """The KNG map θ = θ̂ + (2A)⁻¹g: 2A(θ − θ̂) has ‖·‖∞ ~ Gamma(d, 1/c) (polar decomposition)."""
    X, y = reg2(500, 4)
    A, b = X.T @ X, X.T @ y
    law = ex.linear_law(A, b, "kng", 0.7, "linf")
    th = law.draw(20_000, np.random.default_rng(2))
    g = 2.0 * (th - law.theta_hat) @ A
    r = np.abs(g).max(axis=1)
    assert stats.kstest(r, stats.gamma(2, scale=1 / 0.7).cdf).pvalue > P_MIN
    assert stats.kstest(r, stats.gamma(2, scale=1.2 / 0.7).cdf).pvalue < P_MIN
    assert np.allclose(law.theta_hat, np.linalg.solve(A, b))


def test_stopping_looks_at_indicators_only_and_counts():
    X, y = reg2(40, 14)
    out = ex.sample_linear_exact(X.T @ X, X.T @ y, "kng", 0.1, "linf", 1.0, 500, np.random.default_rng(3))
    assert not out.missing.any() and out.trials >= 500 and 0 < out.acceptance <= 1
    assert np.all(np.abs(out.values).sum(axis=1) <= 1.0)


def test_fallback_to_mcmc_when_the_fit_is_far_outside_theta():
    """θ̂ = 1 (x ≡ 1, y ≡ 1) far outside Θ = [−0.05, 0.05] at large ε: the rejection sampler gives up, the
    preconditioned MCMC fills the draws; which sampler ran is data, said only in the non-private diagnostics —
    the public calibration and notes are the plan's (exact or MCMC: approximately private) whatever ran."""
    X, y = np.ones((200, 1)), np.ones(200)
    r = kng.sample("linear_regression", (X, y), mechanism="kng", epsilon=1e3, B=0.05, size=2, rng=4)
    assert r.diagnostics.values["sampler"] == "MCMC (fallback)" and "MCMC fallback" in r.diagnostics.values
    assert [(n.kind, n.text) for n in r.notes] == [("approximate", kng.FALLBACK_NOTE)]
    assert r.calibration.note == kng.FALLBACK_NOTE and r.diagnostics.mcmc is not None
    inside = kng.sample("linear_regression", (X, 0.01 * y), mechanism="kng", epsilon=1e3, B=0.05, size=2, rng=4)
    assert inside.diagnostics.values["sampler"] == "exact rejection sampler"
    assert inside.notes == r.notes and inside.calibration == r.calibration and inside.cost == r.cost
    assert r.released and np.allclose(r.value, 0.05, atol=1e-3)  # the law piles up at the boundary θ = B
    assert r.cost == r.calibration.cost(2)


def test_exact_only_withholds_instead_of_falling_back():
    X, y = np.ones((200, 1)), np.ones(200)
    r = kng.sample("linear_regression", (X, y), mechanism="kng", epsilon=1e3, B=0.05, size=2, rng=4,
                   sampler="exact")
    assert not r.released and np.isnan(r.value).all() and r.notes_of("withheld")
    assert r.cost == r.calibration.cost(2) and r.diagnostics.mcmc is None


@pytest.mark.parametrize("mech", ["kng", "exponential"])
def test_singular_design_uses_the_uniform_proposal_and_matches_the_grid(mech):
    """Two identical columns: XᵀX is singular, the unrestricted law improper — the uniform-on-Θ rejection
    sampler alone draws the exact law on Θ (grid KS with a power check)."""
    x = np.random.default_rng(5).uniform(-1, 1, 30)
    X, y = np.c_[x, x], np.clip(0.4 * x + 0.2 * np.random.default_rng(6).normal(size=30), -1, 1)
    assert ex.linear_law(X.T @ X, X.T @ y, mech, 1.0, "linf") is None
    prob, P, cal, cfg = prep("linear_regression", (X, y), mech, 1.0)
    r = kng.sample("linear_regression", (X, y), mechanism=mech, epsilon=1.0, size=20_000, rng=6)
    assert r.released and r.diagnostics.values["sampler"] == "exact rejection sampler" and r.diagnostics.mcmc is None
    cdfs = grid_projection_cdfs(lambda t: prob.log_density(P, cal, t))
    assert min(_ks(r.value, cdfs)) > P_MIN, _ks(r.value, cdfs)
    bad = grid_projection_cdfs(lambda t: prob.log_density(P, cal.replace(constant=2.0 * cal.constant), t))
    assert min(_ks(r.value, bad)) < P_MIN


def test_wide_law_switches_to_the_uniform_proposal():
    """n = 8, d = 2 at ε = 0.1: the K-norm proposal almost never lands in Θ; the uniform one does, exactly."""
    X, y = reg2(8, 2)
    prob, P, cal, cfg = prep("linear_regression", (X, y), "kng", 0.1, B=0.2)
    out = ex.sample_linear_exact(X.T @ X, X.T @ y, "kng", cal.constant, "linf", 0.2, 10_000, np.random.default_rng(1),
                                 max_trials=200_000)
    assert not out.missing.any() and out.from_uniform > 9_000
    cdfs = grid_projection_cdfs(lambda t: prob.log_density(P, cal, t), -0.2, 0.2)
    assert min(_ks(out.values, cdfs)) > P_MIN


def test_too_many_draws_for_the_fallback_are_withheld_not_an_error():
    """The fallback runs one chain per draw (≤ 5 000): more draws are withheld with a note, cost charged."""
    X, y = np.ones((200, 1)), np.ones(200)
    r = kng.sample("linear_regression", (X, y), mechanism="kng", epsilon=1e3, B=0.05, size=6000, rng=4)
    assert not r.released and np.isnan(r.value).all() and r.cost == r.calibration.cost(6000)
    assert any("at most 5000" in t for t in r.notes_of("withheld"))

"""dpcore.mcmc.preconditioned_metropolis: full-vector adaptive Metropolis (+ parallel tempering), the MCMC of
quantile regression's releases. Chain laws against exact / grid densities in d = 2, on a deliberately collinear
design, each with a power check (too few sweeps, or a wrong law, must fail the same test)."""
import numpy as np
import pytest
from scipy import stats

from dpcore._validation import DPValueError
from dpcore.mcmc import metropolis_within_gibbs, preconditioned_metropolis
from tests.kng._helpers import PROJ, grid_projection_cdfs, mcmc_raw, prep

pytestmark = pytest.mark.stat
P_MIN = 1e-6


def _ridge(rho=0.9999):
    S = np.array([[1.0, rho], [rho, 1.0]])
    P = np.linalg.inv(S)
    return S, (lambda th: -0.5 * np.einsum("ci,ij,cj->c", th, P, th))


@pytest.mark.parametrize("moves,target", [("directions", 0.44), ("vector", 0.3)])
def test_ridge_gaussian_mixes_where_coordinate_moves_do_not(moves, target):
    """corr 0.9999 (axis ratio 141): the preconditioned chain is a N(0, S) sampler; the coordinate one is stuck."""
    S, f = _ridge()
    r = preconditioned_metropolis(f, np.zeros((1000, 2)), n_sweeps=600, rng=1, step_size=0.1, moves=moves)
    for v in PROJ:
        sd = np.sqrt(v @ S @ v)
        assert stats.kstest(r.final @ v, stats.norm(0, sd).cdf).pvalue > P_MIN
    thin = np.sqrt(PROJ[3] @ S @ PROJ[3])  # power: the thin direction's sd × 1.5 is refuted
    assert stats.kstest(r.final @ PROJ[3], stats.norm(0, 1.5 * thin).cdf).pvalue < P_MIN
    assert r.diagnostics.max_rhat < 1.05 and abs(r.diagnostics.acceptance - target) < 0.1
    c = metropolis_within_gibbs(f, np.zeros((500, 2)), n_sweeps=600, rng=1, step_size=0.1)
    assert stats.kstest(c.final[:, 0], stats.norm(0, 1).cdf).pvalue < P_MIN


def test_too_few_sweeps_fail_the_same_test():
    S, f = _ridge()
    r = preconditioned_metropolis(f, np.zeros((500, 2)), n_sweeps=6, rng=1, step_size=0.1)
    assert stats.kstest(r.final[:, 0], stats.norm(0, 1).cdf).pvalue < P_MIN




def _collinear(n, seed, rho=0.98):
    g = np.random.default_rng(seed)
    z = g.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    X = np.clip(z / 2.5, -1, 1)
    y = np.clip(0.3 * X[:, 0] - 0.1 * X[:, 1] + 0.3 * g.normal(size=n), -1, 1)
    return X, y


@pytest.mark.parametrize("mech,eps", [("kng", 1.0), ("exponential", 1.0), ("kng", 20.0)])
def test_quantile_regression_chains_match_grid_density_on_a_collinear_design(mech, eps):
    """Release-path chains (preconditioned; KNG with 3 and 5 temperatures) vs the grid density of the
    target on a design whose two predictors have correlation 0.98; 2 sweeps must fail."""
    X, y = _collinear(40, 3)
    prob, P, cal, cfg = prep("quantile_regression", (X, y), mech, eps, tau=0.5)
    assert prob.mcmc_kind(P, cfg) == "preconditioned"
    assert len(prob.temperatures(P, cfg)) == {("kng", 1.0): 3, ("exponential", 1.0): 1, ("kng", 20.0): 5}[mech, eps]
    cdfs = grid_projection_cdfs(lambda t: prob.log_density(P, cal, t), -1.0, 1.0)
    draws, diag = mcmc_raw(prob, P, cal, cfg, 1000, 300, 11)
    ps = [stats.kstest(draws @ v, cdf).pvalue for v, cdf in zip(PROJ, cdfs)]
    assert min(ps) > P_MIN, ps
    assert diag.max_rhat < 1.1
    few, _ = mcmc_raw(prob, P, cal, cfg, 1000, 2, 11)
    assert min(stats.kstest(few @ v, cdf).pvalue for v, cdf in zip(PROJ, cdfs)) < P_MIN


def test_tempering_crosses_between_modes():
    """Two well-separated equal modes: without tempering each chain stays in the mode it finds first (R-hat
    fails or the weights are wrong); with a public ladder the cold chains' law is the exact mixture."""
    def f(th):
        a = -0.5 * np.sum((th - 0.6) ** 2, axis=1) / 0.05 ** 2
        b = -0.5 * np.sum((th + 0.6) ** 2, axis=1) / 0.05 ** 2
        return np.logaddexp(a, b)

    def mix_cdf(t):  # θ₁ + θ₂ ~ ½N(1.2, 2·0.05²) + ½N(−1.2, 2·0.05²)
        s = 0.05 * np.sqrt(2)
        return 0.5 * stats.norm(1.2, s).cdf(t) + 0.5 * stats.norm(-1.2, s).cdf(t)

    init = np.full((400, 2), 0.6)
    cold = preconditioned_metropolis(f, init, n_sweeps=400, rng=2, step_size=0.05, lower=-1, upper=1)
    assert stats.kstest(cold.final.sum(axis=1), mix_cdf).pvalue < P_MIN
    betas = np.geomspace(1.0, 1e-3, 6)
    pt = preconditioned_metropolis(f, init, n_sweeps=400, rng=2, step_size=0.05, lower=-1, upper=1,
                                   temperatures=betas)
    assert stats.kstest(pt.final.sum(axis=1), mix_cdf).pvalue > P_MIN
    assert pt.diagnostics.swap_rates.shape == (5,) and np.all(pt.diagnostics.swap_rates > 0.05)


def test_chains_with_their_own_generators_do_not_depend_on_the_batch():
    """Chain c uses rng[c] only and adapts on its own history: chain 0 is bitwise the same alone or batched."""
    from dpcore._rng import spawn

    _, f = _ridge(0.9)
    gens = spawn(7, 3)
    batched = preconditioned_metropolis(f, np.zeros((3, 2)), n_sweeps=200, rng=gens, step_size=0.3,
                                        temperatures=(1.0, 0.3))
    alone = preconditioned_metropolis(f, np.zeros((1, 2)), n_sweeps=200, rng=spawn(7, 3)[:1], step_size=0.3,
                                      temperatures=(1.0, 0.3))
    assert np.array_equal(batched.final[0], alone.final[0])


def test_constraints_are_respected_and_inputs_validated():
    _, f = _ridge(0.9)
    r = preconditioned_metropolis(f, np.zeros((50, 2)), n_sweeps=200, rng=3, step_size=1.0, l1_radius=0.5)
    assert np.all(np.abs(r.trace).sum(axis=2) <= 0.5 + 1e-12)
    with pytest.raises(DPValueError, match="temperatures"):
        preconditioned_metropolis(f, np.zeros((2, 2)), n_sweeps=10, rng=1, temperatures=(0.5, 1.0))
    with pytest.raises(DPValueError, match="precond"):
        preconditioned_metropolis(f, np.zeros((2, 2)), n_sweeps=10, rng=1, precond=[[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(DPValueError, match="l1"):
        preconditioned_metropolis(f, np.ones((2, 2)), n_sweeps=10, rng=1, l1_radius=1.0)

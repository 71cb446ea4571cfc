"""Tests for dpcore.mcmc: the vectorised Metropolis-within-Gibbs sampler and its diagnostics.

Goodness-of-fit tests (``stat``) run thousands of independent chains on targets whose law is
known exactly and KS/chi-square test the final states (p > 1e-6, fixed seeds); each has a power
check: the same test with too few sweeps must fail.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore._rng import spawn
from dpcore._validation import DPValueError
from dpcore.mcmc import (
    MCMCCancelled,
    MCMCDiagnostics,
    MCMCResult,
    acceptance_rate,
    effective_sample_size,
    metropolis_within_gibbs,
    per_chain_rhat_ess,
    split_rhat,
)

P_MIN = 1e-6


# ----------------------------------------------------------------------------- helpers
def _quad_problem(d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((d, d))
    A = M @ M.T / d + np.eye(d)
    b = rng.standard_normal(d)
    return A, b


class QuadIncremental:
    """log p(θ) = −½ θᵀAθ + bᵀθ with the gradient state g = θA and logp maintained in O(d) per move."""

    def __init__(self, A, b):
        self.A, self.b = A, b

    def init(self, theta):
        g = theta @ self.A
        lp = -0.5 * np.einsum("cd,cd->c", theta, g) + theta @ self.b
        return {"g": g, "lp": lp}, lp.copy()

    def propose(self, state, theta, j, delta):
        lpn = state["lp"] - delta * (state["g"][:, j] - self.b[j]) - 0.5 * self.A[j, j] * delta * delta
        return lpn, lpn

    def commit(self, state, j, delta, accept, pending):
        state["g"] += (delta * accept)[:, None] * self.A[j]
        np.copyto(state["lp"], pending, where=accept)
        return state


def _quad_plain(A, b):
    return lambda th: -0.5 * np.einsum("cd,cd->c", th, th @ A) + th @ b


def _laplace_cdf_2d_grid(n_cells: int, sub: int):
    """Cell probabilities of p(x) ∝ exp(−3|x1−x2| − |x1+x2|) on [−1,1]² (midpoint rule, sub×sub per cell)."""
    G = n_cells * sub
    mid = -1 + (np.arange(G) + 0.5) * (2.0 / G)
    x1, x2 = np.meshgrid(mid, mid, indexing="ij")
    w = np.exp(-3 * np.abs(x1 - x2) - np.abs(x1 + x2))
    cells = w.reshape(n_cells, sub, n_cells, sub).sum(axis=(1, 3))
    return cells / cells.sum()


def _log_p_2d(th):
    return -3 * np.abs(th[:, 0] - th[:, 1]) - np.abs(th[:, 0] + th[:, 1])


def _chi2_pvalue(samples, probs, n_cells):
    idx = np.clip(((samples + 1) / 2 * n_cells).astype(int), 0, n_cells - 1)
    counts = np.zeros((n_cells, n_cells))
    np.add.at(counts, (idx[:, 0], idx[:, 1]), 1)
    exp = probs * len(samples)
    small = exp < 5  # pool sparse cells into one
    obs_v = np.append(counts[~small], counts[small].sum())
    exp_v = np.append(exp[~small], exp[small].sum())
    return stats.chisquare(obs_v, exp_v).pvalue


# ----------------------------------------------------------------------------- validation
def test_init_outside_box_raises():
    f = lambda th: np.zeros(len(th))
    with pytest.raises(DPValueError, match="outside the box"):
        metropolis_within_gibbs(f, np.array([[0.0, 2.0]]), n_sweeps=10, rng=0, lower=-1, upper=1)


def test_init_outside_l1_ball_raises():
    f = lambda th: np.zeros(len(th))
    with pytest.raises(DPValueError, match="l1 norm"):
        metropolis_within_gibbs(f, np.array([[0.6, -0.6], [0.1, 0.1]]), n_sweeps=10, rng=0, l1_radius=1.0)


def test_init_with_zero_density_raises():
    f = lambda th: np.where(th[:, 0] > 0, 0.0, -np.inf)
    with pytest.raises(DPValueError, match="chain 1"):
        metropolis_within_gibbs(f, np.array([[1.0], [-1.0]]), n_sweeps=10, rng=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(step_size=0.0), "step_size"),
        (dict(step_size=[1.0, 2.0, 3.0]), "step_size"),
        (dict(burn_in=10), "burn_in"),
        (dict(n_sweeps=0), "n_sweeps"),
        (dict(thin=0), "thin"),
        (dict(lower=1.0, upper=0.0), "lower"),
        (dict(target_accept=1.5), "target_accept"),
        (dict(l1_radius=-1.0), "l1_radius"),
        (dict(rng=[np.random.default_rng(0)]), "one numpy Generator per chain"),
    ],
)
def test_bad_parameters_raise(kwargs, match):
    f = lambda th: -0.5 * (th ** 2).sum(axis=1)
    base = dict(n_sweeps=10, rng=0)
    base.update(kwargs)
    with pytest.raises(DPValueError, match=match):
        metropolis_within_gibbs(f, np.zeros((2, 2)), **base)


def test_init_nonfinite_and_bad_shape_raise():
    f = lambda th: np.zeros(len(th))
    with pytest.raises(DPValueError, match="not finite"):
        metropolis_within_gibbs(f, np.array([[np.nan, 0.0]]), n_sweeps=5, rng=0)
    with pytest.raises(DPValueError, match="shape"):
        metropolis_within_gibbs(f, np.zeros((2, 2, 2)), n_sweeps=5, rng=0)
    with pytest.raises(DPValueError, match="log_density"):
        metropolis_within_gibbs(None, np.zeros((2, 2)), n_sweeps=5, rng=0)


# ----------------------------------------------------------------------------- mechanics
def test_result_shapes_thinning_and_single_chain_broadcast():
    f = lambda th: -0.5 * (th ** 2).sum(axis=1)
    r = metropolis_within_gibbs(f, np.zeros((7, 3)), n_sweeps=101, burn_in=40, thin=4, rng=1)
    assert isinstance(r, MCMCResult) and isinstance(r.diagnostics, MCMCDiagnostics)
    assert r.final.shape == (7, 3) and r.step_size.shape == (7, 3)
    assert r.trace.shape == ((101 - 40) // 4, 7, 3)
    assert r.diagnostics.acceptance_per_coord.shape == (3,)
    assert r.diagnostics.rhat.shape == (3,) and r.diagnostics.ess.shape == (3,)
    r1 = metropolis_within_gibbs(f, np.zeros(3), n_sweeps=20, rng=1, keep_trace=False)
    assert r1.final.shape == (1, 3) and r1.trace is None
    assert np.isfinite(r1.diagnostics.acceptance)
    s = r.diagnostics.summary()
    assert set(s) >= {"acceptance", "max_rhat", "min_ess", "n_chains", "n_sweeps", "burn_in", "mixed"}
    assert s["n_chains"] == 7 and s["n_sweeps"] == 101 and s["burn_in"] == 40


def test_trace_last_state_equals_final_when_aligned():
    f = lambda th: -0.5 * (th ** 2).sum(axis=1)
    r = metropolis_within_gibbs(f, np.zeros((5, 2)), n_sweeps=60, burn_in=20, thin=5, rng=3)
    assert np.array_equal(r.trace[-1], r.final)


def test_same_seed_reproducible_and_different_seed_differs():
    f = lambda th: -np.abs(th).sum(axis=1)
    a = metropolis_within_gibbs(f, np.zeros((20, 2)), n_sweeps=50, rng=11)
    b = metropolis_within_gibbs(f, np.zeros((20, 2)), n_sweeps=50, rng=11)
    c = metropolis_within_gibbs(f, np.zeros((20, 2)), n_sweeps=50, rng=12)
    assert np.array_equal(a.final, b.final) and np.array_equal(a.trace, b.trace)
    assert not np.array_equal(a.final, c.final)


def test_step_sizes_frozen_after_burn_in():
    """Same random stream, same burn-in, different run lengths: identical steps and a common path."""
    f = lambda th: -0.5 * (th ** 2).sum(axis=1) / 0.01
    short = metropolis_within_gibbs(f, np.zeros((6, 2)), n_sweeps=300, burn_in=100, rng=5)
    long = metropolis_within_gibbs(f, np.zeros((6, 2)), n_sweeps=500, burn_in=100, rng=5)
    assert np.array_equal(short.step_size, long.step_size)
    assert np.array_equal(long.trace[199], short.final)
    assert not np.allclose(short.step_size, 1.0)  # adaptation did something during burn-in


def test_no_adaptation_keeps_step_sizes():
    f = lambda th: -0.5 * (th ** 2).sum(axis=1)
    steps = np.array([0.5, 2.0])
    r = metropolis_within_gibbs(f, np.zeros((4, 2)), n_sweeps=50, rng=0, step_size=steps, adapt=False)
    assert np.array_equal(r.step_size, np.broadcast_to(steps, (4, 2)))


def test_constraints_never_violated_and_target_never_evaluated_outside():
    """A target that pushes outward (density increasing in |θ|) against a box and an l1 ball."""
    B, lo, hi = 1.5, np.array([-1.0, -0.2, -1.0]), np.array([1.0, 1.0, 0.3])
    outside_calls = []

    def f(th):
        viol = (th < lo - 1e-12).any(axis=1) | (th > hi + 1e-12).any(axis=1) | (np.abs(th).sum(axis=1) > B + 1e-9)
        outside_calls.append(int(viol.sum()))
        return 4.0 * np.abs(th).sum(axis=1)

    r = metropolis_within_gibbs(f, np.zeros((200, 3)), n_sweeps=300, rng=4, lower=lo, upper=hi, l1_radius=B)
    states = np.concatenate([r.trace.reshape(-1, 3), r.final])
    assert (states >= lo).all() and (states <= hi).all()
    assert (np.abs(states).sum(axis=1) <= B * (1 + 1e-12)).all()
    assert sum(outside_calls) == 0
    # the chains do press against the l1 boundary (the test is not vacuous)
    assert np.abs(r.final).sum(axis=1).max() > 0.98 * B


def test_incremental_equals_plain_bitwise():
    d = 4
    A, b = _quad_problem(d)
    init = np.zeros((30, d))
    kw = dict(n_sweeps=400, step_size=3.0, lower=-2.0, upper=[2.0, 2.0, 0.5, 2.0], l1_radius=3.0)
    plain = metropolis_within_gibbs(_quad_plain(A, b), init, rng=9, **kw)
    inc = metropolis_within_gibbs(None, init, rng=9, incremental=QuadIncremental(A, b), **kw)
    assert np.array_equal(plain.final, inc.final)
    assert np.array_equal(plain.trace, inc.trace)
    assert np.array_equal(plain.step_size, inc.step_size)
    assert plain.diagnostics.acceptance == inc.diagnostics.acceptance
    # and with per-chain generators
    p2 = metropolis_within_gibbs(_quad_plain(A, b), init, rng=spawn(3, 30), **kw)
    i2 = metropolis_within_gibbs(None, init, rng=spawn(3, 30), incremental=QuadIncremental(A, b), **kw)
    assert np.array_equal(p2.final, i2.final)


def test_per_chain_rng_batching_invariance():
    """With one generator per chain, a chain's path does not depend on which chains run with it."""
    C = 10
    centres = np.linspace(-3, 3, C)[:, None] * np.array([1.0, -0.5])  # per-chain location family

    def target(ctr):
        return lambda th: -np.abs(th[:, 0] - ctr[:, 0]) - 2.0 * np.abs(th[:, 1] - ctr[:, 1])

    kw = dict(n_sweeps=300, step_size=[0.1, 5.0], lower=-2.5, upper=2.5)
    init = np.zeros((C, 2))
    together = metropolis_within_gibbs(target(centres), init, rng=spawn(2024, C), **kw)
    gens = spawn(2024, C)
    a = metropolis_within_gibbs(target(centres[:5]), init[:5], rng=gens[:5], **kw)
    b = metropolis_within_gibbs(target(centres[5:]), init[5:], rng=gens[5:], **kw)
    assert np.array_equal(together.final, np.concatenate([a.final, b.final]))
    assert np.array_equal(together.step_size, np.concatenate([a.step_size, b.step_size]))
    assert np.array_equal(together.trace, np.concatenate([a.trace, b.trace], axis=1))
    # a single chain on its own as well
    one = metropolis_within_gibbs(target(centres[7:8]), init[7:8], rng=spawn(2024, C)[7:8], **kw)
    assert np.array_equal(one.final[0], together.final[7])


def test_progress_callback_and_cancel():
    f = lambda th: -0.5 * (th ** 2).sum(axis=1)
    seen = []
    metropolis_within_gibbs(f, np.zeros((3, 2)), n_sweeps=700, rng=0, progress=lambda k, n: seen.append((k, n)))
    assert seen[-1] == (700, 700) and len(seen) >= 2
    assert all(k2 > k1 for (k1, _), (k2, _) in zip(seen, seen[1:]))
    with pytest.raises(MCMCCancelled):
        metropolis_within_gibbs(f, np.zeros((3, 2)), n_sweeps=700, rng=0, progress=lambda k, n: False)


@pytest.mark.parametrize("width", [1e-6, 1e3])
def test_adaptation_reaches_target_acceptance(width):
    """Start step 1 on targets 1e6 times narrower / 1e3 times wider: acceptance near 0.44, width recovered."""
    f = lambda th: -0.5 * ((th / width) ** 2).sum(axis=1)
    r = metropolis_within_gibbs(f, np.zeros((200, 2)), n_sweeps=600, rng=21, step_size=1.0)
    diag = r.diagnostics
    assert abs(diag.acceptance - 0.44) < 0.1
    assert np.all(np.abs(diag.acceptance_per_coord - 0.44) < 0.1)
    assert 0.85 < r.final.std() / width < 1.15
    assert 0.5 < np.median(r.step_size) / width < 10  # optimal scale ≈ 2.4 widths


def test_acceptance_diagnostic_matches_exact_rate_on_flat_box():
    """Flat target on [−1,1], uniform start (stationary), fixed step s: P(accept) = P(x + sZ ∈ [−1,1])."""
    s = 0.8
    rng = np.random.default_rng(8)
    init = rng.uniform(-1, 1, (4000, 1))
    r = metropolis_within_gibbs(lambda th: np.zeros(len(th)), init, n_sweeps=40, burn_in=0, rng=9,
                                step_size=s, adapt=False, lower=-1, upper=1)
    x = np.linspace(-1, 1, 20001)
    inside = stats.norm.cdf((1 - x) / s) - stats.norm.cdf((-1 - x) / s)
    exact = np.trapezoid(inside, x) / 2
    assert abs(r.diagnostics.acceptance - exact) < 0.01
    assert abs(acceptance_rate(np.array([True, False, True, True])) - 0.75) < 1e-15


# ----------------------------------------------------------------------------- diagnostics
def test_rhat_near_one_for_mixed_chains():
    x = np.random.default_rng(0).standard_normal((2000, 8, 3))
    r = split_rhat(x)
    assert r.shape == (3,) and np.all(r < 1.01) and np.all(r > 0.99)


def test_rhat_large_for_chains_stuck_in_different_modes():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1000, 4, 2))
    x[:, :2] += 3.0
    x[:, 2:] -= 3.0
    assert np.all(split_rhat(x) > 1.1)
    # chains stuck at different constant values: infinite R-hat; all identical: not computable
    const = np.repeat(np.array([[0.0, 1.0]]), 50, axis=0)
    assert split_rhat(const) == np.inf
    assert np.isnan(split_rhat(np.zeros((50, 3))))


def test_rhat_single_chain_uses_halves():
    rng = np.random.default_rng(2)
    good = rng.standard_normal((4000, 1))
    drift = good + np.linspace(0, 3, 4000)[:, None]
    assert isinstance(split_rhat(good), float)
    assert split_rhat(good) < 1.01
    assert split_rhat(drift) > 1.1
    assert np.isnan(split_rhat(good[:3]))


def test_ess_iid_normal_close_to_n():
    x = np.random.default_rng(3).standard_normal((1000, 4, 3))
    ess = effective_sample_size(x)
    assert ess.shape == (3,)
    assert np.all(np.abs(ess / 4000 - 1) < 0.2)


def test_ess_ar1():
    phi, T, C = 0.9, 10000, 8
    rng = np.random.default_rng(4)
    e = rng.standard_normal((T, C))
    x = np.empty((T, C))
    x[0] = e[0] / np.sqrt(1 - phi ** 2)
    for t in range(1, T):
        x[t] = phi * x[t - 1] + e[t]
    expected = T * C * (1 - phi) / (1 + phi)
    ess = effective_sample_size(x)
    assert isinstance(ess, float)
    assert abs(ess / expected - 1) < 0.3


def test_diagnostics_are_pure():
    x = np.random.default_rng(5).standard_normal((200, 3, 2))
    ref = x.copy()
    x.setflags(write=False)  # any in-place write would raise
    r1, e1 = split_rhat(x), effective_sample_size(x)
    assert np.array_equal(x, ref)
    r2, e2 = split_rhat(x), effective_sample_size(x)
    assert np.array_equal(r1, r2) and np.array_equal(e1, e2)


def test_diagnostics_reject_bad_traces():
    with pytest.raises(DPValueError):
        split_rhat(np.zeros(10))
    with pytest.raises(DPValueError):
        effective_sample_size(np.array([[0.0, np.nan]] * 10))
    with pytest.raises(DPValueError):
        acceptance_rate([])


def test_average_ranks_match_scipy_rankdata():
    from dpcore.mcmc import _average_ranks

    rng = np.random.default_rng(11)
    x = np.round(rng.normal(size=(57, 40)), 1)  # many ties
    x[:, 3] = 2.0                                # one constant column
    np.testing.assert_array_equal(_average_ranks(x), stats.rankdata(x, method="average", axis=0))


@pytest.mark.parametrize("T", [8, 9, 200, 201])
def test_per_chain_rhat_ess_equals_single_chain_diagnostics(T):
    """Vectorised per-chain R-hat/ESS = split_rhat/effective_sample_size of each chain alone (odd T drops
    the middle draw as split_rhat does; ties; constant chains NaN; constant halves at different values inf)."""
    rng = np.random.default_rng(12)
    C, d = 7, 2
    x = np.cumsum(rng.normal(size=(T, C, d)), axis=0) * 0.2 + rng.normal(size=(T, C, d))
    x[:, 1] = np.round(x[:, 1])
    x[:, 2, 0] = 1.5
    x[: T // 2, 3, 1], x[T // 2:, 3, 1] = 0.0, 1.0
    rh, es = per_chain_rhat_ess(x)
    assert rh.shape == es.shape == (C, d)
    for c in range(C):
        np.testing.assert_allclose(rh[c], split_rhat(x[:, c:c + 1]), rtol=1e-12, atol=0)  # NaN/inf must match too
        np.testing.assert_allclose(es[c], effective_sample_size(x[:, c:c + 1]), rtol=1e-12, atol=0)
    assert np.isnan(rh[2, 0]) and np.isnan(es[2, 0]) and np.isinf(rh[3, 1])
    r1, e1 = per_chain_rhat_ess(x[:, :, 0])  # (T, C) trace -> (C,)
    np.testing.assert_array_equal(r1, rh[:, 0])
    np.testing.assert_array_equal(e1, es[:, 0])
    assert np.isnan(per_chain_rhat_ess(x[:3])[0]).all()


def test_mixed_flag_treats_nan_as_failure():
    diag = MCMCDiagnostics(acceptance=0.4, acceptance_per_coord=np.array([0.4, 0.4]),
                           rhat=np.array([1.0, np.nan]), ess=np.array([500.0, 600.0]),
                           n_chains=4, n_sweeps=100, burn_in=50)
    assert not diag.mixed()
    ok = MCMCDiagnostics(acceptance=0.4, acceptance_per_coord=np.array([0.4, 0.4]),
                         rhat=np.array([1.0, 1.02]), ess=np.array([500.0, 600.0]),
                         n_chains=4, n_sweeps=100, burn_in=50)
    assert ok.mixed() and not ok.mixed(max_rhat=1.01) and not ok.mixed(min_ess=550)
    assert ok.max_rhat == 1.02 and ok.min_ess == 500.0


# ----------------------------------------------------------------------------- goodness of fit
@pytest.mark.stat
def test_laplace_1d_final_states_ks():
    """1-D squared-loss KNG is a Laplace law: 4000 chains from a data-independent start."""
    mu, b = 0.7, 0.5
    f = lambda th: -np.abs(th[:, 0] - mu) / b
    cdf = stats.laplace(mu, b).cdf
    good = metropolis_within_gibbs(f, np.zeros((4000, 1)), n_sweeps=300, rng=101)
    assert stats.kstest(good.final[:, 0], cdf).pvalue > P_MIN
    assert abs(good.diagnostics.acceptance - 0.44) < 0.1
    # power: the same test after 2 sweeps from the same start must fail
    bad = metropolis_within_gibbs(f, np.zeros((4000, 1)), n_sweeps=2, rng=101)
    assert stats.kstest(bad.final[:, 0], cdf).pvalue < P_MIN


@pytest.mark.stat
def test_narrow_target_far_from_start_ks():
    """KNG at huge n: width 1e-7, 3e6 widths from the start, step 1 — adaptation must find the mode."""
    w, mu = 1e-7, 0.3
    f = lambda th: -np.abs(th - mu).sum(axis=1) / w
    good = metropolis_within_gibbs(f, np.zeros((2000, 3)), n_sweeps=600, rng=102)
    z = (good.final - mu) / w
    for j in range(3):
        assert stats.kstest(z[:, j], "laplace").pvalue > P_MIN
    bad = metropolis_within_gibbs(f, np.zeros((2000, 3)), n_sweeps=60, rng=102)
    assert stats.kstest((bad.final[:, 0] - mu) / w, "laplace").pvalue < P_MIN


@pytest.mark.stat
def test_box_2d_nongaussian_chi_square():
    """p ∝ exp(−3|x1−x2| − |x1+x2|) on [−1,1]², normalised on a fine grid; chi-square over 8×8 cells."""
    n_cells = 8
    probs = _laplace_cdf_2d_grid(n_cells, sub=100)
    start = np.tile([0.9, -0.9], (4000, 1))  # a low-density corner
    good = metropolis_within_gibbs(_log_p_2d, start, n_sweeps=300, rng=103, lower=-1, upper=1)
    assert _chi2_pvalue(good.final, probs, n_cells) > P_MIN
    # marginals against the grid CDF as well (KS)
    G = 2000
    marg = _laplace_cdf_2d_grid(G, 1).sum(axis=1)
    edges = np.linspace(-1, 1, G + 1)
    cdf = lambda v: np.interp(v, edges, np.concatenate([[0.0], np.cumsum(marg)]))
    assert stats.kstest(good.final[:, 0], cdf).pvalue > P_MIN
    assert stats.kstest(good.final[:, 1], cdf).pvalue > P_MIN  # symmetric in (x1, x2)
    bad = metropolis_within_gibbs(_log_p_2d, start, n_sweeps=3, rng=103, lower=-1, upper=1)
    assert _chi2_pvalue(bad.final, probs, n_cells) < P_MIN


@pytest.mark.stat
def test_box_2d_long_chains_diagnostics():
    """Well-mixed long chains: split R-hat < 1.01, large ESS, acceptance near target."""
    start = np.tile([0.9, -0.9], (40, 1))
    r = metropolis_within_gibbs(_log_p_2d, start, n_sweeps=4000, rng=104, lower=-1, upper=1)
    d = r.diagnostics
    assert d.max_rhat < 1.01
    assert d.min_ess > 5000
    assert abs(d.acceptance - 0.44) < 0.1
    assert d.mixed()
    # too short: not mixed (R-hat far from 1 or tiny ESS)
    short = metropolis_within_gibbs(_log_p_2d, start, n_sweeps=12, burn_in=2, rng=104, lower=-1, upper=1)
    assert not short.diagnostics.mixed()


@pytest.mark.stat
def test_uniform_l1_ball_radius_law():
    """Flat target on the l1 ball of radius 2 in R³: P(‖θ‖₁ ≤ s) = (s/2)³."""
    R = 2.0
    f = lambda th: np.zeros(len(th))
    good = metropolis_within_gibbs(f, np.zeros((4000, 3)), n_sweeps=200, rng=105, l1_radius=R, step_size=0.05)
    cdf = lambda s: np.clip(s / R, 0, 1) ** 3
    norms = np.abs(good.final).sum(axis=1)
    assert norms.max() <= R * (1 + 1e-12)
    assert stats.kstest(norms, cdf).pvalue > P_MIN
    bad = metropolis_within_gibbs(f, np.zeros((4000, 3)), n_sweeps=2, rng=105, l1_radius=R, step_size=0.05)
    assert stats.kstest(np.abs(bad.final).sum(axis=1), cdf).pvalue < P_MIN

"""Privacy audits (tests/audit.py) of dpcore.kng, each with a mutant the same audit must reject.

Neighbouring datasets replace one record, moved to the boundary of the public domain where the
sensitivity is attained. Mutants run the real code path with a broken constant (monkeypatched
calibration) and the same seed.
"""
import dataclasses

import numpy as np
import pytest

from dpcore import kng
from dpcore.kng import _api, _exact
from tests.audit import assert_passes, assert_rejected, audit, halfline_events, llr_events

pytestmark = pytest.mark.stat


def _scale_constant(monkeypatch, factor):
    """Mutant: every calibration's density constant × factor (the rest of the code unchanged)."""
    real = _api.calibrate

    def broken(*args, **kwargs):
        cal = real(*args, **kwargs)
        return dataclasses.replace(cal, density_constant=cal.density_constant * factor)

    monkeypatch.setattr(_api, "calibrate", broken)


# ----------------------------------------------------------------------------- median / quantile (exact)
@pytest.mark.parametrize("mutant", [False, True])
def test_audit_median_kng_and_remark41_shortcut_mutant(mutant, monkeypatch):
    """Median KNG on Θ = [0, 1]: mutant = Remark 4.1's ε/Δ on a bounded Θ (not private there)."""
    eps, N = 1.0, 200_000
    D = np.array([0.0, 0.0, 0.8, 0.8])
    Dp = np.array([1.0, 0.0, 0.8, 0.8])
    if mutant:
        _scale_constant(monkeypatch, 2.0)
    a = kng.sample("median", D, mechanism="kng", epsilon=eps, bounds=(0, 1), size=N, rng=11).samples[:, 0]
    b = kng.sample("median", Dp, mechanism="kng", epsilon=eps, bounds=(0, 1), size=N, rng=12).samples[:, 0]
    res = audit(a, b, halfline_events(np.linspace(0.05, 0.95, 19)), epsilon=eps)
    (assert_rejected if mutant else assert_passes)(res)


@pytest.mark.parametrize("mutant", [False, True])
def test_audit_quantile_kng_and_paper_eq3_mutant(mutant):
    """Quantile τ = 0.9: calibrated Δ = 1 passes; the paper's eq. (3) Δ = 2(1−τ) = 0.2 is rejected."""
    eps, tau, N = 1.0, 0.9, 200_000
    D = np.array([0.05, 0.2, 0.5, 0.5])
    Dp = np.array([0.05, 0.2, 0.5, 0.0])
    if mutant:  # the sampler itself with the paper's constant (sample() refuses constants='paper' here)
        c = eps / (2 * 2 * (1 - tau))
        a = _exact.sample_quantile_kng(D, 0.0, 1.0, tau, c, N, np.random.default_rng(21))
        b = _exact.sample_quantile_kng(Dp, 0.0, 1.0, tau, c, N, np.random.default_rng(22))
    else:
        a = kng.sample("quantile", D, mechanism="kng", epsilon=eps, tau=tau, bounds=(0, 1), size=N, rng=21).samples[:, 0]
        b = kng.sample("quantile", Dp, mechanism="kng", epsilon=eps, tau=tau, bounds=(0, 1), size=N, rng=22).samples[:, 0]
    # likelihood-ratio events of the claimed (calibrated) laws
    pa = _exact.quantile_kng_pieces(np.sort(D), 0, 1, tau, eps / 2)
    pb = _exact.quantile_kng_pieces(np.sort(Dp), 0, 1, tau, eps / 2)
    # thresholds strictly inside (−ε, ε): the sets {LLR = ±ε} split by rounding would audit floating point
    ev = llr_events(pa.logpdf, pb.logpdf, np.linspace(-0.95, 0.95, 9) * eps)
    res = audit(a, b, lambda x: np.concatenate([ev(x), halfline_events(np.linspace(0.05, 0.95, 10))(x)], axis=1),
                epsilon=eps)
    (assert_rejected if mutant else assert_passes)(res)


def test_paper_eq3_is_refused_by_the_api():
    with pytest.raises(ValueError, match="NOT ε-DP"):
        kng.sample("quantile", np.zeros(3), mechanism="kng", epsilon=1.0, tau=0.9, bounds=(0, 1), constants="paper")


# ----------------------------------------------------------------------------- mean (K-norm, exact)
@pytest.mark.parametrize("norm", ["l2", "linf"])
@pytest.mark.parametrize("mutant", [False, True])
def test_audit_mean_knorm_and_half_scale_mutant(norm, mutant, monkeypatch):
    eps, r, n, N = 1.0, 1.0, 10, 200_000
    D = np.zeros((n, 2))
    D[0] = [r, 0.0]
    Dp = D.copy()
    Dp[0] = [-r, 0.0]
    if mutant:
        _scale_constant(monkeypatch, 2.0)  # half the K-norm noise scale
    a = kng.sample("mean", D, mechanism="kng", epsilon=eps, radius=r, norm=norm, size=N, rng=31).samples
    b = kng.sample("mean", Dp, mechanism="kng", epsilon=eps, radius=r, norm=norm, size=N, rng=32).samples
    rate = n * eps / (2 * r)  # the claimed law exp(−(nε/(2r))‖θ − x̄‖_K)
    nrm = (lambda v: np.linalg.norm(v, axis=1)) if norm == "l2" else (lambda v: np.abs(v).max(axis=1))
    la = lambda x: -rate * nrm(x - D.mean(axis=0))  # noqa: E731
    lb = lambda x: -rate * nrm(x - Dp.mean(axis=0))  # noqa: E731
    # thresholds strictly inside (−ε, ε): on {LLR = ε} (positive mass for ℓ∞) rounding of x̄ + z picks
    # different float subsets under D and D′ — a floating-point artefact (Mironov 2012), not the math
    res = audit(a, b, llr_events(la, lb, np.linspace(-0.95, 0.95, 11) * eps), epsilon=eps)
    (assert_rejected if mutant else assert_passes)(res)


# ----------------------------------------------------------------------------- exponential mechanism (exact 1-D)
@pytest.mark.parametrize("mutant", [False, True])
def test_audit_exponential_mechanism_and_missing_factor_two(mutant, monkeypatch):
    """Median via the exponential mechanism, ℓ = Σ|x − θ| on [0, 1], Δ_ℓ = 1; mutant drops the 2 in ε/(2Δ_ℓ)."""
    eps, N = 1.0, 400_000
    D = np.array([0.0, 1.0, 1.0, 1.0])
    Dp = np.array([1.0, 1.0, 1.0, 1.0])
    if mutant:
        _scale_constant(monkeypatch, 2.0)
    a = kng.sample("median", D, mechanism="exponential", epsilon=eps, bounds=(0, 1), size=N, rng=41).samples[:, 0]
    b = kng.sample("median", Dp, mechanism="exponential", epsilon=eps, bounds=(0, 1), size=N, rng=42).samples[:, 0]
    res = audit(a, b, halfline_events([0.05, 0.1, 0.2, 0.3, 0.5]), epsilon=eps)
    (assert_rejected if mutant else assert_passes)(res)


# ----------------------------------------------------------------------------- KNG linear regression (MCMC)
@pytest.mark.parametrize("mutant", [False, True])
def test_audit_kng_linear_regression_mcmc_and_constant_x4_mutant(mutant, monkeypatch):
    """d = 2 (intercept + slope), 1-D projection θ₁ + θ₂ (the fitted value at x = (1, 1)).

    D: n records (x = (1, 1), y = 1) ⇒ the fit sits on the boundary of Θ = {‖θ‖₁ ≤ 1}; D′ flips one
    response to y = −1. Vectorised: one chain per draw (40 000 chains). The audit of an MCMC sampler
    is only approximate (its law is close to, not equal to, the target), so the mutant is gross: ×4.
    """
    eps, n, R = 1.0, 50, 40_000
    X = np.ones((n, 2))
    y = np.ones(n)
    yp = y.copy()
    yp[0] = -1.0
    if mutant:
        _scale_constant(monkeypatch, 4.0)

    def draws(yy, seed):
        A = np.broadcast_to(X.T @ X, (R, 2, 2))
        b = np.broadcast_to(X.T @ yy, (R, 2))
        res = kng.sample_linear_regression_suffstats(A, b, n, mechanism="kng", epsilon=eps, B=1.0, n_sweeps=200,
                                                     rng=seed, replicate_diagnostics=False)
        return res.theta

    a, b = draws(y, 51), draws(yp, 52)
    res = audit(a, b, halfline_events([0.9, 0.95, 0.97, 0.98, 0.99, 0.995], projection=np.array([1.0, 1.0])),
                epsilon=eps)
    (assert_rejected if mutant else assert_passes)(res)


# ----------------------------------------------------------------------------- slow tier: 10x samples, fresh seeds
@pytest.mark.slow
@pytest.mark.parametrize("mutant", [False, True])
def test_slow_exact_audits_fresh_seeds(mutant):
    """The exact-sampler audits at 10x the samples with fresh (printed) seeds."""
    import secrets

    s = [secrets.randbits(32) for _ in range(6)]
    print(f"seeds {s}")
    eps, N = 1.0, 2_000_000
    factor = 2.0 if mutant else 1.0
    # median KNG (Remark-4.1 mutant)
    D, Dp = np.array([0.0, 0.0, 0.8, 0.8]), np.array([1.0, 0.0, 0.8, 0.8])
    c = factor * eps / 2  # c in front of |#{≤} − n/2| (= 2 · ε/4)
    a = _exact.sample_quantile_kng(D, 0.0, 1.0, 0.5, c, N, np.random.default_rng(s[0]))
    b = _exact.sample_quantile_kng(Dp, 0.0, 1.0, 0.5, c, N, np.random.default_rng(s[1]))
    r1 = audit(a, b, halfline_events(np.linspace(0.05, 0.95, 19)), epsilon=eps)
    # exponential mechanism (missing factor 2 mutant)
    D, Dp = np.sort([0.0, 1.0, 1.0, 1.0]), np.ones(4)
    c = factor * eps / 2 * 2  # Σ|x − θ| = 2Σρ_{1/2}: c_quantile = 2·ε/(2Δ_ℓ)
    a = _exact.quantile_exponential_pieces(D, 0.0, 1.0, 0.5, c).sample(N, np.random.default_rng(s[2]))
    b = _exact.quantile_exponential_pieces(Dp, 0.0, 1.0, 0.5, c).sample(N, np.random.default_rng(s[3]))
    r2 = audit(a, b, halfline_events([0.05, 0.1, 0.2, 0.3, 0.5]), epsilon=eps)
    for res in (r1, r2):
        print(res.details)
        (assert_rejected if mutant else assert_passes)(res)


# ----------------------------------------------------------------------------- objective perturbation (exact QP)
@pytest.mark.parametrize("mutant", [False, True])
def test_audit_objective_perturbation_and_noise_x8_mutant(mutant, monkeypatch):
    """d = 1, x ≡ 1, all responses 0 except record 0: y = 1 in D, y = −1 in D′ (replace-one).

    The release is θ = clip((2Σy − β)/(2n + γ), ±B) with β ∝ exp(−ε‖β‖/(2Δ)), Δ = 4(1+B) = 8.
    In d = 1 the attainable shift of 2Xᵀy is 4 = Δ/2, so the real privacy loss of the calibrated
    mechanism is ε/4 and a mutant is only refutable once its loss exceeds ε: the mutant draws β with
    8× the calibrated rate (loss 2ε). 40 000 exact QP solves per dataset.
    """
    eps, n, R = 1.0, 50, 40_000
    X = np.ones((n, 1))
    y = np.zeros(n)
    y[0] = 1.0
    yp = y.copy()
    yp[0] = -1.0
    if mutant:
        _scale_constant(monkeypatch, 8.0)

    def draws(yy, seed):
        A = np.broadcast_to(X.T @ X, (R, 1, 1))
        b = np.broadcast_to(X.T @ yy, (R, 1))
        return kng.sample_linear_regression_suffstats(A, b, n, mechanism="objective_perturbation", epsilon=eps,
                                                      B=1.0, rng=seed).theta

    a, b = draws(y, 61), draws(yp, 62)
    t = np.array([0.02, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4])
    res = audit(a, b, halfline_events(np.r_[-t[::-1], t]), epsilon=eps)
    (assert_rejected if mutant else assert_passes)(res)

"""Recursions, ladder, counts and the Gaussian multiplier (Asi, Duchi & Talwar 2025, §5–6)."""
import math

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.privacy import analytic_gaussian_sigma, gaussian_delta
from dpcore.single_parameter._recursion import alg4, alg6l, generic_ladder, lower_ladder, upper_count
from dpcore.single_parameter._stability import constants_for, eps_var

NS = [300, 2000, 20_000]


def _forward_count(R, lam):
    cnt = np.zeros(lam.shape, dtype=int)
    cur = lam.copy()
    while (cur > 0).any():
        m = cur > 0
        cnt[m] += 1
        cur = R(cur)
    return cnt


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("kind", ["glm", "generic"])
def test_ladder_agrees_with_forward_iteration_exactly(n, kind):
    k = constants_for("robust", n, 1.0)
    L, R = (lower_ladder(k), k.R) if kind == "glm" else (generic_ladder(k), k.R1)
    lam = np.concatenate([np.linspace(0, k.cap, 5001), L.B, np.nextafter(L.B, -1), np.nextafter(L.B, 1)])
    lam = lam[lam >= 0]
    np.testing.assert_array_equal(L.count(lam), _forward_count(R, lam))


@pytest.mark.parametrize("n", NS)
def test_ladder_invariant_in_floating_point(n):
    for k in (constants_for("robust", n, 1.0), constants_for("logistic", n, 2.5, rho=0.3)):
        L = lower_ladder(k)
        B = L.B
        assert B[0] == 0 and B[-1] >= k.cap and B[-2] < k.cap
        assert np.all(k.R(B[2:]) >= B[1:-1])                           # R(B_{j+1}) ≥ B_j, same code as R
        assert np.all(k.R(np.nextafter(B[2:], -np.inf)) < B[1:-1])      # and minimal
        assert k.R(B[1]) > 0 and k.R(np.nextafter(B[1], -1)) == 0
        ks = np.arange(0, len(B) + 3)
        inv = L.inverse(ks)
        assert np.all(np.diff(inv) >= 0)
        assert np.all(L.count(inv[2:len(B) + 1]) >= ks[2:len(B) + 1])     # K(B_k) ≥ k
        lam = np.random.default_rng(0).uniform(0, k.cap, 10_000)
        assert np.all(L.inverse(L.count(lam)) <= lam)                   # K⁻¹(K(λ)) ≤ λ


def test_ladder_length_matches_the_spacing():
    k = constants_for("robust", 20_000, 1.0)
    assert len(lower_ladder(k)) == pytest.approx(k.n * k.cap / (k.beta + k.M1), rel=0.02)


@pytest.mark.parametrize("n", NS)
def test_recursions_are_monotone_and_below_identity(n):
    k = constants_for("robust", n, 1.0)
    lam = np.linspace(0, k.cap, 200_001)
    for R in (k.R, k.R1):
        r = R(lam)
        assert np.all(np.diff(r) >= 0) and np.all(r <= lam)
    assert k.R(k.lam_c) > 0
    c1 = k.C1(lam)
    gap = (lam - k.R(lam))[c1]
    assert np.all(np.diff(gap) <= 1e-15)                 # the gap shrinks on (C1) ...
    ratio = (k.R(lam) / np.where(lam > 0, lam, 1))[c1]
    assert np.all(np.diff(ratio) >= -1e-15)              # ... and R(λ)/λ grows
    # R agrees with its definition (1 − c r₂ Δ_n(λ))λ − M1/n
    lc = lam[c1]
    np.testing.assert_allclose(k.R(lc), (1 - k.c * k.r2 * k.Delta_n(lc)) * lc - k.M1 / n, rtol=1e-9, atol=1e-15)
    up = k.R_up(lam, 0.2)
    assert np.all(np.diff(up) > 0) and np.all(up >= lam)


def test_delta_n_properties():
    k = constants_for("robust", 2000, 1.0)
    lam = np.linspace(k.lam_c, 1, 1000)
    D = k.Delta_n(lam)
    assert np.all(np.diff(D) < 0)
    assert np.all(D <= 2 * k.D / (k.n * lam - k.M1) + 1e-15)
    assert np.all(k.r2 * D <= 2 / 3 * k.sbar + 1e-12)
    assert np.isinf(k.Delta_n(k.lam_c * 0.99)) and np.isinf(k.Delta_n(np.nan))
    for n in (10**4, 10**6, 10**8):
        kn = constants_for("robust", n, 1.0)
        val = n * 0.3 * kn.Delta_n(0.3)
        assert val == pytest.approx(kn.D, rel=50 / n ** 0.5 + 1e-6)


SIGMA_TABLE = [(1, 1e-5, 3.7306), (0.5, 1e-6, 8.0576), (2, 1e-5, 1.9938), (8, 1e-5, 0.6002), (0.1, 1e-5, 30.7496)]


@pytest.mark.parametrize("eps,delta,want", SIGMA_TABLE)
def test_analytic_gaussian_sigma_matches_the_table(eps, delta, want):
    s = analytic_gaussian_sigma(eps, delta)
    assert s == pytest.approx(want, abs=1e-4)
    assert gaussian_delta(s, eps) <= delta and gaussian_delta(s, eps) == pytest.approx(delta, rel=1e-8)
    t = math.sqrt(2 * math.log(1 / delta))
    assert s <= (t + math.sqrt(t * t + 2 * eps)) / (2 * eps)
    assert s <= math.sqrt(2 * math.log(1.25 / delta)) / eps


def test_sigma_decreases_in_epsilon_and_delta():
    assert analytic_gaussian_sigma(1, 1e-5) > analytic_gaussian_sigma(1.5, 1e-5) > analytic_gaussian_sigma(1.5, 1e-3)


def test_eps_var():
    assert eps_var(0.01, 1e-5) == pytest.approx(-math.log(0.99) + 0.5 * 4.4172 ** 2 * (0.99 ** -2 - 1), rel=1e-3)
    assert np.isinf(eps_var(1.0, 1e-5)) and np.isinf(eps_var(np.inf, 1e-5))
    assert eps_var(0.1, log_delta=math.log(1e-5)) == pytest.approx(eps_var(0.1, 1e-5))
    t = np.linspace(0, 0.5, 50)
    assert np.all(np.diff(eps_var(t, 1e-5)) > 0)


def test_non_finite_lambda_never_certifies():
    L = lower_ladder(constants_for("robust", 2000, 1.0))
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(DPValueError, match="not finite"):
            L.count(bad)
    assert L.count(0.0) == 0 and L.inverse(0) == 0 and L.inverse(1) == 0


def test_upper_count_by_iteration():
    k = constants_for("robust", 5000, 1.0)
    Lam = np.linspace(0.01, k.cap, 300)
    lo = 0.05
    Ku = upper_count(k, Lam, lo)
    for L0, kk in zip(Lam, Ku):
        cur, steps = L0, 0
        while cur < k.cap:
            cur = float(k.R_up(cur, lo))
            steps += 1
        assert kk == steps


def test_alg6l_shift_and_monotonicity():
    k = constants_for("robust", 2000, 1.0)
    L = lower_ladder(k)
    g = np.random.default_rng(0)
    lam, Kt = alg6l(100, L, 1.0, 0.1, 50_000, g)
    assert np.mean(lam > L.B[99]) == pytest.approx(0.1, abs=0.006)   # P(k̂ > K) = δ exactly
    Lh, _ = alg4(k, 0.3, np.full(1000, 0.2), 1.0, 0.1, g)
    assert np.all(Lh <= k.cap)

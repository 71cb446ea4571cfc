"""The exact discrete samplers (dpcore.exact) against their exact PMFs: χ² on binned counts with the exact-tail
mass in the end bins, at tiny, moderate and large scales, α = 1e-6 per test; power checks (a wrong scale fails)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpcore import exact
from dpcore.errors import DPValueError

pytestmark = pytest.mark.stat
ALPHA = 1e-6


def _bins(scale_like: float) -> np.ndarray:
    """Bin edges over ±4 scale, at most ~40 bins, integers (bins [e_i, e_{i+1}))."""
    half = max(1, int(math.ceil(4 * scale_like)))
    step = max(1, half // 20)
    return np.arange(-half, half + step + 1, step)


def _chi2(z: np.ndarray, pmf, edges: np.ndarray, tail_pmf_range: int) -> float:
    """p-value of χ² of z against pmf on bins (-∞, e0), [e_i, e_{i+1}), [e_last, ∞) (tails summed exactly far out)."""
    ks = np.arange(-tail_pmf_range, tail_pmf_range + 1)
    pk = pmf(ks)
    idx = np.searchsorted(edges, ks, side="right")
    p = np.bincount(idx, weights=pk, minlength=edges.size + 1)
    obs = np.bincount(np.searchsorted(edges, z, side="right"), minlength=edges.size + 1).astype(float)
    keep = p * z.size > 5
    p_m, o_m = np.append(p[keep], p[~keep].sum()), np.append(obs[keep], obs[~keep].sum())
    if p_m[-1] * z.size <= 5:                      # fold a tiny remainder into the largest bin
        big = np.argmax(p_m[:-1])
        p_m[big] += p_m[-1]
        o_m[big] += o_m[-1]
        p_m, o_m = p_m[:-1], o_m[:-1]
    return stats.chisquare(o_m, p_m / p_m.sum() * z.size).pvalue


@pytest.mark.parametrize("scale", [0.3, 0.6, Fraction(7, 3), 25.0, 4000.0])
def test_discrete_laplace_matches_its_pmf_and_a_wrong_scale_fails(scale):
    z = exact.discrete_laplace(scale, 60_000, rng=np.random.default_rng(11))
    assert z.dtype == np.int64
    t = float(scale)
    edges, rng_k = _bins(t), int(60 * t) + 50
    assert _chi2(z, lambda k: exact.discrete_laplace_pmf(k, scale), edges, rng_k) > ALPHA
    if t >= 0.5:                                   # at t = 0.3, 93% of draws are 0: little power at ±20%
        for wrong in (0.8 * t, 1.25 * t):
            assert _chi2(z, lambda k, w=wrong: exact.discrete_laplace_pmf(k, w), edges, rng_k) < ALPHA


def test_tiny_scale_has_its_exact_mass_at_zero():
    # t = 0.05: P(0) = (1 − a)/(1 + a), a = e^{−20}; P(Z ≠ 0) ≈ 4e-9, so 200 000 draws are all 0 (fails if not)
    z = exact.discrete_laplace(0.05, 200_000, rng=3)
    assert np.all(z == 0)
    assert exact.discrete_laplace_pmf(0, 0.05) == pytest.approx(math.tanh(10.0), rel=1e-12)


@pytest.mark.parametrize("sigma2", [Fraction(1, 10), 0.7, 4, Fraction(625, 2), 1e6])
def test_discrete_gaussian_matches_its_pmf_and_a_wrong_variance_fails(sigma2):
    z = exact.discrete_gaussian(sigma2, 60_000, rng=np.random.default_rng(12))
    s = math.sqrt(float(sigma2))
    edges, rng_k = _bins(s), int(40 * s) + 40
    assert _chi2(z, lambda k: exact.discrete_gaussian_pmf(k, sigma2), edges, rng_k) > ALPHA
    if s >= 0.8:
        for wrong in (0.8 * float(sigma2), 1.25 * float(sigma2)):
            assert _chi2(z, lambda k, w=wrong: exact.discrete_gaussian_pmf(k, w), edges, rng_k) < ALPHA
    # the discrete Gaussian is not the rounded continuous one at small σ: the continuous law's rounding fails
    if float(sigma2) == 0.7:
        cont = stats.norm(scale=s)
        assert _chi2(z, lambda k: cont.cdf(k + 0.5) - cont.cdf(k - 0.5), edges, rng_k) < ALPHA


def test_bernoulli_exp_is_exact_in_law():
    for gamma, n in ((Fraction(1, 3), 200_000), (Fraction(5, 2), 200_000), (0, 1000)):
        x = exact.bernoulli_exp(gamma, n, rng=np.random.default_rng(5))
        p = math.exp(-float(gamma))
        assert stats.binomtest(int(x.sum()), n, p).pvalue > ALPHA
    x = exact.bernoulli_exp(Fraction(1, 3), 200_000, rng=np.random.default_rng(5))
    assert stats.binomtest(int(x.sum()), 200_000, math.exp(-0.4)).pvalue < ALPHA


def test_huge_denominators_use_the_exact_chunk_path():
    # γ with a 100-bit denominator: the Bernoulli trials compare 62-bit chunks of the expansion
    gamma = Fraction(2**99 + 12345, 2**100)
    x = exact.bernoulli_exp(gamma, 100_000, rng=np.random.default_rng(6))
    assert stats.binomtest(int(x.sum()), 100_000, math.exp(-float(gamma))).pvalue > ALPHA


def test_geometric_and_tail():
    t = Fraction(5, 2)
    y = exact.geometric(t, 100_000, rng=np.random.default_rng(7))
    a = math.exp(-1 / 2.5)
    edges = np.arange(0, 16)
    ks = np.arange(0, 400)
    pmf = lambda k: np.where(k >= 0, (1 - a) * a ** np.abs(k), 0.0)  # noqa: E731
    assert _chi2(y, pmf, edges, 400) > ALPHA
    tail = exact.discrete_laplace_tail(t, np.full(50_000, 4), rng=np.random.default_rng(8))
    assert tail.min() >= 4
    z = exact.discrete_laplace(t, 400_000, rng=np.random.default_rng(9))
    assert stats.ks_2samp(tail, z[z >= 4]).pvalue > ALPHA
    assert exact.discrete_laplace_survival(t, 4) == pytest.approx(exact.discrete_laplace_pmf(ks + 4, t).sum(), rel=1e-9)


def test_seeded_and_shaped():
    a = exact.discrete_laplace(3.0, (4, 5), rng=1)
    assert a.shape == (4, 5) and np.array_equal(a, exact.discrete_laplace(3.0, (4, 5), rng=1))
    assert exact.discrete_gaussian(2, None, rng=1).shape == ()


def test_rational_at_least_rounds_up_with_a_short_numerator():
    for x in (0.1, 1e-9, 3e15, Fraction(1, 3), 7):
        r = exact.rational_at_least(x)
        odd = r.numerator >> ((r.numerator & -r.numerator).bit_length() - 1)   # numerator without factors 2
        assert r >= Fraction(x) and odd < 2**41 and (r - Fraction(x)) / Fraction(x) < Fraction(1, 2**38)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "2", True])
def test_bad_scales_are_refused_naming_the_value(bad):
    with pytest.raises(DPValueError, match="scale"):
        exact.discrete_laplace(bad, 3, rng=0)



def test_vanishing_scale_gives_zero_noise():
    # t = 2e-9 (ε = 1e9): the denominator of t exceeds int64; every draw is 0 (P(Z ≠ 0) ≈ 2e^{−5e8})
    assert np.all(exact.discrete_laplace(2e-9, 1000, rng=1) == 0)
    assert np.all(exact.geometric(2e-9, 1000, rng=1) == 0)


def test_inversion_bounds_bracket_exp_and_undecided_draws_are_resolved():
    from dpcore import _inversion as inv
    for x in (Fraction(1, 3), Fraction(20), Fraction(1, 4000), Fraction(7, 2)):
        lo, hi = inv.exp_neg_bounds(x, 200)
        assert 0 <= hi - lo <= 4
        assert abs(lo / 2**200 - math.exp(-float(x))) <= 1e-15 * math.exp(-float(x)) + 2**-200
        # e^{−x} is between the bounds: compare with the bounds at a higher precision (nested intervals)
        lo2, hi2 = inv.exp_neg_bounds(x, 260)
        assert lo * 2**60 <= hi2 and lo2 <= hi * 2**60
    x = Fraction(2, 5)
    lo, hi, K = inv.tables(x)
    g = np.random.default_rng(0)
    # a 62-bit prefix inside [lo_3, hi_3): the draw takes more bits and lands on 2 (U ≥ a^3) or beyond
    ys = [inv._resolve(int(lo[2]), 3, x, K, g) for _ in range(200)]
    assert set(ys) <= {2, 3} and len(set(ys)) == 2          # both sides of a^3 occur: the bits after 62 decide
    # the CKS path (no table for huge scales) and the inversion path have the same law at a common scale
    a = exact._discrete_laplace_cks(5, 2, 100_000, np.random.default_rng(1))
    b = exact.discrete_laplace(Fraction(5, 2), 100_000, rng=np.random.default_rng(2))
    assert stats.ks_2samp(a, b).pvalue > ALPHA and stats.ks_2samp(a, b + 1).pvalue < ALPHA


@pytest.mark.parametrize("value", [0.3, -17.126])
def test_grid_laplace_release_has_the_declared_law(value):
    from dpcore import noise
    cfg = noise.LaplaceConfig(0.7, 2.0)
    cal = noise.calibrate_laplace(cfg, (1,))
    gamma, dg = cal.params["grid"], cal.params["grid_sensitivity"]
    assert dg == math.ceil(2.0 / gamma) and cal.constant <= (2.0 / 0.7) * (1 + 2 / 64)
    g = np.random.default_rng(21)
    z = np.array([noise.release.laplace.release(np.array([value]), cfg, rng=g).value[0] for _ in range(3000)])
    k = z / gamma - exact.to_grid(value, gamma)
    assert np.all(k == np.round(k))
    t = Fraction(dg) / Fraction(0.7)
    edges = _bins(float(t))
    assert _chi2(k.astype(np.int64), lambda j: exact.discrete_laplace_pmf(j, t), edges, int(60 * t)) > ALPHA
    assert _chi2(k.astype(np.int64), lambda j: exact.discrete_laplace_pmf(j, 0.6 * t), edges, int(60 * t)) < ALPHA


def test_grid_gaussian_release_has_the_declared_law():
    from dpcore import noise
    cfg = noise.GaussianZCDPConfig(0.5, 1.0)
    cal = noise.calibrate_gaussian_zcdp(cfg, (1,))
    s2 = cal.params["grid_variance"]
    assert cal.params["grid_sensitivity"] ** 2 / (2 * float(s2)) <= 0.5         # ρ = Δ_g²/(2σ_g²) ≤ the claim
    v = noise.release.gaussian_zcdp.release(np.full(20_000, 0.25), cfg, rng=22).value
    # 20 000 coordinates: their own grid (d = 20 000), same law per coordinate
    cal_d = noise.calibrate_gaussian_zcdp(cfg, (20_000,))
    k = v / cal_d.params["grid"] - exact.to_grid(0.25, cal_d.params["grid"])
    s = math.sqrt(float(cal_d.params["grid_variance"]))
    assert np.all(k == np.round(k)) and abs(k.std() / s - 1) < 0.03 and abs(k.mean()) < 4 * s / math.sqrt(20_000)

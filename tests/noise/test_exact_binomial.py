"""Issue 36: the exact Binomial(M, p) of the sparse threshold sampler (dpcore._binomial, exact.discrete_laplace_survivors,
exact.laplace_survivors) against the exact Binomial PMF computed with mpmath at 50 digits (χ² with the exact tail
masses in the end bins, α = 1e-6, power checks at p·(1 ± 10 %)); its integer bounds against mpmath; the rare
undecided draws; its O(1 + F) cost at M = 2^40; and the locations' law (uniform F-subsets)."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpcore import _binomial, exact, histograms
from dpcore.histograms import _sampling

pytestmark = pytest.mark.stat
ALPHA = 1e-6
mp = mpmath.MPContext()          # a private context: 50 digits without changing mpmath's global one
mp.dps = 50


def _p_exact(gamma: Fraction, eta: Fraction) -> Any:
    """p = e^{−γ}/(1 + e^{−η}) at 50 digits."""
    g = mp.mpf(gamma.numerator) / gamma.denominator
    e = mp.mpf(eta.numerator) / eta.denominator
    return mp.exp(-g) / (1 + mp.exp(-e))


def _binom_pmf(M: int, p: Any, k: int) -> Any:
    return mp.exp(mp.loggamma(M + 1) - mp.loggamma(k + 1) - mp.loggamma(M - k + 1)
                      + k * mp.log(p) + (M - k) * mp.log1p(-p))


def _chi2_binomial(F: np.ndarray, M: int, p: Any) -> float:
    """χ² p-value of the draws F against Binomial(M, p): bins of expected count ≥ 5 around the mean, the rest of the
    mass (exactly 1 − the binned mass) in the two end bins."""
    n = F.size
    mean = float(M * p)
    sd = math.sqrt(max(mean * (1 - float(p)), 1e-12))
    lo, hi = max(0, int(mean - 8 * sd) - 2), min(M, int(mean + 8 * sd) + 3)
    ks = list(range(lo, hi + 1))
    pk = [float(_binom_pmf(M, p, k)) for k in ks]
    below = float(sum((_binom_pmf(M, p, k) for k in range(0, lo)), mp.mpf(0))) if lo else 0.0
    # bins: merge from both ends until the expected count is ≥ 5
    probs: list[float] = []
    edges: list[int] = []
    acc = below
    for i, k in enumerate(ks):
        acc += pk[i]
        if acc * n >= 5:
            probs.append(acc)
            edges.append(k)
            acc = 0.0
    probs[-1] += acc + max(0.0, 1.0 - below - sum(pk))   # the upper tail beyond hi (exact complement)
    edges[-1] = M
    obs = np.bincount(np.searchsorted(np.array(edges), F, side="left"), minlength=len(edges)).astype(float)
    exp_ = np.array(probs) / sum(probs) * n
    assert obs.sum() == n
    return float(stats.chisquare(obs, exp_).pvalue)


# (label, law (γ, η), M, draws): the audit regime (M = 3, p ≈ 0.38), a moderate mean, M = 10^9 with a moderate
# mean, M = 2^40 with p ≈ 1.4e-12, and the Laplace variant's exactly rational p = ½ (τ = 0)
_CASES = [
    ("audit regime M = 3, τ = 0, t = 2", (Fraction(1, 2), Fraction(1, 2)), 3, 40_000),
    ("M = 1000, m = 3, t = 1", (Fraction(3), Fraction(1)), 1000, 20_000),
    ("M = 10^9, m = 37, t = 2", (Fraction(37, 2), Fraction(1, 2)), 10**9, 20_000),
    ("M = 2^40, m = 27, t = 1 (p ≈ 1.4e-12)", (Fraction(27), Fraction(1)), 2**40, 20_000),
    ("Laplace τ = 0: p = 1/2 exactly, M = 7", (Fraction(0), Fraction(0)), 7, 20_000),
]


@pytest.mark.parametrize("path", ["vector", "scalar"])
@pytest.mark.parametrize("label,law,M,n", _CASES, ids=[c[0] for c in _CASES])
def test_issue36_exact_binomial_matches_the_exact_pmf_and_a_wrong_p_fails(label, law, M, n, path):
    # "vector": numpy uint64 products over many replicates; "scalar": the same bounds in Python ints, gap by gap
    # (used for few expected gaps, e.g. one release with τ = b·log p)
    g = np.random.default_rng(36)
    if path == "vector":
        F = _binomial.binomial(M, [law], np.zeros(n, np.int64), g)
    else:
        F = _binomial._binomial_scalar(M, n // 2, law, _binomial._tables(law, M.bit_length()), g)
    assert F.dtype == np.int64 and F.min() >= 0 and F.max() <= M
    p = _p_exact(*law)
    assert _chi2_binomial(F, M, p) > ALPHA, label
    for wrong in (p * mp.mpf("0.9"), p * mp.mpf("1.1")):
        assert _chi2_binomial(F, M, wrong) < ALPHA, label


def test_issue36_public_wrappers_use_the_samplers_scales():
    # discrete Laplace: P(Z ≥ m) = a^m/(1 + a) at t rounded up (exact.rational_at_least); m per replicate
    t = exact.rational_at_least(2.0)
    m = np.array([3] * 15_000 + [6] * 15_000)
    F = exact.discrete_laplace_survivors(2.0, m, 500, rng=1)
    for mm, part in ((3, F[:15_000]), (6, F[15_000:])):
        assert _chi2_binomial(part, 500, _p_exact(mm / t, 1 / t)) > ALPHA
    # Laplace: ½e^{−τ/b} at the doubles τ and b as exact rationals; τ per replicate
    tau = np.array([0.0] * 10_000 + [5.5] * 10_000)
    F = exact.laplace_survivors(2.0, tau, 40, rng=2)
    assert _chi2_binomial(F[:10_000], 40, mp.mpf(1) / 2) > ALPHA
    assert _chi2_binomial(F[10_000:], 40, _p_exact(Fraction(5.5) / 2, Fraction(0))) > ALPHA
    with pytest.raises(Exception, match="m must be ≥ 0"):
        exact.discrete_laplace_survivors(2.0, [-1], 10, rng=0)
    with pytest.raises(Exception, match="tau must be finite and ≥ 0"):
        exact.laplace_survivors(2.0, [-0.5], 10, rng=0)
    with pytest.raises(Exception, match="trials must be in 0 … 2\\^40"):
        exact.laplace_survivors(2.0, [1.0], 2**40 + 1, rng=0)
    assert np.all(exact.laplace_survivors(2.0, [1.0, 2.0], 0, rng=0) == 0)


def test_issue36_integer_bounds_bracket_the_exact_values():
    for law in ((Fraction(1, 2), Fraction(1, 2)), (Fraction(27), Fraction(1)), (Fraction(37, 2), Fraction(1, 2)),
                (Fraction(0), Fraction(0)), (Fraction(5.5) / 2, Fraction(0))):
        p = _p_exact(*law)
        lo, hi = _binomial.p_bounds(*law, 120)
        assert lo <= p * 2**120 <= hi and hi - lo <= 4
        for k in (0, 1, 7, 255, 256, 65_537, 10**9, 2**40 - 1):
            wk = mp.power(1 - p, k)
            lo, hi = _binomial.pow_bounds(law, k, 62)
            assert lo <= wk * 2**62 <= hi and hi - lo <= 4, (law, k)
        lo_t, hi_t = _binomial._tables(law, 41)[:2]
        k = np.array([0, 1, 2, 255, 256, 257, 70_000, 10**9, 2**40 - 1, 12_345_678_901], dtype=np.int64)
        wl, wh = _binomial._w_bounds(k, lo_t, hi_t)
        for j, kj in enumerate(k):
            wk = mp.power(1 - p, int(kj)) * 2**62
            assert int(wl[j]) <= wk <= int(wh[j]) and int(wh[j]) - int(wl[j]) <= 32, (law, kj)


def test_issue36_62_bit_products_are_exact():
    g = np.random.default_rng(5)
    a = np.concatenate([g.integers(0, 2**62 + 1, 5000, dtype=np.int64), [0, 1, 2**62, 2**62 - 1, 2**31]])
    b = np.concatenate([g.integers(0, 2**62 + 1, 5000, dtype=np.int64), [2**62, 2**62, 2**62, 2**62 - 1, 2**31 + 1]])
    fl = _binomial._mul(a.astype(np.uint64), b.astype(np.uint64), False)
    ce = _binomial._mul(a.astype(np.uint64), b.astype(np.uint64), True)
    for x, y, f, c in zip(a.tolist(), b.tolist(), fl.tolist(), ce.tolist()):
        assert f == (x * y) >> 62 and c == -((-x * y) >> 62)


def test_issue36_each_gap_is_the_exact_inversion_of_its_uniform():
    # every certified gap equals ⌊log U/log(1 − p)⌋ (capped) for EVERY U in [u, u + 1)·2^−62: check at both ends
    law = (Fraction(37, 2), Fraction(1, 2))
    tab = _binomial._tables(law, 30)
    cap = np.full(3000, 10**9 - 3, dtype=np.int64)
    k = _binomial._gaps(cap, law, tab, np.random.default_rng(8))
    u = np.random.default_rng(8).integers(0, 2**62, size=3000, dtype=np.int64)   # the same first 62 bits
    log_q = math.log1p(-tab[2])
    assert [_binomial._gap_scalar(uj, 10**9 - 3, law, tab, log_q, np.random.default_rng(1)) for uj in u.tolist()] \
        == k.tolist()                                          # the scalar path: the same certified gaps
    lp = mp.log1p(-_p_exact(*law))
    for kj, uj in zip(k.tolist(), u.tolist()):
        for end in (uj, uj + 1 - mp.mpf(2) ** -40):
            want = min(int(mp.floor(mp.log(end / mp.mpf(2) ** 62) / lp)), 10**9 - 3)
            assert kj == want


def test_issue36_undecided_draws_take_more_bits_and_land_on_either_side():
    law = (Fraction(3), Fraction(1))
    p = _p_exact(*law)
    k0 = 20
    lo, hi = _binomial.pow_bounds(law, k0, 62)                 # a 62-bit prefix inside the bounds of w_20
    u = int(mp.floor(mp.power(1 - p, k0) * 2**62))
    assert lo <= u < hi or lo <= u + 1 <= hi
    g = np.random.default_rng(0)
    ys = [_binomial._decide(u, 1000, law, g) for _ in range(200)]
    assert set(ys) == {k0 - 1, k0}                             # the bits after 62 decide, both sides occur
    # the resolved value is the inversion of the refined uniform: replay the extra bits
    g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
    y = _binomial._decide(u, 1000, law, g1)
    extra = int(g2.integers(0, 2**62, dtype=np.int64))
    U = (mp.mpf(u) * 2**62 + extra + mp.mpf(1) / 2) / mp.mpf(2) ** 124
    assert y == int(mp.floor(mp.log(U) / mp.log1p(-p)))
    assert _binomial._decide(u, 5, law, np.random.default_rng(1)) == 5          # capped: G ≥ 20 > cap
    assert _binomial._decide(0, 7, (Fraction(0), Fraction(0)), np.random.default_rng(1)) == 7   # U < 2^−62: huge gap


def test_issue36_cost_is_one_plus_f_gaps_not_m_trials(monkeypatch):
    drawn = []
    real = _binomial._gaps

    def counting(cap, law, tab, g):
        drawn.append(cap.size)
        return real(cap, law, tab, g)

    monkeypatch.setattr(_binomial, "_gaps", counting)
    law = (Fraction(27), Fraction(1))                          # M = 2^40 cells, p ≈ 1.4e-12, mean ≈ 1.5
    F = _binomial.binomial(2**40, [law], np.zeros(1000, np.int64), np.random.default_rng(2))
    assert 0 < sum(drawn) <= 10 * 1000 and sum(drawn) <= 3 * (1000 + int(F.sum())) + 5 * 1000
    # the release at p = 2^40 through the sparse sampler: q + F work, not p
    t = histograms.SparseCounts.from_records([3, 3, 9], 2**40)
    cal = histograms.calibrate_threshold(histograms.ThresholdConfig(1.0, 2**40), (1,))
    drawn.clear()
    out = histograms.sample_threshold(t, cal, 200, 4)
    assert out.reps == 200 and sum(drawn) <= 10 * 200


def test_issue36_distinct_ranks_are_uniform_subsets_of_exact_integers():
    # F distinct ranks among M: every F-subset equally likely (χ² over the C(6, 3) = 20 subsets), no duplicates
    R, M, F = 40_000, 6, 3
    rep, ranks = _sampling._distinct_ranks(np.full(R, F, np.int64), M, np.random.default_rng(9), False)
    assert ranks.dtype == np.int64 and np.all(np.bincount(rep, minlength=R) == F)
    subsets = {s: i for i, s in enumerate(itertools.combinations(range(M), F))}
    idx = [subsets[tuple(r)] for r in ranks.reshape(R, F).tolist()]
    counts = np.bincount(idx, minlength=len(subsets))
    assert stats.chisquare(counts).pvalue > ALPHA
    # mixed sizes, including F = M (all cells) and F = 0
    rep, ranks = _sampling._distinct_ranks(np.array([0, 6, 1, 4]), M, np.random.default_rng(1), False)
    assert np.array_equal(np.bincount(rep, minlength=4), [0, 6, 1, 4])
    assert np.array_equal(ranks[rep == 1], np.arange(6))


@pytest.mark.parametrize("noise", ["geometric", "laplace"])
def test_issue36_release_count_of_surviving_empty_cells_is_the_exact_binomial(noise):
    # through the sparse sampler at p = 2^30: τ = b·log(p/q_bound) with q_bound = 40, b = 2 (ε = 1, replace-one)
    P, reps = 2**30, 4000
    t = histograms.SparseCounts.from_records([5, 5, 77], P)
    cal = histograms.calibrate_threshold(histograms.ThresholdConfig(1.0, P, noise=noise, tau_rule="public q bound",
                                                                    q_bound=40), (1,))
    out = histograms.sample_threshold(t, cal, reps, 11)
    empty = ~np.isin(out.cells, t.cells)
    F = np.bincount(out.rep[empty], minlength=reps)
    tau = float(out.tau[0])
    if noise == "geometric":
        s = exact.rational_at_least(cal.constant)
        m = math.floor(tau) + 1
        p = _p_exact(Fraction(m) / s, 1 / s)
    else:
        p = _p_exact(Fraction(tau) / Fraction(cal.constant), Fraction(0))
    assert _chi2_binomial(F, P - t.q, p) > ALPHA
    assert _chi2_binomial(F, P - t.q, p * mp.mpf("1.1")) < ALPHA


@pytest.mark.parametrize("gamma", [Fraction(740), Fraction(744), Fraction(5000)])
def test_issue36_vanishing_p_gives_no_survivors_on_both_paths(gamma):
    # p = e^{−γ}/(1 + e^{−1}) is subnormal or below the doubles: the guess is +∞ (or p rounds to 0) and the exact
    # bounds certify G ≥ M; M·p < 1e-300, so any survivor would be a bug
    law = (gamma, Fraction(1))
    assert np.all(_binomial.binomial(2**40, [law], np.zeros(5000, np.int64), np.random.default_rng(1)) == 0)
    tab = _binomial._tables(law, 41)
    assert np.all(_binomial._binomial_scalar(2**40, 50, law, tab, np.random.default_rng(2)) == 0)

"""Exact Binomial(M, p) draws for p = e^{−γ}/(1 + e^{−η}) in O(1 + F) expected time (F the draw), M up to 2^40.

This is the number of surviving empty cells of the thresholded histogram's sparse sampler (:mod:`dpcore.histograms`):
an empty cell survives when its noise exceeds τ, independently, with probability p = P(Z ≥ m) = a^m/(1 + a),
a = e^{−1/t}, for the discrete Laplace law of scale t and m = ⌊τ⌋ + 1 (γ = m/t, η = 1/t), or p = P(L > τ) = ½e^{−τ/b}
for the Laplace law (γ = τ/b, η = 0). M is the number of empty cells (up to 2^40), so M Bernoulli trials are out of
the question; numpy's ``binomial`` at a double-precision p is not exact.

The method (the waiting-time method for the binomial, Devroye 1986, *Non-Uniform Random Variate Generation*, ch. X):
the M trials are a Bernoulli(p) process, and the gaps (failures before each success) are iid Geometric(p) with
P(G ≥ k) = (1 − p)^k; F is the number of successes whose position G₁ + … + G_j + j is ≤ M. So F is drawn from F + 1
gaps (the last one overflows), each by inversion of one uniform real U ∈ [0, 1): G ≥ k ⟺ U < w_k := (1 − p)^k.
Gaps are drawn in batches per replicate (about the expected number of survivors left, + 4 standard deviations);
the ones after the overflowing gap are discarded: whether a gap is used depends only on the gaps before it, so the
used gaps are iid Geometric(p) whatever the batch size. A gap only matters up to the cells left, so it is drawn as
min(G, cap), cap the cells left at the batch start (G ≥ cap overflows).

Exactness, in the sense of :mod:`dpcore._inversion` (and :mod:`dpcore.exact`, CKS20): the bits of U come lazily
from ``Generator.integers``; the first 62 bits u give U ∈ [u, u + 1)·2^−62. Integers lo_k ≤ w_k·2^62 ≤ hi_k are
rigorous outward-rounded bounds: e^{−x} is bracketed by :func:`dpcore._inversion.exp_neg_bounds` (alternating
Taylor series, rounded outward, squared with outward rounding); p's bounds divide the numerator's lower (upper)
bound by the denominator's upper (lower) one, floored (ceiled); 1 − p_hi ≤ 1 − p ≤ 1 − p_lo; powers are products
of non-negative lower (upper) bounds rounded down (up). Every step keeps lo ≤ truth ≤ hi. A floating-point guess
k = ⌊log U/log(1 − p)⌋ only chooses which bounds to read: the draw is k when u + 1 ≤ lo_k (certainly U < w_k) and
u ≥ hi_{k+1} = ⌈hi_k·hi(1 − p)/2^62⌉ (certainly U ≥ w_{k+1}), or, for k = cap, when u + 1 ≤ lo_cap. Any other draw
(a wrong guess, or u within the bounds' width of a boundary: probability about 2^−54 per gap) is decided by
:func:`_decide`, a binary search over k whose comparisons U < w_k draw 62 more bits of U and recompute the bounds at
the new precision until decided (U ≠ w_k with probability 1 when p is irrational, and U < w_k or U ≥ w_k is decided
at finite precision when w_k is dyadic, as for p = ½; the bounds' width shrinks with the precision, so every
comparison terminates). Nothing is rounded in the law: F ~ Binomial(M, p) exactly, for the exact p of the rational
γ, η.

The bounds of w_k: k < 2^{8C} is split into 8-bit digits, w_k = Π_c (1 − p)^{d_c·2^{8c}}, and a table per digit
position holds 62-bit outward bounds of (1 − p)^{v·2^{8c}}, v < 256 (built once per (γ, η) at 62 + 8C + 24 bits of
precision and cached). Many gaps (:func:`_gaps`): exact 62 × 62-bit products in uint64 (31-bit halves) of the upper
bounds, the lower bound derived from them (:func:`_w_bounds`); few gaps (:func:`_gap_scalar`, e.g. one release with
τ = b·log p): both chains of products in Python ints. Both certify only what the bounds prove, so both draw exactly
the same law.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Sequence

import numpy as np

from ._inversion import exp_neg_bounds
from .errors import DPValueError

__all__ = ["binomial", "p_bounds", "pow_bounds", "MAX_TRIALS"]

_BITS = 62
_ONE = 1 << _BITS
_M31 = np.uint64((1 << 31) - 1)
_S31 = np.uint64(31)
_DIGIT = 8                      # bits per table digit
_MAX_BATCH = 1 << 22            # gaps drawn per round (cumulative sums stay below 2^63: 2^22·(2^40 + 1))
_SCALAR_GAPS = 128              # expected gaps up to which Python ints beat numpy's per-call overhead
#: Largest number of trials M (the histogram's MAX_P).
MAX_TRIALS = 1 << 40

Law = tuple[Fraction, Fraction]


def _exp_bounds(x: Fraction, prec: int) -> tuple[int, int]:
    """lo ≤ e^{−x}·2^prec ≤ hi (exact when x = 0)."""
    if x == 0:
        return 1 << prec, 1 << prec
    return exp_neg_bounds(x, prec)


def p_bounds(gamma: Fraction, eta: Fraction, prec: int) -> tuple[int, int]:
    """Integers lo ≤ p·2^prec ≤ hi for p = e^{−γ}/(1 + e^{−η}) (γ, η ≥ 0 rational): the numerator's lower (upper)
    bound over the denominator's upper (lower) bound, floored (ceiled)."""
    e_lo, e_hi = _exp_bounds(gamma, prec + 4)
    f_lo, f_hi = _exp_bounds(eta, prec + 4)
    one = 1 << (prec + 4)
    lo = (e_lo << prec) // (one + f_hi)
    hi = -((-(e_hi << prec)) // (one + f_lo))
    return lo, hi


def _one_minus_p(law: Law, prec: int) -> tuple[int, int]:
    p_lo, p_hi = p_bounds(law[0], law[1], prec)
    return max((1 << prec) - p_hi, 0), (1 << prec) - p_lo


def pow_bounds(law: Law, k: int, prec: int) -> tuple[int, int]:
    """Integers lo ≤ (1 − p)^k·2^prec ≤ hi (square-and-multiply with outward rounding, 2·bitlen(k) + 16 guard
    bits so that hi − lo stays a few units)."""
    guard = 2 * k.bit_length() + 16
    q = prec + guard
    a_lo, a_hi = _one_minus_p(law, q)
    r_lo = r_hi = 1 << q
    while k:
        if k & 1:
            r_lo = (r_lo * a_lo) >> q
            r_hi = -((-r_hi * a_hi) >> q)
        k >>= 1
        if k:
            a_lo = (a_lo * a_lo) >> q
            a_hi = -((-a_hi * a_hi) >> q)
    return r_lo >> guard, -((-r_hi) >> guard)


Tables = tuple[np.ndarray, np.ndarray, float, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


@functools.lru_cache(maxsize=64)
def _tables(law: Law, nbits: int) -> Tables:
    """(lo, hi, p, lo_int, hi_int): uint64 arrays (C, 256) with lo[c, v] ≤ (1 − p)^{v·2^{8c}}·2^62 ≤ hi[c, v],
    C = ⌈nbits/8⌉, p in double precision (for the guesses only), and the same bounds as tuples of Python ints (the
    scalar path). A pure function of (γ, η, nbits), cached read-only."""
    C = max(1, -(-nbits // _DIGIT))
    q = _BITS + C * _DIGIT + 24
    shift = q - _BITS
    b_lo, b_hi = _one_minus_p(law, q)                        # bounds of (1 − p)^{2^{8c}}, c = 0
    lo = np.empty((C, 1 << _DIGIT), dtype=np.uint64)
    hi = np.empty((C, 1 << _DIGIT), dtype=np.uint64)
    for c in range(C):
        r_lo = r_hi = 1 << q
        for v in range(1 << _DIGIT):
            lo[c, v] = r_lo >> shift
            hi[c, v] = -((-r_hi) >> shift)
            r_lo = (r_lo * b_lo) >> q
            r_hi = -((-r_hi * b_hi) >> q)
        b_lo, b_hi = r_lo, r_hi                              # (1 − p)^{256·2^{8c}} = (1 − p)^{2^{8(c+1)}}
    lo.flags.writeable = hi.flags.writeable = False
    gamma, eta = (float(x) if x < 1000 else 1000.0 for x in law)
    pf = math.exp(-gamma) / (1.0 + math.exp(-eta))           # in double precision: a guess only
    return lo, hi, pf, tuple(map(tuple, lo.tolist())), tuple(map(tuple, hi.tolist()))


def _mul(a: np.ndarray, b: np.ndarray, up: bool) -> np.ndarray:
    """⌊a·b/2^62⌋ (or ⌈·⌉ if ``up``) exactly, for uint64 arrays with entries ≤ 2^62 (31-bit halves: every partial
    product and sum fits in 64 bits)."""
    a1, a0 = a >> _S31, a & _M31
    b1, b0 = b >> _S31, b & _M31
    low = a0 * b0                                            # < 2^62
    t = a1 * b0 + a0 * b1 + (low >> _S31)                    # ≤ 2^63 + 2^31
    out = a1 * b1 + (t >> _S31)
    if up:
        out += (((t & _M31) | (low & _M31)) != 0).astype(np.uint64)
    return out


def _w_bounds(k: np.ndarray, lo_t: np.ndarray, hi_t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """62-bit bounds (lo, hi) of (1 − p)^k for an int64 array 0 ≤ k < 2^{8C}: hi is the ceiled product of the digit
    tables' upper bounds, lo = hi − S with S = C·(1 + max(hi_t − lo_t)) (0 if negative).

    Why lo is a lower bound: with every factor in [0, 1] (units of 2^62), Π hi_c − Π lo_c ≤ Σ (hi_c − lo_c)
    (telescoping), and the ceiled chain exceeds Π hi_c by less than one unit per product (a factor ≤ 1 does not
    enlarge an earlier excess); so (1 − p)^k ≥ Π lo_c ≥ hi − (C − 1) − C·max(hi_t − lo_t) ≥ hi − S. One chain of
    products instead of two."""
    mask = (1 << _DIGIT) - 1
    hi = hi_t[0][k & mask]
    top = int(k.max(initial=0))
    for c in range(1, hi_t.shape[0]):
        if top >> (_DIGIT * c) == 0:
            break
        hi = _mul(hi, hi_t[c][(k >> (_DIGIT * c)) & mask], True)
    slack = np.uint64(hi_t.shape[0] * (1 + int((hi_t - lo_t).max())))
    return np.where(hi > slack, hi - slack, np.uint64(0)), hi


def _decide(u: int, cap: int, law: Law, g: np.random.Generator) -> int:
    """min(G, cap) for one gap whose first 62 bits u were not certified: binary search over k of U < w_k, each
    comparison refining U (62 more bits) and the bounds of w_k until decided."""
    state = [u, _BITS]

    def below(k: int) -> bool:                               # U < (1 − p)^k ?
        while True:
            v, nbits = state
            lo, hi = pow_bounds(law, k, nbits)
            if v + 1 <= lo:
                return True
            if v >= hi:
                return False
            state[0] = (v << _BITS) | int(g.integers(0, _ONE, dtype=np.int64))
            state[1] = nbits + _BITS

    if below(cap):
        return cap
    a, b = 0, cap - 1                                         # U < w_0 = 1: the answer is in [0, cap − 1]
    while a < b:
        mid = (a + b + 1) // 2
        if below(mid):
            a = mid
        else:
            b = mid - 1
    return a


def _gap_scalar(u: int, cap: int, law: Law, tab: Tables, log_q: float, g: np.random.Generator) -> int:
    """min(G, cap) for one gap with first 62 bits u: :func:`_gaps` in Python ints (the same bounds, products and
    certification; for a few gaps, where numpy's per-call overhead dominates). ``log_q`` = log(1 − p) (0: p < 1e-308)."""
    x = math.inf if log_q == 0.0 else math.log((u + 0.5) * 2.0 ** -_BITS) / log_q     # in [0, ∞]
    k = cap if x >= cap else max(int(math.floor(x)), 0)
    lo_t, hi_t = tab[3], tab[4]
    d, rest = k & 0xFF, k >> _DIGIT
    lo, hi = lo_t[0][d], hi_t[0][d]
    c = 1
    while rest:
        d = rest & 0xFF
        lo = (lo * lo_t[c][d]) >> _BITS
        hi = -((-hi * hi_t[c][d]) >> _BITS)
        rest >>= _DIGIT
        c += 1
    if u + 1 <= lo and (k == cap or u >= -((-hi * hi_t[0][1]) >> _BITS)):
        return k
    return _decide(u, cap, law, g)


def _binomial_scalar(trials: int, reps: int, law: Law, tab: Tables, g: np.random.Generator) -> np.ndarray:
    """:func:`_binomial_one_law` gap by gap in Python ints (the same law): for few expected gaps."""
    pf = tab[2]
    log_q = math.log1p(-pf) if pf > 0.0 else 0.0
    out = np.zeros(reps, dtype=np.int64)
    for r in range(reps):
        left, f = trials, 0
        while left > 0:
            mu = left * pf
            us = g.integers(0, _ONE, size=min(math.ceil(mu + 4.0 * math.sqrt(mu) + 1.0), _MAX_BATCH), dtype=np.int64)
            for u in us.tolist():
                k = _gap_scalar(u, left, law, tab, log_q, g)
                if k == left:                                 # G ≥ the cells left: no more survivors
                    left = 0
                    break
                f += 1                                        # a survivor k cells on; the process restarts after it
                left -= k + 1
                if left == 0:
                    break
        out[r] = f
    return out


def _gaps(cap: np.ndarray, law: Law, tab: Tables, g: np.random.Generator) -> np.ndarray:
    """min(G_i, cap_i) for iid G_i ~ Geometric(p) (P(G ≥ k) = (1 − p)^k), exactly; int64."""
    lo_t, hi_t, pf = tab[0], tab[1], tab[2]
    n = cap.size
    u = g.integers(0, _ONE, size=n, dtype=np.int64)
    capf = cap.astype(float)
    if pf > 0.0:
        with np.errstate(divide="ignore", over="ignore"):  # log U ≤ 0 and log(1 − p) < 0: a guess in [0, ∞]
            guess = np.floor(np.log((u + 0.5) * 2.0 ** -_BITS) / math.log1p(-pf))
        k = np.minimum(guess, capf)
    else:
        k = capf
    k = np.maximum(k, 0.0).astype(np.int64)
    at_cap = k == cap
    lo, hi = _w_bounds(k, lo_t, hi_t)
    hi_next = _mul(hi, np.full(n, hi_t[0][1], dtype=np.uint64), True)     # ≥ (1 − p)^{k+1}·2^62
    uu = u.astype(np.uint64)
    ok = (uu + np.uint64(1) <= lo) & (at_cap | (uu >= hi_next))
    for j in np.flatnonzero(~ok):                            # rare: a wrong guess or U within a bound's width
        k[j] = _decide(int(u[j]), int(cap[j]), law, g)
    return k


def _binomial_one_law(trials: int, reps: int, law: Law, g: np.random.Generator) -> np.ndarray:
    tab = _tables(law, max(trials.bit_length(), 1))
    pf = tab[2]
    mu0 = trials * pf
    if reps * (mu0 + 4.0 * math.sqrt(mu0) + 1.0) <= _SCALAR_GAPS:
        return _binomial_scalar(trials, reps, law, tab, g)
    F = np.zeros(reps, dtype=np.int64)
    left = np.full(reps, trials, dtype=np.int64)
    active = np.arange(reps)
    while active.size:
        mu = left[active] * pf
        want = np.minimum(np.ceil(mu + 4.0 * np.sqrt(mu) + 1.0), _MAX_BATCH).astype(np.int64)
        take = max(1, int(np.searchsorted(np.cumsum(want), _MAX_BATCH, side="right")))
        now, want = active[:take], want[:take]
        rid = np.repeat(np.arange(take), want)
        cap = left[now][rid]
        step = _gaps(cap, law, tab, g) + 1                    # ≤ cap + 1 ≤ 2^40 + 1
        cs = np.cumsum(step)
        starts = np.cumsum(want) - want
        pos = cs - np.repeat(cs[starts] - step[starts], want)  # cells used up to and including each success
        inside = pos <= cap
        n_in = np.bincount(rid[inside], minlength=take)
        F[now] += n_in
        used = np.where(n_in > 0, pos[starts + np.maximum(n_in - 1, 0)], 0)
        left[now] -= used
        done = (n_in < want) | (left[now] == 0)               # a gap overflowed, or no cells left
        active = np.concatenate([now[~done], active[take:]])
    return F


def binomial(trials: int, laws: Sequence[Law], which: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """F_i ~ Binomial(trials, p_{which_i}) independently and exactly, p = e^{−γ}/(1 + e^{−η}) for each (γ, η) of
    ``laws`` (rationals ≥ 0, so p ≤ ½); int64 array shaped like ``which``. Expected cost O(1 + F_i) per draw."""
    trials = int(trials)
    if not 0 <= trials <= MAX_TRIALS:
        raise DPValueError(f"trials must be in 0 … 2^40 for the exact binomial; got {trials:,}.")
    which = np.asarray(which, dtype=np.int64)
    out = np.zeros(which.shape, dtype=np.int64)
    if trials == 0 or which.size == 0:
        return out
    for gamma, eta in laws:
        if gamma < 0 or eta < 0:
            raise DPValueError(f"the exact binomial needs γ, η ≥ 0; got γ = {gamma}, η = {eta}.")
    if len(laws) == 1:                                        # one law (one τ for every replicate): no grouping
        return _binomial_one_law(trials, which.size, _law(laws[0]), g).reshape(which.shape)
    flat = out.reshape(-1)
    w = which.reshape(-1)
    for i in np.unique(w):
        idx = np.flatnonzero(w == i)
        flat[idx] = _binomial_one_law(trials, idx.size, _law(laws[int(i)]), g)
    return out


def _law(law: tuple[Fraction | int, Fraction | int]) -> Law:
    return law[0] if isinstance(law[0], Fraction) else Fraction(law[0]), law[1] if isinstance(law[1], Fraction) else Fraction(law[1])

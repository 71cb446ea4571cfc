"""Exact geometric draws by inversion against rigorous integer bounds of a^k (the fast path of :mod:`dpcore.exact`).

Y ~ Geometric(1 − a) on {0, 1, …}, a = exp(−x) for a rational x > 0, satisfies Y ≥ k ⟺ U < a^k for one uniform
real U ∈ [0, 1). The bits of U come lazily from ``integers``: its first 62 bits u give U ∈ [u, u + 1)/2^62; with
integers lo_k ≤ a^k·2^62 ≤ hi_k (exact interval arithmetic below), U < a^k is certain when u < lo_k and impossible
when u ≥ hi_k, so Y is decided by two ``searchsorted`` calls on the tables except when u falls in some [lo_k, hi_k)
(probability ≤ 2^−61 per k): those draws take 62 more bits of U and tighter bounds until decided. Draws reaching
the end of the table (certainly U < a^K) continue as K + a fresh geometric (memorylessness). Nothing is rounded:
the law is exactly Geometric(1 − a).

The bounds: e^{−y} for y = x/2^s ≤ ½ lies between consecutive partial sums of its alternating Taylor series (the
terms decrease in absolute value); those rationals are rounded outward to Q bits and squared s times with outward
rounding (floor of the lower, ceiling of the upper), then a^k = (a)^k by outward-rounded products.
"""
from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

_BITS = 62
_CHUNK = 1 << _BITS
#: Largest table (entries a^1 … a^K); scales needing more use CKS20's algorithm.
MAX_TABLE = 1 << 16
#: The table reaches a^K ≤ 2^−TAIL_BITS, or has at least MIN_TABLE entries with a^K ≤ 2^−4 (large scales: fewer
#: entries to build, ≤ 1/16 of the draws continue); rarer draws continue by memorylessness.
TAIL_BITS = 24
MIN_TABLE = 4096


def _taylor_fixed(y: int, q: int) -> tuple[int, int]:
    """(S, m): Σ_j (−y/2^q)^j/j! in fixed point (units 2^−q), each term floored, summed until a term is below one
    unit; m terms. For y ≤ 2^q/2 each rounded term is within 2 units of the true one (e_j ≤ e_{j−1}·y/j + 1 ≤
    e_{j−1}/2 + 1), so the sum is within 2m + 2 units of e^{−y/2^q} (+2: the alternating tail after the last
    term, whose true size is below the 2-unit error of a term that rounded to 0)."""
    term, total, j, one = 1 << q, 1 << q, 0, 1 << q
    while term:
        j += 1
        term = (term * y) // (one * j)
        total += -term if j % 2 else term
    return total, j


def exp_neg_bounds(x: Fraction, prec: int) -> tuple[int, int]:
    """Integers (lo, hi) with lo ≤ exp(−x)·2^prec ≤ hi, for a rational x ≥ 0 (hi − lo small).

    e^{−x} = (e^{−y})^{2^s} with y = x/2^s ≤ ½; y is bracketed in fixed point [y₀, y₀ + 1] (units 2^−q), e^{−y} is
    decreasing, so the Taylor sums at y₀ + 1 and y₀, widened by their rounding margin, bound it; squaring s times
    rounds the lower bound down and the upper bound up."""
    s = 0
    while x > Fraction(1, 2) * (1 << s):
        s += 1
    q = prec + 2 * s + 40                              # guard bits for the squarings and the margins
    y0 = (x.numerator << q) // (x.denominator << s)    # y₀ ≤ y·2^q < y₀ + 1
    lo_s, m1 = _taylor_fixed(y0 + 1, q)
    hi_s, m2 = _taylor_fixed(y0, q)
    lo, hi = max(lo_s - 2 * m1 - 3, 0), hi_s + 2 * m2 + 3
    for _ in range(s):
        lo = (lo * lo) >> q
        hi = -((-hi * hi) >> q)
    shift = q - prec
    return lo >> shift, -((-hi) >> shift)


@functools.lru_cache(maxsize=16)
def tables(x: Fraction) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(lo, hi, K): int64 arrays of the 62-bit bounds of a^1 … a^K, a = e^{−x}, a^K ≤ 2^−TAIL_BITS (or K ≥ MIN_TABLE
    and a^K ≤ 2^−4); None if that needs more than :data:`MAX_TABLE` entries (then the caller uses CKS20's
    algorithm). A pure function of x, cached (read-only arrays): the discrete Gaussian's rejection rounds and repeated
    releases at one scale build the table once (about 0.2 s for t ≈ 4 000, where the table has ≈ 11 000 entries)."""
    if x * MAX_TABLE < 4 * Fraction(7, 10):             # ln 2 > 0.69: a^K > 2^−4 at K = MAX_TABLE
        return None
    prec = 128
    lo1, hi1 = exp_neg_bounds(x, prec)
    lo_l, hi_l = [], []
    lo, hi = 1 << prec, 1 << prec
    stop = 1 << (prec - TAIL_BITS)
    while True:
        lo = (lo * lo1) >> prec
        hi = -((-hi * hi1) >> prec)
        lo_l.append(lo >> (prec - _BITS))
        hi_l.append(-((-hi) >> (prec - _BITS)))
        if hi <= stop or len(lo_l) >= MAX_TABLE or (len(lo_l) >= MIN_TABLE and hi <= 1 << (prec - 4)):
            break
    lo_a, hi_a = np.array(lo_l, dtype=np.int64), np.array(hi_l, dtype=np.int64)
    lo_a.flags.writeable = hi_a.flags.writeable = False
    return lo_a, hi_a, len(lo_l)


def _count_below(table_desc: np.ndarray, u: np.ndarray) -> np.ndarray:
    """#{k : u < table[k]} for a non-increasing table (searchsorted on its ascending reverse)."""
    asc = table_desc[::-1]
    return asc.size - np.searchsorted(asc, u, side="right")


def _resolve(u: int, k: int, x: Fraction, stop: int, g: np.random.Generator) -> int:
    """Y for one draw whose first 62 bits u leave U < a^k undecided: refine U and the bounds until decided."""
    v, bits = u, _BITS
    while k <= stop:
        while True:
            lo, hi = exp_neg_bounds(x * k, bits)
            if v + 1 <= lo:
                below = True
                break
            if v >= hi:
                below = False
                break
            v = (v << _BITS) | int(g.integers(0, _CHUNK, dtype=np.int64))
            bits += _BITS
        if not below:
            return k - 1
        k += 1
    return -1                                          # U < a^stop certainly: the caller continues from stop


def geometric(x: Fraction, size: int, g: np.random.Generator, tab: tuple[np.ndarray, np.ndarray, int]) -> np.ndarray:
    """``size`` exact draws of Geometric(1 − e^{−x}) on {0, 1, …} (int64) with the tables of :func:`tables`.

    A floating-point guess k = ⌊log(U)/log(a)⌋ only chooses which bounds to read: the draw is k when the exact
    bounds certify a^{k+1} ≤ U < a^k (u < lo_k and u ≥ hi_{k+1}); other draws (near a boundary, or a wrong
    guess) are decided by searching the whole table.
    """
    lo, hi, K = tab
    top = np.array([_CHUNK], dtype=np.int64)
    lo_x = np.concatenate([top, lo])                       # lo_x[k] ≤ a^k·2^62 ≤ hi_x[k], k = 0 … K
    hi_next = np.concatenate([hi, np.zeros(1, np.int64)])  # hi_{k+1}, with 0 past the table (k = K: continue)
    log_a = -float(x)
    out = np.zeros(size, dtype=np.int64)
    todo = np.arange(size)
    base = np.zeros(size, dtype=np.int64)
    while todo.size:
        u = g.integers(0, _CHUNK, size=todo.size, dtype=np.int64)
        with np.errstate(divide="ignore"):
            guess = np.log((u.astype(float) + 0.5) * (1.0 / _CHUNK)) / log_a
        k = np.clip(np.floor(guess), 0, K).astype(np.int64)
        ok = (u < lo_x[k]) & (u >= hi_next[k])
        for j in np.flatnonzero(~ok):                      # rare: the exact search
            uj = u[j:j + 1]
            y_lo, y_hi = int(_count_below(lo, uj)[0]), int(_count_below(hi, uj)[0])
            if y_lo != y_hi:                               # undecided at 62 bits (probability ≤ 2^−61 per k)
                r = _resolve(int(uj[0]), y_lo + 1, x, K, g)
                y_lo = K if r < 0 else r
            k[j] = y_lo
        out[todo] = base[todo] + k
        again = k == K                                     # U < a^K: K + a fresh geometric (memoryless)
        base[todo[again]] += K
        todo = todo[again]
    return out

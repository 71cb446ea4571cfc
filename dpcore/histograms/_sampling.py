"""The vectorised samplers of the histogram releases (dense per-cell noise; the sparse O(q + F) threshold
sampler), post-processing, and the non-private counts. The releases (:mod:`dpcore.histograms.release`) and
the audits (:mod:`dpcore.histograms.audits`) call the same samplers with a calibration.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import RNGLike, as_generator
from ..errors import DPValueError
from ..exact import (discrete_laplace, discrete_laplace_survival, discrete_laplace_survivors, discrete_laplace_tail,
                     laplace_survivors)
from ..mechanism import Calibration
from ._tables import BatchHistogram, SparseCounts, _check_dense, as_counts

__all__ = ["sample_histogram", "sample_threshold", "survival_probability", "simplex_round", "true_counts",
           "MAX_DENSE_WORK"]

#: Largest reps × p of a dense sampling call (a work cap; chunks of ≤ 2^22 cells are drawn at a time).
MAX_DENSE_WORK = 2**26
_CHUNK = 2**22


def _noise(kind: str, b: float, size, g: np.random.Generator) -> np.ndarray:
    """Per-cell noise: numpy's float Laplace(b), or the two-sided geometric (discrete Laplace) law drawn EXACTLY
    (:func:`dpcore.exact.discrete_laplace`, CKS20 Algorithm 2, scale b rounded up to a 41-bit rational)."""
    if kind == "laplace":
        return g.laplace(0.0, b, size)
    return discrete_laplace(b, size, g).astype(float)


def survival_probability(kind: str, b: float, tau: Any) -> np.ndarray:
    """P(noise > τ) for τ ≥ 0: ½e^{−τ/b} (Laplace); a^m/(1 + a), m = ⌊τ⌋ + 1, a = e^{−1/b} (geometric, at the
    exact sampler's scale); in double precision, for display and tests (the sampler's count of surviving empty
    cells uses the exact law, :func:`_surviving_empty`)."""
    tau = np.asarray(tau, dtype=float)
    if kind == "laplace":
        return 0.5 * np.exp(-tau / b)
    return discrete_laplace_survival(b, np.floor(tau) + 1.0)


def _surviving_empty(kind: str, b: float, tau: np.ndarray, M: int, g: np.random.Generator) -> np.ndarray:
    """F_r ~ Binomial(M, P(noise > τ_r)) for each replicate r, EXACTLY (no double-precision probability): the
    geometric gaps between surviving cells drawn against rigorous integer bounds of (1 − p)^k
    (:func:`dpcore.exact.discrete_laplace_survivors`, m = ⌊τ⌋ + 1; :func:`dpcore.exact.laplace_survivors` at the
    doubles τ and b as exact rationals; :mod:`dpcore._binomial` derives the exactness). Expected cost O(1 + F_r)."""
    if kind == "laplace":
        return laplace_survivors(b, tau, M, g)
    return discrete_laplace_survivors(b, np.floor(tau).astype(np.int64) + 1, M, g)


def _tail_values(kind: str, b: float, tau: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Draws of (noise | noise > τ) for each τ (memoryless tails; exact for the geometric law)."""
    if kind == "laplace":
        return tau + g.exponential(b, tau.shape)
    return discrete_laplace_tail(b, np.floor(tau).astype(np.int64) + 1, g).astype(float)


# -- post-processing ----------------------------------------------------------------------------------------
def simplex_round(x: np.ndarray, n: int) -> np.ndarray:
    """Rows of ``x`` projected onto {h ≥ 0, Σh = n} (sort-based Euclidean projection), then rounded to
    integers keeping Σ = n (largest remainders). Spec §1.2 (b); free post-processing."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    R, p = x.shape
    if n == 0:
        return np.zeros_like(x)
    u = -np.sort(-x, axis=1)
    css = np.cumsum(u, axis=1) - n
    j = np.arange(1, p + 1)
    rho = (u - css / j > 0).sum(axis=1)                      # ≥ 1 always
    theta = css[np.arange(R), rho - 1] / rho
    h = np.maximum(x - theta[:, None], 0.0)
    fl = np.floor(h)
    short = (n - fl.sum(axis=1)).round().astype(np.int64)
    frac = h - fl
    order = np.argsort(-frac, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(p)[None, :].repeat(R, axis=0), axis=1)
    return fl + (ranks < short[:, None])


def _postprocess_dense(v: np.ndarray, how: str, n: int) -> np.ndarray:
    if how == "clip-round":
        return np.maximum(np.round(v), 0.0)
    if how == "simplex":
        return simplex_round(v, n)
    return v


# -- samplers (vectorised over replicates; the releases and the audits call these) --------------------------
def _dense_rows(p: int, reps: int) -> int:
    if reps * p > MAX_DENSE_WORK:
        raise DPValueError(f"reps × p = {reps:,} × {p:,} = {reps * p:,} noise draws exceeds the limit "
                           f"{MAX_DENSE_WORK:,} (2^26); lower the replicates or p.")
    return max(1, _CHUNK // p)


def sample_histogram(counts: SparseCounts, cal: Calibration, reps: int, rng: RNGLike = None) -> np.ndarray:
    """``reps`` independent releases of the per-cell mechanism of ``cal``: array (reps, p)."""
    p = counts.p
    _check_dense(p)
    rows = _dense_rows(p, reps)
    g = as_generator(rng)
    kind, post = cal.params["noise"], cal.params["postprocess"]
    if reps <= rows:           # one block (every single release): the noise array becomes the output, no copies
        out = _noise(kind, cal.constant, (reps, p), g)
        out[:, counts.cells] += counts.counts          # noise + counts: the same sums as counts + noise
        return _postprocess_dense(out, post, counts.n) if post != "none" else out
    dense = counts.to_dense().astype(float)
    out = np.empty((reps, p))
    for lo in range(0, reps, rows):
        hi = min(reps, lo + rows)
        out[lo:hi] = _postprocess_dense(dense[None, :] + _noise(kind, cal.constant, (hi - lo, p), g), post, counts.n)
    return out


def _taus(counts: SparseCounts, cal: Calibration, reps: int, g: np.random.Generator):
    """τ of each replicate (and the released q̂ under the noisy-q rule)."""
    p, b = counts.p, cal.constant
    if cal.params["tau_rule"] == "noisy q":
        scale = cal.params["q_noise_scale"]
        q_t = counts.q + (_noise(cal.params["noise"], scale, reps, g) if scale else np.zeros(reps))
        q_hat = np.clip(np.round(q_t), 1, p)
        return b * np.log(p / q_hat), q_hat
    q_pub = cal.params["q_for_tau"]
    return np.full(reps, b * math.log(p / q_pub)), None


def _unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sort-based: numpy's hash-based np.unique is slow on large int64 keys)."""
    a = np.sort(x)
    return a[np.concatenate([[True], a[1:] != a[:-1]])] if a.size else a


def _distinct_ranks(F: np.ndarray, M: int, g: np.random.Generator, replace: bool) -> tuple[np.ndarray, np.ndarray]:
    """For each replicate r, F[r] ≤ M ranks in [0, M): distinct and uniform over F[r]-subsets (the first F[r]
    distinct values of an iid uniform sequence: exchangeability), or, if ``replace`` (the broken
    mutant), F[r] iid draws with duplicates collapsed. Returns (rep, rank) sorted.

    Exact (issue 36): the ranks are ``Generator.integers(0, M)``, exactly uniform integers (numpy's bounded
    integers reject out-of-range words; no floating point); each round draws F[r] − (distinct so far) more, so the
    set never exceeds F[r], and it is the set of distinct values of the whole sequence; the stopping rule depends
    only on how many values are distinct, which every permutation of [0, M) preserves while leaving the sequence's
    law unchanged, so the final set is uniform over the F[r]-subsets given F[r]."""
    R = F.size
    if replace:
        rep = np.repeat(np.arange(R), F)
        keys = _unique(rep * M + g.integers(0, M, rep.size)) if rep.size else np.empty(0, np.int64)
        return keys // M, keys % M
    done, cur = [], np.empty(0, dtype=np.int64)
    complete = F == 0
    need = F.astype(np.int64).copy()
    while not complete.all():
        rep = np.repeat(np.arange(R), need)
        cur = _unique(np.concatenate([cur, rep * M + g.integers(0, M, rep.size)]))
        need = np.where(complete, 0, F - np.bincount(cur // M, minlength=R))
        complete |= need == 0
        finished = complete[cur // M]                        # replicates complete: set their keys aside
        done.append(cur[finished])
        cur = cur[~finished]
    keys = np.sort(np.concatenate(done)) if done else np.empty(0, dtype=np.int64)
    return keys // M, keys % M


def sample_threshold(counts: SparseCounts, cal: Calibration, reps: int, rng: RNGLike = None) -> BatchHistogram:
    """``reps`` independent thresholded releases (sparse or naive sampler, per ``cal.params``)."""
    g = as_generator(rng)
    p, b, kind = counts.p, cal.constant, cal.params["noise"]
    if reps * p >= 2**62 // 2 and cal.params["sampler"] == "sparse":
        raise DPValueError(f"reps × p = {reps * p:,} is too large for the sparse sampler's keys; lower reps.")
    tau, q_hat = _taus(counts, cal, reps, g)
    if cal.params["sampler"] == "dense":
        _check_dense(p)
        rows = _dense_rows(p, reps)
        dense = counts.to_dense().astype(float)
        parts = []
        for lo in range(0, reps, rows):
            hi = min(reps, lo + rows)
            x = dense[None, :] + _noise(kind, b, (hi - lo, p), g)
            r, c = np.nonzero(x > tau[lo:hi, None])
            parts.append((r + lo, c.astype(np.int64), x[r, c]))
        rep = np.concatenate([a for a, _, _ in parts])
        cells = np.concatenate([c for _, c, _ in parts])
        vals = np.concatenate([v for _, _, v in parts])
    else:
        q = counts.q
        x = counts.counts[None, :] + _noise(kind, b, (reps, q), g)          # occupied cells, explicitly
        r_o, j_o = np.nonzero(x > tau[:, None])
        M = p - q                                                            # empty cells
        F = _surviving_empty(kind, b, tau, M, g) if M > 0 else np.zeros(reps, np.int64)
        replace = cal.params.get("locations") == "with replacement"
        r_e, ranks = _distinct_ranks(np.asarray(F, np.int64), M, g, replace) if M > 0 else (
            np.empty(0, np.int64), np.empty(0, np.int64))
        shift = counts.cells - np.arange(q)                                 # empty cells before each occupied one
        cells_e = ranks + np.searchsorted(shift, ranks, side="right")
        vals_e = _tail_values(kind, b, tau[r_e], g)
        rep = np.concatenate([r_o, r_e]).astype(np.int64)
        cells = np.concatenate([counts.cells[j_o], cells_e]).astype(np.int64)
        vals = np.concatenate([x[r_o, j_o], vals_e])
        order = np.lexsort((cells, rep))
        rep, cells, vals = rep[order], cells[order], vals[order]
    if cal.params["postprocess"] == "round":
        vals = np.round(vals)
        keep = vals != 0
        rep, cells, vals = rep[keep], cells[keep], vals[keep]
    return BatchHistogram(reps, p, rep, cells, vals, tau, q_hat)



def true_counts(data: Any, config: Any) -> np.ndarray:
    """The non-private count vector (length p; small p). Not a mechanism."""
    return as_counts(data, config.p).to_dense()

"""Exact samplers for the 1-D median/quantile (KNG and exponential mechanism).

Both laws live on the public interval [lo, hi] and are *piecewise log-linear* between the order
statistics of the (clipped) data:

* KNG / Smith's private quantile: log f(θ) = −c·|k − τn| on the gap holding k observations
  ≤ θ (piecewise constant);
* exponential mechanism: log f(θ) = −c·Σρ_τ(y_i − θ), linear on each gap with slope −c(k − τn).

Sampling picks a gap with probability ∝ its mass (computed in log space: log-sum-exp, so it
works for ε·n ~ 1e7 and when every observation lies outside [lo, hi]) and then draws inside the
gap exactly (uniform, or a truncated exponential).

The KNG sampler avoids the O(n log n) sort: it sorts only a window of ranks around τn (found by
``np.partition`` in O(n)) and bounds the mass of the two outer regions; an outer region is
proposed with probability ∝ its bound and accepted with probability exact/bound (its exact mass
is computed lazily the first time it is proposed, and used from then on). The result is exact,
whatever the window; the window only decides the speed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp


# ----------------------------------------------------------------------------- helpers
def _log_exprel(x: np.ndarray) -> np.ndarray:
    """log((e^x − 1)/x), stable for all real x (0 at x = 0)."""
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    ax = np.abs(x)
    small = ax < 1e-8
    out[small] = x[small] / 2.0
    big = ~small
    xb, axb = x[big], ax[big]
    # (e^x − 1)/x = e^{max(x,0)} (1 − e^{−|x|}) / |x|
    out[big] = np.maximum(xb, 0.0) + np.log(-np.expm1(-axb)) - np.log(axb)
    return out


def _categorical(logw: np.ndarray, size: int, g: np.random.Generator) -> np.ndarray:
    """Indices drawn with probability ∝ exp(logw) (−inf allowed), by inverse CDF."""
    m = np.max(logw)
    w = np.exp(logw - m)
    cw = np.cumsum(w)
    u = g.random(size) * cw[-1]
    idx = np.searchsorted(cw, u, side="right")
    return np.minimum(idx, len(w) - 1)


@dataclass(frozen=True)
class Pieces:
    """A piecewise log-linear density on [edges[0], edges[-1]]: on piece j,
    log f(θ) = alpha[j] + beta[j]·(θ − edges[j]) (unnormalised)."""

    edges: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.edges)

    def log_masses(self) -> np.ndarray:
        L = self.lengths
        with np.errstate(divide="ignore"):
            logL = np.log(L)
        out = self.alpha + logL + _log_exprel(self.beta * L)
        return np.where(L > 0, out, -np.inf)

    def log_normaliser(self) -> float:
        return float(logsumexp(self.log_masses()))

    def logpdf(self, t: np.ndarray) -> np.ndarray:
        """Normalised log density at points t (−inf outside [edges[0], edges[-1]])."""
        t = np.asarray(t, dtype=float)
        e = self.edges
        j = np.clip(np.searchsorted(e, t, side="right") - 1, 0, len(self.alpha) - 1)
        out = self.alpha[j] + self.beta[j] * (t - e[j]) - self.log_normaliser()
        return np.where((t >= e[0]) & (t <= e[-1]), out, -np.inf)

    def cdf(self, t: np.ndarray) -> np.ndarray:
        """Exact CDF at points t."""
        t = np.asarray(t, dtype=float)
        lm = self.log_masses()
        logZ = logsumexp(lm)
        p = np.exp(lm - logZ)
        cum = np.concatenate([[0.0], np.cumsum(p)])
        e = self.edges
        tc = np.clip(t, e[0], e[-1])
        j = np.clip(np.searchsorted(e, tc, side="right") - 1, 0, len(self.alpha) - 1)
        part = np.maximum(tc - e[j], 0.0)
        with np.errstate(divide="ignore"):
            lp = self.alpha[j] + np.log(part) + _log_exprel(self.beta[j] * part) - logZ
        inside = np.where(part > 0, np.exp(lp), 0.0)
        return np.clip(cum[j] + inside, 0.0, 1.0)

    def sample(self, size: int, g: np.random.Generator) -> np.ndarray:
        j = _categorical(self.log_masses(), size, g)
        return _within_piece(self.edges[j], self.lengths[j], self.beta[j], g.random(size))


def _within_piece(a: np.ndarray, L: np.ndarray, beta: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse CDF of the density ∝ exp(β(θ − a)) on [a, a + L], at uniforms u."""
    a, L, beta, u = (np.asarray(v, dtype=float) for v in (a, L, beta, u))
    out = a + u * L
    nz = (beta != 0) & (L > 0)
    if nz.any():
        b, ab, Ln, un = beta[nz], np.abs(beta[nz]), L[nz], u[nz]
        # distance s from the heavier end, density ∝ e^{−|β|s} on [0, L]
        s = -np.log1p(un * np.expm1(-ab * Ln)) / ab
        s = np.clip(s, 0.0, Ln)
        out[nz] = np.where(b > 0, a[nz] + Ln - s, a[nz] + s)
    return out


# ----------------------------------------------------------------------------- laws
def quantile_kng_pieces(y_sorted: np.ndarray, lo: float, hi: float, tau: float, c: float) -> Pieces:
    """Pieces of the KNG quantile law ∝ exp(−c·|#{y_i ≤ θ} − τn|) on [lo, hi].

    ``y_sorted``: the data sorted and clipped to [lo, hi]. Gap j (j = 0..n) lies between the
    j-th and (j+1)-th order statistics (lo and hi at the ends) and holds j observations ≤ θ.
    """
    n = y_sorted.size
    edges = np.concatenate([[lo], y_sorted, [hi]])
    alpha = -c * np.abs(np.arange(n + 1) - tau * n)
    return Pieces(edges, alpha, np.zeros(n + 1))


def quantile_loss_at(y_sorted: np.ndarray, t: np.ndarray, tau: float) -> np.ndarray:
    """Σρ_τ(y_i − t) at points t, O((n + m) log n) with prefix sums (y sorted)."""
    y = np.asarray(y_sorted, dtype=float)
    t = np.asarray(t, dtype=float)
    n = y.size
    cs = np.concatenate([[0.0], np.cumsum(y)])
    k = np.searchsorted(y, t, side="right")  # #{y ≤ t}
    s_le = cs[k]
    s_gt = cs[n] - s_le
    return tau * (s_gt - (n - k) * t) + (1.0 - tau) * (k * t - s_le)


def quantile_exponential_pieces(y_sorted: np.ndarray, lo: float, hi: float, tau: float, c: float) -> Pieces:
    """Pieces of the exponential-mechanism law ∝ exp(−c·Σρ_τ(y_i − θ)) on [lo, hi] (y clipped, sorted).

    On gap j the loss has slope j − τn, so the log density is linear with slope −c(j − τn).
    """
    n = y_sorted.size
    edges = np.concatenate([[lo], y_sorted, [hi]])
    slope = np.arange(n + 1) - tau * n
    # loss at the left edges by accumulating slope × gap from L(lo) (continuous, piecewise linear)
    L0 = float(quantile_loss_at(y_sorted, np.array([lo]), tau)[0])
    steps = slope * np.diff(edges)
    Ledge = L0 + np.concatenate([[0.0], np.cumsum(steps[:-1])])
    return Pieces(edges, -c * Ledge, -c * slope)


def _draw_in(edges: np.ndarray, logw: np.ndarray, k: int, g: np.random.Generator) -> np.ndarray:
    """k draws uniform within gaps chosen with log weights ``logw`` (gap j = [edges[j], edges[j+1]])."""
    j = _categorical(logw, k, g)
    return edges[j] + g.random(k) * (edges[j + 1] - edges[j])


def _partitioned(y: np.ndarray, kth: list[int], in_place: bool) -> np.ndarray:
    """``y`` partitioned at the ranks ``kth`` (in place when ``in_place``: the caller's own copy)."""
    if in_place:
        y.partition(kth)
        return y
    return np.partition(y, kth)


def sample_quantile_kng(y: np.ndarray, lo: float, hi: float, tau: float, c: float, size: int,
                        g: np.random.Generator, *, window: int | None = None,
                        overwrite_input: bool = False) -> np.ndarray:
    """Exact draws from ∝ exp(−c·|#{y_i ≤ θ} − τn|) on [lo, hi] (y already clipped to [lo, hi]).

    O(n) selection + O(w log w) for a window of w ranks around τn; see the module docstring.
    ``window`` (ranks on each side) is for tests; the default makes the outer regions' mass
    bound ≤ e^{−40} times a single gap's weight factor. ``overwrite_input=True`` partitions ``y`` in place
    (the caller's own copy: its order changes, never its values; the draws depend on the order statistics only).
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    t = tau * n
    m = int(math.ceil((40.0 + math.log(n + 2.0)) / c)) + 1 if window is None else int(window)
    a = max(0, int(math.floor(t)) - m)
    b = min(n, int(math.ceil(t)) + m)
    if (a == 0 and b == n) or n < 2048 and window is None:
        return quantile_kng_pieces(np.sort(y), lo, hi, tau, c).sample(size, g)

    part = _partitioned(y, [i for i in (a - 1, b) if 0 <= i < n], overwrite_input)
    c_lo, c_hi = max(a - 1, 0), min(b, n - 1)
    central = np.sort(part[c_lo:c_hi + 1])  # order statistics z[c_lo..c_hi]
    edges_c = np.concatenate([[lo] if a == 0 else [], central, [hi] if b == n else []])
    js = np.arange(a, b + 1)
    with np.errstate(divide="ignore"):
        logw_c = np.log(np.diff(edges_c)) - c * np.abs(js - t)

    regions = {"c": logsumexp(logw_c)}
    bounds_exact = {"c": True}
    if a > 0:  # gaps 0..a-1 between lo and z[a-1]; |j − t| ≥ t − (a − 1)
        span = part[a - 1] - lo
        regions["l"] = (math.log(span) if span > 0 else -math.inf) - c * (t - a + 1)
        bounds_exact["l"] = False
    if b < n:  # gaps b+1..n between z[b] and hi; |j − t| ≥ b + 1 − t
        span = hi - part[b]
        regions["r"] = (math.log(span) if span > 0 else -math.inf) - c * (b + 1 - t)
        bounds_exact["r"] = False
    exact_cache: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}

    def exact_region(name):
        if name not in exact_cache:
            if name == "l":
                edges = np.concatenate([[lo], np.sort(part[:a - 1]), [part[a - 1]]])
                jj = np.arange(0, a)
            else:
                edges = np.concatenate([[part[b]], np.sort(part[b + 1:]), [hi]])
                jj = np.arange(b + 1, n + 1)
            with np.errstate(divide="ignore"):
                lw = np.log(np.diff(edges)) - c * np.abs(jj - t)
            exact_cache[name] = (edges, lw, float(logsumexp(lw)))
        return exact_cache[name]

    out = np.empty(size)
    todo = np.arange(size)
    names = list(regions)
    while todo.size:
        lw = np.array([regions[nm] for nm in names])
        pick = _categorical(lw, todo.size, g)
        keep = np.zeros(todo.size, dtype=bool)
        for r, nm in enumerate(names):
            sel = pick == r
            k = int(sel.sum())
            if k == 0:
                continue
            idx = todo[sel]
            if nm == "c":
                out[idx] = _draw_in(edges_c, logw_c, k, g)
                continue
            edges, lw_exact, lW = exact_region(nm)
            if bounds_exact[nm]:
                acc = np.ones(k, dtype=bool)
            else:
                acc = g.random(k) < math.exp(min(0.0, lW - regions[nm]))
                regions[nm], bounds_exact[nm] = lW, True  # exact from now on (still a valid bound)
            out[idx[acc]] = _draw_in(edges, lw_exact, int(acc.sum()), g)
            keep[np.flatnonzero(sel)[~acc]] = True
        todo = todo[keep]
    return out


def sample_truncated_normal(mean: np.ndarray, sd: float, lo: np.ndarray, hi: np.ndarray, size: int,
                            g: np.random.Generator) -> np.ndarray:
    """Exact draws (size, d) from independent N(mean_j, sd²) truncated to [lo_j, hi_j] (inverse CDF in log space)."""
    from scipy.stats import truncnorm

    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    a = (np.atleast_1d(lo) - mean) / sd
    b = (np.atleast_1d(hi) - mean) / sd
    d = mean.size
    z = truncnorm.rvs(np.broadcast_to(a, (size, d)), np.broadcast_to(b, (size, d)), size=(size, d),
                      random_state=g)
    return np.clip(mean + sd * z, lo, hi)


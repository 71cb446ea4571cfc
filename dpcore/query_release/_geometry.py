"""Geometry of a public universe X ⊂ R^k: diameter, greedy nets, packing profile, Gaussian mean width,
and the chaining decomposition (Błasiok, Bun, Nikolov & Steinke 2019, §2–4).

Metrics are normalised as in the paper's "non-standard scaling" (the 1/√k factor is RECONSTRUCTED
from the surviving text): d₂(x, y) = ‖x − y‖₂/√k, matching the RMS error, and d_∞(x, y) = ‖x − y‖_∞.
Everything here depends only on the public X (and public seeds), never on data.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_choice, check_int, check_positive
from ..errors import DPValueError

__all__ = [
    "METRICS",
    "Decomposition",
    "Level",
    "Net",
    "decompose",
    "diameter",
    "diameter_bound",
    "dudley_integral",
    "greedy_net",
    "mean_width",
    "nearest",
    "packing_profile",
]

METRICS = ("l2", "linf")
#: Pairwise-distance work (|X|²·k) above which :func:`diameter` uses the valid bound 2·max‖x − c‖.
EXACT_DIAMETER_WORK = 4e9


def _sqdist_to(P: np.ndarray, x: np.ndarray, sqn: np.ndarray) -> np.ndarray:
    return np.maximum(sqn - 2.0 * (P @ x) + float(x @ x), 0.0)


def diameter(P: np.ndarray, *, exact_work: float = EXACT_DIAMETER_WORK) -> float:
    """max_{x, x' ∈ P} ‖x − x'‖₂ exactly (blocked Gram matrix) when |P|²·k ≤ ``exact_work``;
    otherwise the valid upper bound 2·max_x ‖x − c‖ with c the centre of the bounding box."""
    P = np.asarray(P, dtype=float)
    N, k = P.shape
    if N <= 1:
        return 0.0
    if float(N) * N * k > exact_work:
        return diameter_bound(P)
    sqn = np.einsum("ij,ij->i", P, P)
    best = 0.0
    B = max(1, int(2e7 // max(N, 1)))
    for lo in range(0, N, B):
        G = P[lo:lo + B] @ P.T
        D = sqn[lo:lo + B, None] + sqn[None, :] - 2.0 * G
        best = max(best, float(D.max()))
    return math.sqrt(max(best, 0.0))


def diameter_bound(P: np.ndarray) -> float:
    """2·max_x ‖x − c‖₂ with c the bounding-box centre: an upper bound on diam₂ (valid for σ)."""
    P = np.asarray(P, dtype=float)
    c = 0.5 * (P.min(axis=0) + P.max(axis=0))
    return 2.0 * float(np.sqrt(((P - c) ** 2).sum(axis=1).max()))


@dataclass(frozen=True, eq=False)
class Net:
    """A greedy maximal t-separated subset Y ⊆ X and the nearest-point map π: X → Y.

    Attributes
    ----------
    centers : ndarray of int
        Indices into X of the points of Y, in X's (public) order.
    assign : ndarray of int
        assign[i] = position in ``centers`` of π(x_i) (the nearest centre; ties → first).
    t : float
        The separation scale (normalised metric).
    metric : str
        ``"l2"`` (d₂ = ‖·‖₂/√k) or ``"linf"``.
    """

    centers: np.ndarray
    assign: np.ndarray
    t: float
    metric: str

    @property
    def size(self) -> int:
        return int(self.centers.size)


def _scaled_dists(P: np.ndarray, x: np.ndarray, sqn: np.ndarray, metric: str) -> np.ndarray:
    k = P.shape[1]
    if metric == "l2":
        return np.sqrt(_sqdist_to(P, x, sqn) / k)
    return np.abs(P - x).max(axis=1)


def greedy_net(P: np.ndarray, t: float, metric: str = "l2", *, with_assign: bool = True) -> Net:
    """Greedy maximal t-separated subset of the rows of P, scanned in their fixed (public) order.

    A row enters Y iff its distance to every earlier member of Y exceeds t; the result is maximal,
    so it is also a t-cover (Lemma 2.7 of the paper, folklore): N(X, t) ≤ |Y| ≤ sep(X, t).
    Cost O(|X|·|Y|·k).
    """
    P = np.asarray(P, dtype=float)
    t = check_positive(t, "t (net scale)")
    check_choice(metric, "metric", METRICS)
    N, k = P.shape
    sqn = np.einsum("ij,ij->i", P, P)
    PT = np.ascontiguousarray(P.T) if metric == "l2" and np.count_nonzero(P) < 0.5 * P.size else None
    covered = np.zeros(N, dtype=bool)
    picked: list[int] = []
    for i in range(N):
        if covered[i]:
            continue
        picked.append(i)
        if metric == "l2":   # one matrix–vector product over all rows (sparse rows: nonzeros only)
            if PT is not None:
                nz = np.flatnonzero(P[i])
                dots = P[i, nz] @ PT[nz]
            else:
                dots = P @ P[i]
            near = np.maximum(sqn - 2.0 * dots + sqn[i], 0.0) <= t * t * k
        else:
            near = np.abs(P - P[i]).max(axis=1) <= t
        covered |= near
    centers = np.asarray(picked, dtype=np.int64)
    if not with_assign:
        assign = np.zeros(0, dtype=np.int64)
    elif centers.size == N:
        assign = np.arange(N, dtype=np.int64)     # Y = X: every point is its own nearest centre
    else:
        assign = nearest(P, P[centers], metric)
    return Net(centers=centers, assign=assign, t=float(t), metric=metric)


def nearest(P: np.ndarray, Y: np.ndarray, metric: str = "l2") -> np.ndarray:
    """For each row of P, the position of its nearest row of Y (ties broken by the first index)."""
    P = np.asarray(P, dtype=float)
    Y = np.asarray(Y, dtype=float)
    out = np.empty(P.shape[0], dtype=np.int64)
    B = max(1, int(2e7 // max(Y.shape[0] * (1 if metric == "l2" else P.shape[1]), 1)))
    sqy = np.einsum("ij,ij->i", Y, Y)
    for lo in range(0, P.shape[0], B):
        blk = P[lo:lo + B]
        if metric == "l2":
            D = sqy[None, :] - 2.0 * blk @ Y.T          # ‖x‖² is constant per row
        else:
            D = np.abs(blk[:, None, :] - Y[None, :, :]).max(axis=2)
        out[lo:lo + B] = np.argmin(D, axis=1)
    if metric == "l2":
        # exact ties recomputed on true distances are broken by argmin's first index already
        pass
    return out


def packing_profile(P: np.ndarray, ts, metric: str = "l2") -> np.ndarray:
    """ln s(t) for each scale t: s(t) = size of the greedy maximal t-separated set.

    sep(X, 2t) ≤ N(X, t) ≤ s(t) ≤ sep(X, t), so ln s(t) stands in for ln sep(X, t) within a factor-2
    change of scale.
    """
    ts = np.asarray(ts, dtype=float)
    return np.array([math.log(greedy_net(P, float(t), metric, with_assign=False).size) for t in ts])


def mean_width(P: np.ndarray, draws: int = 1000, rng: RNGLike = 0) -> tuple[float, float]:
    """Gaussian mean width w(X) = E max_{x∈X} ⟨g, x⟩, g ~ N(0, I_k), by Monte Carlo.

    Returns (estimate, standard error). ``rng`` is a public seed (X is public).
    """
    P = np.asarray(P, dtype=float)
    draws = check_int(draws, "draws", lo=2, hi=100_000)
    g = as_generator(rng)
    vals = np.empty(draws)
    B = max(1, int(2e7 // max(P.shape[0], 1)))
    for lo in range(0, draws, B):
        m = min(B, draws - lo)
        G = g.standard_normal((P.shape[1], m))
        vals[lo:lo + m] = (P @ G).max(axis=0)
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(draws))


def workload_width(workload, draws: int = 1000, rng: RNGLike = 0) -> tuple[float, float]:
    """w of the set the projection mechanism projects onto: conv X, or the workload's larger continuous
    set (the cone) through its support function."""
    if workload.support is None:
        return mean_width(workload.points, draws, rng)
    draws = check_int(draws, "draws", lo=2, hi=100_000)
    vals = workload.support(as_generator(rng).standard_normal((workload.k, draws)))
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(draws))


def dudley_integral(ts: np.ndarray, log_s: np.ndarray) -> float:
    """∫ sqrt(ln s(t)) dt by the trapezoid rule on the given grid (normalised Dudley integral)."""
    ts = np.asarray(ts, dtype=float)
    order = np.argsort(ts)
    return float(np.trapezoid(np.sqrt(np.maximum(np.asarray(log_s)[order], 0.0)), ts[order]))


# -- chaining decomposition ---------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Level:
    """One level X_i = f_i(X) of the decomposition: its distinct points and the map X → X_i.

    ``points`` (|X_i|, k) are the distinct values of f_i, ``index`` maps each x ∈ X to its row.
    """

    points: np.ndarray
    index: np.ndarray
    scale: float
    diam2: float = 0.0

    @property
    def size(self) -> int:
        return int(self.points.shape[0])


@dataclass(frozen=True, eq=False)
class Decomposition:
    """x = Σ_{i=0}^{T} f_i(x) + f_{T+1}(x) (BBNS Lemma 4.2): f_0 = π_0, f_i = π_i − π_{i−1}, f_{T+1} = x − π_T(x).

    ``levels`` are X_0..X_T; ``residual`` is f_{T+1}(X) (handled by the trivial mechanism, error ≤ 2^{−T}).
    """

    levels: tuple
    residual: np.ndarray
    nets: tuple
    T: int
    metric: str


def chaining_depth(alpha: float) -> int:
    """T = ⌈log₂(2/α)⌉, so 2^{−T} ≤ α/2 (BBNS §4; the chaining depth, not PMW's rounds)."""
    alpha = check_positive(alpha, "alpha (target error)")
    return max(0, math.ceil(math.log2(2.0 / alpha) - 1e-12))


def _distinct_rows(F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # distinct rows in order of first appearance (public order); exact float equality is what we need,
    # since f_i values are differences of rows of X
    _, first, inv = np.unique(F, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return F[first[order]], rank[inv.reshape(-1)]


def decompose(P: np.ndarray, alpha: float, metric: str = "l2") -> Decomposition:
    """The telescoping decomposition of BBNS Lemma 4.2 at scales 2^{−i}, i = 0..T, T = ⌈log₂(2/α)⌉.

    Y_i is a greedy maximal 2^{−i}-separated subset and π_i its nearest-point map (independent maps,
    as in the paper; not a tree), so d(x, π_i(x)) ≤ 2^{−i} and X_i ⊆ 3·2^{−i}√k·B₂ for i ≥ 1.
    """
    P = np.asarray(P, dtype=float)
    T = chaining_depth(alpha)
    nets, proj = [], []
    for i in range(T + 1):
        net = greedy_net(P, 2.0 ** (-i), metric)
        nets.append(net)
        proj.append(P[net.centers][net.assign])
    levels = []
    prev = np.zeros_like(P)
    for i in range(T + 1):
        F = proj[i] - prev
        pts, idx = _distinct_rows(F)
        pts.setflags(write=False)
        levels.append(Level(points=pts, index=idx, scale=2.0 ** (-i), diam2=diameter(pts)))
        prev = proj[i]
    residual = P - proj[T]
    return Decomposition(levels=tuple(levels), residual=residual, nets=tuple(nets), T=T, metric=metric)


@functools.lru_cache(maxsize=4)
def decompose_workload(spec, alpha: float, metric: str = "l2") -> Decomposition:
    """:func:`decompose` of a declared workload (cached: a pure function of public inputs)."""
    return decompose(spec.build().points, alpha, metric)


@functools.lru_cache(maxsize=16)
def net_of_workload(spec, t: float, metric: str = "l2") -> Net:
    """:func:`greedy_net` of a declared workload (cached: a pure function of public inputs)."""
    return greedy_net(spec.build().points, t, metric)


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise DPValueError(f"metric = {metric!r} is not supported; choose one of {METRICS}.")
    return metric

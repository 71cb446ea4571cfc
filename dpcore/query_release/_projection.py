"""Euclidean projection onto the convex hull of a public point set (the post-processing of the
projection mechanism; Nikolov, Talwar & Zhang 2016; BBNS §2.3).

The default is **pairwise Frank–Wolfe** on simplex weights with a duality-gap stopping rule: it
needs only inner products and converges linearly on polytopes (Lacoste-Julien & Jaggi 2015).
Plain Frank–Wolfe (:func:`plain_frank_wolfe`) is kept only to show why it is not used: it zig-zags
and can end farther from x̄ than the raw noisy vector. Structured exact projectors (PAVA for
thresholds, the cone's closed form) are used when a workload has one.

Objective: f(y) = ½‖y − ỹ‖² over y ∈ conv X. With g_i = ⟨x_i, y − ỹ⟩ the Frank–Wolfe gap
max_i ⟨y − ỹ, y − x_i⟩ bounds f(y) − min f; the pairwise gap g_v − g_s (v the worst active atom,
s the best atom) bounds the Frank–Wolfe gap, so stopping at pairwise gap ≤ tol certifies
f(y) − min f ≤ tol, i.e. ‖y − ỹ‖² ≤ min ‖·‖² + 2·tol.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

__all__ = ["ProjectionResult", "lmo_frank_wolfe", "pairwise_frank_wolfe", "plain_frank_wolfe", "project"]


@dataclass(frozen=True, eq=False)
class ProjectionResult:
    """The projected point, its certificate and the work done.

    ``gap`` is the final duality-gap certificate (pairwise gap for atoms; Frank–Wolfe gap otherwise),
    ``converged`` says whether it reached ``tol`` within ``max_iter``.
    """

    y: np.ndarray
    gap: float
    iterations: int
    converged: bool
    method: str


def _simplex_lsq(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min_{w ≥ 0, Σw = 1} ‖Aᵀw − y‖² on a few atoms, by NNLS with a heavy row enforcing Σw = 1, then
    renormalised (always feasible; only used as a warm start that the certified iterations continue)."""
    M = 1e3 * (1.0 + float(np.abs(A).max()) + float(np.abs(y).max()))
    Aa = np.vstack([A.T, np.full((1, A.shape[0]), M)])
    w, _ = nnls(Aa, np.concatenate([y, [M]]), maxiter=50 * A.shape[0])
    s = w.sum()
    if not np.isfinite(s) or s <= 0:
        w = np.full(A.shape[0], 1.0 / A.shape[0])
    else:
        w = w / s
    return w


def _pairwise_step(g: np.ndarray, w: np.ndarray) -> tuple[int, int, float]:
    """The pair (s, v) of a pairwise step — smallest gradient overall, largest on an active atom — and its gap."""
    s = int(np.argmin(g))
    active = np.flatnonzero(w > 0)
    v = int(active[np.argmax(g[active])])
    return s, v, float(g[v] - g[s])


def _correct(P: np.ndarray, yt: np.ndarray, Pyt: np.ndarray, w: np.ndarray, y: np.ndarray,
             cols: dict[int, np.ndarray], *, fully: bool) -> tuple[np.ndarray, np.ndarray]:
    """Periodic correction of :func:`pairwise_frank_wolfe`: the fully-corrective step on the active face
    (kept only if it improves; ``w`` updated in place), exact gradients, and dropping unused Gram columns."""
    act = np.flatnonzero(w > 0)
    if fully and act.size <= 400:
        w_act = _simplex_lsq(P[act], yt)
        y_new = w_act @ P[act]
        if np.sum((y_new - yt) ** 2) < np.sum((y - yt) ** 2):
            w[:] = 0.0
            w[act] = w_act
            y = y_new
    g = P @ y - Pyt   # exact gradients (removes drift)
    for j in [j for j in cols if w[j] == 0.0]:
        del cols[j]
    return y, g


def pairwise_frank_wolfe(P: np.ndarray, target: np.ndarray, *, tol: float = 1e-10, max_iter: int = 100_000,
                         time_limit: float | None = None, correct_every: int = 50) -> ProjectionResult:
    """Project ``target`` onto conv(rows of P) by pairwise Frank–Wolfe (Lacoste-Julien & Jaggi 2015).

    Start at the nearest row; each step moves weight γ from the active atom v with the largest
    g_v to the atom s with the smallest g_s, with exact line search γ = min(w_v, (g_v − g_s)/‖x_s − x_v‖²).
    Gradients are updated incrementally from cached Gram columns of the active atoms (O(|X|) per
    step after an atom's first use), and recomputed exactly before the final certificate. Every
    ``correct_every`` steps the weights on the active atoms are re-solved exactly (NNLS; a
    fully-corrective step, 0 disables it): this only changes the iterate, never the stopping rule,
    which is always the certified pairwise gap.
    """
    P = np.asarray(P, dtype=float)
    yt = np.asarray(target, dtype=float)
    N = P.shape[0]
    sqn = np.einsum("ij,ij->i", P, P)
    Pyt = P @ yt
    i0 = int(np.argmin(sqn - 2.0 * Pyt))
    w = np.zeros(N)
    w[i0] = 1.0
    y = P[i0].copy()
    cols: dict[int, np.ndarray] = {}
    # sparse rows (e.g. marginals: C(d, w) ones out of k): Gram columns from the nonzero coordinates only
    PT = np.ascontiguousarray(P.T) if np.count_nonzero(P) < 0.5 * P.size else None

    def col(j: int) -> np.ndarray:
        c = cols.get(j)
        if c is None:
            if PT is not None:
                nz = np.flatnonzero(P[j])
                c = P[j, nz] @ PT[nz]
            else:
                c = P @ P[j]
            cols[j] = c
        return c

    g = col(i0) - Pyt
    t0 = time.perf_counter()
    it = 0
    gap = math.inf
    converged = False
    while it < max_iter:
        it += 1
        s, v, gap = _pairwise_step(g, w)
        if gap <= tol or s == v:
            # certify with exactly recomputed gradients
            g = P @ y - Pyt
            s, v, gap = _pairwise_step(g, w)
            if gap <= tol or s == v:
                converged = True
                break
        cs, cv = col(s), col(v)
        dd = sqn[s] + sqn[v] - 2.0 * cs[v]
        if dd <= 0:
            break
        gamma = min(w[v], gap / dd)
        w[s] += gamma
        w[v] -= gamma
        if w[v] < 1e-15:
            w[v] = 0.0
        y += gamma * (P[s] - P[v])
        g += gamma * (cs - cv)
        if it % (correct_every or 500) == 0:
            y, g = _correct(P, yt, Pyt, w, y, cols, fully=bool(correct_every))
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
    return ProjectionResult(y=y, gap=max(gap, 0.0), iterations=it, converged=converged, method="pairwise Frank–Wolfe")


def plain_frank_wolfe(P: np.ndarray, target: np.ndarray, *, tol: float = 1e-10, max_iter: int = 100_000,
                      time_limit: float | None = None) -> ProjectionResult:
    """Vanilla Frank–Wolfe with exact line search (for comparison only; NOT used by any mechanism)."""
    P = np.asarray(P, dtype=float)
    yt = np.asarray(target, dtype=float)
    sqn = np.einsum("ij,ij->i", P, P)
    Pyt = P @ yt
    i0 = int(np.argmin(sqn - 2.0 * Pyt))
    y = P[i0].copy()
    t0 = time.perf_counter()
    gap = math.inf
    it = 0
    converged = False
    while it < max_iter:
        it += 1
        grad = y - yt
        g = P @ grad
        s = int(np.argmin(g))
        gap = float(grad @ y - g[s])
        if gap <= tol:
            converged = True
            break
        d = P[s] - y
        dd = float(d @ d)
        if dd <= 0:
            break
        gamma = min(1.0, max(0.0, -float(grad @ d) / dd))
        y += gamma * d
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
    return ProjectionResult(y=y, gap=max(gap, 0.0), iterations=it, converged=converged, method="plain Frank–Wolfe")


def lmo_frank_wolfe(lmo: Callable[[np.ndarray], np.ndarray], target: np.ndarray, start: np.ndarray, *,
                    tol: float = 1e-10, max_iter: int = 20_000) -> ProjectionResult:
    """Away-step Frank–Wolfe over atoms returned by a linear minimisation oracle (sets with no finite list).

    Stops when the Frank–Wolfe gap ⟨y − ỹ, y − s⟩, s = LMO(y − ỹ), is ≤ ``tol``: a duality certificate
    over the whole set. Active atoms are stored so that away steps can remove weight.
    """
    yt = np.asarray(target, dtype=float)
    atoms = [np.asarray(start, dtype=float).copy()]
    w = [1.0]
    y = atoms[0].copy()
    gap = math.inf
    it = 0
    converged = False
    while it < max_iter:
        it += 1
        grad = y - yt
        s = lmo(grad)
        gap = float(grad @ (y - s))
        if gap <= tol:
            converged = True
            break
        A = np.asarray(atoms)
        ga = A @ grad
        a = int(np.argmax(ga))
        away_gap = float(ga[a] - grad @ y)
        if gap >= away_gap or w[a] >= 1.0 - 1e-15:
            d = s - y
            gmax = 1.0
            fw = True
        else:
            d = y - A[a]
            gmax = w[a] / (1.0 - w[a])
            fw = False
        dd = float(d @ d)
        if dd <= 0:
            break
        gamma = min(gmax, max(0.0, -float(grad @ d) / dd))
        if fw:
            w = [wi * (1 - gamma) for wi in w]
            for j, at in enumerate(atoms):
                if np.array_equal(at, s):
                    w[j] += gamma
                    break
            else:
                atoms.append(s.copy())
                w.append(gamma)
        else:
            w = [wi * (1 + gamma) for wi in w]
            w[a] -= gamma
        keep = [j for j, wi in enumerate(w) if wi > 1e-15]
        atoms = [atoms[j] for j in keep]
        w = [w[j] for j in keep]
        y = y + gamma * d
    return ProjectionResult(y=y, gap=max(gap, 0.0), iterations=it, converged=converged, method="away-step Frank–Wolfe (LMO)")


def project(workload, target: np.ndarray, *, tol: float = 1e-10, max_iter: int = 100_000) -> ProjectionResult:
    """Projection of ``target`` onto the hull of a workload: its exact structured projector if it has one,
    else pairwise Frank–Wolfe on its points."""
    if workload.projector is not None:
        return ProjectionResult(y=workload.projector(target), gap=0.0, iterations=0, converged=True,
                                method="exact structured projector")
    return pairwise_frank_wolfe(workload.points, target, tol=tol, max_iter=max_iter)


def pairwise_frank_wolfe_batch(P: np.ndarray, targets: np.ndarray, *, tol: float = 1e-10,
                               max_iter: int = 5_000) -> tuple[np.ndarray, float]:
    """Pairwise Frank–Wolfe on many targets at once (small point sets: audits and replicates).

    Same steps as :func:`pairwise_frank_wolfe`, vectorised over the rows of ``targets`` that have not
    yet converged; returns the projected rows and the largest final pairwise gap (recomputed exactly).
    """
    P = np.asarray(P, dtype=float)
    Yt = np.atleast_2d(np.asarray(targets, dtype=float))
    S, N = Yt.shape[0], P.shape[0]
    G = P @ P.T
    sqn = np.diag(G).copy()
    PYt = Yt @ P.T                                  # (S, N)
    i0 = np.argmin(sqn[None, :] - 2.0 * PYt, axis=1)
    W = np.zeros((S, N))
    W[np.arange(S), i0] = 1.0
    live = np.arange(S)
    for _ in range(max_iter):
        if live.size == 0:
            break
        Wl = W[live]
        g = Wl @ G - PYt[live]                      # g_i = ⟨x_i, y − ỹ⟩
        s = np.argmin(g, axis=1)
        rows = np.arange(live.size)
        v = np.argmax(np.where(Wl > 0, g, -np.inf), axis=1)
        gap = g[rows, v] - g[rows, s]
        go = gap > tol
        live, s, v, gap, Wl, rows = live[go], s[go], v[go], gap[go], Wl[go], rows[: int(go.sum())]
        dd = sqn[s] + sqn[v] - 2.0 * G[s, v]
        gamma = np.minimum(Wl[rows, v], gap / np.where(dd > 0, dd, np.inf))
        Wl[rows, s] += gamma
        Wl[rows, v] -= gamma
        Wl[Wl < 1e-15] = 0.0
        W[live] = Wl
    rows = np.arange(S)
    g = W @ G - PYt
    gap = g[rows, np.argmax(np.where(W > 0, g, -np.inf), axis=1)] - g.min(axis=1)
    return W @ P, float(gap.max())

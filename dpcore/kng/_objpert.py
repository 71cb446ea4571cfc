"""Objective perturbation for linear regression on the ℓ1 ball (Reimherr & Awan 2019, §7.2).

Privacy of objective perturbation (Kifer, Smith & Thakurta 2012; Awan & Slavković's K-norm
version) holds for the *exact* constrained minimiser, so the QP

    minimise  ½ θᵀHθ − gᵀθ   subject to ‖θ‖₁ ≤ B,     H = 2XᵀX + γI (positive definite),
                                                       g = 2Xᵀy − b

is solved exactly by the lasso homotopy (follow the path of min ½θᵀHθ − gᵀθ + λ‖θ‖₁ from
λ = ‖g‖∞ down to the λ where ‖θ(λ)‖₁ = B; the path is piecewise linear with at most a few
times d breakpoints), and the answer is checked with the projected-gradient fixed-point
residual ‖θ − P_B(θ − ∇q(θ)/L)‖∞ (zero exactly at the constrained minimiser). A failed check
raises :class:`QPError` instead of releasing an inexact minimiser.
"""
from __future__ import annotations

import numpy as np


class QPError(RuntimeError):
    """The constrained QP of objective perturbation was not solved to tolerance (nothing is released)."""


def project_l1_ball(v, radius: float) -> np.ndarray:
    """Euclidean projection of each row of ``v`` onto {‖θ‖₁ ≤ radius} (Duchi et al. 2008)."""
    v = np.asarray(v, dtype=float)
    one = v.ndim == 1
    V = np.atleast_2d(v)
    out = V.copy()
    outside = np.abs(V).sum(axis=1) > radius
    if outside.any():
        a = np.abs(V[outside])
        u = -np.sort(-a, axis=1)
        css = np.cumsum(u, axis=1)
        k = np.arange(1, a.shape[1] + 1)
        cond = u - (css - radius) / k > 0
        rho = a.shape[1] - 1 - np.argmax(cond[:, ::-1], axis=1)
        tau = (css[np.arange(len(a)), rho] - radius) / (rho + 1)
        out[outside] = np.maximum(a - tau[:, None], 0.0) * np.sign(V[outside])
    return out[0] if one else out


def kkt_residual(H: np.ndarray, g: np.ndarray, theta: np.ndarray, B: float) -> float:
    """Relative fixed-point residual of projected gradient: 0 iff θ minimises ½θᵀHθ − gᵀθ on ‖θ‖₁ ≤ B."""
    L = float(np.linalg.eigvalsh(H)[-1])
    grad = H @ theta - g
    p = project_l1_ball(theta - grad / L, B)
    scale = max(1.0, float(np.max(np.abs(theta))), float(np.max(np.abs(g))) / L)
    infeas = max(0.0, float(np.abs(theta).sum()) - B) / max(B, 1.0)
    return max(float(np.max(np.abs(p - theta))) / scale, infeas)


def l1_constrained_qp(H: np.ndarray, g: np.ndarray, B: float, *, tol: float = 1e-9) -> np.ndarray:
    """Exact minimiser of ½θᵀHθ − gᵀθ over ‖θ‖₁ ≤ B (H symmetric positive definite), by the homotopy.

    Raises
    ------
    QPError
        If the KKT (fixed-point) residual of the answer exceeds ``tol``.
    """
    H = np.asarray(H, dtype=float)
    g = np.asarray(g, dtype=float)
    d = g.size
    theta = np.linalg.solve(H, g)
    if np.abs(theta).sum() > B:
        theta = _homotopy(H, g, B)
    res = kkt_residual(H, g, theta, B)
    if not res <= tol:
        raise QPError(f"objective perturbation: the constrained QP (d = {d}) was not solved to tolerance "
                      f"(KKT residual {res:.3g} > {tol:g}); nothing is released.")
    return theta


def _homotopy(H: np.ndarray, g: np.ndarray, B: float) -> np.ndarray:
    d = g.size
    j0 = int(np.argmax(np.abs(g)))
    active = [j0]
    signs = [float(np.sign(g[j0]))]
    lam = float(np.abs(g[j0]))
    for _ in range(50 * d + 50):
        S = np.array(active)
        s = np.array(signs)
        HS = H[np.ix_(S, S)]
        a = np.linalg.solve(HS, g[S])
        w = np.linalg.solve(HS, s)
        sw = float(s @ w)
        lam_B = (float(s @ a) - B) / sw
        # next breakpoint below the current λ
        best = 0.0
        event: tuple[str, int, float] | None = None  # (kind, index, sign of an added coordinate)
        thr = lam * (1.0 - 1e-10)  # excludes the trivial root at the current λ of the index just changed
        with np.errstate(divide="ignore", invalid="ignore"):
            drop = a / w
        for i in range(len(S)):
            if np.isfinite(drop[i]) and 0.0 < drop[i] < thr and drop[i] > best:
                best, event = float(drop[i]), ("drop", i, 0.0)
        inactive = np.setdiff1d(np.arange(d), S)
        if inactive.size:
            HjS = H[np.ix_(inactive, S)]
            p = g[inactive] - HjS @ a
            q = HjS @ w
            with np.errstate(divide="ignore", invalid="ignore"):
                cand_p = p / (1.0 - q)   # c_j(λ) = +λ
                cand_m = -p / (1.0 + q)  # c_j(λ) = −λ
            for jj, j in enumerate(inactive):
                for cand, sg in ((cand_p[jj], 1.0), (cand_m[jj], -1.0)):
                    if np.isfinite(cand) and 0.0 < cand < thr and cand > best:
                        best, event = float(cand), ("add", int(j), sg)
        if lam_B >= best or event is None:
            theta = np.zeros(d)
            theta[S] = a - max(lam_B, 0.0) * w
            return theta
        lam = best
        if event[0] == "drop":
            i = event[1]
            del active[i]
            del signs[i]
        else:
            active.append(event[1])
            signs.append(event[2])
    raise QPError("objective perturbation: the lasso homotopy did not terminate; nothing is released.")

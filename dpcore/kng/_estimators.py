"""Non-private estimators of the KNG problems (NOT private: for comparison and diagnostics only).

Each returns a plain value, never a release: :func:`geometric_median` (Weiszfeld),
:func:`nonprivate_quantile_regression` (exact LP, Portnoy–Koenker preprocessing for large n) and
:func:`ols` (least squares from sufficient statistics).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog

from .._validation import DPValueError, check_probability_level


def geometric_median(x: np.ndarray, *, tol: float = 1e-12, max_iter: int = 10_000) -> np.ndarray:
    """Weiszfeld's algorithm (Vardi–Zhang modification for iterates on data points)."""
    y = np.median(x, axis=0)
    scale = max(1.0, float(np.max(np.abs(x))))
    for _ in range(max_iter):
        diff = x - y
        dist = np.sqrt(np.sum(diff * diff, axis=1))
        at = dist < 1e-14 * scale
        w = 1.0 / np.where(at, 1.0, dist)
        w[at] = 0.0
        T = (w[:, None] * x).sum(axis=0) / w.sum() if w.sum() > 0 else y
        eta = int(at.sum())
        if eta:
            R = (w[:, None] * (x - y)).sum(axis=0)
            rn = float(np.linalg.norm(R))
            if rn <= eta:  # y is the geometric median
                return y
            T = max(0.0, 1 - eta / rn) * T + min(1.0, eta / rn) * y
        if np.linalg.norm(T - y) <= tol * scale:
            return T
        y = T
    return y


def nonprivate_quantile_regression(X, y, tau: float) -> np.ndarray:
    """Exact quantile-regression estimate argmin_θ Σρ_τ(y_i − x_iᵀθ) by linear programming (HiGHS).

    Solves the dual (Koenker 2005, §6.2): max yᵀa s.t. Xᵀa = −s, τ − 1 ≤ a ≤ τ — n bounded variables
    and only d equality rows — and reads θ off the equality multipliers. For n > 5 000 the
    Portnoy–Koenker (1997) preprocessing keeps the exact answer at a fraction of the cost: a fit on a
    subsample selects a band of ≈ √d·n^{2/3} observations around the fitted hyperplane; the others
    are "globbed" (their dual variables fixed at τ − 1 below, τ above, which moves them into s);
    the reduced LP is solved and the answer is accepted only if every globbed observation is on its
    assumed side (then the full optimality conditions hold); otherwise the violators join the band
    and the LP is solved again. Accepts one problem (X (n, d), y (n,)) or a batch (X (R, n, d),
    y (R, n)) -> (d,) or (R, d).
    """
    tau = check_probability_level(tau, "tau")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim == 3:
        return np.stack([nonprivate_quantile_regression(X[r], y[r], tau) for r in range(X.shape[0])])
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise DPValueError(f"X must be (n, d) and y (n,) (or batches (R, n, d), (R, n)); got {X.shape}, {y.shape}.")
    n, d = X.shape
    if n <= 5_000:
        return _qr_dual_lp(X, y, tau, np.zeros(d))
    m = int(min(n, max(1_000, 2.0 * math.sqrt(d) * n ** (2.0 / 3.0))))
    sub = np.random.default_rng(20_240_601).choice(n, size=m, replace=False)  # fixed, data-free randomness
    theta = _qr_dual_lp(X[sub], y[sub], tau, np.zeros(d))
    r = y - X @ theta
    k_lo = max(0, int(tau * n - m / 2))
    k_hi = min(n - 1, int(tau * n + m / 2))
    part = np.partition(r, [k_lo, k_hi])
    keep = (r >= part[k_lo]) & (r <= part[k_hi])
    for _ in range(20):
        low, high = (~keep) & (r < 0), (~keep) & (r > 0)
        keep |= (~keep) & ~(low | high)
        s = (tau - 1.0) * X[low].sum(axis=0) + tau * X[high].sum(axis=0)
        theta = _qr_dual_lp(X[keep], y[keep], tau, -s)
        rn = y - X @ theta
        bad = (low & (rn > 0)) | (high & (rn < 0))
        if not bad.any():
            return theta
        keep |= bad
        r = rn
    return _qr_dual_lp(X, y, tau, np.zeros(d))


def _qr_dual_lp(X: np.ndarray, y: np.ndarray, tau: float, rhs: np.ndarray) -> np.ndarray:
    res = linprog(-y, A_eq=X.T, b_eq=rhs, bounds=(tau - 1.0, tau), method="highs")
    if res.status != 0:
        raise DPValueError(f"the quantile-regression LP failed ({res.message}); check the design matrix "
                           "(e.g. a constant or duplicated column).")
    return -np.asarray(res.eqlin.marginals, dtype=float)


def ols(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares from sufficient statistics (batched over leading axes; pseudo-inverse if singular)."""
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        if A.ndim == 2:
            return np.linalg.lstsq(A, b, rcond=None)[0]
        return np.stack([np.linalg.lstsq(A[r], b[r], rcond=None)[0] for r in range(A.shape[0])])

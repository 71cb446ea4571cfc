"""The non-private M-estimator (1) of Asi, Duchi & Talwar (2025): damped Newton, Hessian, eigenvalues.

θ̂ = argmin_θ (1/n)Σᵢ h(tᵢ(θ)) + (ρ/2)‖θ‖₂², solved by Newton's method with a Cholesky step,
Armijo backtracking and the convergence check ‖∇L_n(θ̂)‖₂ ≤ tol; the analysis assumes the exact
minimiser, so the default tolerance is tight. A non-finite value or a failed convergence raises a
:class:`~dpcore.errors.DPValueError` *before* any noise is drawn (a failed fit never certifies).

These are plain, NON-PRIVATE functions.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DPValueError
from ._losses import Loss, get_loss

__all__ = ["Fit", "fit", "hessian", "gradient", "objective", "extreme_eigenvalues", "is_separable"]


def objective(loss: Loss, X, y, theta, rho: float = 0.0) -> float:
    return float(np.mean(loss.h(loss.margin(X, y, theta))) + 0.5 * rho * theta @ theta)


def gradient(loss: Loss, X, y, theta, rho: float = 0.0) -> np.ndarray:
    t = loss.margin(X, y, theta)
    return X.T @ (loss.h1(t) * loss.sign(y)) / X.shape[0] + rho * theta


def hessian(loss: Loss, X, y, theta, rho: float = 0.0) -> np.ndarray:
    """∇²L_n(θ) = (1/n)Σ h''(tᵢ) xᵢxᵢᵀ + ρI."""
    w = loss.h2(loss.margin(X, y, theta))
    H = (X * w[:, None]).T @ X / X.shape[0]
    H[np.diag_indices_from(H)] += rho
    return H


def extreme_eigenvalues(H: np.ndarray) -> tuple[float, float]:
    """(λ_min, λ_max) of a symmetric matrix via ``eigvalsh``."""
    w = np.linalg.eigvalsh(0.5 * (H + H.T))
    return float(w[0]), float(w[-1])


@dataclass(frozen=True)
class Fit:
    """Result of :func:`fit` (non-private): θ̂, H, λ_min, λ_max, ‖∇L_n(θ̂)‖, Newton iterations."""

    theta: np.ndarray
    H: np.ndarray
    lam_min: float
    lam_max: float
    grad_norm: float
    iterations: int


def fit(loss: Loss | str, X, y, *, rho: float = 0.0, tol: float = 1e-10, max_iter: int = 100,
        theta0=None) -> Fit:
    """Minimise the (ℓ2-regularised) empirical risk by damped Newton.

    Raises
    ------
    DPValueError
        If the Hessian is numerically singular (collinear or constant columns), a value is not
        finite, or Newton does not reach ‖∇L_n‖ ≤ tol in ``max_iter`` steps.
    """
    loss = get_loss(loss) if isinstance(loss, str) else loss
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    theta = np.zeros(d) if theta0 is None else np.array(theta0, dtype=float)
    f = objective(loss, X, y, theta, rho)
    g = gradient(loss, X, y, theta, rho)
    scale = max(1.0, float(np.sqrt(np.mean(np.sum(X * X, axis=1)))))
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007  (it is reported in Fit.iterations)
        H = hessian(loss, X, y, theta, rho)
        try:
            Lc = np.linalg.cholesky(H)
            step = np.linalg.solve(Lc.T, np.linalg.solve(Lc, g))
        except np.linalg.LinAlgError:
            raise DPValueError("the Hessian of the loss is singular at the current iterate: the design has "
                               "collinear or constant columns (or d ≥ n); drop one level per one-hot group, "
                               "remove duplicate/zero columns, or set the regularisation ρ > 0.") from None
        dec = float(g @ step)
        s = 1.0
        # Newton decrement below the objective's rounding: the Armijo test compares float noise, so take the
        # full step (quadratic convergence region; without this the fit stalls at ‖∇L_n‖ ≈ 1e-10)
        while dec > 1e-12 * max(1.0, abs(f)):
            cand = theta - s * step
            fc = objective(loss, X, y, cand, rho)
            if np.isfinite(fc) and fc <= f - 1e-4 * s * dec:
                break
            s *= 0.5
            if s < 1e-12:
                break
        else:
            cand = theta - step
            fc = objective(loss, X, y, cand, rho)
        theta, f = cand, fc
        g = gradient(loss, X, y, theta, rho)
        if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(g))):
            raise DPValueError("the Newton fit produced a non-finite value; the minimiser may not exist "
                               "(e.g. separable logistic data with ρ = 0): set ρ > 0.")
        if np.linalg.norm(g) <= tol * scale:
            break
    else:
        raise DPValueError(f"the Newton fit did not converge in {max_iter} steps (‖∇L_n‖ = {np.linalg.norm(g):.3g}); "
                           "the minimiser may not exist (separable logistic data with ρ = 0) or the design is "
                           "nearly singular: set ρ > 0 or remove collinear columns.")
    H = hessian(loss, X, y, theta, rho)
    lo, hi = extreme_eigenvalues(H)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise DPValueError("the Hessian's eigenvalues are not finite; nothing can be certified.")
    return Fit(theta, H, max(lo, 0.0) if rho == 0 else lo, hi, float(np.linalg.norm(g)), it)


def is_separable(X, y) -> bool:
    """Exactly whether logistic data are strictly separable (some θ with yᵢ⟨xᵢ, θ⟩ ≥ 1 ∀i): then the
    unregularised minimiser does not exist. Solved as a linear feasibility problem (HiGHS)."""
    from scipy.optimize import linprog

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A = -(y[:, None] * X)
    res = linprog(np.zeros(X.shape[1]), A_ub=A, b_ub=-np.ones(X.shape[0]), bounds=[(None, None)] * X.shape[1],
                  method="highs")
    return res.status == 0

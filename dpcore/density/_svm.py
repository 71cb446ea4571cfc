"""Private kernel SVM by adding a Gaussian process (Hall 2012 slides §2.5; HRW 2013 framework).

f_D = argmin_{g ∈ H} (1/n) Σ hinge(y_i g(x_i)) + λ‖g‖²_H, Gaussian kernel K(x, y) = exp(−‖x − y‖²/(2h²)),
NO intercept (an unregularised bias is not covered by the sensitivity below). Solved by dual coordinate
ascent: max Σa_i − ½ aᵀQa, 0 ≤ a_i ≤ 1/(2λn), Q_ij = y_i y_j K_ij, f = Σ a_i y_i K(·, x_i), stopped when
the duality gap P(f) − 2λD(a) ≤ g (a PUBLIC target).

Sensitivity (RECONSTRUCTED by the standard stability argument; spec §2.5 and correction 5): the objective
is 2λ-strongly convex in H and the hinge is 1-Lipschitz with κ = sup √K(x, x) = 1, so the exact minimisers
of neighbouring datasets (replace-one, n public) satisfy ‖f*_D − f*_D′‖_H ≤ Lκ/(λn) = 1/(λn). A solution
with gap ≤ g is within √(g/λ) of f* (strong convexity: F(f) − F(f*) ≥ λ‖f − f*‖²), hence
**Δ = 1/(λn) + 2√(g/λ)**. Attained (without the gap term) at n = 1, λ ≥ 1/2, by flipping the label.
Release f̃ = f_D + σG on a public set of points with G ~ GP(0, K) (covariance clipped upward, as for
the KDE), σ from Hall's c(δ) (ε ≤ 2.7) or the analytic Gaussian: (ε, δ)-DP. Classify by sign f̃.
If the solver does not reach the gap within ``max_epochs`` it refuses (a data-dependent refusal: keep the
cap generous; dual coordinate ascent converges, and at n ≤ 2000 it takes well under a second here).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

import numpy as np

from dpcore._validation import (check_finite_array)
from dpcore.errors import DPValueError

from . import _kde as K

if TYPE_CHECKING:
    from .configs import SVMConfig

__all__ = ["fit_svm", "svm_sensitivity", "nonprivate_svm", "MAX_SVM_N", "REFERENCE_SVM"]

MAX_SVM_N = 5000
REFERENCE_SVM = ("Hall (2012) thesis slides §2.5 (kernel SVM in the RKHS framework of Hall, Rinaldo & Wasserman 2013); "
                 "sensitivity 1/(λn) + 2√(g/λ) derived here by the standard stability argument")


def _gram(A: np.ndarray, B: np.ndarray, h: float) -> np.ndarray:
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / (2 * h * h))


def _check_xy(data) -> tuple[np.ndarray, np.ndarray]:
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        raise DPValueError("SVM data must be a pair (X, y): an (n, 2) array in [0, 1]² and labels ±1.")
    X = np.clip(check_finite_array(data[0], "SVM covariates X"), 0.0, 1.0)
    y = check_finite_array(data[1], "SVM labels y")
    if X.ndim != 2 or X.shape[1] != 2 or len(y) != len(X):
        raise DPValueError(f"SVM data must be (X (n, 2), y (n,)); got shapes {np.shape(X)} and {np.shape(y)}.")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise DPValueError("SVM labels y must be −1 or +1.")
    if len(y) > MAX_SVM_N:
        raise DPValueError(f"n = {len(y)} exceeds the SVM cap {MAX_SVM_N} (dense kernel matrix); subsample publicly.")
    return X, y


def fit_svm(X: np.ndarray, y: np.ndarray, lam: float, bandwidth: float, gap: float, max_epochs: int = 2000,
            ) -> tuple[np.ndarray, float]:
    """Dual coordinate ascent (no bias) until the duality gap ≤ ``gap``; returns (a ∘ y coefficients, gap)."""
    n = len(y)
    Kx = _gram(X, X, bandwidth)
    C = 1.0 / (2 * lam * n)
    a = np.zeros(n)
    f = np.zeros(n)                     # f(x_i) = Σ_j a_j y_j K_ij
    order = np.arange(n)
    for _ in range(max_epochs):
        for i in order:
            new = min(max(a[i] + (1.0 - y[i] * f[i]) / Kx[i, i], 0.0), C)
            if new != a[i]:
                f += (new - a[i]) * y[i] * Kx[i]       # row i = column i (K symmetric), contiguous
                a[i] = new
        c = a * y
        norm2 = float(c @ f)
        primal = float(np.maximum(0.0, 1.0 - y * f).mean()) + lam * norm2
        dual = 2 * lam * (a.sum() - 0.5 * norm2)
        if primal - dual <= gap:
            return c, primal - dual
    raise DPValueError(f"the SVM solver did not reach the duality gap {gap:g} in {max_epochs} epochs; raise max_epochs "
                       "or the gap target (a public choice).")


def svm_sensitivity(n: int, lam: float, gap: float) -> float:
    """Δ = Lκ/(λn) + 2√(g/λ) with L = κ = 1 (hinge, Gaussian kernel)."""
    return 1.0 / (lam * n) + 2.0 * math.sqrt(gap / lam)


def _grid_values(c: np.ndarray, X: np.ndarray, config: SVMConfig) -> np.ndarray:
    pts = K.grid_points(config.grid, 2)
    return (_gram(pts, X, config.bandwidth) @ c).reshape(config.grid, config.grid)


def nonprivate_svm(data, config: SVMConfig) -> np.ndarray:
    """f_D on the grid (grid × grid)."""
    X, y = _check_xy(data)
    c, _ = fit_svm(X, y, config.lam, config.bandwidth, config.gap, config.max_epochs)
    return _grid_values(c, X, config)


def _points_factor(P: np.ndarray, h: float) -> np.ndarray:
    k = _gram(P, P, h)
    lam, v = np.linalg.eigh(k)
    return v * np.sqrt(np.maximum(lam, 1e-9 * len(P)))[None, :]



"""Gaussian-kernel KDE on a public grid and its Gaussian-process (RKHS) release (Hall, Rinaldo & Wasserman 2013).

Everything lives on the unit cube [0, 1]^d (data are rescaled by PUBLIC bounds before they get here,
see :func:`dpcore.density.designs.to_unit_cube`); the grid is the public product grid of ``grid``
points per axis, ``linspace(0, 1, grid)``.

The mechanism (HRW §4.1, Example 1; Hall's thesis slides, Part 2):

* ``f_D(x) = c_n Σ_i K(x, x_i)``, ``K(x, y) = exp(−‖x − y‖²/(2h²))`` (unnormalised, K(x, x) = 1),
  ``c_n = 1/(n (2πh²)^{d/2})``.
* Replace-one neighbours, n public: ``f_D − f_D' = c_n (K(·, x_n) − K(·, x_n'))`` has RKHS norm
  ``c_n √(2 − 2K(x_n, x_n')) ≤ √2 c_n``, so **Δ = √2 / (n (2πh²)^{d/2})**. By the RKHS inequality
  ``‖K(x_{1:m})^{−1/2} f(x_{1:m})‖₂ ≤ ‖f‖_H`` this bounds the Mahalanobis sensitivity of the grid vector
  with respect to ``K(grid)`` (HRW Prop. 7 / Cor. 9).
* Release ``f_D(grid) + σ G`` with ``G ~ N(0, K(grid))`` (a GP path on the grid). (ε, δ)-DP when
  ``σ = c(δ) Δ / ε`` with Hall's ``c(δ) = √(2 ln(2/δ))`` — valid for ε ≤ 2.7 (spec correction 8) — or
  ``σ = analytic_gaussian_sigma(ε, δ, Δ)`` (Balle & Wang 2018, exact) at any ε. ``calibration="auto"``
  uses Hall's c(δ) for ε ≤ 2.7 and the analytic calibration above.
* Numerics: each axis factor is sampled with covariance K_l + τI, τ = 1e-9·N (Cholesky; eigenvalues clipped
  UPWARD as a fallback; spec §2.4): the sampled covariance ⊗(K_l + τI) ⪰ K(grid), which only adds noise.
  In d = 2 the Gram matrix is a Kronecker product and ``G = L₁ Z L₂ᵀ`` (Kronecker sampling).
* Binning (for large n): linear binning onto a fine public grid replaces each K(·, x_i) by a convex
  combination Σ_b w_ib K(·, b) with w_ib ≥ 0, Σ_b w_ib = 1. Its RKHS norm is ≤ 1 and the inner product of
  two such sections is ≥ 0 (K > 0), so ‖h_i − h_i'‖²_H ≤ 2: the SAME Δ covers the binned estimator
  (RECONSTRUCTED, derived here).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math
from typing import Any

import numpy as np

from dpcore._rng import as_generator
from dpcore._validation import (check_finite_array, check_positive)
from dpcore.errors import DPValueError
from dpcore.limits import check_work
from dpcore.privacy.accounting import analytic_gaussian_sigma

if TYPE_CHECKING:
    from .configs import GPKDEConfig

__all__ = ["MAX_GRID_POINTS", "MAX_GRID_PER_AXIS", "HALL_MAX_EPSILON", "REFERENCE_GP", "grid_axis", "grid_points",
           "hall_c", "MIN_BANDWIDTH", "MAX_BANDWIDTH", "check_bandwidth", "MAX_DRAW_VALUES", "check_draw_values",
           "kde_sensitivity", "kde_on_grid", "nonprivate_kde", "gp_factors", "sample_gp", "check_data", "gram"]

#: Largest number of grid points (all axes together) and per axis (protects the server).
MAX_GRID_POINTS = 262_144
MAX_GRID_PER_AXIS = 4096
#: Public bandwidths allowed on the unit-cube scale (every density method): the lower end is below the finest
#: grid's spacing 1/4095 and keeps the sensitivity √2/(n(2πh²)^(d/2)) finite.
MIN_BANDWIDTH, MAX_BANDWIDTH = 1e-4, 10.0
#: Most values in one method's released draws (draws × grid^d): 2^23 float64 values = 64 MB per method (the
#: page keeps three methods' draws in the session's release cache). d = 2 on a 512² grid: 32 draws.
MAX_DRAW_VALUES = 2**23


def check_draw_values(size: int, grid: int, d: int) -> None:
    """Refuse draws × grid^d > :data:`MAX_DRAW_VALUES` (public sizes, before any draw)."""
    check_work("values of the released draws", {"draws": int(size), f"grid^{d}": int(grid) ** int(d)},
               MAX_DRAW_VALUES, fix=f"use fewer draws (≤ {max(1, MAX_DRAW_VALUES // int(grid) ** int(d))} at this "
                                    "grid) or a coarser grid")
#: Hall's c(δ) is used only up to this ε (spec correction 8; proof up to 2 ln 4 ≈ 2.77).
HALL_MAX_EPSILON = 2.7
#: Above this n·(grid points) the "auto" KDE bins the data first (linear binning, same Δ).
EXACT_WORK = 20_000_000
REFERENCE_GP = ("Hall, Rinaldo & Wasserman (2013), Differential privacy for functions and functional data, JMLR 14, "
                "§4.1 Example 1 (Prop. 7, Cor. 9); Hall (2012) thesis slides Part 2")


def check_data(data, d: int) -> tuple[np.ndarray, int]:
    """Data as an (n, d) float array; values outside [0, 1] are clipped (public preprocessing) and counted."""
    x = check_finite_array(data, "data", ndim=(1, 2), min_rows=1)
    if x.ndim == 1:
        x = x[:, None]
    if x.shape[1] != d:
        raise DPValueError(f"data must have shape (n, {d}) for d = {d}; got shape {np.shape(data)}.")
    clipped = int(np.sum(np.any((x < 0) | (x > 1), axis=1)))
    return np.clip(x, 0.0, 1.0), clipped


def grid_axis(grid: int) -> np.ndarray:
    """The public grid of one axis: ``linspace(0, 1, grid)``."""
    return np.linspace(0.0, 1.0, int(grid))


def grid_points(grid: int, d: int) -> np.ndarray:
    """All grid points, shape (grid**d, d), row-major (last axis fastest)."""
    g = grid_axis(grid)
    mesh = np.meshgrid(*([g] * d), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def gram(a: np.ndarray, b: np.ndarray, h: float) -> np.ndarray:
    """1-D kernel matrix exp(−(a_i − b_j)²/(2h²))."""
    return np.exp(-((a[:, None] - b[None, :]) ** 2) / (2.0 * h * h))


def hall_c(delta: float) -> float:
    """Hall's constant c(δ) = √(2 ln(2/δ)) (HRW Prop. 3)."""
    return math.sqrt(2.0 * math.log(2.0 / delta))


def check_bandwidth(bandwidth: Any, name: str = "bandwidth") -> float:
    """A public bandwidth on the unit-cube scale: MIN_BANDWIDTH ≤ h ≤ MAX_BANDWIDTH."""
    h = check_positive(bandwidth, name)
    if not MIN_BANDWIDTH <= h <= MAX_BANDWIDTH:
        raise DPValueError(f"{name} = {h:g} is outside [{MIN_BANDWIDTH:g}, {MAX_BANDWIDTH:g}] (the data live in "
                           f"[0, 1]^d; below {MIN_BANDWIDTH:g} the kernel is narrower than the finest grid's "
                           "spacing); use a bandwidth between 0.001 and 1.")
    return h


def kde_sensitivity(n: int, bandwidth: float, d: int) -> float:
    """Δ = √2 / (n (2πh²)^{d/2}): RKHS sensitivity of the KDE under replace-one (HRW §4.1)."""
    h = check_bandwidth(bandwidth)
    return math.sqrt(2.0) / (n * (2.0 * math.pi) ** (d / 2.0) * h ** d)


def _linear_bin_1d(x: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower cell index and weights of linear binning of x ∈ [0, 1] on linspace(0, 1, bins)."""
    t = x * (bins - 1)
    lo = np.minimum(np.floor(t).astype(np.int64), bins - 2)
    w_hi = t - lo
    return lo, 1.0 - w_hi, w_hi


def _binned_weights(x: np.ndarray, bins: int) -> np.ndarray:
    """Linear-binning weights (counts), shape (bins,)*d; each record spreads mass 1 with weights ≥ 0."""
    d = x.shape[1]
    if d == 1:
        lo, w0, w1 = _linear_bin_1d(x[:, 0], bins)
        return (np.bincount(lo, w0, minlength=bins) + np.bincount(lo + 1, w1, minlength=bins))[:bins]
    lo1, a0, a1 = _linear_bin_1d(x[:, 0], bins)
    lo2, b0, b1 = _linear_bin_1d(x[:, 1], bins)
    W = np.zeros(bins * bins)
    for di, wa in ((0, a0), (1, a1)):
        for dj, wb in ((0, b0), (1, b1)):
            W += np.bincount((lo1 + di) * bins + lo2 + dj, wa * wb, minlength=bins * bins)
    return W.reshape(bins, bins)


def _use_binning(n: int, cfg: GPKDEConfig) -> bool:
    if cfg.binning == "auto":
        return n * cfg.grid ** cfg.d > EXACT_WORK
    return cfg.binning == "linear"


def kde_on_grid(x: np.ndarray, bandwidth: float, grid: int, *, binning: bool = False, bins: int = 2048,
                chunk: int = 4096) -> np.ndarray:
    """The Gaussian-kernel KDE f_D on the public grid, shape (grid,)*d; x of shape (n, d), d ∈ {1, 2}.

    Exact: chunked kernel sums (d = 2 as E₁ᵀE₂ since the kernel factorises). ``binning=True``: linear
    binning on ``bins`` cells per axis, then the exact kernel sums over the cells (same Δ; module docstring).
    """
    n, d = x.shape
    h = float(bandwidth)
    cn = 1.0 / (n * (2.0 * math.pi * h * h) ** (d / 2.0))
    g = grid_axis(grid)
    if binning:
        w = _binned_weights(x, bins)
        c = np.linspace(0.0, 1.0, bins)
        k = gram(g, c, h)
        return cn * (k @ w if d == 1 else k @ w @ k.T)
    out = np.zeros((grid,) * d)
    for s in range(0, n, chunk):
        xs = x[s:s + chunk]
        e1 = gram(xs[:, 0], g, h)                       # (chunk, grid)
        if d == 1:
            out += e1.sum(axis=0)
        else:
            out += e1.T @ gram(xs[:, 1], g, h)
    return cn * out


def nonprivate_kde(data, config: GPKDEConfig) -> np.ndarray:
    """The non-private KDE on the grid (a plain array, shape (grid,)*d) computed as the release computes it."""
    x, _ = check_data(data, config.d)
    return kde_on_grid(x, config.bandwidth, config.grid, binning=_use_binning(len(x), config), bins=config.bins)


def gp_sigma(epsilon: float, delta: float, sensitivity: float, calibration: str = "auto") -> tuple[float, bool]:
    """(σ, used Hall's c(δ)) of a Gaussian-process release with RKHS sensitivity Δ: Hall's σ = c(δ)Δ/ε for
    ``"hall"`` (and for ``"auto"`` when ε ≤ HALL_MAX_EPSILON), else the analytic Gaussian σ (Balle & Wang 2018)."""
    use_hall = calibration == "hall" or (calibration == "auto" and epsilon <= HALL_MAX_EPSILON)
    if use_hall:
        return hall_c(delta) * sensitivity / epsilon, True
    return analytic_gaussian_sigma(epsilon, delta, sensitivity), False


def check_hall(calibration: str, epsilon: float) -> None:
    """Refuse Hall's c(δ) beyond ε = HALL_MAX_EPSILON, where its bound is not proven."""
    if calibration == "hall" and epsilon > HALL_MAX_EPSILON:
        raise DPValueError(f"calibration = 'hall' with epsilon = {epsilon:g}: Hall's c(δ) is only used for "
                           f"ε ≤ {HALL_MAX_EPSILON} (beyond it the bound is not proven); use calibration 'analytic' "
                           "or 'auto'.")


def gp_factors(grid: int, bandwidth: float, d: int) -> np.ndarray:
    """A square root L of one axis factor with L Lᵀ ⪰ K_l: the Cholesky factor of K_l + τI, τ = 1e-9·grid^d
    (far above the rounding error ~1e-16·grid² of K_l); if that fails, eigenvalues clipped UPWARD to τ."""
    g = grid_axis(grid)
    k = gram(g, g, bandwidth)
    tau = 1e-9 * grid ** d
    try:
        return np.linalg.cholesky(k + tau * np.eye(grid))
    except np.linalg.LinAlgError:
        lam, v = np.linalg.eigh(k)
        return v * np.sqrt(np.maximum(lam, tau))[None, :]


def sample_gp(grid: int, bandwidth: float, d: int, size: int, rng) -> np.ndarray:
    """``size`` draws of the zero-mean GP with covariance ⪰ K(grid), shape (size,) + (grid,)*d.

    d = 2: Kronecker sampling G = L Z Lᵀ, so Cov(vec G) = (LLᵀ) ⊗ (LLᵀ) ⪰ K₁ ⊗ K₂ = K(grid)."""
    g = as_generator(rng)
    L = gp_factors(grid, bandwidth, d)
    if d == 1:
        return g.standard_normal((size, grid)) @ L.T
    z = g.standard_normal((size, grid, grid))
    return np.einsum("ij,sjk,lk->sil", L, z, L, optimize=True)



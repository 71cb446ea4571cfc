"""Simulators and data preparation for the density topic (Hall 2012 slides, Parts 2–3).

* :class:`Mixture` — Gaussian mixtures with diagonal covariances truncated to the unit cube [0, 1]^d,
  d = 1..6 (:func:`mixture`): sampling by rejection, the exact truncated density, and the exact MISE of
  the Gaussian-kernel KDE over R^d (Marron & Wand 1992, used as the non-private reference rate).
* :func:`two_class` — two-class data in [0, 1]² for the kernel SVM (§2.5).
* :func:`to_unit_cube` — rescale columns by PUBLIC bounds [lower, upper] → [0, 1], clipping (counted).
* :func:`real_column` — a built-in scikit-learn column (wine, diabetes) rescaled by its public bounds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from dpcore._rng import as_generator
from dpcore._validation import check_int
from dpcore.errors import DPValueError

__all__ = ["Mixture", "mixture", "two_class", "to_unit_cube", "real_column", "MAX_D"]

MAX_D = 6


@dataclass(frozen=True)
class Mixture:
    """Σ_k w_k N(μ_k, diag(s_k²)) truncated to [0, 1]^d. ``means``, ``sds``: (K, d); ``weights``: (K,)."""

    means: np.ndarray
    sds: np.ndarray
    weights: np.ndarray

    @property
    def d(self) -> int:
        return self.means.shape[1]

    def _mass_inside(self) -> float:
        per = ndtr((1 - self.means) / self.sds) - ndtr(-self.means / self.sds)
        return float(self.weights @ per.prod(axis=1))

    def pdf(self, x: np.ndarray) -> np.ndarray:
        """Density of the truncated mixture at points x (m, d) in [0, 1]^d."""
        x = np.atleast_2d(x)
        z = (x[:, None, :] - self.means[None]) / self.sds[None]
        comp = np.exp(-0.5 * (z ** 2).sum(axis=2)) / np.prod(np.sqrt(2 * math.pi) * self.sds, axis=1)[None]
        return comp @ self.weights / self._mass_inside()

    def sample(self, n: int, rng) -> np.ndarray:
        """n records (n, d) by rejection from the untruncated mixture."""
        g = as_generator(rng)
        out = np.empty((0, self.d))
        while len(out) < n:
            m = int(1.2 * (n - len(out))) + 16
            k = g.choice(len(self.weights), size=m, p=self.weights)
            y = self.means[k] + self.sds[k] * g.standard_normal((m, self.d))
            out = np.vstack([out, y[np.all((y >= 0) & (y <= 1), axis=1)]])
        return out[:n]

    def kde_mise(self, n: int, h: float) -> float:
        """Exact MISE over R^d of the Gaussian KDE with bandwidth h for the UNtruncated mixture
        (Marron & Wand 1992; Wand & Jones 1995 §4.?): (4π)^{−d/2}/(n h^d) + wᵀ[(1 − 1/n)Ω₂ − 2Ω₁ + Ω₀]w,
        Ω_a[k, l] = φ(μ_k − μ_l; diag(s_k² + s_l² + a h²))."""
        d, w = self.d, self.weights

        def omega(a):
            var = self.sds[:, None, :] ** 2 + self.sds[None, :, :] ** 2 + a * h * h
            diff = self.means[:, None, :] - self.means[None, :, :]
            return np.prod(np.exp(-0.5 * diff ** 2 / var) / np.sqrt(2 * math.pi * var), axis=2)

        return float((4 * math.pi) ** (-d / 2) / (n * h ** d) + w @ ((1 - 1 / n) * omega(2) - 2 * omega(1) + omega(0)) @ w)

    def l2_norm2(self) -> float:
        """∫f² over R^d of the untruncated mixture: wᵀΩ₀w (the scale of the MISE)."""
        var = self.sds[:, None, :] ** 2 + self.sds[None, :, :] ** 2
        diff = self.means[:, None, :] - self.means[None, :, :]
        om = np.prod(np.exp(-0.5 * diff ** 2 / var) / np.sqrt(2 * math.pi * var), axis=2)
        return float(self.weights @ om @ self.weights)


def mixture(d: int = 1) -> Mixture:
    """The figures' truth: a two-component mixture in [0, 1]^d (means 0.3·1 and 0.68·1, sd 0.08 and 0.12)."""
    d = check_int(d, "d", lo=1, hi=MAX_D)
    return Mixture(np.array([[0.3] * d, [0.68] * d]), np.array([[0.08] * d, [0.12] * d]), np.array([0.45, 0.55]))


def two_class(n: int, rng, *, noise: float = 0.08) -> tuple[np.ndarray, np.ndarray]:
    """Two-class data in [0, 1]²: labels ±1 by a circle of radius 0.3 around (0.5, 0.5), with label noise
    from Gaussian jitter of the points (``noise``). Returns (X (n, 2), y (n,))."""
    g = as_generator(rng)
    n = check_int(n, "n", lo=2)
    x = g.random((n, 2))
    r = np.linalg.norm(x + noise * g.standard_normal((n, 2)) - 0.5, axis=1)
    return x, np.where(r < 0.3, 1.0, -1.0)


def to_unit_cube(values, lower, upper) -> tuple[np.ndarray, int]:
    """(x − lower)/(upper − lower) per column, clipped to [0, 1]; returns (array (n, d), records clipped).

    ``lower``/``upper`` must be PUBLIC bounds (declared, not read from the data)."""
    x = np.asarray(values, dtype=float)
    x = x[:, None] if x.ndim == 1 else x
    lo = np.broadcast_to(np.asarray(lower, dtype=float), (x.shape[1],))
    hi = np.broadcast_to(np.asarray(upper, dtype=float), (x.shape[1],))
    if np.any(~(hi > lo)):
        raise DPValueError(f"public bounds lower = {lo.tolist()}, upper = {hi.tolist()}: each upper must exceed "
                           "its lower; fix the bounds on the Data page.")
    u = (x - lo) / (hi - lo)
    clipped = int(np.sum(np.any((u < 0) | (u > 1), axis=1)))
    return np.clip(u, 0.0, 1.0), clipped


def real_column(name: str = "wine", column: str = "alcohol") -> np.ndarray:
    """A built-in scikit-learn column rescaled to [0, 1] by its declared public bounds (n, 1)."""
    from dpcore.data import builtin_dataset, public_column

    ds = builtin_dataset(name)
    col = public_column(ds, column)
    lo, hi = ds.bounds[column]
    return to_unit_cube(col.values, lo, hi)[0]

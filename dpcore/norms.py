"""The ℓ1, ℓ2 and ℓ∞ norms: value, dual norm, unit-ball volume and exact uniform sampling in the ball.

Uniform sampling in the unit ball is the second half of the K-norm mechanism sampler
(Hardt & Talwar 2010; spec/kng.md §2): Z = R·U with R ~ Gamma(d+1, 1/c) and U uniform in K.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ._rng import RNGLike, as_generator
from ._validation import check_int, check_norm

NORMS = ("l1", "l2", "linf")
_DUAL = {"l1": "linf", "l2": "l2", "linf": "l1"}


def norm(x: ArrayLike, name: str = "l2", axis: int = -1) -> np.ndarray:
    """‖x‖ along ``axis`` for ``name`` in {"l1", "l2", "linf"}."""
    name = check_norm(name)
    a = np.asarray(x, dtype=float)
    if name == "l1":
        return np.sum(np.abs(a), axis=axis)
    if name == "l2":
        return np.sqrt(np.sum(a * a, axis=axis))
    return np.max(np.abs(a), axis=axis)


def dual_name(name: str) -> str:
    """Name of the dual norm: ℓ1 ↔ ℓ∞, ℓ2 ↔ ℓ2."""
    return _DUAL[check_norm(name)]


def dual_norm(x: ArrayLike, name: str = "l2", axis: int = -1) -> np.ndarray:
    """The dual norm ‖x‖_* = sup_{‖u‖ ≤ 1} ⟨u, x⟩ of ``name``."""
    return norm(x, dual_name(name), axis=axis)


def log_unit_ball_volume(name: str, d: int) -> float:
    """log Lebesgue volume of the unit ball in R^d: ℓ1 2^d/d!, ℓ2 π^{d/2}/Γ(d/2+1), ℓ∞ 2^d."""
    name = check_norm(name)
    d = check_int(d, "d", lo=1)
    if name == "l1":
        return d * math.log(2.0) - float(gammaln(d + 1))
    if name == "l2":
        return 0.5 * d * math.log(math.pi) - float(gammaln(0.5 * d + 1))
    return d * math.log(2.0)


def sample_unit_ball(name: str, d: int, size: int, rng: RNGLike = None) -> np.ndarray:
    """``size`` points uniform in the unit ball of ``name`` in R^d, shape (size, d).

    ℓ2: g/‖g‖₂ · V^{1/d} with g ~ N(0, I), V ~ U(0,1).
    ℓ∞: uniform on [−1, 1]^d.
    ℓ1: U_j = s_j E_j / Σ_{k≤d+1} E_k with E iid Exp(1) and independent random signs s_j
        (the first d coordinates of a uniform point of the d-simplex, then random orthant).
    """
    name = check_norm(name)
    d = check_int(d, "d", lo=1)
    size = check_int(size, "size", lo=0)
    g = as_generator(rng)
    if name == "linf":
        return g.uniform(-1.0, 1.0, size=(size, d))
    if name == "l2":
        z = g.standard_normal((size, d))
        r = np.sqrt(np.sum(z * z, axis=1, keepdims=True))
        v = g.random((size, 1)) ** (1.0 / d)
        return z / r * v
    e = g.standard_exponential((size, d + 1))
    signs = np.where(g.random((size, d)) < 0.5, -1.0, 1.0)
    return signs * e[:, :d] / e.sum(axis=1, keepdims=True)

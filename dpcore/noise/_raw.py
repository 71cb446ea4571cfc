"""Raw noise: iid Laplace, Gaussian, and the K-norm density (no privacy claim by themselves)."""
from __future__ import annotations

import numpy as np

from .. import norms as _norms
from .._rng import RNGLike, as_generator
from .._validation import check_int, check_positive


# -- raw noise ---------------------------------------------------------------------
def laplace_noise(scale: float, size=None, rng: RNGLike = None) -> np.ndarray:
    """iid Laplace(0, scale) noise, density exp(−|z|/b)/(2b)."""
    scale = check_positive(scale, "scale")
    return as_generator(rng).laplace(0.0, scale, size=size)


def gaussian_noise(sigma: float, size=None, rng: RNGLike = None) -> np.ndarray:
    """iid N(0, σ²) noise."""
    sigma = check_positive(sigma, "sigma")
    return as_generator(rng).normal(0.0, sigma, size=size)


def knorm_noise(d: int, c: float, norm: str = "l2", size: int = 1, rng: RNGLike = None) -> np.ndarray:
    """Draws from the K-norm density ∝ exp(−c‖z‖_K) on R^d, shape (size, d).

    Exact sampler (Hardt & Talwar 2010): R ~ Gamma(shape d+1, scale 1/c), U uniform in the unit
    K-ball, Z = R·U. (Polar decomposition: ‖Z‖_K has density ∝ r^{d−1}e^{−cr}, i.e. Gamma(d, 1/c),
    and Z/‖Z‖_K follows the cone measure; R·‖U‖_K with ‖U‖_K ~ Beta(d, 1) gives exactly that.)
    """
    d = check_int(d, "d", lo=1)
    c = check_positive(c, "c (K-norm rate)")
    size = check_int(size, "size", lo=0)
    g = as_generator(rng)
    r = g.gamma(shape=d + 1.0, scale=1.0 / c, size=(size, 1))
    return r * _norms.sample_unit_ball(norm, d, size, g)



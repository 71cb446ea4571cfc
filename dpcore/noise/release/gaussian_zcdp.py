"""The Gaussian mechanism under zCDP: f(D) + N(0, σ²I), σ = Δ₂/√(2ρ), ρ-zCDP (Bun & Steinke 2016)."""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..._rng import RNGLike
from ...exact import grid_gaussian
from ...mechanism import Release
from .._raw import gaussian_noise
from ..calibration import calibrate_gaussian_zcdp
from ..configs import GaussianZCDPConfig
from ._common import Override, finish, overridden


def release(data: Any, config: GaussianZCDPConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + N(0, σ²I), σ = Δ₂/√(2ρ): ρ-zCDP; with ``sampler="grid"`` (default) f(D) rounded to the public grid
    γℤ plus exact discrete Gaussian noise of variance σ_g² grid units² (derived in
    :func:`dpcore.noise.calibrate_gaussian_zcdp`)."""
    v = np.asarray(data, dtype=float)
    public = calibrate_gaussian_zcdp(config, v.shape)
    cal = overridden(public, override)
    if cal.params["sampler"] == "float":
        return finish(cal, v + gaussian_noise(cal.constant, size=v.shape, rng=rng), config)
    gamma = cal.params["grid"]
    s2 = public.params["grid_variance"] * Fraction(cal.constant / public.constant) ** 2   # × 1 for a real release
    out = grid_gaussian(v, gamma, s2, rng)
    return finish(cal, out, config)

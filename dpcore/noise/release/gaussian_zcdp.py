"""The Gaussian mechanism under zCDP: f(D) + N(0, σ²I), σ = Δ₂/√(2ρ), ρ-zCDP (Bun & Steinke 2016)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._rng import RNGLike
from ...mechanism import Release
from .._raw import gaussian_noise
from ..calibration import calibrate_gaussian_zcdp
from ..configs import GaussianZCDPConfig
from ._common import Override, finish, overridden


def release(data: Any, config: GaussianZCDPConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + N(0, σ²I), σ = Δ₂/√(2ρ): ρ-zCDP."""
    v = np.asarray(data, dtype=float)
    cal = overridden(calibrate_gaussian_zcdp(config, v.shape), override)
    return finish(cal, v + gaussian_noise(cal.constant, size=v.shape, rng=rng), config)

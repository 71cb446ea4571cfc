"""The Laplace mechanism: f(D) + Laplace(Δ₁/ε) per coordinate, ε-DP (Dwork, McSherry, Nissim & Smith 2006)."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._rng import RNGLike
from ..._validation import check_epsilon
from ...mechanism import Release
from .._raw import laplace_noise
from ..calibration import calibrate_laplace
from ..configs import LaplaceConfig
from ._common import Override, finish, overridden


def release(data: Any, config: LaplaceConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + Laplace(b) per coordinate, b = Δ₁/ε (one release, ε-DP)."""
    v = np.asarray(data, dtype=float)
    cal = overridden(calibrate_laplace(config, v.shape), override)
    return finish(cal, v + laplace_noise(cal.constant, size=v.shape, rng=rng), config)


def laplace_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None,
                      neighbours: str = "replace-one") -> Release:
    """value + Laplace(Δ₁/ε) per coordinate: ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁."""
    epsilon = check_epsilon(epsilon)
    return release(value, LaplaceConfig(epsilon, sensitivity, neighbours), rng=rng)

"""The K-norm mechanism: f(D) + Z, Z ∝ exp(−(ε/Δ_K)‖z‖_K), ε-DP per draw (Hardt & Talwar 2010)."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._rng import RNGLike
from ..._validation import DPValueError
from ...mechanism import Release
from .._raw import knorm_noise
from ..calibration import calibrate_knorm
from ..configs import KNormConfig
from ._common import Override, finish, overridden


def release(data: Any, config: KNormConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """``size`` independent draws f(D) + Z, shape (size, d); each ε-DP (cost: size draws)."""
    v = np.atleast_1d(np.asarray(data, dtype=float))
    if v.ndim != 1:
        raise DPValueError(f"value must be a vector; got shape {v.shape}.")
    cal = overridden(calibrate_knorm(config, v.shape), override)
    z = knorm_noise(v.shape[0], cal.constant, config.norm, config.size, rng)
    return finish(cal, v + z, config, config.size)


def knorm_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, norm: str = "l2", size: int = 1,
                    rng: RNGLike = None, neighbours: str = "replace-one") -> Release:
    """value + Z with Z ∝ exp(−(ε/Δ_K)‖z‖_K): ε-DP per draw when Δ_K ≥ sup ‖f(D) − f(D')‖_K.

    ``size`` independent releases cost ``size`` draws at ε each (the release's ``cost.count``);
    the returned value has shape (size, d).
    """
    return release(value, KNormConfig(epsilon, sensitivity, norm, size, neighbours), rng=rng)

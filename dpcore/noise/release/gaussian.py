"""The analytic Gaussian mechanism: f(D) + N(0, σ²I), (ε, δ)-DP (Balle & Wang 2018); and the functional
form :func:`gaussian_mechanism`, which also gives the ρ-zCDP version (:mod:`.gaussian_zcdp`)."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._rng import RNGLike
from ..._validation import DPValueError, check_positive
from ...mechanism import Release
from .._raw import gaussian_noise
from ..calibration import calibrate_gaussian
from ..configs import GaussianConfig, GaussianZCDPConfig
from . import gaussian_zcdp
from ._common import Override, finish, overridden


def release(data: Any, config: GaussianConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + N(0, σ²I) with the analytic σ: (ε, δ)-DP."""
    v = np.asarray(data, dtype=float)
    cal = overridden(calibrate_gaussian(config, v.shape), override)
    return finish(cal, v + gaussian_noise(cal.constant, size=v.shape, rng=rng), config)


def gaussian_mechanism(value: ArrayLike, sensitivity: float, *, epsilon: float | None = None, delta: float | None = None,
                       rho: float | None = None, rng: RNGLike = None, neighbours: str = "replace-one",
                       sampler: str = "grid") -> Release:
    """value + N(0, σ²I) with ℓ2-sensitivity Δ₂ ≥ sup ‖f(D) − f(D')‖₂.

    Give either (ε, δ) — σ is the analytic Gaussian calibration (Balle & Wang 2018), (ε, δ)-DP —
    or ρ — σ = Δ₂/√(2ρ), ρ-zCDP (Bun & Steinke 2016); ``sampler`` ("grid", hardened, or "float") applies to ρ.
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    if rho is not None:
        if epsilon is not None or delta is not None:
            raise DPValueError("give either rho (zCDP) or (epsilon, delta), not both.")
        return gaussian_zcdp.release(value, GaussianZCDPConfig(rho, sensitivity, neighbours, sampler), rng=rng)
    if epsilon is None or delta is None:
        raise DPValueError("the Gaussian mechanism needs (epsilon, delta) or rho; delta was not given.")
    return release(value, GaussianConfig(epsilon, delta, sensitivity, neighbours), rng=rng)

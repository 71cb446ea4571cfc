"""The Laplace mechanism: f(D) + Laplace(Δ₁/ε) per coordinate, ε-DP (Dwork, McSherry, Nissim & Smith 2006)."""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._rng import RNGLike
from ..._validation import check_epsilon
from ...exact import discrete_laplace, to_grid
from ...mechanism import Release
from .._raw import laplace_noise
from ..calibration import calibrate_laplace
from ..configs import LaplaceConfig
from ._common import Override, finish, overridden


def release(data: Any, config: LaplaceConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + Laplace(b) per coordinate, b = Δ₁/ε (one release, ε-DP); with ``sampler="grid"`` (default) f(D)
    rounded to the public grid γℤ plus exact discrete Laplace noise of scale b/γ grid units
    (:func:`dpcore.noise.calibrate_laplace` derives Δ_g and the guarantee)."""
    v = np.asarray(data, dtype=float)
    public = calibrate_laplace(config, v.shape)
    cal = overridden(public, override)
    if cal.params["sampler"] == "float":
        return finish(cal, v + laplace_noise(cal.constant, size=v.shape, rng=rng), config)
    gamma, dg = cal.params["grid"], cal.params["grid_sensitivity"]
    # scale t = Δ_g/ε grid units exactly (× a mutant's factor on the constant, 1 for a real release)
    t = Fraction(dg) / Fraction(config.epsilon) * Fraction(cal.constant / public.constant)
    out = gamma * (to_grid(v, gamma) + discrete_laplace(t, v.shape, rng)).astype(float)
    return finish(cal, out, config)


def laplace_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None,
                      neighbours: str = "replace-one", sampler: str = "grid") -> Release:
    """value + Laplace(Δ₁/ε) per coordinate: ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁ (``sampler``: "grid",
    hardened, or "float")."""
    epsilon = check_epsilon(epsilon)
    return release(value, LaplaceConfig(epsilon, sensitivity, neighbours, sampler), rng=rng)

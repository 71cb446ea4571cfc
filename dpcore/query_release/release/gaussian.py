"""The Gaussian baseline: x̄ + N(0, σ²I), ρ-zCDP (BBNS 2019 §5.1)."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_gaussian
from ..configs import GaussianConfig
from ._common import gaussian_family


def release(data: Any, config: GaussianConfig, *, rng: RNGLike = None) -> Release:
    """Gaussian baseline M_G(D) = x̄ + N(0, σ²I_k), σ = diam₂(X)/(n√(2ρ)): ρ-zCDP, err₂ = σ exactly (BBNS §5.1)."""
    return gaussian_family(calibrate_gaussian, data, config, rng, project=False)

"""Algorithm 7 of Asi, Duchi & Talwar (2025), generic smooth losses: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_gen(λ̂)·Z with λ̂
from recursion R₁, or ⊥ when (C2) fails; (ε₁ + ε₂, δ₁ + δ₂)-DP (Proposition 7.1), calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_theta_generic`. ``data = (X, y)``.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike
from ...mechanism import Release
from .._analysis import Analysis
from ..calibration import calibrate_theta_generic
from ..configs import GenericConfig
from .theta import nonprivate, sample_theta, theta_release

__all__ = ["release", "nonprivate", "sample_theta_generic"]


def sample_theta_generic(an: Analysis, e1, d1, e2, d2, size, rng, cal=None) -> np.ndarray:
    """``size`` draws of Algorithm 7 (rows of NaN are ⊥): :func:`~dpcore.single_parameter.release.theta.sample_theta`
    with (C2) and Δ_gen."""
    return sample_theta(an, e1, d1, e2, d2, size, rng, cal, generic=True)


def release(data, cfg: GenericConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 7: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_gen(λ̂)·Z with λ̂ from recursion R₁, or ⊥ when (C2) fails."""
    return theta_release(data, cfg, rng, generic=True, calibrate=calibrate_theta_generic, sampler=sample_theta_generic)

"""Algorithm 7 of Asi, Duchi & Talwar (2025), generic smooth losses: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_gen(λ̂)·Z with λ̂
from recursion R₁, or ⊥ when (C2) fails; (ε₁ + ε₂, δ₁ + δ₂)-DP (Proposition 7.1), calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_theta_generic`. ``data = (X, y)``.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...mechanism import Release
from .._analysis import Analysis, gaussian_sigma, laplace_params
from .._recursion import alg6l
from ..calibration import calibrate_theta_generic
from ..configs import GenericConfig
from .theta import nonprivate, theta_release

__all__ = ["release", "nonprivate", "sample_theta_generic"]


def sample_theta_generic(an: Analysis, e1, d1, e2, d2, size, rng, cal=None) -> np.ndarray:
    """``size`` draws of Algorithm 7 (rows of NaN are ⊥)."""
    g = as_generator(rng)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **laplace_params(cal))
    d = an.X.shape[1]
    sig = gaussian_sigma(e2, d2, cal)
    Z = g.standard_normal((size, d))
    ok = an.consts.C2(lam_hat) & (lam_hat > 0) & (an.fit is not None)
    out = np.full((size, d), np.nan)
    if an.fit is not None and ok.any():
        out[ok] = an.fit.theta + sig * an.consts.Delta_gen(lam_hat[ok])[:, None] * Z[ok]
    return out


def release(data, cfg: GenericConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 7: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_gen(λ̂)·Z with λ̂ from recursion R₁, or ⊥ when (C2) fails."""
    return theta_release(data, cfg, rng, generic=True, calibrate=calibrate_theta_generic, sampler=sample_theta_generic)

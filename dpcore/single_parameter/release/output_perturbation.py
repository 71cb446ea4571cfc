"""Naive output perturbation of the ridge estimator, a baseline of Asi, Duchi & Talwar (2025, §4):
θ̂_ρ + σ(ε, δ)·(D/(nρ))·Z. The ρ-strongly convex objective makes θ̂_ρ (D/(nρ))-stable in ℓ2 under replace-one
(Chaudhuri, Monteleoni & Sarwate 2011, Cor. 8); (ε, δ)-DP by the analytic Gaussian mechanism (Balle & Wang 2018),
calibrated by :func:`~dpcore.single_parameter.calibration.calibrate_output_perturbation`. ``data = (X, y)``.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...mechanism import Diagnostics, Release
from .._analysis import baseline_notes, prepare_glm
from .._fit import fit
from ..calibration import calibrate_output_perturbation
from ..configs import OutputPerturbationConfig

__all__ = ["release", "nonprivate", "sample_output_perturbation"]


def sample_output_perturbation(data, cfg, size, rng, override=None):
    X, y, r2, k, clipped = prepare_glm(data, cfg)
    theta = fit(cfg.loss, X, y, rho=cfg.rho).theta
    cal = calibrate_output_perturbation(cfg, X.shape)
    cal = override(cal) if override else cal
    s = cal.constant * float(cal.params.get("gauss_scale", 1.0))
    return theta + s * as_generator(rng).standard_normal((size, X.shape[1])), cal, clipped


def release(data, cfg: OutputPerturbationConfig, *, rng: RNGLike = None) -> Release:
    """Naive output perturbation of the ridge estimator θ̂_ρ ((ε, δ)-DP)."""
    out, cal, clipped = sample_output_perturbation(data, cfg, 1, rng)
    return Release(cal.mechanism, out[0], cal.cost(1), cal, True, baseline_notes(clipped, len(data[1])),
                   Diagnostics(values={"clipped rows": clipped}), cfg)


def nonprivate(data, cfg) -> np.ndarray:
    """The ridge estimator θ̂_ρ (NON-PRIVATE)."""
    X, y, *_ = prepare_glm(data, cfg)
    return fit(cfg.loss, X, y, rho=cfg.rho).theta

"""Algorithm 2 of Asi, Duchi & Talwar (2025) (= Algorithm 6-L on the count of recursion (10)): a private lower
bound λ̂ ≤ λ_min(∇²L_n(θ̂)) with probability ≥ 1 − δ; ε-DP (Laplace on a count of sensitivity 1, calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_lambda_min`). ``data = (X, y)``.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...mechanism import Note, Release
from .._analysis import Analysis, analyse, analysis_diagnostics, clip_note, laplace_params
from .._recursion import alg6l
from ..calibration import calibrate_lambda_min
from ..configs import LambdaMinConfig

__all__ = ["release", "nonprivate", "sample_lambda_min"]


def sample_lambda_min(an: Analysis, epsilon: float, delta: float, size: int, rng, cal=None) -> np.ndarray:
    """``size`` independent draws of Algorithm 2's λ̂ (Algorithm 6-L on K)."""
    lam_hat, _ = alg6l(an.K, an.ladder, epsilon, delta, size, as_generator(rng), **laplace_params(cal))
    return lam_hat


def release(data, cfg: LambdaMinConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 2: a private lower bound λ̂ on λ_min(∇²L_n(θ̂)) (0 means "not certified").

    ε-DP (Laplace on a sensitivity-1 count); P(λ̂ ≤ λ_min) ≥ 1 − δ (δ is a coverage level).
    """
    an = analyse(data, cfg)
    cal = calibrate_lambda_min(cfg, an.X.shape)
    lam_hat = float(sample_lambda_min(an, cfg.epsilon, cfg.delta, 1, rng, cal)[0])
    notes = clip_note(an, cfg) + (Note("info", f"the released λ̂ ≤ λ_min with probability ≥ 1 − {cfg.delta:g} "
                                                "(λ̂ = 0: not certified)"),)
    return Release(cal.mechanism, lam_hat, cal.cost(1), cal, True, notes, analysis_diagnostics(an), cfg)


def nonprivate(data, cfg) -> float:
    """λ_min(∇²L_n(θ̂)) (NON-PRIVATE)."""
    return analyse(data, cfg).lam_min

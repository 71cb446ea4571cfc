"""Algorithms 2 + 4 of Asi, Duchi & Talwar (2025): (λ̂, Λ̂) with λ̂ ≤ λ_min w.p. ≥ 1 − δ₁ and Λ̂ ≥ λ_max
w.p. ≥ 1 − δ₂; (ε₁ + ε₂, δ₁)-DP (Lemma 2.2 with the good set {λ̂ ≤ λ_min}), calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_eigen_bounds`. ``data = (X, y)``.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...mechanism import Note, Release
from .._analysis import Analysis, analyse, analysis_diagnostics, clip_note, laplace_params
from .._recursion import alg4, alg6l, upper_count
from ..calibration import calibrate_eigen_bounds
from ..configs import EigenBoundsConfig

__all__ = ["release", "nonprivate", "sample_eigen_bounds"]


def sample_eigen_bounds(an: Analysis, e1, d1, e2, d2, size, rng, cal=None) -> tuple[np.ndarray, np.ndarray]:
    """``size`` draws of (λ̂, Λ̂) from Algorithms 2 and 4."""
    g = as_generator(rng)
    lp = laplace_params(cal)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **lp)
    Lam_hat, _ = alg4(an.consts, an.lam_max, lam_hat, e2, d2, g, **lp)
    return lam_hat, Lam_hat


def release(data, cfg: EigenBoundsConfig, *, rng: RNGLike = None) -> Release:
    """Algorithms 2 and 4: value (λ̂, Λ̂), certified λ̂ ≤ λ_min (w.p. ≥ 1 − δ/2) and Λ̂ ≥ λ_max (w.p. ≥ 1 − δ/2)."""
    an = analyse(data, cfg)
    cal = calibrate_eigen_bounds(cfg, an.X.shape)
    e1, e2 = cal.params["epsilons"]
    lh, Lh = sample_eigen_bounds(an, e1, cfg.delta / 2, e2, cfg.delta / 2, 1, rng, cal)
    notes = clip_note(an, cfg) + (Note("info", f"the released λ̂ ≤ λ_min and Λ̂ ≥ λ_max, each with probability "
                                                f"≥ 1 − {cfg.delta / 2:g}"),)
    Ku = int(upper_count(an.consts, an.lam_max, lh[:1])[0]) if lh[0] > 0 else 0
    return Release(cal.mechanism, np.array([lh[0], Lh[0]]), cal.cost(1), cal, True, notes,
                   analysis_diagnostics(an, **{"count K↑(λ_max) (non-private)": Ku}), cfg)


def nonprivate(data, cfg) -> np.ndarray:
    """(λ_min, λ_max) (NON-PRIVATE)."""
    an = analyse(data, cfg)
    return np.array([an.lam_min, an.lam_max])

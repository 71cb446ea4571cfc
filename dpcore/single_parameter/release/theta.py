"""Algorithm 3 of Asi, Duchi & Talwar (2025), local output perturbation: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_n(λ̂)·Z, or ⊥
when (C1) fails at the private bound λ̂; (ε₁ + ε₂, δ₁ + δ₂)-DP (Observation 2.4), calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_theta`. :func:`theta_release` is shared with Algorithm 7
(:mod:`~dpcore.single_parameter.release.theta_generic`). ``data = (X, y)``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._rng import RNGLike, as_generator
from ...errors import DPValueError
from ...mechanism import Calibration, Note, Release
from .._analysis import BOTTOM, Analysis, analyse, analysis_diagnostics, clip_note, gaussian_sigma, laplace_params
from .._recursion import alg6l
from ..calibration import calibrate_theta
from ..configs import ThetaConfig

__all__ = ["release", "nonprivate", "sample_theta", "theta_release"]


def sample_theta(an: Analysis, e1, d1, e2, d2, size, rng, cal=None, *, generic: bool = False) -> np.ndarray:
    """``size`` draws of Algorithm 3 — or, ``generic``, of Algorithm 7: region (C2) and bound Δ_gen instead of (C1)
    and Δ_n (rows of NaN are ⊥)."""
    g = as_generator(rng)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **laplace_params(cal))
    d = an.X.shape[1]
    sig = gaussian_sigma(e2, d2, cal)
    Z = g.standard_normal((size, d))
    region, bound = (an.consts.C2, an.consts.Delta_gen) if generic else (an.consts.C1, an.consts.Delta_n)
    ok = region(lam_hat) & (lam_hat > 0) & (an.fit is not None)
    out = np.full((size, d), np.nan)
    if an.fit is not None and ok.any():
        out[ok] = an.fit.theta + sig * bound(lam_hat[ok])[:, None] * Z[ok]
    return out


def _bottom_theta(floor_name) -> Note:
    """The ⊥ note: what follows from the noised λ̂ alone (a degenerate design's reason is a diagnostic)."""
    return Note("withheld", f"{BOTTOM}: the private bound λ̂ is below the certified region {floor_name}, so no "
                            "noise scale can be certified (n too small for this design and ε, or λ_min = 0); the "
                            "cost is charged: the decision used λ̂.")


def release(data, cfg: ThetaConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 3: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_n(λ̂)·Z, or ⊥ (NaN vector) when (C1) fails at λ̂."""
    return theta_release(data, cfg, rng, generic=False, calibrate=calibrate_theta, sampler=sample_theta)


def theta_release(data, cfg: ThetaConfig, rng: RNGLike, *, generic: bool,
                  calibrate: Callable[[Any, tuple[int, ...]], Calibration],
                  sampler: Callable[..., np.ndarray]) -> Release:
    """Algorithm 3 or (``generic``) 7 with its calibration and vectorised sampler: θ̃ or ⊥, the λ̂ notes."""
    an = analyse(data, cfg, generic=generic)
    cal = calibrate(cfg, an.X.shape)
    e1, e2 = cfg.share * cfg.epsilon, (1 - cfg.share) * cfg.epsilon
    g = as_generator(rng)
    # draw λ̂ once and reuse it for the note (same generator state as the sampler)
    state = g.bit_generator.state
    lam_hat = float(alg6l(an.K, an.ladder, e1, cfg.delta / 2, 1, g)[0][0])
    g.bit_generator.state = state
    theta = sampler(an, e1, cfg.delta / 2, e2, cfg.delta / 2, 1, g, cal)[0]
    notes = list(clip_note(an, cfg))
    if np.all(np.isnan(theta)):
        notes.append(Note("output", f"private bound λ̂ = {lam_hat:.6g}"))
        notes.append(_bottom_theta("(C2)" if generic else "(C1)"))
        extra = {}
    else:
        dn = an.consts.Delta_gen(lam_hat) if generic else an.consts.Delta_n(lam_hat)
        notes.append(Note("output", f"certified λ̂ = {lam_hat:.6g}; noise sd per coordinate σ·Δ(λ̂) = "
                                    f"{cal.constant * float(dn):.4g}"))
        extra = {"noise sd (public given λ̂)": cal.constant * float(dn)}
    return Release(cal.mechanism, theta, cal.cost(1), cal, True, tuple(notes), analysis_diagnostics(an, **extra), cfg)


def nonprivate(data, cfg) -> np.ndarray:
    """θ̂ (NON-PRIVATE)."""
    an = analyse(data, cfg)
    if an.fit is None:
        raise DPValueError(f"θ̂ is undefined: {an.degenerate}.")
    return an.fit.theta

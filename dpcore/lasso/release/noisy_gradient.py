"""Noisy-gradient Frank–Wolfe for a general convex set C (Talwar, Thakurta & Zhang 2015, Theorem 2.6).

Each step publishes nothing but uses the gradient ∇L(θ_t) + z_t, z_t ~ N(0, σ² I_p), in the linear
minimisation s_t = argmin_{s∈C} ⟨s, ∇L + z_t⟩; the risk then depends on the Gaussian width
G_C = E sup_{s∈C} ⟨g, s⟩ of C (Theorem 2.6: O(Γ^{1/3}(L2 G_C)^{2/3} log²(n/δ)/(nε)^{2/3})). C is
the ℓ1 ball (G_C ≈ r√(2 ln 2p)), the simplex r·Δ_p (≈ r√(2 ln p)) or the ℓ∞ ball (= r p √(2/π)): only the
polytopes with few vertices keep the log p dependence — the point of the comparison.

The calibration (ℓ2 sensitivity Δ₂ = 4(R₁ + 1)√p/n, the Gaussian σ over T steps by zCDP, T) is derived in
:mod:`dpcore.lasso.calibration` (:func:`~dpcore.lasso.calibration.calibrate_noisy_gradient`); the loop is
:func:`dpcore.lasso._solver.noisy_gradient_fw`.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._rng import RNGLike
from ...mechanism import Diagnostics, Note, Release
from .._solver import clip_data, constrained_optimum, loss, noisy_gradient_fw
from ..calibration import calibrate_noisy_gradient
from ..configs import NoisyGradientConfig

__all__ = ["release", "nonprivate"]


def nonprivate(data: Any, cfg: NoisyGradientConfig) -> np.ndarray:
    """Non-private Frank–Wolfe on C with the same T and start (σ = 0)."""
    X, y, _ = clip_data(data)
    steps = int(calibrate_noisy_gradient(cfg, X.shape).params["steps"])
    return noisy_gradient_fw(X, y, radius=cfg.radius, steps=steps, constraint=cfg.constraint, sigma=0.0)[0][0]


def release(data: Any, cfg: NoisyGradientConfig, *, rng: RNGLike = None,
            progress: Callable[[int, int], Any] | None = None, diagnostics: bool = True) -> Release:
    """θ_priv ∈ C by noisy-gradient Frank–Wolfe, (ε, δ)-DP (replace-one; n, p public)."""
    X, y, clip_info = clip_data(data)
    cal = calibrate_noisy_gradient(cfg, X.shape)
    th, _ = noisy_gradient_fw(X, y, radius=cfg.radius, steps=int(cal.params["steps"]), constraint=cfg.constraint,
                              sigma=cal.constant, rng=rng, progress=progress)
    theta = th[0]
    vals = dict(clip_info)
    if diagnostics and cfg.constraint != "linf":
        opt = constrained_optimum(X, y, cfg.radius, cfg.constraint)
        vals.update({"L(θ_priv)": float(loss(X, y, theta)), "L(θ*)": opt.loss,
                     "excess risk (private)": float(loss(X, y, theta)) - opt.loss})
    notes = (Note("info", f"T = {cal.params['steps']} steps, Gaussian σ = {cal.constant:.4g} on each gradient; "
                          f"Gaussian width of C: {cal.params['gaussian_width']:.4g}."),)
    return Release(cal.mechanism, theta, cal.cost(1), cal, True, notes, Diagnostics(values=vals), cfg)

"""Full-batch noisy gradient descent (a simple DP-SGD), a baseline of Asi, Duchi & Talwar (2025, §4): T steps
θ ← θ − η(∇L_n(θ) + N(0, s²I)) from θ = 0. The average gradient has ℓ2-sensitivity D/n under replace-one, so each
step is ((D/n)²/(2s²))-zCDP and T steps are ρ_z = T(D/n)²/(2s²)-zCDP (Bun & Steinke 2016); ρ_z is the largest
value whose tight conversion (Canonne, Kamath & Steinke 2020) gives the requested (ε, δ)
(:func:`~dpcore.single_parameter.calibration.calibrate_noisy_gd`). Full-batch (no subsampling) keeps the
accountant exact and simple. T and η are public defaults (never tuned on the private sample).
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...mechanism import Diagnostics, Release
from .._analysis import baseline_notes, prepare_glm
from .._losses import get_loss
from ..calibration import calibrate_noisy_gd
from ..configs import NoisyGDConfig

__all__ = ["release", "nonprivate", "sample_noisy_gd"]


def _gd(loss, X, y, rho, steps, eta, noise, g, size):
    n, d = X.shape
    sgn = loss.sign(y)
    Th = np.zeros((size, d))
    for _ in range(steps):
        T = Th @ X.T - y if loss.name == "robust" else (Th @ X.T) * y
        G = (loss.h1(T) * sgn) @ X / n + rho * Th
        if noise > 0:
            G = G + noise * g.standard_normal((size, d))
        Th = Th - eta * G
    return Th


def _eta(cfg, k):
    return cfg.step_size if cfg.step_size is not None else 1.0 / (k["M1"] + cfg.rho)


def sample_noisy_gd(data, cfg, size, rng, override=None):
    X, y, r2, k, clipped = prepare_glm(data, cfg)
    cal = calibrate_noisy_gd(cfg, X.shape)
    cal = override(cal) if override else cal
    s = cal.constant * float(cal.params.get("gauss_scale", 1.0))
    return _gd(get_loss(cfg.loss), X, y, cfg.rho, cfg.steps, _eta(cfg, k), s, as_generator(rng), size), cal, clipped


def release(data, cfg: NoisyGDConfig, *, rng: RNGLike = None) -> Release:
    """Full-batch noisy gradient descent (ρ-zCDP, stated with its (ε, δ))."""
    out, cal, clipped = sample_noisy_gd(data, cfg, 1, rng)
    return Release(cal.mechanism, out[0], cal.cost(1), cal, True, baseline_notes(clipped, len(data[1])),
                   Diagnostics(values={"clipped rows": clipped}), cfg)


def nonprivate(data, cfg) -> np.ndarray:
    """The same T gradient steps without noise (NON-PRIVATE)."""
    X, y, r2, k, _ = prepare_glm(data, cfg)
    return _gd(get_loss(cfg.loss), X, y, cfg.rho, cfg.steps, _eta(cfg, k), 0.0, None, 1)[0]

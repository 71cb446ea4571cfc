"""Objective perturbation, a baseline of Asi, Duchi & Talwar (2025, §4): Chaudhuri, Monteleoni & Sarwate (2011),
Algorithm 2 [EXT], on covariates rescaled to the unit ball (x/r₂, so θ is estimated as r₂θ and the ridge term
regularises r₂θ): minimise (1/n)Σh + ((ρ_op + Δ)/2)‖θ‖² + (1/n)⟨b, θ⟩ with
ε' = ε − log(1 + 2c_h/(nρ_op) + c_h²/(n²ρ_op²)) (if ε' ≤ 0: Δ = c_h/(n(e^{ε/4} − 1)) − ρ_op and ε' = ε/2),
‖b‖ ~ Gamma(d, 2/ε') in a uniform direction; c_h = sup h''. Pure ε-DP (Thm 9 there; the proof needs |h'| ≤ 1,
h'' ≤ c_h and rank-one per-example Hessians, which both GLMs satisfy), calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_objective_perturbation`. ``data = (X, y)``.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...errors import DPValueError
from ...mechanism import Diagnostics, Release
from .._analysis import baseline_notes, prepare_glm
from .._losses import get_loss
from ..calibration import calibrate_objective_perturbation, objective_constants
from ..configs import ObjectivePerturbationConfig

__all__ = ["release", "nonprivate", "sample_objective_perturbation", "solve_perturbed"]


def solve_perturbed(loss, X, y, rho: float, B: np.ndarray, *, tol: float = 1e-7, max_iter: int = 200) -> np.ndarray:
    """argmin_θ (1/n)Σh(tᵢ) + (ρ/2)‖θ‖² + (1/n)⟨b, θ⟩ for every row b of B (batched damped Newton)."""
    n, d = X.shape
    S = B.shape[0]
    sgn = loss.sign(y)
    Th = np.zeros((S, d))

    def obj(Th):
        T = Th @ X.T - y if loss.name == "robust" else (Th @ X.T) * y
        return loss.h(T).mean(axis=1) + 0.5 * rho * np.sum(Th * Th, 1) + np.sum(B * Th, 1) / n

    f = obj(Th)
    scale = np.linalg.norm(B, axis=1) / n
    for _ in range(max_iter):
        T = Th @ X.T - y if loss.name == "robust" else (Th @ X.T) * y
        G = (loss.h1(T) * sgn) @ X / n + rho * Th + B / n
        W = loss.h2(T)
        H = np.einsum("sn,ni,nj->sij", W, X, X) / n + rho * np.eye(d)[None]
        step = np.linalg.solve(H, G[:, :, None])[:, :, 0]
        # converged: small gradient, or a Newton step below the floating-point resolution of θ
        done = ((np.linalg.norm(G, axis=1) <= tol * (1.0 + scale))
                | (np.linalg.norm(step, axis=1) <= 1e-12 * (1.0 + np.linalg.norm(Th, axis=1))))
        if np.all(done):
            break
        dec = np.sum(G * step, 1)
        s = np.ones(S)
        for _ in range(40):
            cand = Th - s[:, None] * step
            fc = obj(cand)
            bad = ~(fc <= f - 1e-4 * s * dec)
            if not bad.any():
                break
            s = np.where(bad, 0.5 * s, s)
        Th, f = cand, fc
    else:
        bad = ~done
        raise DPValueError(f"objective perturbation: Newton did not converge for {bad.sum()} of {S} draws "
                           f"(worst ‖∇‖ = {np.linalg.norm(G, axis=1).max():.3g}); increase rho.")
    return Th


def sample_objective_perturbation(data, cfg, size, rng, override=None):
    X, y, r2, k, clipped = prepare_glm(data, cfg)
    n, d = X.shape
    cal = calibrate_objective_perturbation(cfg, (n, d))
    cal = override(cal) if override else cal
    g = as_generator(rng)
    U = g.standard_normal((size, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Bn = U * g.gamma(d, cal.constant * float(cal.params.get("noise_scale", 1.0)), size)[:, None]
    Ths = solve_perturbed(get_loss(cfg.loss), X / r2, y, cfg.rho + cal.params["extra_ridge"], Bn)
    return Ths / r2, cal, clipped


def release(data, cfg: ObjectivePerturbationConfig, *, rng: RNGLike = None) -> Release:
    """Objective perturbation (pure ε-DP); returns θ̃ on the original scale."""
    out, cal, clipped = sample_objective_perturbation(data, cfg, 1, rng)
    return Release(cal.mechanism, out[0], cal.cost(1), cal, True, baseline_notes(clipped, len(data[1])),
                   Diagnostics(values={"clipped rows": clipped}), cfg)


def nonprivate(data, cfg) -> np.ndarray:
    """The unperturbed objective-perturbation estimate (same ridge on the rescaled θ) — NON-PRIVATE."""
    X, y, r2, k, _ = prepare_glm(data, cfg)
    n, d = X.shape
    extra = objective_constants(cfg, n, d)[2]
    return solve_perturbed(get_loss(cfg.loss), X / r2, y, cfg.rho + extra, np.zeros((1, d)))[0] / r2

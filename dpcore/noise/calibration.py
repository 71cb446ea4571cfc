"""Calibrations of the noise mechanisms: ``calibrate_<family>(config, data_shape) -> Calibration``.

Each gives the public constants of one release (sensitivity, noise scale or rate, derivation, paper) and
its guarantee per draw. ``data_shape`` (the shape of the query answer f(D) or of the utilities) is part of
the one signature of every topic; here the constants follow from the config alone, whatever the shape.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..exact import (GRID_STEPS, grid_sensitivity_l1, grid_sensitivity_l2, grid_spacing, rational_at_least)
from ..mechanism import Calibration
from ..privacy import analytic_gaussian_sigma, gaussian_sigma_zcdp
from .configs import ExponentialConfig, GaussianConfig, GaussianZCDPConfig, KNormConfig, LaplaceConfig


def calibrate_laplace(config: LaplaceConfig, data_shape: tuple[int, ...]) -> Calibration:
    """ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁: the density ratio at any z is
    exp(ε(‖z − f(D')‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the triangle inequality.

    ``sampler="grid"`` (hardened, default): γ = 2^⌊log2(min(Δ₁, Δ₁/ε)/(64d))⌋ for d coordinates (public: Δ₁, ε, d),
    r(f) = ⌊f/γ + ½⌋ per coordinate, whose ℓ1 distance between neighbours is at most Δ_g = ⌈Δ₁/γ⌉ + d − 1 grid
    units (:func:`dpcore.exact.grid_sensitivity_l1`); γ·(r(f) + Z) with Z iid exact discrete Laplace of scale
    t = Δ_g/ε grid units has PMF ratio ≤ exp(‖r − r′‖₁/t) ≤ e^ε. The constant is that scale in data units,
    b = γΔ_g/ε ≤ (Δ₁/ε)(1 + 2/64): at most 3.2 % more than the float mechanism's (plus a rounding error ≤ γ/2).
    """
    eps, delta1 = config.epsilon, config.sensitivity
    d = max(1, math.prod(data_shape))
    base: dict[str, Any] = dict(mechanism="noise/laplace", notion="pure", epsilon=eps, sensitivity=delta1,
                reference="Dwork, McSherry, Nissim & Smith (2006), Calibrating noise to sensitivity",
                neighbours=config.neighbours)
    if config.sampler == "float":
        return Calibration(**base, constant=delta1 / eps, constant_name="Laplace scale b = Δ₁/ε",
                           derivation=("the density ratio at any z is exp(ε(‖z − f(D′)‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the "
                                       f"triangle inequality, with Δ₁ = {delta1:g} the caller's ℓ1-sensitivity. Drawn by "
                                       "numpy's floating-point Laplace sampler (not hardened: Mironov 2012)."),
                           params={"sampler": "float"})
    gamma = grid_spacing(delta1, delta1 / eps, GRID_STEPS * d)
    dg = grid_sensitivity_l1(delta1, gamma, d)
    return Calibration(**base, constant=gamma * dg / eps, constant_name="discrete Laplace scale b = γ·Δ_g/ε on the grid γℤ",
                       derivation=(f"f(D) is rounded to the public grid γℤ, γ = {gamma:g} (a power of two from Δ₁, ε and "
                                   f"d = {d}); rounding moves the ℓ1 distance between neighbours to at most "
                                   f"Δ_g = ⌈Δ₁/γ⌉ + d − 1 = {dg} grid units; exact discrete Laplace noise of scale Δ_g/ε grid "
                                   "units (Canonne, Kamath & Steinke 2020, integer arithmetic) has PMF ratio ≤ e^ε by "
                                   "the triangle inequality. Outputs lie on the grid whatever the data (no floating-point "
                                   f"support gaps), with Δ₁ = {delta1:g} the caller's ℓ1-sensitivity."),
                       params={"sampler": "grid", "grid": gamma, "grid_sensitivity": dg})


def calibrate_gaussian(config: GaussianConfig, data_shape: tuple[int, ...]) -> Calibration:
    """(ε, δ)-DP with the analytic Gaussian σ for ℓ2-sensitivity Δ₂ (Balle & Wang 2018, Thm 8)."""
    sigma = analytic_gaussian_sigma(config.epsilon, config.delta, config.sensitivity)
    return Calibration(
        mechanism="noise/gaussian", notion="approx", epsilon=config.epsilon, delta=config.delta,
        sensitivity=config.sensitivity, constant=sigma, constant_name="Gaussian σ (analytic calibration)",
        derivation=("the smallest σ with Φ(Δ₂/(2σ) − εσ/Δ₂) − e^ε Φ(−Δ₂/(2σ) − εσ/Δ₂) ≤ δ, the exact privacy "
                    f"profile of the Gaussian mechanism, with Δ₂ = {config.sensitivity:g} the caller's "
                    "ℓ2-sensitivity."),
        reference="Balle & Wang (2018), Improving the Gaussian mechanism, Thm 8", neighbours=config.neighbours)


def calibrate_gaussian_zcdp(config: GaussianZCDPConfig, data_shape: tuple[int, ...]) -> Calibration:
    """ρ-zCDP with σ = Δ₂/√(2ρ) (Bun & Steinke 2016, Prop. 1.6).

    ``sampler="grid"`` (hardened, default): γ = 2^⌊log2(min(Δ₂, σ)/(64√d))⌋, r(f) = ⌊f/γ + ½⌋, whose ℓ2 distance
    between neighbours is at most Δ_g grid units (⌈Δ₂/γ⌉ for d = 1, Δ₂/γ + √d otherwise:
    :func:`dpcore.exact.grid_sensitivity_l2`, here rounded up to a rational); iid exact discrete Gaussian noise
    with σ_g² ≥ Δ_g²/(2ρ) (rounded up to a rational) is ρ-zCDP (Canonne, Kamath & Steinke 2020, Thm 4:
    D_α(N_Z(r, σ²) ‖ N_Z(r′, σ²)) = α‖r − r′‖²/(2σ²) for integer vectors). The constant is γσ_g in data units.
    """
    sigma = gaussian_sigma_zcdp(config.rho, config.sensitivity)
    delta2 = config.sensitivity
    d = max(1, math.prod(data_shape))
    base: dict[str, Any] = dict(mechanism="noise/gaussian-zcdp", notion="zcdp", rho=config.rho, sensitivity=delta2,
                reference="Bun & Steinke (2016), Concentrated differential privacy, Prop. 1.6",
                neighbours=config.neighbours)
    if config.sampler == "float":
        return Calibration(**base, constant=sigma, constant_name="Gaussian σ = Δ₂/√(2ρ)",
                           derivation=(f"the Rényi divergence of order α between N(f(D), σ²) and N(f(D′), σ²) is "
                                       f"α‖f(D) − f(D′)‖₂²/(2σ²) ≤ αρ with σ = Δ₂/√(2ρ), Δ₂ = {delta2:g}. Drawn by numpy's "
                                       "floating-point normal sampler (not hardened)."), params={"sampler": "float"})
    gamma = grid_spacing(delta2, sigma, GRID_STEPS * math.isqrt(d - 1) + GRID_STEPS)
    dg = rational_at_least(grid_sensitivity_l2(delta2, gamma, d) * (1 + 2.0**-40), "grid sensitivity")
    s2 = Fraction(math.ceil(dg * dg / (2 * Fraction(config.rho))))   # ≥ Δ_g²/(2ρ); an integer keeps the sampler in int64
    return Calibration(**base, constant=gamma * math.sqrt(s2), constant_name="discrete Gaussian σ = γσ_g on the grid γℤ",
                       derivation=(f"f(D) is rounded to the public grid γℤ, γ = {gamma:g}; the rounded vector moves by at "
                                   f"most Δ_g = {float(dg):.6g} grid units in ℓ2; exact discrete Gaussian noise with "
                                   f"σ_g² = {float(s2):.6g} ≥ Δ_g²/(2ρ) grid units² is ρ-zCDP (Canonne, Kamath & Steinke "
                                   f"2020, Thm 4), Δ₂ = {delta2:g}."),
                       params={"sampler": "grid", "grid": gamma, "grid_sensitivity": float(dg), "grid_variance": s2})


def calibrate_knorm(config: KNormConfig, data_shape: tuple[int, ...]) -> Calibration:
    """ε-DP per draw of the density ∝ exp(−c‖z − f(D)‖_K), c = ε/Δ_K (Hardt & Talwar 2010)."""
    return Calibration(
        mechanism="noise/knorm", notion="pure", epsilon=config.epsilon, sensitivity=config.sensitivity,
        constant=config.epsilon / config.sensitivity, constant_name="rate c in exp(−c‖z‖_K), c = ε/Δ_K",
        derivation=("the density ratio at any z is exp(c(‖z − f(D′)‖_K − ‖z − f(D)‖_K)) ≤ exp(cΔ_K) = e^ε by the "
                    f"triangle inequality of the {config.norm} norm, with Δ_K = {config.sensitivity:g}."),
        reference="Hardt & Talwar (2010), On the geometry of differential privacy", neighbours=config.neighbours,
        params={"norm": config.norm})


def calibrate_exponential(config: ExponentialConfig, data_shape: tuple[int, ...]) -> Calibration:
    """ε-DP per draw of P(i) ∝ exp(c·u_i), c = ε/(2Δ_u), or ε/Δ_u for monotone utilities
    (McSherry & Talwar 2007, Thm 6)."""
    factor = config.epsilon / (config.sensitivity if config.monotone else 2.0 * config.sensitivity)
    why = ("monotone utilities (all move the same way between neighbours): the normaliser moves with them, so "
           "ε/Δ_u" if config.monotone else
           "a utility moves by at most Δ_u and the normaliser by at most e^{ε/2}: ε/(2Δ_u)")
    return Calibration(
        mechanism="noise/exponential", notion="pure", epsilon=config.epsilon, sensitivity=config.sensitivity,
        constant=factor, constant_name="c in P(i) ∝ exp(c·u_i)",
        derivation=f"Δ_u = {config.sensitivity:g} ≥ sup_i sup_{{D~D′}} |u_i(D) − u_i(D′)|; {why}.",
        reference="McSherry & Talwar (2007), Mechanism design via differential privacy, Thm 6",
        neighbours=config.neighbours, params={"monotone": bool(config.monotone)})

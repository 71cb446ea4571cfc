"""Calibrations of the noise mechanisms: ``calibrate_<family>(config, data_shape) -> Calibration``.

Each gives the public constants of one release (sensitivity, noise scale or rate, derivation, paper) and
its guarantee per draw. ``data_shape`` (the shape of the query answer f(D) or of the utilities) is part of
the one signature of every topic; here the constants follow from the config alone, whatever the shape.
"""
from __future__ import annotations

from ..mechanism import Calibration
from ..privacy import analytic_gaussian_sigma, gaussian_sigma_zcdp
from .configs import ExponentialConfig, GaussianConfig, GaussianZCDPConfig, KNormConfig, LaplaceConfig


def calibrate_laplace(config: LaplaceConfig, data_shape: tuple[int, ...]) -> Calibration:
    """ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁: the density ratio at any z is
    exp(ε(‖z − f(D')‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the triangle inequality."""
    return Calibration(
        mechanism="noise/laplace", notion="pure", epsilon=config.epsilon, sensitivity=config.sensitivity,
        constant=config.sensitivity / config.epsilon, constant_name="Laplace scale b = Δ₁/ε",
        derivation=("the density ratio at any z is exp(ε(‖z − f(D′)‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the triangle "
                    f"inequality, with Δ₁ = {config.sensitivity:g} the caller's ℓ1-sensitivity."),
        reference="Dwork, McSherry, Nissim & Smith (2006), Calibrating noise to sensitivity",
        neighbours=config.neighbours)


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
    """ρ-zCDP with σ = Δ₂/√(2ρ) (Bun & Steinke 2016, Prop. 1.6)."""
    return Calibration(
        mechanism="noise/gaussian-zcdp", notion="zcdp", rho=config.rho, sensitivity=config.sensitivity,
        constant=gaussian_sigma_zcdp(config.rho, config.sensitivity), constant_name="Gaussian σ = Δ₂/√(2ρ)",
        derivation=(f"the Rényi divergence of order α between N(f(D), σ²) and N(f(D′), σ²) is α‖f(D) − f(D′)‖₂²/"
                    f"(2σ²) ≤ αρ with σ = Δ₂/√(2ρ), Δ₂ = {config.sensitivity:g}."),
        reference="Bun & Steinke (2016), Concentrated differential privacy, Prop. 1.6", neighbours=config.neighbours)


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

"""Calibrations of the query-release mechanisms: ``calibrate_<family>(config, data_shape) -> Calibration``.

``data_shape`` is ``(n,)``, the number of records (universe indices): public under replace-one neighbours.
Central mechanisms (ρ-zCDP): the mean point moves by diam₂(level)/n in ℓ2 when one record is replaced;
σ = Δ₂/√(2ρ_level) (Bun & Steinke 2016, Prop. 1.6); PMW spends ρ/T per round. Local protocols (ε-LDP):
ε_i = ε/(number of non-constant levels) per report; the constant C_ε of the point randomizer. The public
plan of levels (:func:`dpcore.query_release._central.plan_for`) depends on the config only.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..exact import GRID_STEPS, grid_sensitivity_l2, grid_spacing, rational_at_least
from ..mechanism import Calibration
from ..privacy import gaussian_sigma_zcdp
from ._central import REF, Plan, plan_for, pmw_rounds
from ._local import _NAMES, _centres, _plan, c_epsilon
from ._workloads import Workload
from .configs import (ChainingConfig, CoarseConfig, GaussianConfig, LocalChainingConfig, LocalCoarseConfig,
                      LocalProjectionConfig, PMWConfig, ProjectionConfig)

__all__ = ["calibrate_gaussian", "calibrate_projection", "calibrate_coarse", "calibrate_chaining", "calibrate_pmw",
           "calibrate_local_projection", "calibrate_local_coarse", "calibrate_local_chaining"]


def _calibrate(name: str, config: Any, plan: Plan, n: int, title: str) -> Calibration:
    sig = [gaussian_sigma_zcdp(r, max(d2, 1e-300) / n) for (_, _, d2, _), r in zip(plan.levels, plan.rhos)]
    diam = max([lv[2] for lv in plan.levels], default=0.0)
    return Calibration(
        mechanism=name, notion="zcdp", rho=float(config.rho),
        sensitivity=max(diam, 1e-300) / n,
        constant=max(sig, default=0.0) if sig else 1e-300,
        constant_name="σ = diam₂/(n√(2ρ_level))" + (" (largest level shown)" if len(sig) > 1 else ""),
        derivation=(f"{title}: replacing one of the n = {n} records moves each released level mean by at most "
                    f"diam₂(level)/n in ℓ2 (diam₂ of the PUBLIC level set, exact); Gaussian noise σ = Δ₂/√(2ρ_i) is "
                    f"ρ_i-zCDP and the level budgets sum to ρ (zCDP composition); projection and sums are "
                    f"post-processing."),
        reference=REF + ", §2.2 (Gaussian/zCDP), Lemma 3.3 (decomposition); Bun & Steinke (2016), Prop. 1.6",
        params={"diameter_rule": "l2", "rhos": tuple(plan.rhos), "sigmas": tuple(sig), "n": n},
    )


def _pmw_calibration(config: PMWConfig, wl: Workload, n: int) -> Calibration:
    T = config.rounds or pmw_rounds(n, config.rho, wl.size, wl.k)
    R = float(np.abs(wl.points).max())
    rho_t = float(config.rho) / T
    sens = 2.0 * R / n                              # selection ε0 = 2√ρ_t: ε0²/8 = ρ_t/2
    sigma_m = sens / math.sqrt(rho_t)               # (2R/n)²/(2σ²) = ρ_t/2
    return Calibration(
        mechanism="query_release/pmw", notion="zcdp", rho=float(config.rho), sensitivity=sens, constant=sigma_m,
        constant_name="measurement σ_m = (2R/n)/√(ρ/T)",
        derivation=(f"R = max|x_j| = {R:g} over the public X; a query answer a_j and the score ±(a_j − b_j) change "
                    f"by ≤ 2R/n when one record is replaced. Each of T = {T} rounds spends ρ/T: half on the "
                    f"exponential mechanism with ε0 = 2√(ρ/T) (ε0²/8-zCDP, bounded range, Cesar & Rogers 2021), "
                    f"half on a Gaussian measurement ((2R/n)²/(2σ_m²) = ρ/(2T)); zCDP composition gives ρ."),
        reference=("Hardt & Rothblum (2010); Hardt, Ligett & McSherry (2012, MWEM); " + REF +
                   ", Lemma 2.3 (rate RECONSTRUCTED)"),
        params={"rounds": T, "rho_per_round": rho_t, "R": R, "n": n},
    )


def _local_calibration(config: Any, plan: Plan) -> Calibration:
    name, title = _NAMES[type(config)]
    m = max(len(plan.levels), 1)
    eps_i = float(config.epsilon) / m
    radii = [r for _, r in _centres(plan)]
    return Calibration(
        mechanism=f"query_release/{name}", notion="ldp", epsilon=float(config.epsilon),
        sensitivity=max(radii, default=0.0), constant=c_epsilon(eps_i),
        constant_name="C_ε = √(π/2)(e^ε_i + 1)/(e^ε_i − 1) per level",
        derivation=(f"{title}: each party's report on a level is c + R·C_ε·b·g with b flipped with probability "
                    f"1/(e^ε_i + 1); its density ratio between any two inputs is ≤ e^ε_i (the report's density "
                    f"is 2φ(z)·p or 2φ(z)·(1 − p) by the side of a half-space). {m} level(s) × ε_i = ε/{m} "
                    f"compose to ε-LDP; the server's average, projection and sum are post-processing. R = public "
                    f"radius of each level about its bounding-box centre."),
        reference=REF + ", §5, Definition 5.5 and Thm 5.1 / 1.6 (randomizer constants RECONSTRUCTED)",
        params={"level_epsilons": tuple([eps_i] * len(plan.levels)), "flip_factor": 1.0},
    )


def _n(data_shape: tuple[int, ...]) -> int:
    return int(data_shape[0])


def calibrate_gaussian(config: GaussianConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Gaussian baseline: σ = diam₂(X)/(n√(2ρ)), ρ-zCDP; ``sampler="grid"`` (default) its hardened variant.

    Hardened variant (discrete Gaussian of Canonne, Kamath & Steinke 2020; the grid as in
    :func:`dpcore.noise.calibrate_gaussian_zcdp`). The k answers x̄ ∈ R^k move by at most Δ₂ = diam₂(X)/n in ℓ2
    between neighbours (replace-one, n public). With σ = Δ₂/√(2ρ):

    * γ = 2^⌊log2(min(Δ₂, σ)/(64(1 + ⌊√(k − 1)⌋)))⌋ (public: the workload, n, ρ; a power of two);
    * r(x̄) = ⌊x̄/γ + ½⌋ per answer: r(x̄) − r(x̄′) = (x̄ − x̄′)/γ + e with every |e_j| < 1, so
      ‖r(x̄) − r(x̄′)‖₂ < Δ_g = Δ₂/γ + √k (⌈Δ₂/γ⌉ when k = 1; :func:`dpcore.exact.grid_sensitivity_l2`, rounded up
      to a rational);
    * γ·(r(x̄) + Z), Z iid exact discrete Gaussian with integer variance parameter σ_g² = ⌈Δ_g²/(2ρ)⌉ grid units²:
      for integer vectors D_α(N_ℤ(r, σ_g²) ‖ N_ℤ(r′, σ_g²)) = α‖r − r′‖₂²/(2σ_g²) ≤ αρ (CKS20 Thm 4, coordinates
      independent), so the release is ρ-zCDP exactly; multiplying by γ is post-processing.

    Since √k ≤ 1 + ⌊√(k − 1)⌋, both Δ₂/γ and σ/γ are ≥ 64√k ≥ 64: Δ_g ≤ (Δ₂/γ)(1 + 1/64), and the ceiling adds
    < 1 to σ_g² ≥ 64², so the noise σ_data = γσ_g ≤ σ(1 + 1/64)(1 + 2⁻¹²): at most 1.6 % above the float σ, plus
    a rounding error ≤ γ/2 ≤ σ/128 per answer.
    What remains float: x̄ itself (a floating-point histogram average, :data:`dpcore.registry.EVERY_MECHANISM_UNHARDENED`).
    """
    n = _n(data_shape)
    cal = _calibrate("query_release/gaussian", config, plan_for(config), n, "Gaussian mechanism")
    if config.sampler == "float":
        return cal.replace(derivation=cal.derivation + " Drawn by numpy's floating-point normal sampler (not hardened: "
                                                       "Mironov 2012).", params={"sampler": "float"})
    k = config.workload.build().k
    delta2, sigma = cal.sensitivity, cal.constant
    gamma = grid_spacing(delta2, sigma, GRID_STEPS * math.isqrt(k - 1) + GRID_STEPS)
    dg = rational_at_least(grid_sensitivity_l2(delta2, gamma, k) * (1 + 2.0**-40), "grid sensitivity")
    s2 = Fraction(math.ceil(dg * dg / (2 * Fraction(config.rho))))
    sig = gamma * math.sqrt(s2)
    return cal.replace(
        constant=sig, constant_name="discrete Gaussian σ = γσ_g on the grid γℤ^k",
        derivation=cal.derivation + (f" Hardened (sampler='grid'): x̄ is rounded to the public grid γℤ^k, γ = {gamma:g} "
                                     f"(from Δ₂, σ and k = {k}); the rounded answers move by at most Δ_g = "
                                     f"Δ₂/γ + √k = {float(dg):.6g} grid units in ℓ2; exact discrete Gaussian noise with "
                                     f"σ_g² = ⌈Δ_g²/(2ρ)⌉ = {s2} grid units² (Canonne, Kamath & Steinke 2020, Thm 4) is "
                                     "ρ-zCDP. Outputs lie on the grid whatever the data."),
        params={"sampler": "grid", "grid": gamma, "grid_sensitivity": float(dg), "grid_variance": s2,
                "sigmas": (sig,)})


def calibrate_projection(config: ProjectionConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Projection mechanism: the Gaussian baseline's σ (the projection is post-processing), ρ-zCDP."""
    return _calibrate("query_release/projection", config, plan_for(config), _n(data_shape), "Projection mechanism")


def calibrate_coarse(config: CoarseConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Coarse projection: σ_Y = diam₂(Y)/(n√(2ρ)) on the public (α/2)-net Y, ρ-zCDP."""
    return _calibrate("query_release/coarse", config, plan_for(config), _n(data_shape), "Coarse projection")


def calibrate_chaining(config: ChainingConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Chaining: σ_i = diam₂(X_i)/(n√(2ρ_i)) per non-constant level, Σρ_i = ρ (zCDP composition)."""
    return _calibrate("query_release/chaining", config, plan_for(config), _n(data_shape), "Chaining mechanism")


def calibrate_pmw(config: PMWConfig, data_shape: tuple[int, ...]) -> Calibration:
    """PMW (MWEM form): T rounds of ρ/T each (exponential mechanism + Gaussian measurement), ρ-zCDP."""
    return _pmw_calibration(config, config.workload.build(), _n(data_shape))


def calibrate_local_projection(config: LocalProjectionConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Local projection: one ε-LDP report per party (C_ε of the point randomizer); n does not enter."""
    return _local_calibration(config, _plan(config))


def calibrate_local_coarse(config: LocalCoarseConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Local coarse projection: one ε-LDP report on the public (α/2)-net; n does not enter."""
    return _local_calibration(config, _plan(config))


def calibrate_local_chaining(config: LocalChainingConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Local chaining: one ε/m-LDP report per non-constant level (pure-DP composition); n does not enter."""
    return _local_calibration(config, _plan(config))

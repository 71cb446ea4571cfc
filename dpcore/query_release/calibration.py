"""Calibrations of the query-release mechanisms: ``calibrate_<family>(config, data_shape) -> Calibration``.

``data_shape`` is ``(n,)``, the number of records (universe indices): public under replace-one neighbours.
Central mechanisms (ρ-zCDP): the mean point moves by diam₂(level)/n in ℓ2 when one record is replaced;
σ = Δ₂/√(2ρ_level) (Bun & Steinke 2016, Prop. 1.6); PMW spends ρ/T per round. Local protocols (ε-LDP):
ε_i = ε/(number of non-constant levels) per report; the constant C_ε of the point randomizer. The public
plan of levels (:func:`dpcore.query_release._central.plan_for`) depends on the config only.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

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
    """Gaussian baseline: σ = diam₂(X)/(n√(2ρ)), ρ-zCDP."""
    return _calibrate("query_release/gaussian", config, plan_for(config), _n(data_shape), "Gaussian mechanism")


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

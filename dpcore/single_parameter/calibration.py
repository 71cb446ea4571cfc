"""Calibrations of the single-parameter topic (Asi, Duchi & Talwar 2025; the §4 baselines), one per mechanism
family, each ``calibrate_<family>(config, data_shape) -> Calibration`` computed from the config and the public
sizes (n, d) of X only — never from the data.

Algorithms 2–7 (the certified bounds, local output perturbation, propose-test-release): the noised statistics
are counts of sensitivity 1 (the ladder of recursion (10), :mod:`dpcore.single_parameter._recursion`) and
Gaussian multipliers σ(ε, δ) of the analytic Gaussian mechanism; the data-dependent scales (Δ_n(λ̂), LS_v) are
applied by the release to the NOISED bound λ̂, so these calibrations need neither n nor d. The baselines need
them: output perturbation's sensitivity D/(nρ) and noisy gradient descent's D/n use the diameter D = 2r₂ of the
per-example gradient set with r₂ the covariate radius of the public domain (r on the ℓ2 ball, r√d on the
hypercube [−r, r]^d); objective perturbation's ε′ uses n.
"""
from __future__ import annotations

import math

from ..errors import DPValueError
from ..mechanism import Calibration
from ..privacy import analytic_gaussian_sigma
from ..privacy.accounting import approx_to_zcdp_rho
from ._certify import domain_radius
from ._losses import get_loss
from .configs import (EigenBoundsConfig, FunctionalConfig, GenericConfig, LambdaMinConfig, NoisyGDConfig,
                      ObjectivePerturbationConfig, OutputPerturbationConfig, ThetaConfig)

__all__ = ["calibrate_lambda_min", "calibrate_eigen_bounds", "calibrate_theta", "calibrate_theta_generic",
           "calibrate_functional", "calibrate_output_perturbation", "calibrate_objective_perturbation",
           "calibrate_noisy_gd", "objective_constants", "rho_for", "REF"]

REF = "Asi, Duchi & Talwar (2025), On Privately Estimating a Single Parameter, arXiv:2503.17252"


def _sizes(data_shape: tuple[int, ...]) -> tuple[int, int]:
    """(n, d) of the public shape of X."""
    if len(data_shape) != 2:
        raise DPValueError(f"data_shape = {tuple(data_shape)!r}: give the shape (n rows, d covariates) of X.")
    return int(data_shape[0]), int(data_shape[1])


def _diameter(cfg, d: int) -> float:
    """D = 2r₂·sup|h′| of the per-example gradient set on the public domain (r₂ from the geometry and d)."""
    r2, _ = domain_radius(cfg.geometry, cfg.radius, d)
    return get_loss(cfg.loss).constants(r2)["D"]


_COUNT = ("the count K(λ_min) = min{k : R^(k)(λ_min) ≤ 0} of the lower recursion (10) has sensitivity 1 "
          "under replace-one, because λ_min(P′) ≥ R(λ_min(P)) for every neighbour (Corollary 5.2) and R is "
          "nondecreasing [DERIVED].")


def calibrate_lambda_min(cfg: LambdaMinConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Algorithm 2: Laplace scale 1/ε on the count K (sensitivity 1); λ̂ needs no public size."""
    return Calibration(
        mechanism="single_parameter/lambda-min", notion="pure", epsilon=cfg.epsilon, sensitivity=1.0,
        constant=1.0 / cfg.epsilon, constant_name="discrete Laplace scale 1/ε on the count (exact sampler)",
        derivation=_COUNT + f" λ̂ = K⁻¹(K + Z − t) with Z exact discrete Laplace(1/ε) and the integer t of P(Z > t) ≤ δ (the "
                                f"paper's ⌈K + Lap(1/ε) − log(1/(2δ))/ε⌉ with integer noise) ≤ λ_min with probability ≥ 1 − δ "
                            f"(δ = {cfg.delta:g} is a coverage level, not a privacy δ).",
        reference=REF + ", Algorithm 2 / Algorithm 6 and Corollary 3.2", params={"delta_coverage": cfg.delta})


def calibrate_eigen_bounds(cfg: EigenBoundsConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Algorithms 2 + 4: Laplace scales 1/ε₁ and 1/ε₂ on the two counts (sensitivity 1 each)."""
    e1, e2 = cfg.share * cfg.epsilon, (1 - cfg.share) * cfg.epsilon
    return Calibration(
        mechanism="single_parameter/eigen-bounds", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta / 2,
        sensitivity=1.0, constant=1.0 / e1, constant_name="discrete Laplace scale 1/ε₁ on the count K (and 1/ε₂ on K↑), exact sampler",
        derivation=_COUNT + " Given λ̂ ≤ λ_min, the upward count K↑ of R↑(Λ) = (1 + c r₂ Δ_n(λ̂))Λ + M1/n to "
                            "Λ_cap = M1 + ρ also has sensitivity 1; Lemma 2.2 with the good set {λ̂ ≤ λ_min} "
                            f"(missed w.p. δ₁) gives (ε₁ + ε₂, δ₁)-DP with ε₁ = {e1:g}, ε₂ = {e2:g}, "
                            f"δ₁ = δ₂ = {cfg.delta / 2:g}.",
        reference=REF + ", Algorithms 2 and 4, Corollaries 3.2 and 3.4", params={"epsilons": (e1, e2)})


def calibrate_theta(cfg: ThetaConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Algorithm 3: the count's Laplace scale and the Gaussian multiplier σ(ε₂, δ₂) of the noise sd σ·Δ_n(λ̂)."""
    return _calibrate_theta(cfg, generic=False)


def calibrate_theta_generic(cfg: GenericConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Algorithm 7: as :func:`calibrate_theta`, with the generic bound Δ_gen(λ̂) under (C2)."""
    return _calibrate_theta(cfg, generic=True)


def _calibrate_theta(cfg: ThetaConfig, *, generic: bool = False) -> Calibration:
    e1, e2 = cfg.share * cfg.epsilon, (1 - cfg.share) * cfg.epsilon
    d1 = d2 = cfg.delta / 2
    sig = analytic_gaussian_sigma(e2, d2)
    if generic:
        name, alg = "single_parameter/theta-generic", "Algorithm 7, Propositions 5.2 and 7.1"
        deriv = ("‖θ̂(P′) − θ̂(P)‖₂ ≤ Δ_gen(λ̂) when (C2) nλ̂² ≥ 4D·M2, nλ̂ ≥ 8M1' holds and λ̂ ≤ λ_min [DERIVED]; ")
    else:
        name, alg = "single_parameter/theta", "Algorithm 3, Theorem 1"
        deriv = ("‖θ̂(P′) − θ̂(P)‖₂ ≤ Δ_n(λ̂) = 2D/(a + √(a² − 2c r₂ D nλ̂)), a = nλ̂ − M1, when (C1) holds at "
                 "λ̂ ≤ λ_min [DERIVED, Corollary 3.1]; ")
    return Calibration(
        mechanism=name, notion="approx", epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=1.0, constant=sig,
        constant_name="Gaussian multiplier σ(ε₂, δ₂) (noise sd = σ·Δ(λ̂))",
        derivation=deriv + "λ̂ is ε₁-DP with P(λ̂ > λ_min) ≤ δ₁; the Gaussian step with sd σ(ε₂, δ₂)·Δ(λ̂) is "
                           f"(ε₂, δ₂)-DP on that good event (Lemma 2.3), so the total is (ε₁ + ε₂, δ₁ + δ₂) with "
                           f"ε₁ = {e1:g}, ε₂ = {e2:g}, δ₁ = δ₂ = {d1:g} (Observation 2.4). Count sensitivity 1.",
        reference=REF + ", " + alg, params={"gauss_scale": 1.0, "count_noise": 1.0})


def calibrate_functional(cfg: FunctionalConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Algorithm 5: the Gaussian multiplier σ(ε₃, δ₃) of the noise sd σ(1 + ντ̄)·LS_v and the budget split."""
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    sig = analytic_gaussian_sigma(e3, d3)
    return Calibration(
        mechanism="single_parameter/functional", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta,
        sensitivity=1.0, constant=sig, constant_name="Gaussian multiplier σ(ε₃, δ₃) (noise sd = σ(1 + ντ̄)·LS_v)",
        derivation=("λ̂ (Alg. 2, ε₁) and Λ̂ (Alg. 4, ε₂) are counts of sensitivity 1 plus Laplace noise; on the good "
                    "set {λ̂ ≤ λ_min, Λ̂ ≥ λ_max} (missed w.p. ≤ δ₁ + δ₂, Lemma 2.2 in two nested steps), "
                    "|⟨v, θ̂′ − θ̂⟩| ≤ (1 + ν τ̄)·LS_v [DERIVED Corollary 3.3] so the mean shift costs (ε₃, δ₃) "
                    "(Lemma 2.3), and LS_v′/LS_v ∈ [1 − ντ, 1 + ντ] so the variance change costs (ε₄, δ₄) when "
                    "ε_var(ντ; δ₄) ≤ ε₄ (the test (14); Lemma A.1(iii)), chained shift-then-variance: total "
                    f"(ε₁+ε₂+ε₃+ε₄, δ₁+δ₂+δ₃+e^ε₃·δ₄) = ({cfg.epsilon:g}, {cfg.delta:g}) with ε = "
                    f"({e1:.3g}, {e2:.3g}, {e3:.3g}, {e4:.3g}), δ₄ = e^{{{ld4:.4g}}}. The test depends only on "
                    "(λ̂, Λ̂), so ⊥ is post-processing."),
        reference=REF + ", Algorithm 5, Corollary 3.6 and Theorem 2",
        params={"gauss_scale": 1.0, "count_noise": 1.0, "count_shift": True})


def calibrate_output_perturbation(cfg: OutputPerturbationConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Naive output perturbation: sensitivity D/(nρ) of the ridge estimator, analytic Gaussian sd."""
    n, d = _sizes(data_shape)
    D = _diameter(cfg, d)
    sens = D / (n * cfg.rho)
    sig = analytic_gaussian_sigma(cfg.epsilon, cfg.delta, sens)
    return Calibration(
        mechanism="single_parameter/output-perturbation", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta,
        sensitivity=sens, constant=sig, constant_name="Gaussian noise sd",
        derivation=(f"the ρ-strongly convex objective (ρ = {cfg.rho:g}) makes θ̂_ρ stable: ‖θ̂_ρ − θ̂′_ρ‖₂ ≤ D/(nρ) "
                    f"with D = {D:g} the diameter of the per-example gradient set, under replace-one."),
        reference="Chaudhuri, Monteleoni & Sarwate (2011), Cor. 8; Balle & Wang (2018); " + REF + ", §4",
        params={"gauss_scale": 1.0})


def objective_constants(cfg: ObjectivePerturbationConfig, n: int, d: int) -> tuple[float, float, float]:
    """(c_h, ε′, extra ridge Δ) of objective perturbation on n records (Chaudhuri et al. 2011, Algorithm 2)."""
    c_h = get_loss(cfg.loss).sup_h2
    eps_p = cfg.epsilon - math.log1p(2 * c_h / (n * cfg.rho) + c_h ** 2 / (n * cfg.rho) ** 2)
    extra = 0.0
    if eps_p <= 0:
        extra = c_h / (n * math.expm1(cfg.epsilon / 4)) - cfg.rho
        eps_p = cfg.epsilon / 2
    return c_h, eps_p, extra


def calibrate_objective_perturbation(cfg: ObjectivePerturbationConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Objective perturbation: the Gamma scale 2/ε′ of ‖b‖, ε′ and the extra ridge Δ from n (Chaudhuri et al. 2011)."""
    n, d = _sizes(data_shape)
    c_h, eps_p, extra = objective_constants(cfg, n, d)
    return Calibration(
        mechanism="single_parameter/objective-perturbation", notion="pure", epsilon=cfg.epsilon, sensitivity=1.0,
        constant=2.0 / eps_p, constant_name="Gamma scale 2/ε′ of ‖b‖",
        derivation=(f"covariates rescaled to ‖x‖ ≤ 1; |h′| ≤ 1 bounds each per-example gradient by 1 and h″ ≤ c_h = "
                    f"{c_h:g} bounds the rank-one Hessian change, so b ↦ θ is a bijection whose Jacobian ratio is "
                    f"at most 1 + 2c_h/(nρ) + c_h²/(nρ)²; ε′ = {eps_p:.4g}, extra ridge Δ = {extra:.3g}."),
        reference="Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 2 and Theorem 9; " + REF + ", §4 (15)",
        params={"noise_scale": 1.0, "extra_ridge": extra})


def rho_for(epsilon: float, delta: float) -> float:
    """Largest ρ with ρ-zCDP ⇒ (ε, δ)-DP under the tight conversion (:func:`dpcore.privacy.accounting.approx_to_zcdp_rho`)."""
    return approx_to_zcdp_rho(epsilon, delta)


def calibrate_noisy_gd(cfg: NoisyGDConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Noisy gradient descent: per-step Gaussian sd on the average gradient (sensitivity D/n), T steps by zCDP."""
    n, d = _sizes(data_shape)
    D = _diameter(cfg, d)
    rho_z = rho_for(cfg.epsilon, cfg.delta)
    sens = D / n
    s = sens * math.sqrt(cfg.steps / (2 * rho_z))
    return Calibration(
        mechanism="single_parameter/noisy-gd", notion="zcdp", rho=rho_z, sensitivity=sens, constant=s,
        constant_name="per-step Gaussian noise sd on the average gradient",
        derivation=(f"the average gradient has ℓ2-sensitivity D/n = {sens:.4g} under replace-one; each of the T = "
                    f"{cfg.steps} steps is (D/n)²/(2s²)-zCDP and they compose to ρ = {rho_z:.4g}, which implies "
                    f"(ε, δ) = ({cfg.epsilon:g}, {cfg.delta:g})-DP (tight conversion)."),
        reference="Bun & Steinke (2016); Canonne, Kamath & Steinke (2020); Abadi et al. (2016) (full batch, no "
                  "subsampling); " + REF + ", §4",
        note=f"implies ({cfg.epsilon:g}, {cfg.delta:g})-DP", params={"gauss_scale": 1.0})

"""Baselines compared with Algorithm 5 in Asi, Duchi & Talwar (2025, §4): the local-sensitivity oracle
(NOT private), naive output perturbation with ridge regularisation, objective perturbation and
full-batch noisy gradient descent (a simple DP-SGD).

* :func:`oracle_functional` — ⟨v, θ̂⟩ + σ(ε, δ)·LS_v(P_n)·Z with the exact, non-privately computed
  local sensitivity: the best-case benchmark the paper calls "non-private". **Not private**: its noise
  scale depends on the data. A plain function, never a registered mechanism.
* :func:`release_output_perturbation` — θ̂_ρ + σ(ε, δ)·(D/(nρ))·Z: the ρ-strongly convex objective
  makes θ̂_ρ (D/(nρ))-stable in ℓ2 under replace-one (Chaudhuri, Monteleoni & Sarwate 2011, Cor. 8);
  (ε, δ)-DP by the analytic Gaussian mechanism (Balle & Wang 2018).
* :func:`release_objective_perturbation` — Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 2
  [EXT], on covariates rescaled to the unit ball (x/r₂, so θ is estimated as r₂θ and the ridge
  term regularises r₂θ): minimise (1/n)Σh + ((ρ_op + Δ)/2)‖θ‖² + (1/n)⟨b, θ⟩ with
  ε' = ε − log(1 + 2c_h/(nρ_op) + c_h²/(n²ρ_op²)) (if ε' ≤ 0: Δ = c_h/(n(e^{ε/4} − 1)) − ρ_op and
  ε' = ε/2), ‖b‖ ~ Gamma(d, 2/ε') in a uniform direction; c_h = sup h''. Pure ε-DP (Thm 9 there;
  the proof needs |h'| ≤ 1, h'' ≤ c_h and rank-one per-example Hessians, which both GLMs satisfy).
* :func:`release_noisy_gd` — T steps of full-batch gradient descent θ ← θ − η(∇L_n(θ) + N(0, s²I))
  from θ = 0. The average gradient has ℓ2-sensitivity D/n under replace-one, so each step is
  ((D/n)²/(2s²))-zCDP and T steps are ρ_z = T(D/n)²/(2s²)-zCDP (Bun & Steinke 2016); ρ_z is the
  largest value whose tight conversion (Canonne, Kamath & Steinke 2020) gives the requested (ε, δ).
  Full-batch (no subsampling) keeps the accountant exact and simple. T and η are public defaults
  (never tuned on the private sample).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_delta, check_epsilon, check_int, check_positive
from ..errors import DPValueError
from ..mechanism import Calibration, Diagnostics, Release
from ..privacy import analytic_gaussian_sigma
from ..privacy.accounting import approx_to_zcdp_rho
from . import algorithms as A
from .losses import get_loss

__all__ = ["OutputPerturbationConfig", "ObjectivePerturbationConfig", "NoisyGDConfig", "oracle_functional",
           "release_output_perturbation", "release_objective_perturbation", "release_noisy_gd",
           "nonprivate_ridge", "nonprivate_objective", "nonprivate_gd", "rho_for", "solve_perturbed",
           "sample_output_perturbation", "sample_objective_perturbation", "sample_noisy_gd"]

REF = A.REF


def _problem_checks(cfg):
    A._check_problem(cfg)


@dataclass(frozen=True)
class OutputPerturbationConfig:
    """Naive output perturbation: ε, δ, the ridge weight ρ > 0 and the loss/domain."""

    epsilon: float = 1.0
    delta: float = 1e-5
    rho: float = 0.01
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_positive(self.rho, "rho")
        _problem_checks(self)


@dataclass(frozen=True)
class ObjectivePerturbationConfig:
    """Objective perturbation: ε (pure), the ridge weight ρ_op > 0 on the rescaled θ, loss/domain."""

    epsilon: float = 1.0
    rho: float = 0.01
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_positive(self.rho, "rho")
        _problem_checks(self)


@dataclass(frozen=True)
class NoisyGDConfig:
    """Full-batch noisy gradient descent: ε, δ, steps T, step size η (default 1/(M1 + ρ)), ridge ρ ≥ 0."""

    epsilon: float = 1.0
    delta: float = 1e-5
    steps: int = 100
    step_size: Optional[float] = None
    rho: float = 0.0
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_int(self.steps, "steps", lo=1, hi=100_000)
        if self.step_size is not None:
            check_positive(self.step_size, "step_size")
        _problem_checks(self)


# ------------------------------------------------------------------------------------------------
def _prep(data, cfg):
    X, y, r2, r_p, q, nu, clipped = A._prepare(data, cfg)
    k = get_loss(cfg.loss).constants(r2)
    return X, y, r2, k, clipped


def _clip_notes(clipped, n):
    """Notes of a release about clipping: none. How many rows were clipped is data (a public note would leak it,
    issue 17): it is reported in the non-private diagnostics ("clipped rows") only."""
    return ()


def oracle_functional(data, cfg: "A.FunctionalConfig", *, rng: RNGLike = None) -> tuple[float, float]:
    """NOT PRIVATE: ⟨v, θ̂⟩ + σ(ε, δ)·LS_v·Z with the exact local sensitivity (the paper's "non-private"
    benchmark). Returns (value, noise sd)."""
    an = A.analyse(data, cfg)
    if an.fit is None:
        raise DPValueError(f"θ̂ is undefined: {an.degenerate}.")
    v = cfg.vector(an.X.shape[1])
    sd = analytic_gaussian_sigma(cfg.epsilon, cfg.delta) * A.local_sensitivity(an, v)
    return float(v @ an.fit.theta + sd * as_generator(rng).standard_normal()), sd


# --- naive output perturbation -------------------------------------------------------------------
def calibrate_output_perturbation(cfg, n: int, D: float) -> Calibration:
    sens = D / (n * cfg.rho)
    sig = analytic_gaussian_sigma(cfg.epsilon, cfg.delta, sens)
    return Calibration(
        mechanism="single_parameter/output-perturbation", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta,
        sensitivity=sens, constant=sig, constant_name="Gaussian noise sd",
        derivation=(f"the ρ-strongly convex objective (ρ = {cfg.rho:g}) makes θ̂_ρ stable: ‖θ̂_ρ − θ̂′_ρ‖₂ ≤ D/(nρ) "
                    f"with D = {D:g} the diameter of the per-example gradient set, under replace-one."),
        reference="Chaudhuri, Monteleoni & Sarwate (2011), Cor. 8; Balle & Wang (2018); " + REF + ", §4",
        params={"gauss_scale": 1.0})


def sample_output_perturbation(data, cfg, size, rng, override=None):
    X, y, r2, k, clipped = _prep(data, cfg)
    theta = A.fit(cfg.loss, X, y, rho=cfg.rho).theta
    cal = calibrate_output_perturbation(cfg, X.shape[0], k["D"])
    cal = override(cal) if override else cal
    s = cal.constant * float(cal.params.get("gauss_scale", 1.0))
    return theta + s * as_generator(rng).standard_normal((size, X.shape[1])), cal, clipped


def release_output_perturbation(data, cfg: OutputPerturbationConfig, *, rng: RNGLike = None) -> Release:
    """Naive output perturbation of the ridge estimator θ̂_ρ ((ε, δ)-DP)."""
    out, cal, clipped = sample_output_perturbation(data, cfg, 1, rng)
    return Release(cal.mechanism, out[0], cal.cost(1), cal, True, _clip_notes(clipped, len(data[1])),
                   Diagnostics(values={"clipped rows": clipped}), cfg)


def nonprivate_ridge(data, cfg) -> np.ndarray:
    X, y, *_ = _prep(data, cfg)
    return A.fit(cfg.loss, X, y, rho=cfg.rho).theta


# --- objective perturbation ------------------------------------------------------------------------
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


def _objpert_constants(cfg, n, d):
    c_h = get_loss(cfg.loss).sup_h2
    eps_p = cfg.epsilon - math.log1p(2 * c_h / (n * cfg.rho) + c_h ** 2 / (n * cfg.rho) ** 2)
    extra = 0.0
    if eps_p <= 0:
        extra = c_h / (n * math.expm1(cfg.epsilon / 4)) - cfg.rho
        eps_p = cfg.epsilon / 2
    return c_h, eps_p, extra


def calibrate_objective_perturbation(cfg, n: int, d: int) -> Calibration:
    c_h, eps_p, extra = _objpert_constants(cfg, n, d)
    return Calibration(
        mechanism="single_parameter/objective-perturbation", notion="pure", epsilon=cfg.epsilon, sensitivity=1.0,
        constant=2.0 / eps_p, constant_name="Gamma scale 2/ε′ of ‖b‖",
        derivation=(f"covariates rescaled to ‖x‖ ≤ 1; |h′| ≤ 1 bounds each per-example gradient by 1 and h″ ≤ c_h = "
                    f"{c_h:g} bounds the rank-one Hessian change, so b ↦ θ is a bijection whose Jacobian ratio is "
                    f"at most 1 + 2c_h/(nρ) + c_h²/(nρ)²; ε′ = {eps_p:.4g}, extra ridge Δ = {extra:.3g}."),
        reference="Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 2 and Theorem 9; " + REF + ", §4 (15)",
        params={"noise_scale": 1.0, "extra_ridge": extra})


def sample_objective_perturbation(data, cfg, size, rng, override=None):
    X, y, r2, k, clipped = _prep(data, cfg)
    n, d = X.shape
    cal = calibrate_objective_perturbation(cfg, n, d)
    cal = override(cal) if override else cal
    g = as_generator(rng)
    U = g.standard_normal((size, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Bn = U * g.gamma(d, cal.constant * float(cal.params.get("noise_scale", 1.0)), size)[:, None]
    Ths = solve_perturbed(get_loss(cfg.loss), X / r2, y, cfg.rho + cal.params["extra_ridge"], Bn)
    return Ths / r2, cal, clipped


def release_objective_perturbation(data, cfg: ObjectivePerturbationConfig, *, rng: RNGLike = None) -> Release:
    """Objective perturbation (pure ε-DP); returns θ̃ on the original scale."""
    out, cal, clipped = sample_objective_perturbation(data, cfg, 1, rng)
    return Release(cal.mechanism, out[0], cal.cost(1), cal, True, _clip_notes(clipped, len(data[1])),
                   Diagnostics(values={"clipped rows": clipped}), cfg)


def nonprivate_objective(data, cfg) -> np.ndarray:
    """The unperturbed objective-perturbation estimate (same ridge on the rescaled θ) — NON-PRIVATE."""
    X, y, r2, k, _ = _prep(data, cfg)
    n, d = X.shape
    extra = _objpert_constants(cfg, n, d)[2]
    return solve_perturbed(get_loss(cfg.loss), X / r2, y, cfg.rho + extra, np.zeros((1, d)))[0] / r2


# --- noisy gradient descent -----------------------------------------------------------------------
def rho_for(epsilon: float, delta: float) -> float:
    """Largest ρ with ρ-zCDP ⇒ (ε, δ)-DP under the tight conversion (:func:`dpcore.privacy.accounting.approx_to_zcdp_rho`)."""
    return approx_to_zcdp_rho(epsilon, delta)


def calibrate_noisy_gd(cfg, n: int, D: float) -> Calibration:
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
    X, y, r2, k, clipped = _prep(data, cfg)
    cal = calibrate_noisy_gd(cfg, X.shape[0], k["D"])
    cal = override(cal) if override else cal
    s = cal.constant * float(cal.params.get("gauss_scale", 1.0))
    return _gd(get_loss(cfg.loss), X, y, cfg.rho, cfg.steps, _eta(cfg, k), s, as_generator(rng), size), cal, clipped


def release_noisy_gd(data, cfg: NoisyGDConfig, *, rng: RNGLike = None) -> Release:
    """Full-batch noisy gradient descent (ρ-zCDP, stated with its (ε, δ))."""
    out, cal, clipped = sample_noisy_gd(data, cfg, 1, rng)
    return Release(cal.mechanism, out[0], cal.cost(1), cal, True, _clip_notes(clipped, len(data[1])),
                   Diagnostics(values={"clipped rows": clipped}), cfg)


def nonprivate_gd(data, cfg) -> np.ndarray:
    """The same T gradient steps without noise (NON-PRIVATE)."""
    X, y, r2, k, _ = _prep(data, cfg)
    return _gd(get_loss(cfg.loss), X, y, cfg.rho, cfg.steps, _eta(cfg, k), 0.0, None, 1)[0]

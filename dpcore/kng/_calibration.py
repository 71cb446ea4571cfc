"""Sensitivities and density constants of KNG, the exponential mechanism and objective perturbation.

Reference: Reimherr & Awan (2019), "KNG: The K-Norm Gradient Mechanism" (NeurIPS), with the
constants fixed by ``spec/kng.md`` §3 (binding where it corrects the paper).

Conventions (every mechanism: pure ε-DP for the *exact* target law; neighbouring datasets differ
by the replacement of one record, n fixed):

* KNG (Thm 3.1):  log f(θ) = −c · ‖∇ℓ_n(θ)‖_K  with  c = ε / (2Δ),
  Δ ≥ sup_{D~D'} ‖∇ℓ_n(θ; D) − ∇ℓ_n(θ; D')‖_K for every θ in Θ.
  Exception: the mean on all of R^d (Remark 4.1, a location family whose normaliser does not
  depend on D): c = ε / Δ.
* Exponential mechanism (Prop. 2.2): log f(θ) = −c · ℓ_n(θ) with c = ε / (2Δ_ℓ),
  Δ_ℓ ≥ sup_{D~D'} |ℓ_n(θ; D) − ℓ_n(θ; D')| on Θ.
* Objective perturbation (§7.2, Awan–Slavković): noise b ∝ exp(−c‖b‖_K) with c = ε / (2Δ),
  γ = 2d / (e^{ε/2} − 1); release argmin_{‖θ‖₁ ≤ B} ℓ_n(θ) + (γ/2)θᵀθ + θᵀb.

Gradients (the quantity inside ‖·‖_K):

==================== ===============================================================
mean                 ∇ℓ = 2n(θ − x̄)                         (ℓ = Σ‖x_i − θ‖₂²)
median, d = 1        ∇ℓ = #{x_i < θ} − #{x_i > θ}             (ℓ = Σ|x_i − θ|)
geometric median     ∇ℓ = −Σ (x_i − θ)/‖x_i − θ‖₂            (ℓ = Σ‖x_i − θ‖₂)
quantile             ∇ℓ = #{y_i ≤ θ} − τn                     (ℓ = Σρ_τ(y_i − θ))
linear regression    ∇ℓ = −2(Xᵀy − XᵀXθ)                     (ℓ = Σ(y_i − x_iᵀθ)²)
quantile regression  ∇ℓ = Σ x_i (1{y_i ≤ x_iᵀθ} − τ)          (ℓ = Σρ_τ(y_i − x_iᵀθ))
==================== ===============================================================
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .._validation import DPValueError

PROBLEMS = ("mean", "median", "quantile", "linear_regression", "quantile_regression")
MECHANISMS = ("kng", "exponential", "objective_perturbation", "nonprivate")
CONSTANTS = ("calibrated", "paper")

_NORM_LABEL = {"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞"}


def cube_to_norm(d: int, norm: str) -> float:
    """sup{‖x‖_K : ‖x‖∞ ≤ 1} = d^{1/p}: ℓ∞ → 1, ℓ2 → √d, ℓ1 → d (attained at a cube corner)."""
    return {"linf": 1.0, "l2": math.sqrt(d), "l1": float(d)}[norm]


def sphere_to_norm(d: int, norm: str) -> float:
    """sup{‖u‖_K : ‖u‖₂ ≤ 1}: ℓ2 and ℓ∞ → 1, ℓ1 → √d."""
    return {"linf": 1.0, "l2": 1.0, "l1": math.sqrt(d)}[norm]


def ball_to_l2(d: int, norm: str) -> float:
    """sup{‖u‖₂ : ‖u‖_K ≤ 1}: ℓ1 and ℓ2 → 1, ℓ∞ → √d."""
    return {"linf": math.sqrt(d), "l2": 1.0, "l1": 1.0}[norm]


@dataclass(frozen=True)
class Calibration:
    """The constants of one mechanism on one problem.

    Attributes
    ----------
    sensitivity : float
        Δ (KNG, objective perturbation: gradient sensitivity in ‖·‖_K) or Δ_ℓ (exponential).
    density_constant : float
        c in log f = −c‖∇ℓ‖_K (KNG), −c ℓ (exponential), or the rate of the objective
        perturbation noise b ∝ exp(−c‖b‖_K).
    statement : str
        The sensitivity derivation (shown on the page next to the release).
    gamma : float or None
        Objective perturbation's ridge γ.
    loose : bool
        True when "paper" constants add more noise than needed (still private).
    """

    problem: str
    mechanism: str
    norm: str
    epsilon: float
    sensitivity: float
    density_constant: float
    statement: str
    gamma: Optional[float] = None
    loose: bool = False


def _refuse_paper_tau(tau: float, what: str) -> None:
    if tau > 0.5:
        raise DPValueError(
            f"constants='paper' with tau = {tau:g} > 1/2: the paper's {what} sensitivity 2(1−τ) is smaller "
            "than the true one, so that density is NOT ε-DP (spec kng.md §3). Use constants='calibrated', "
            "or tau ≤ 0.5."
        )


def calibrate(problem: str, mechanism: str, epsilon: float, *, d: int, norm: str = "linf",
              constants: str = "calibrated", tau: float = 0.5, B: float = 1.0, C_X: float = 1.0,
              radius: float = 1.0, width: float = 1.0) -> Calibration:
    """Sensitivity and density constant (validated inputs assumed; see module docstring).

    Parameters
    ----------
    width : float
        Public data diameter used by the exponential mechanism for median/quantile:
        hi − lo in 1-D, ‖hi − lo‖₂ for the geometric median's box.
    radius : float
        Mean: ‖x_i − centre‖_K ≤ radius.
    """
    eps = float(epsilon)
    K = _NORM_LABEL[norm]
    paper = constants == "paper"
    if mechanism == "objective_perturbation" and problem != "linear_regression":
        why = (" (its Hessian is 0 almost everywhere: the objective is not strongly convex)"
               if problem == "quantile_regression" else "")
        raise DPValueError(f"mechanism='objective_perturbation' applies to linear regression only, not to "
                           f"problem={problem!r}{why}; choose 'kng' or 'exponential'.")

    if problem == "mean":
        if mechanism == "kng":
            # ‖∇ℓ(D) − ∇ℓ(D')‖_K = 2‖x_1 − x_1'‖_K ≤ 4r. Location family on R^d ⇒ Remark 4.1: c = ε/Δ,
            # i.e. f ∝ exp(−(nε/(2r))‖θ − x̄‖_K), the K-norm mechanism for x̄ (sensitivity 2r/n).
            delta = 4.0 * radius
            return Calibration(problem, mechanism, norm, eps, delta, eps / delta,
                               f"‖∇ℓ(θ;D) − ∇ℓ(θ;D′)‖_{K} = 2‖x₁ − x₁′‖_{K} ≤ 4r = {delta:g} (records in the "
                               f"{K}-ball of radius r = {radius:g}). The density is a location family on all of "
                               "R^d, so by Remark 4.1 its normaliser is data-free and ε/Δ may replace ε/(2Δ): "
                               f"f ∝ exp(−(nε/(2r))‖θ − x̄‖_{K}), the K-norm mechanism for x̄.")
        # exponential: Θ = data ball; 0 ≤ ‖x − θ‖₂² ≤ (2r·M)², M = sup{‖u‖₂ : ‖u‖_K ≤ 1}.
        M = ball_to_l2(d, norm)
        delta = (2.0 * radius * M) ** 2
        return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                           f"ℓ = Σ‖x_i − θ‖₂² on Θ = data {K}-ball (radius r = {radius:g}); each term lies in "
                           f"[0, (2r·{M:.4g})²], so Δ_ℓ = {delta:.4g}; c = ε/(2Δ_ℓ).")

    if problem == "median":
        if d == 1:
            if mechanism == "kng":
                # #{x<θ} − #{x>θ}: one replaced record moves the count difference by at most 2.
                return Calibration(problem, mechanism, norm, eps, 2.0, eps / 4.0,
                                   "∇ℓ(θ) = #{x_i < θ} − #{x_i > θ}; replacing one record changes it by at most "
                                   "2, so Δ = 2 and f ∝ exp(−(ε/4)|#{x_i<θ} − #{x_i>θ}|) on the public "
                                   "interval (§4.4).")
            delta = float(width)
            return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                               f"ℓ = Σ|x_i − θ| with data clipped to [lo, hi]; ||x − θ| − |x′ − θ|| ≤ |x − x′| "
                               f"≤ hi − lo = {delta:g} = Δ_ℓ; c = ε/(2Δ_ℓ).")
        if mechanism == "kng":
            kap = sphere_to_norm(d, norm)
            delta = 2.0 * kap
            return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                               f"∇ℓ(θ) = −Σ u_i(θ) with unit vectors u_i = (x_i − θ)/‖x_i − θ‖₂; "
                               f"‖u₁ − u₁′‖_{K} ≤ 2·sup{{‖u‖_{K} : ‖u‖₂ = 1}} = {delta:.4g} = Δ (§4.4); "
                               "no bound on the data is needed, Θ is the public box.")
        delta = float(width)
        return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                           f"ℓ = Σ‖x_i − θ‖₂ with data clipped to the public box; by the triangle inequality "
                           f"|‖x − θ‖₂ − ‖x′ − θ‖₂| ≤ ‖x − x′‖₂ ≤ box diagonal = {delta:.4g} = Δ_ℓ.")

    if problem == "quantile":
        m = max(tau, 1.0 - tau)
        if mechanism == "kng":
            if paper:
                _refuse_paper_tau(tau, "eq. (3)")
                delta = 2.0 * (1.0 - tau)
                return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                                   f"paper's eq. (3): Δ = 2(1−τ) = {delta:g} ≥ 1 for τ ≤ 1/2 (valid, "
                                   f"{'equal to the tight Δ = 1' if tau == 0.5 else 'more noise than the tight Δ = 1'}).",
                                   loose=tau < 0.5)
            return Calibration(problem, mechanism, norm, eps, 1.0, eps / 2.0,
                               "∇ℓ(θ) = Σ(1{y_i ≤ θ} − τ) = #{y_i ≤ θ} − τn; each term is 1−τ or −τ, so "
                               "replacing one record changes ∇ℓ by at most 1: Δ = 1 and "
                               "f ∝ exp(−(ε/2)|#{y_i ≤ θ} − τn|) on [lo, hi] — Smith's (2011) private "
                               "quantile (spec §3; the paper's eq. (3) uses 2(1−τ), not private for τ > 1/2).")
        delta = (2.0 if paper else 1.0) * m * width
        return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                           f"ℓ = Σρ_τ(y_i − θ), data clipped to [lo, hi]; 0 ≤ ρ_τ(y − θ) ≤ max(τ, 1−τ)(hi − lo), "
                           f"so Δ_ℓ = {'2·' if paper else ''}max(τ,1−τ)(hi − lo) = {delta:.4g}"
                           f"{' (paper-style factor 2: more noise than needed)' if paper else ''}.",
                           loose=paper)

    if problem == "linear_regression":
        kap = cube_to_norm(d, norm)
        delta = 4.0 * (1.0 + B) * kap
        if mechanism == "kng":
            if paper:
                if norm != "linf":
                    raise DPValueError(f"constants='paper' prints the linear-regression KNG density for the ℓ∞ "
                                       f"norm only (eq. 1); got norm={norm!r}. Use norm='linf' or "
                                       "constants='calibrated'.")
                # eq. (1): ε/(8(1+B)) in front of ‖Σ(y_i − x_iᵀθ)x_i‖∞ = ‖∇ℓ‖∞/2  ⇒  c = ε/(16(1+B)).
                return Calibration(problem, mechanism, norm, eps, delta, eps / (4.0 * delta),
                                   "paper's eq. (1): exp(−ε/(8(1+B))·‖Σ(y_i − x_iᵀθ)x_i‖∞), i.e. half the "
                                   f"calibrated constant (Δ = 4(1+B) = {delta:g}; valid, twice the noise needed).",
                                   loose=True)
            return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                               f"∇ℓ = −2Σ(y_i − x_iᵀθ)x_i; with |y| ≤ 1, ‖x‖∞ ≤ 1, ‖θ‖₁ ≤ B each residual is at "
                               f"most 1 + B and ‖x‖_{K} ≤ {kap:.4g}, so Δ = 4(1+B)·{kap:.4g} = {delta:.4g}; "
                               f"f ∝ exp(−ε/(2Δ)‖∇ℓ‖_{K})"
                               + (" = exp(−ε/(4(1+B))‖Σ(y_i − x_iᵀθ)x_i‖∞)." if norm == "linf" else "."))
        if mechanism == "exponential":
            dl = (1.0 + B) ** 2
            return Calibration(problem, mechanism, norm, eps, dl, eps / (2.0 * dl),
                               f"ℓ = Σ(y_i − x_iᵀθ)²; each term lies in [0, (1+B)²], so Δ_ℓ = (1+B)² = {dl:g} "
                               "(§7.1); f ∝ exp(−ε/(2(1+B)²)ℓ) on the ℓ1 ball of radius B.")
        gamma = 2.0 * d / math.expm1(eps / 2.0)
        return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                           f"objective perturbation (§7.2): gradient sensitivity Δ = 4(1+B)·{kap:.4g} = {delta:.4g}, "
                           f"noise b ∝ exp(−ε/(2Δ)‖b‖_{K}), per-record Hessian eigenvalue ≤ 2d, "
                           f"γ = 2d/(e^(ε/2) − 1) = {gamma:.4g}; the exact constrained minimiser is released.",
                           gamma=gamma)

    if problem == "quantile_regression":
        m = max(tau, 1.0 - tau)
        if mechanism == "kng":
            if paper:
                _refuse_paper_tau(tau, "quantile-regression")
                delta = 2.0 * (1.0 - tau) * C_X
            else:
                delta = 2.0 * m * C_X
            return Calibration(problem, mechanism, norm, eps, delta, eps / (2.0 * delta),
                               f"∇ℓ = Σx_i(1{{y_i ≤ x_iᵀθ}} − τ); each term has {K}-norm ≤ max(τ,1−τ)·C_X, and a "
                               f"replaced record can flip x(1−τ) to −x′τ etc., so Δ = 2·max(τ,1−τ)·C_X = "
                               f"{delta:.4g} (C_X = {C_X:g} bounds ‖x‖_{K}; the paper prints 2(1−τ)C_X, equal "
                               "for τ ≤ 1/2 and not private for τ > 1/2).")
        dl = (2.0 if paper else 1.0) * m * (1.0 + B)
        return Calibration(problem, mechanism, norm, eps, dl, eps / (2.0 * dl),
                           f"ℓ = Σρ_τ(y_i − x_iᵀθ) ≥ 0 with |y − xᵀθ| ≤ 1 + B, so |ρ_τ(r) − ρ_τ(r′)| ≤ "
                           f"max(τ,1−τ)(1+B); Δ_ℓ = {'2·' if paper else ''}max(τ,1−τ)(1+B) = {dl:.4g}"
                           f"{' (the paper’s factor 2: more noise than needed)' if paper else ''}.",
                           loose=paper)
    raise DPValueError(f"problem = {problem!r} is not supported; choose one of {', '.join(map(repr, PROBLEMS))}.")

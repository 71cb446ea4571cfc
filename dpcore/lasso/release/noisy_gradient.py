"""Noisy-gradient Frank–Wolfe for a general convex set C (Talwar, Thakurta & Zhang 2015, Theorem 2.6).

Each step publishes nothing but uses the gradient ∇L(θ_t) + z_t, z_t ~ N(0, σ² I_p), in the linear
minimisation s_t = argmin_{s∈C} ⟨s, ∇L + z_t⟩; the risk then depends on the Gaussian width
G_C = E sup_{s∈C} ⟨g, s⟩ of C (Theorem 2.6: O(Γ^{1/3}(L2 G_C)^{2/3} log²(n/δ)/(nε)^{2/3})). C is
the ℓ1 ball (G_C ≈ r√(2 ln 2p)), the simplex r·Δ_p (≈ r√(2 ln p)) or the ℓ∞ ball (= r p √(2/π)): only the
polytopes with few vertices keep the log p dependence — the point of the comparison.

Sensitivity (replace one record; DERIVED). With ‖x‖∞ ≤ 1, |y| ≤ 1 and R₁ = max_{θ∈C} ‖θ‖₁ (r for the
ℓ1 ball and the simplex, p·r for the ℓ∞ ball), |⟨x, θ⟩ − y| ≤ R₁ + 1 and ‖x‖₂ ≤ √p, so the per-record
term (2/n)(⟨x, θ⟩ − y)x has ‖·‖₂ ≤ 2(R₁ + 1)√p/n and

    Δ₂ = 4 (R₁ + 1) √p / n   (ℓ2 sensitivity of ∇L(θ; D) at every θ ∈ C).

This bound is valid but not attained in general (θ is shared by both records, so the two residuals
cannot both be extreme with opposite signs); at θ = 0 a flip of y at x = (±1, …, ±1) reaches
4√p/n = Δ₂/(R₁ + 1), which the audit uses with r small (``tests/lasso/test_general.py`` checks both
by brute force).

Privacy: each step is the Gaussian mechanism, ρ₀ = Δ₂²/(2σ²)-zCDP (Bun & Steinke 2016); T adaptive
steps are Tρ₀-zCDP, converted to (ε, δ) by the tight conversion (Canonne, Kamath & Steinke 2020). So
σ = Δ₂ √(T/(2ρ)) with ρ the largest zCDP parameter whose conversion meets (ε, δ).

T: the extract gives no T for Theorem 2.6; RECONSTRUCTED choice: the same public rule as Theorem 2.5
(:func:`~dpcore.lasso.calibration.theorem25_steps` at radius r), so the two variants run equally long.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, cast

import numpy as np
from scipy import integrate, stats

from .._rng import RNGLike, as_generator
from .._validation import check_choice, check_int
from ..errors import Cancelled, DPValueError
from ..mechanism import Calibration, Diagnostics, Note, Release
from .calibration import _zcdp_rho, check_run, theorem25_steps
from .solver import MAX_WORK, clip_data, constrained_optimum, loss

__all__ = ["GENERAL_CONSTRAINTS", "NoisyGradientConfig", "calibrate_noisy_gradient", "gradient_sensitivity",
           "gaussian_width", "noisy_gradient_fw", "release_noisy_gradient", "nonprivate_general", "l1_radius_of"]

GENERAL_CONSTRAINTS = ("l1", "simplex", "linf")
MECHANISM = "lasso/noisy-gradient-fw"
REFERENCE = "Talwar, Thakurta & Zhang (2015), Nearly Optimal Private LASSO, NeurIPS; Theorem 2.6"


@dataclass(frozen=True)
class NoisyGradientConfig:
    """Noisy-gradient Frank–Wolfe on C ∈ {ℓ1 ball, simplex, ℓ∞ ball} of radius r; (ε, δ) of the whole run;
    T (None → the public rule of Theorem 2.5)."""

    epsilon: float = 1.0
    delta: float = 1e-6
    radius: float = 1.0
    steps: Optional[int] = None
    constraint: str = "l1"

    def __post_init__(self) -> None:
        check_run(self)
        check_choice(self.constraint, "constraint", GENERAL_CONSTRAINTS)


def l1_radius_of(constraint: str, p: int, radius: float) -> float:
    """R₁ = max_{θ∈C} ‖θ‖₁: r (ℓ1 ball, simplex) or p·r (ℓ∞ ball)."""
    return p * radius if constraint == "linf" else radius


def gradient_sensitivity(n: int, p: int, radius: float, constraint: str) -> float:
    """Δ₂ = 4(R₁ + 1)√p/n (module docstring)."""
    return 4.0 * (l1_radius_of(constraint, p, radius) + 1.0) * math.sqrt(p) / n


def gaussian_width(constraint: str, p: int, radius: float = 1.0) -> float:
    """G_C = E sup_{s∈C} ⟨g, s⟩, g ~ N(0, I_p), by quadrature: r·E‖g‖∞ (ℓ1 ball), r·E max_j g_j (simplex),
    r·p·√(2/π) (ℓ∞ ball)."""
    if constraint == "linf":
        return radius * p * math.sqrt(2 / math.pi)
    if constraint == "l1":
        f = lambda t: 1.0 - (2 * stats.norm.cdf(t) - 1) ** p  # noqa: E731
        return radius * integrate.quad(f, 0, np.inf, limit=200)[0]
    pos = integrate.quad(lambda t: 1.0 - stats.norm.cdf(t) ** p, 0, np.inf, limit=200)[0]
    neg = integrate.quad(lambda t: stats.norm.cdf(t) ** p, -np.inf, 0, limit=200)[0]
    return radius * (pos - neg)


def calibrate_noisy_gradient(cfg: NoisyGradientConfig, n: int, p: int) -> Calibration:
    """σ of the Gaussian noise on each step's gradient for (ε, δ) over T steps (module docstring)."""
    n = check_int(n, "n (rows)", lo=1)
    p = check_int(p, "p (covariates)", lo=1, hi=100_000)
    steps = cfg.steps if cfg.steps is not None else theorem25_steps(n, cfg.epsilon, cfg.radius)
    d2 = gradient_sensitivity(n, p, cfg.radius, cfg.constraint)
    rho = _zcdp_rho(cfg.epsilon, cfg.delta)
    sigma = d2 * math.sqrt(steps / (2.0 * rho))
    r1 = l1_radius_of(cfg.constraint, p, cfg.radius)
    deriv = (f"∇L(θ) = (2/n)Σ(⟨x,θ⟩ − y)x; with ‖x‖∞ ≤ 1 (so ‖x‖₂ ≤ √p), |y| ≤ 1 and ‖θ‖₁ ≤ R₁ = {r1:g} on C, "
             f"replacing one record moves it by at most Δ₂ = 4(R₁ + 1)√p/n = {d2:.4g} in ℓ2. Each of the T = {steps} "
             f"steps adds N(0, σ²I) (Gaussian mechanism, Δ₂²/(2σ²)-zCDP); T steps are ρ = {rho:.4g}-zCDP, the "
             f"largest ρ whose tight conversion gives ({cfg.epsilon:g}, {cfg.delta:g})-DP.")
    return Calibration(mechanism=MECHANISM, notion="approx", epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=d2,
                       constant=sigma, constant_name="Gaussian σ = Δ₂√(T/(2ρ))", derivation=deriv, reference=REFERENCE,
                       params={"steps": steps, "rho": rho, "constraint": cfg.constraint,
                               "gaussian_width": gaussian_width(cfg.constraint, p, cfg.radius)})


def _lmo(g: np.ndarray, radius: float, constraint: str) -> np.ndarray:
    """argmin_{s∈C} ⟨s, g⟩ for each row of g (reps, p)."""
    reps, p = g.shape
    s = np.zeros_like(g)
    rows = np.arange(reps)
    if constraint == "linf":
        return -radius * np.where(g >= 0, 1.0, -1.0)
    if constraint == "l1":
        j = np.argmax(np.abs(g), axis=1)
        s[rows, j] = -radius * np.sign(g[rows, j])
        s[rows, j] = np.where(s[rows, j] == 0, radius, s[rows, j])
        return s
    s[rows, np.argmin(g, axis=1)] = radius
    return s


def noisy_gradient_fw(X: Optional[np.ndarray], y: Optional[np.ndarray], *, radius: float, steps: int, constraint: str,
                      sigma: float, reps: int = 1, rng: RNGLike = None, progress=None, gram: Optional[tuple] = None,
                      n: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` runs from θ₁ = 0 (ℓ1, ℓ∞) or θ₁ = (r/p)·1 (simplex); σ = 0 is the non-private Frank–Wolfe.
    ``gram`` = (XᵀX, Xᵀy) with ``n`` replaces X and y (O(p²) per step). Returns (θ of shape (reps, p),
    the first step's vertex s₁ of shape (reps, p) — what the audits see)."""
    if X is None:
        G, b = cast(tuple, gram)
        p = G.shape[0]
        work = float(steps) * p * p * reps
    else:
        n, p = X.shape
        work = 2.0 * steps * n * p * reps
    if work > MAX_WORK:
        raise DPValueError(f"this run needs about {work:.3g} multiply–adds (T·n·p) > the cap {MAX_WORK:.3g}; "
                           "lower T (steps), n or p.")
    g_ = as_generator(rng)
    theta = np.zeros((reps, p)) if constraint != "simplex" else np.full((reps, p), radius / p)
    y_ = cast(np.ndarray, y)                        # given with X (else the Gram form is used)
    rows = cast(int, n)                             # given with gram (else read off X)
    if X is None:
        Gt = theta @ G
    else:
        res = theta @ X.T - y_[None, :]
    first: np.ndarray | None = None
    every = max(1, steps // 100)
    for t in range(1, steps + 1):
        grad = (2.0 / rows) * ((Gt - b[None, :]) if X is None else res @ X)
        if sigma > 0:
            grad = grad + sigma * g_.standard_normal(grad.shape)
        s = _lmo(grad, radius, constraint)
        if first is None:
            first = s.copy()
        mu = 2.0 / (t + 2.0)
        theta = (1 - mu) * theta + mu * s
        if X is None:
            Gt = (1 - mu) * Gt + mu * (s @ G)
        else:
            res = (1 - mu) * res - mu * y_[None, :] + mu * (s @ X.T)
        if progress is not None and (t % every == 0 or t == steps) and progress(t, steps) is False:
            raise Cancelled("Frank–Wolfe stopped", done=t, total=steps)
    return theta, cast(np.ndarray, first)             # steps >= 1


def nonprivate_general(data: Any, cfg: NoisyGradientConfig) -> np.ndarray:
    """Non-private Frank–Wolfe on C with the same T and start (σ = 0)."""
    X, y, _ = clip_data(data)
    steps = int(calibrate_noisy_gradient(cfg, *X.shape).params["steps"])
    return noisy_gradient_fw(X, y, radius=cfg.radius, steps=steps, constraint=cfg.constraint, sigma=0.0)[0][0]


def release_noisy_gradient(data: Any, cfg: NoisyGradientConfig, *, rng: RNGLike = None,
                           progress: Callable[[int, int], Any] | None = None, diagnostics: bool = True) -> Release:
    """θ_priv ∈ C by noisy-gradient Frank–Wolfe, (ε, δ)-DP (replace-one; n, p public)."""
    X, y, clip_info = clip_data(data)
    cal = calibrate_noisy_gradient(cfg, *X.shape)
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
    return Release(MECHANISM, theta, cal.cost(1), cal, True, notes, Diagnostics(values=vals), cfg)

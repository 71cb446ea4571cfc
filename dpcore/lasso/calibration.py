"""Calibration of private Frank–Wolfe (Talwar, Thakurta & Zhang 2015, Algorithm 2, Theorems 2.4–2.5).

Problem (paper §2.2): records d = (x, y) with ‖x‖∞ ≤ 1 and |y| ≤ 1 (enforced by clipping to these
public bounds), loss L(θ; D) = (1/n) Σᵢ (⟨xᵢ, θ⟩ − yᵢ)², constraint set C = the ℓ1 ball of radius r
(vertices S = {±r e_j}, |S| = 2p) or the scaled simplex r·Δ_p (vertices {r e_j}, |S| = p).

Score sensitivity (replace one record; DERIVED here, the paper states only O(L1‖C‖₁/n))
-------------------------------------------------------------------------------------------
The score of vertex s at θ is ⟨s, ∇L(θ; D)⟩ with ∇L = (2/n) Σᵢ (⟨xᵢ, θ⟩ − yᵢ) xᵢ. Replacing record
(x, y) by (x′, y′) changes it by (2/n)·⟨s, (⟨x, θ⟩ − y) x − (⟨x′, θ⟩ − y′) x′⟩. For θ ∈ C,
|⟨x, θ⟩| ≤ ‖x‖∞ ‖θ‖₁ ≤ r, so |⟨x, θ⟩ − y| ≤ r + 1 and each term has ‖·‖∞ ≤ r + 1; with ‖s‖₁ = r,

    Δ_s = (2/n) · r · 2(r + 1) = 4 r (r + 1) / n   ( = 2 L1 ‖C‖₁ / n with L1 = 2(r + 1) ).

It is attained (p ≥ 2): θ = r e_k, x = x′ = e_k ± e_j, y = y′ = −1 flips the sign of x_j.
``tests/lasso/test_calibration.py`` checks it by brute force on tiny inputs.

Per-step mechanism (each step ε₀-DP)
------------------------------------
* ``"exponential"`` (default): s_t = argmin_s (α_s − b·G_s), G_s iid standard Gumbel, b = 2Δ_s/ε₀,
  i.e. P(s) ∝ exp(−ε₀ α_s / (2Δ_s)) — the exponential mechanism (McSherry & Talwar 2007); ε₀-DP and,
  being ε₀-bounded-range, ε₀²/8-zCDP (Cesar & Rogers 2021, Lemma 3.2). The sign matters: argmin of
  α_s + b·G_s is NOT the exponential mechanism.
* ``"laplace"``: report-noisy-min, α_s + Lap(b) with b = 2Δ_s/ε₀ (factor 2: the scores are not
  monotone — moving one record lowers some scores and raises others); ε₀-DP (Dwork & Roth 2014,
  Claim 3.9), hence ε₀²/2-zCDP (Bun & Steinke 2016, Prop. 1.4).

Composition over the T noisy steps (adaptive), to the target (ε, δ)
-------------------------------------------------------------------
* ``"zcdp"`` (default): ρ = T·ρ₀ with ρ the largest value whose tight conversion (Canonne, Kamath &
  Steinke 2020) gives δ(ε) ≤ δ; ε₀ = √(8ρ₀) (exponential) or √(2ρ₀) (Laplace).
* ``"advanced"``: ε = √(2T ln(1/δ)) ε₀ + T ε₀ (e^{ε₀} − 1) (Dwork, Rothblum & Vadhan 2010;
  the paper's Theorem 2.4 route), solved for ε₀.
Either route also considers basic composition (ε₀ = ε/T, valid for any T) and keeps the larger ε₀;
the calibration says which one was used.

The paper's own scale λ = L1‖C‖₁√(8T log(1/δ))/(nε) is NOT used: with the exact Δ_s above it gives
about 2ε (see :func:`paper_noise_scale`; n = 1e4, ε = 1, δ = 1e-6: ≈ 2.1).

Number of steps (Theorem 2.5): T = Γ^{2/3} (nε)^{2/3} / (L1 r)^{2/3} with the public curvature bound
Γ = 8r² (Jaggi's constant for this loss, no ½) and L1 = 2(r + 1) — never from the data. Here T counts
the noisy steps (vertex selections); the paper's loop "t = 1..T − 1" runs T − 1 of them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from .._validation import check_choice, check_delta, check_epsilon, check_int, check_positive
from ..errors import DPValueError
from ..mechanism import Calibration
from ..privacy.accounting import approx_to_zcdp_rho

__all__ = ["LassoConfig", "SELECTIONS", "COMPOSITIONS", "CONSTRAINTS", "PATHS", "DTYPES", "MAX_STEPS", "MAX_P",
           "score_sensitivity", "theorem25_steps", "per_step_epsilon", "calibrate", "paper_noise_scale",
           "paper_total_epsilon", "accounting", "corollary27_rate",
           "REFERENCE", "MECHANISM"]

SELECTIONS = ("exponential", "laplace")
COMPOSITIONS = ("zcdp", "advanced")
CONSTRAINTS = ("l1", "simplex")
PATHS = ("auto", "direct", "gram")
DTYPES = ("float64", "float32")
#: Largest number of Frank–Wolfe steps (a public cap; the page says so).
MAX_STEPS = 20_000
#: Largest number of covariates p.
MAX_P = 100_000
REFERENCE = "Talwar, Thakurta & Zhang (2015), Nearly Optimal Private LASSO, NeurIPS; Algorithm 2, Theorems 2.4–2.5"
MECHANISM = "lasso/private-fw"


def check_run(cfg: Any) -> None:
    """The checks every Frank–Wolfe config shares: ε, δ, 0 < radius ≤ 1000 and 1 ≤ T ≤ MAX_STEPS (T is
    normalised to an int on the frozen config)."""
    check_epsilon(cfg.epsilon)
    check_delta(cfg.delta)
    check_positive(cfg.radius, "radius")
    if not cfg.radius <= 1e3:
        raise DPValueError(f"radius = {cfg.radius:g} is too large (the noise grows like r²); use r ≤ 1000.")
    if cfg.steps is not None:
        object.__setattr__(cfg, "steps", check_int(cfg.steps, "steps (T)", lo=1, hi=MAX_STEPS))


@dataclass(frozen=True)
class LassoConfig:
    """Private Frank–Wolfe on the ℓ1 ball (or simplex) of radius ``radius``.

    Parameters
    ----------
    epsilon, delta : float
        Target (ε, δ) of the whole run (replace-one neighbours).
    radius : float
        r = ‖C‖₁, the public radius of the ℓ1 ball.
    steps : int or None
        T, the number of noisy vertex selections; None → Theorem 2.5 (:func:`theorem25_steps`).
    selection : {"exponential", "laplace"}
        Per-step mechanism (module docstring).
    composition : {"zcdp", "advanced"}
        Composition route over the T steps.
    constraint : {"l1", "simplex"}
        C = r·(ℓ1 ball) (2p vertices) or r·(probability simplex) (p vertices).
    path : {"auto", "direct", "gram"}
        "direct": one product Xᵀr per step (residual updated in O(n)); "gram": XᵀX and Xᵀy once,
        then O(p) per step; "auto" picks Gram when n > p and p < T and p ≤ 3000.
    dtype : {"float64", "float32"}
        Arithmetic of the products (float32 halves memory and time on large designs).
    """

    epsilon: float = 1.0
    delta: float = 1e-6
    radius: float = 1.0
    steps: Optional[int] = None
    selection: str = "exponential"
    composition: str = "zcdp"
    constraint: str = "l1"
    path: str = "auto"
    dtype: str = "float64"

    def __post_init__(self) -> None:
        check_run(self)
        check_choice(self.selection, "selection", SELECTIONS)
        check_choice(self.composition, "composition", COMPOSITIONS)
        check_choice(self.constraint, "constraint", CONSTRAINTS)
        check_choice(self.path, "path", PATHS)
        check_choice(self.dtype, "dtype", DTYPES)


def score_sensitivity(n: int, radius: float) -> float:
    """Δ_s = 4 r (r + 1) / n: replace-one sensitivity of ⟨s, ∇L(θ; D)⟩, ‖s‖₁ = r, θ ∈ C (module docstring)."""
    return 4.0 * radius * (radius + 1.0) / n


def theorem25_steps(n: int, epsilon: float, radius: float) -> int:
    """T = Γ^{2/3}(nε)^{2/3}/(L1 r)^{2/3}, Γ = 8r², L1 = 2(r + 1) (Theorem 2.5), rounded, in [1, MAX_STEPS]."""
    gamma, l1 = 8.0 * radius ** 2, 2.0 * (radius + 1.0)
    t = (gamma / (l1 * radius)) ** (2 / 3) * (n * epsilon) ** (2 / 3)
    return int(min(MAX_STEPS, max(1, round(t))))


def _advanced_eps0(epsilon: float, delta: float, k: int) -> float:
    def total(e0):
        return math.sqrt(2 * k * math.log(1 / delta)) * e0 + k * e0 * math.expm1(e0)
    lo, hi = 0.0, epsilon
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if total(mid) <= epsilon else (lo, mid)
    return lo


def _zcdp_rho(epsilon: float, delta: float) -> float:
    """Largest ρ with tight δ(ε) ≤ δ (:func:`dpcore.privacy.accounting.approx_to_zcdp_rho`)."""
    return approx_to_zcdp_rho(epsilon, delta)


def per_step_epsilon(epsilon: float, delta: float, steps: int, selection: str, composition: str
                     ) -> tuple[float, str]:
    """(ε₀, route): the per-step ε₀ that makes T = ``steps`` adaptive steps (ε, δ)-DP, and the route used."""
    basic = epsilon / steps
    if composition == "advanced":
        e0, route = _advanced_eps0(epsilon, delta, steps), "advanced composition (Dwork, Rothblum & Vadhan 2010)"
    else:
        rho0 = _zcdp_rho(epsilon, delta) / steps
        e0 = math.sqrt((8.0 if selection == "exponential" else 2.0) * rho0)
        route = ("zCDP: ρ = T·ρ₀ with ρ₀ = ε₀²/8 (exponential mechanism, bounded range)" if selection == "exponential"
                 else "zCDP: ρ = T·ρ₀ with ρ₀ = ε₀²/2 (ε₀-DP)") + ", tight conversion to (ε, δ)"
    if basic >= e0:
        return basic, "basic composition (ε₀ = ε/T; better than the chosen route at this T)"
    return e0, route


def paper_noise_scale(n: int, epsilon: float, delta: float, steps: int, radius: float) -> float:
    """The paper's Laplace scale λ = L1 r √(8T log(1/δ)) / (nε), L1 = 2(r + 1) (Algorithm 2). Not used:
    with the exact Δ_s = 2L1r/n, report-noisy-min with Lap(λ) is (2Δ_s/λ)-DP per step, i.e.
    ε₀ = √2 ε / √(T ln(1/δ)), and advanced composition then gives ≈ 2ε (:func:`paper_total_epsilon`)."""
    l1 = 2.0 * (radius + 1.0)
    return l1 * radius * math.sqrt(8 * steps * math.log(1 / delta)) / (n * epsilon)


def paper_total_epsilon(n: int, epsilon: float, delta: float, steps: int, radius: float) -> float:
    """The total ε (advanced composition at the same δ) that the paper's scale actually gives."""
    e0 = 2.0 * score_sensitivity(n, radius) / paper_noise_scale(n, epsilon, delta, steps, radius)
    return math.sqrt(2 * steps * math.log(1 / delta)) * e0 + steps * e0 * math.expm1(e0)


def calibrate(cfg: LassoConfig, n: int, p: int) -> Calibration:
    """The public calibration of private Frank–Wolfe for n records and p covariates (both public)."""
    n = check_int(n, "n (rows)", lo=1)
    p = check_int(p, "p (covariates)", lo=1, hi=MAX_P)
    steps = cfg.steps if cfg.steps is not None else theorem25_steps(n, cfg.epsilon, cfg.radius)
    ds = score_sensitivity(n, cfg.radius)
    e0, route = per_step_epsilon(cfg.epsilon, cfg.delta, steps, cfg.selection, cfg.composition)
    scale = 2.0 * ds / e0
    sel = ("exponential mechanism: argmin_s (α_s − b·G_s), G_s standard Gumbel (P(s) ∝ exp(−ε₀α_s/(2Δ_s)))"
           if cfg.selection == "exponential" else "report-noisy-min: argmin_s (α_s + Lap(b))")
    n_vert = 2 * p if cfg.constraint == "l1" else p
    deriv = (f"score α_s = ⟨s, ∇L(θ)⟩ over the {n_vert} vertices s of C; replacing one record with ‖x‖∞ ≤ 1, "
             f"|y| ≤ 1 moves (2/n)(⟨x,θ⟩ − y)x by at most 2·(2/n)(r + 1) in ℓ∞, and ‖s‖₁ = r, so "
             f"Δ_s = 4r(r + 1)/n = {ds:.4g}. Each of the T = {steps} steps is ε₀-DP with ε₀ = {e0:.4g} ({sel}); "
             f"composition: {route}. Total: (ε, δ) = ({cfg.epsilon:g}, {cfg.delta:g}).")
    return Calibration(
        mechanism=MECHANISM, notion="approx", epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=ds,
        constant=scale, constant_name=("Gumbel scale b = 2Δ_s/ε₀" if cfg.selection == "exponential"
                                       else "Laplace scale b = 2Δ_s/ε₀"),
        derivation=deriv, reference=REFERENCE,
        params={"steps": steps, "eps0": e0, "route": route, "selection": cfg.selection,
                "composition": cfg.composition, "gumbel_sign": -1.0, "n": n, "p": p,
                "rho0": e0 ** 2 / (8.0 if cfg.selection == "exponential" else 2.0),
                "steps_source": "set by the user" if cfg.steps is not None else "Theorem 2.5"})


def corollary27_rate(n: int, p: int, epsilon: float, delta: float) -> float:
    """log(np/δ)/(nε)^{2/3}: Corollary 2.7's excess-risk rate without its (unknown) constant."""
    return math.log(n * p / delta) / (n * epsilon) ** (2 / 3)


def accounting(cal: Calibration) -> list[tuple[str, str]]:
    """The public accounting of a calibration as (quantity, value) rows (shown beside a release)."""
    q = cal.params
    return [("score sensitivity Δ_s = 4r(r + 1)/n", f"{cal.sensitivity:.4g}"),
            ("steps T", f"{q['steps']} ({q['steps_source']})"),
            ("per-step mechanism", "exponential mechanism (Gumbel-max)" if q["selection"] == "exponential"
             else "report-noisy-min, Laplace"),
            ("per-step ε₀", f"{q['eps0']:.4g}"),
            ("per-step noise scale b = 2Δ_s/ε₀", f"{cal.constant:.4g}"),
            ("composition", q["route"]),
            ("total guarantee", f"(ε, δ) = ({cal.epsilon:g}, {cal.delta:g})-DP, {cal.neighbours} neighbours")]

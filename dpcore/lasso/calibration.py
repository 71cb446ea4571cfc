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

Intercept (not in the paper; DERIVED here)
------------------------------------------
The paper's model has no intercept, so on real columns the coefficients absorb the columns' offsets (a
survey table gave +0.87 where OLS with an intercept gives −0.017). With ``intercept=True`` the release has two
stages: (1) the means m = (x̄, ȳ) of the p + 1 columns, each in [−1, 1], plus Laplace noise of scale
2(p + 1)/(nε_m) — replacing one record moves each mean by at most 2/n, so the ℓ1 sensitivity is 2(p + 1)/n
and stage 1 is ε_m-DP (Dwork et al. 2006) — clipped to [−1, 1] (post-processing); (2) Frank–Wolfe on the
records centred at the released m and halved, ((x − m_x)/2, (y − m_y)/2), which lie in [−1, 1] again, so the
derivation above holds with ε − ε_m. The map is fixed once m is released, and it sends replace-one neighbours
to replace-one neighbours, so adaptive basic composition gives (ε, δ). The fit is y ≈ m_y + ⟨x − m_x, θ⟩:
intercept = m_y − ⟨m_x, θ⟩ (unpenalised; only θ is in C). ε_m = ``intercept_share``·ε (default 0.1).

Number of steps (Theorem 2.5): T = Γ^{2/3} (nε)^{2/3} / (L1 r)^{2/3} with the public curvature bound
Γ = 8r² (Jaggi's constant for this loss, no ½) and L1 = 2(r + 1) — never from the data. The theorem drops log
factors; ``step_scale`` = c gives the public T = c·(nε)^{2/3} instead (c = 0.05 leaves the plateau at the risk
of θ = 0 about ten times earlier in n; see the ``lasso`` figure). Here T counts
the noisy steps (vertex selections); the paper's loop "t = 1..T − 1" runs T − 1 of them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .._validation import check_choice, check_delta, check_epsilon, check_int, check_positive
from ..errors import DPValueError
from ..mechanism import Calibration
from ..privacy.accounting import approx_to_zcdp_rho

__all__ = ["DEFAULT_INTERCEPT_SHARE", "mean_scale", "scaled_steps", "LassoConfig", "SELECTIONS", "COMPOSITIONS", "CONSTRAINTS", "PATHS", "DTYPES", "MAX_STEPS", "MAX_P",
           "score_sensitivity", "theorem25_steps", "per_step_epsilon", "calibrate", "paper_noise_scale",
           "paper_total_epsilon", "accounting", "corollary27_rate",
           "REFERENCE", "MECHANISM", "MECHANISM_INTERCEPT"]

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
#: The same mechanism with an intercept (two stages: centring means, then Frank–Wolfe).
MECHANISM_INTERCEPT = "lasso/private-fw-intercept"
#: Share of ε spent on the centring means when an intercept is fitted (unless the config says another).
DEFAULT_INTERCEPT_SHARE = 0.1


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
    intercept : bool
        Fit an intercept: the means of the p + 1 columns are released first (Laplace, ``intercept_share`` of ε),
        the data centred at them and halved, and Frank–Wolfe runs with the rest of ε (module docstring,
        "Intercept"). The released value is then (intercept, θ₁, …, θ_p).
    intercept_share : float or None
        Share of ε spent on the means (default 0.1 with an intercept; refused without one).
    step_scale : float or None
        c in the public step count T = c·(nε)^{2/3} (instead of Theorem 2.5's constant, which drops log
        factors); refused together with ``steps``.
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
    intercept: bool = False
    intercept_share: Optional[float] = None
    step_scale: Optional[float] = None

    def __post_init__(self) -> None:
        check_run(self)
        if not isinstance(self.intercept, (bool, np.bool_)):
            raise DPValueError(f"intercept = {self.intercept!r} must be True or False.")
        if self.intercept_share is not None:
            if not self.intercept:
                raise DPValueError("intercept_share applies only with intercept=True (it is the share of ε spent on "
                                   "the means that centre the data); drop it or set intercept=True.")
            share = check_positive(self.intercept_share, "intercept_share")
            if not share < 1:
                raise DPValueError(f"intercept_share = {share:g} must lie in (0, 1): the rest of ε goes to the "
                                   "Frank–Wolfe steps (e.g. 0.1).")
        if self.step_scale is not None:
            if self.steps is not None:
                raise DPValueError("give either steps (T) or step_scale (c in T = c·(nε)^(2/3)), not both.")
            check_positive(self.step_scale, "step_scale")
            if not self.step_scale <= 1e3:
                raise DPValueError(f"step_scale = {self.step_scale:g} is too large; use c ≤ 1000 (e.g. 0.05).")
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


def scaled_steps(n: int, epsilon: float, c: float) -> int:
    """T = c·(nε)^{2/3}, rounded, in [1, MAX_STEPS]: Theorem 2.5's rate with a public constant c (the theorem's
    own constant drops log factors of about 40 at n = 10⁴; c = 0.05 is the independent re-implementation's)."""
    return int(min(MAX_STEPS, max(1, round(c * (n * epsilon) ** (2 / 3)))))


def mean_scale(n: int, p: int, epsilon_mean: float) -> float:
    """Laplace scale of the centring means: ℓ1 sensitivity 2(p + 1)/n (each of the p + 1 column means of
    values in [−1, 1] moves by at most 2/n when one record is replaced) over ε_m."""
    return 2.0 * (p + 1) / (n * epsilon_mean)


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
    share = (cfg.intercept_share or DEFAULT_INTERCEPT_SHARE) if cfg.intercept else 0.0
    eps_mean, eps_fw = cfg.epsilon * share, cfg.epsilon * (1.0 - share)
    if cfg.steps is not None:
        steps, steps_source = cfg.steps, "set by the user"
    elif cfg.step_scale is not None:
        steps, steps_source = scaled_steps(n, eps_fw, cfg.step_scale), f"T = {cfg.step_scale:g}·(nε)^(2/3)"
    else:
        steps, steps_source = theorem25_steps(n, eps_fw, cfg.radius), "Theorem 2.5"
    ds = score_sensitivity(n, cfg.radius)
    e0, route = per_step_epsilon(eps_fw, cfg.delta, steps, cfg.selection, cfg.composition)
    scale = 2.0 * ds / e0
    sel = ("exponential mechanism: argmin_s (α_s − b·G_s), G_s standard Gumbel (P(s) ∝ exp(−ε₀α_s/(2Δ_s)))"
           if cfg.selection == "exponential" else "report-noisy-min: argmin_s (α_s + Lap(b))")
    n_vert = 2 * p if cfg.constraint == "l1" else p
    deriv = (f"score α_s = ⟨s, ∇L(θ)⟩ over the {n_vert} vertices s of C; replacing one record with ‖x‖∞ ≤ 1, "
             f"|y| ≤ 1 moves (2/n)(⟨x,θ⟩ − y)x by at most 2·(2/n)(r + 1) in ℓ∞, and ‖s‖₁ = r, so "
             f"Δ_s = 4r(r + 1)/n = {ds:.4g}. Each of the T = {steps} steps is ε₀-DP with ε₀ = {e0:.4g} ({sel}); "
             f"composition: {route}.")
    extra = {}
    if cfg.intercept:
        bm = mean_scale(n, p, eps_mean)
        deriv += (f" Intercept: first the means of the {p + 1} columns, with Laplace noise of scale 2(p + 1)/(nε_m) = "
                  f"{bm:.4g} (ℓ1 sensitivity 2(p + 1)/n, ε_m = {share:g}·ε = {eps_mean:.4g}, pure DP), clipped to "
                  f"[−1, 1]; the records are centred at these released means and halved, (x − m)/2 and (y − m_y)/2, "
                  f"so they stay in the public domain and the steps above run with ε − ε_m = {eps_fw:.4g}; "
                  "intercept = m_y − ⟨m_x, θ⟩. Basic composition of the two stages.")
        extra = {"intercept": True, "mean_epsilon": eps_mean, "mean_scale": bm, "fw_epsilon": eps_fw}
    deriv += f" Total: (ε, δ) = ({cfg.epsilon:g}, {cfg.delta:g})."
    return Calibration(
        mechanism=MECHANISM_INTERCEPT if cfg.intercept else MECHANISM, notion="approx", epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=ds,
        constant=scale, constant_name=("Gumbel scale b = 2Δ_s/ε₀" if cfg.selection == "exponential"
                                       else "Laplace scale b = 2Δ_s/ε₀"),
        derivation=deriv, reference=REFERENCE,
        params={"steps": steps, "eps0": e0, "route": route, "selection": cfg.selection,
                "composition": cfg.composition, "gumbel_sign": -1.0, "n": n, "p": p,
                "rho0": e0 ** 2 / (8.0 if cfg.selection == "exponential" else 2.0),
                "steps_source": steps_source, **extra})


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
            *([("intercept: centring means", f"ε_m = {q['mean_epsilon']:.4g}, Laplace scale 2(p + 1)/(nε_m) = "
                                               f"{q['mean_scale']:.4g}; Frank–Wolfe gets ε − ε_m = {q['fw_epsilon']:.4g}")]
              if q.get("intercept") else []),
            ("total guarantee", f"(ε, δ) = ({cal.epsilon:g}, {cal.delta:g})-DP, {cal.neighbours} neighbours")]

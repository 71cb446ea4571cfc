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

The risk-bound step rule (``step_rule="risk-bound"``; DERIVED here, issue 32)
------------------------------------------------------------------------------
Both rules above grow T like (nε)^{2/3} without limit, so at a small n and a huge ε (n = 442, ε = 10⁵: T is
capped at 20 000) each step gets ε₀ ≈ 6 and the selection noise still exceeds the score gaps near the optimum.
The risk-bound rule picks the T that minimises a bound on the expected excess risk that holds for EVERY dataset
in the public domain:

    E[L(θ_{T+1})] − min_C L ≤ B(T) := A/(T + 2) + b(T)·c_S,   A = max(2Γ, 2) = max(16r², 2),

with b(T) = 2Δ_s/ε₀(T) the per-step noise scale at T steps (ε₀(T) from :func:`per_step_epsilon`, the very
function the calibration uses) and c_S = ln|S| (exponential mechanism) or 1 + ln|S| (Laplace), |S| = 2p (ℓ1 ball)
or p (simplex). Proof. For the quadratic loss, L(θ + μv) = L(θ) + μ⟨v, ∇L(θ)⟩ + μ²(1/n)‖Xv‖² and
‖v‖₁ ≤ 2r, ‖x‖∞ ≤ 1 give (1/n)‖Xv‖² ≤ 4r² = Γ/2. With s* the exact minimiser of the score α_s = ⟨s, ∇L(θ_t)⟩
and η_t = α_{s_t} − α_{s*} ≥ 0 the selection error, convexity gives ⟨s* − θ_t, ∇L(θ_t)⟩ ≤ −h_t
(h_t = L(θ_t) − min_C L), so h_{t+1} ≤ (1 − μ_t)h_t + μ_t η_t + μ_t²Γ/2 (Jaggi 2013, with an inexact linear
step). Given the past, E[η_t] ≤ b·c_S: the exponential mechanism picks argmin_s (α_s − bG_s), so
α_{s_t} − α_{s*} ≤ b(max_s G_s − G_{s*}) with expectation b(γ + ln|S| − γ) = b ln|S|; report-noisy-min picks
argmin_s (α_s + Z_s), so α_{s_t} − α_{s*} ≤ Z_{s*} + max_s |Z_s|, expectation ≤ 0 + b·H_{|S|} ≤ b(1 + ln|S|).
The recursion is linear with non-negative weights, so it holds for the expectations; by induction, with
μ_t = 2/(t + 2) and h_1 = L(0) − min L ≤ mean(y²) ≤ 1 ≤ A/2, E h_t ≤ A/(t + 1) + b·c_S (step: t·A/((t + 1)(t + 2))
+ 2Γ/(t + 2)² ≤ A/(t + 2) because A ≥ 2Γ). Privacy: T is a function of (n, p, ε, δ, r, the per-step mechanism, the
composition route, the constraint) only — all public — and the calibration then derives ε₀ from that T exactly
as for any other T, so the (ε, δ) guarantee is unchanged. At moderate ε (zCDP: ε₀ ∝ 1/√T) the minimiser grows
like (nε)^{2/3} (Theorem 2.5's rate); once ε₀ = ε/T (basic composition) wins, it grows like √(nε/ln|S|): far
fewer, sharper steps at a small n and a huge ε, and T → the cap as ε → ∞, so the release converges to the
non-private Frank–Wolfe iterate. It helps when nε is large (the error it trades is the one that dominates there)
and makes little difference at nε ≲ 10⁴, where every rule is near the risk of θ = 0. The bound itself is shown
before the click (:func:`risk_bound`); real designs usually do much better than this worst case.

Noisy-gradient Frank–Wolfe for a general C (Theorem 2.6; :func:`calibrate_noisy_gradient`)
-------------------------------------------------------------------------------------------
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

import functools
import math
from typing import Any

import numpy as np
from scipy import integrate, stats

from .._validation import check_int
from ..errors import DPValueError
from ..mechanism import Calibration
from ..privacy.accounting import approx_to_zcdp_rho
from .configs import MAX_P, MAX_STEPS, LassoConfig, NoisyGradientConfig

__all__ = ["calibrate", "calibrate_noisy_gradient", "accounting", "score_sensitivity", "theorem25_steps",
           "scaled_steps", "risk_bound", "risk_bound_steps", "selection_error_factor", "mean_scale", "per_step_epsilon", "paper_noise_scale", "paper_total_epsilon",
           "corollary27_rate", "gradient_sensitivity", "gaussian_width", "l1_radius_of", "DEFAULT_INTERCEPT_SHARE",
           "REFERENCE", "MECHANISM", "MECHANISM_INTERCEPT", "REFERENCE_NOISY_GRADIENT", "MECHANISM_NOISY_GRADIENT"]

REFERENCE = "Talwar, Thakurta & Zhang (2015), Nearly Optimal Private LASSO, NeurIPS; Algorithm 2, Theorems 2.4–2.5"
MECHANISM = "lasso/private-fw"
#: The same mechanism with an intercept (two stages: centring means, then Frank–Wolfe).
MECHANISM_INTERCEPT = "lasso/private-fw-intercept"
#: Share of ε spent on the centring means when an intercept is fitted (unless the config says another).
DEFAULT_INTERCEPT_SHARE = 0.1
#: The noisy-gradient variant for a general C (Gaussian noise on every step's gradient).
MECHANISM_NOISY_GRADIENT = "lasso/noisy-gradient-fw"
REFERENCE_NOISY_GRADIENT = "Talwar, Thakurta & Zhang (2015), Nearly Optimal Private LASSO, NeurIPS; Theorem 2.6"


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


def selection_error_factor(selection: str, vertices: int) -> float:
    """c_S: the expected selection error of one noisy step is at most b·c_S — ln|S| for the exponential mechanism
    (Gumbel-max), 1 + ln|S| for Laplace report-noisy-min (module docstring, "The risk-bound step rule")."""
    return math.log(vertices) + (0.0 if selection == "exponential" else 1.0)


def _vertices(p: int, constraint: str) -> int:
    return 2 * p if constraint == "l1" else p


def _eps0_array(epsilon: float, delta: float, steps: np.ndarray, selection: str, composition: str) -> np.ndarray:
    """:func:`per_step_epsilon` over an array of T (its ε₀ only; bisection vectorised for the advanced route)."""
    t = steps.astype(float)
    if composition == "advanced":
        c = np.sqrt(2.0 * t * math.log(1.0 / delta))
        lo, hi = np.zeros_like(t), np.full_like(t, _advanced_hi(epsilon))
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            ok = c * mid + t * mid * np.expm1(mid) <= epsilon
            lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
        e0 = lo
    else:
        e0 = np.sqrt((8.0 if selection == "exponential" else 2.0) * _zcdp_rho(epsilon, delta) / t)
    return np.maximum(e0, epsilon / t)


def risk_bound(n: int, p: int, epsilon: float, delta: float, radius: float, steps: Any, selection: str = "exponential",
               composition: str = "zcdp", constraint: str = "l1") -> Any:
    """B(T) = max(16r², 2)/(T + 2) + (2Δ_s/ε₀(T))·c_S: a bound on the expected excess risk E[L(θ_priv)] − min_C L
    after T noisy steps that holds for every dataset in the public domain (module docstring, "The risk-bound step
    rule"). ``steps`` may be an int or an array; ``epsilon`` is the Frank–Wolfe share of ε."""
    t = np.atleast_1d(np.asarray(steps, dtype=np.int64))
    e0 = _eps0_array(float(epsilon), float(delta), t, selection, composition)
    out = (max(16.0 * radius ** 2, 2.0) / (t + 2.0)
           + 2.0 * score_sensitivity(n, radius) / e0 * selection_error_factor(selection, _vertices(p, constraint)))
    return float(out[0]) if np.ndim(steps) == 0 else out


@functools.lru_cache(maxsize=256)
def risk_bound_steps(n: int, p: int, epsilon: float, delta: float, radius: float, selection: str = "exponential",
                     composition: str = "zcdp", constraint: str = "l1") -> int:
    """The public T in [1, MAX_STEPS] that minimises :func:`risk_bound` (the smallest such T): a function of public
    inputs only (memoised: a pure function of public numbers)."""
    t = np.arange(1, MAX_STEPS + 1)
    return int(t[int(np.argmin(risk_bound(n, p, epsilon, delta, radius, t, selection, composition, constraint)))])


def mean_scale(n: int, p: int, epsilon_mean: float) -> float:
    """Laplace scale of the centring means: ℓ1 sensitivity 2(p + 1)/n (each of the p + 1 column means of
    values in [−1, 1] moves by at most 2/n when one record is replaced) over ε_m."""
    return 2.0 * (p + 1) / (n * epsilon_mean)


def _advanced_hi(epsilon: float) -> float:
    """An upper end for the bisection of advanced composition's ε₀: ε₀(e^{ε₀} − 1) ≤ ε needs ε₀ ≤ ε and, when
    ε₀ ≥ 1, e^{ε₀} − 1 ≤ ε, i.e. ε₀ ≤ ln(1 + ε) (so e^{ε₀} never overflows, even at ε = 10⁶)."""
    return min(float(epsilon), max(1.0, math.log1p(epsilon)))


def _advanced_eps0(epsilon: float, delta: float, k: int) -> float:
    def total(e0):
        return math.sqrt(2 * k * math.log(1 / delta)) * e0 + k * e0 * math.expm1(e0)
    lo, hi = 0.0, _advanced_hi(epsilon)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if total(mid) <= epsilon else (lo, mid)
    return lo


@functools.lru_cache(maxsize=256)
def _zcdp_rho(epsilon: float, delta: float) -> float:
    """Largest ρ with tight δ(ε) ≤ δ (:func:`dpcore.privacy.accounting.approx_to_zcdp_rho`; memoised: a pure
    function of two public numbers, 0.13 s a call)."""
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


def _sizes(data_shape: tuple[int, ...]) -> tuple[int, int]:
    """(n, p) of the public shape of X, checked (n ≥ 1 rows, 1 ≤ p ≤ MAX_P covariates)."""
    if len(data_shape) != 2:
        raise DPValueError(f"data_shape = {tuple(data_shape)!r}: give the shape (n rows, p covariates) of X.")
    return check_int(data_shape[0], "n (rows)", lo=1), check_int(data_shape[1], "p (covariates)", lo=1, hi=MAX_P)


def calibrate(cfg: LassoConfig, data_shape: tuple[int, ...]) -> Calibration:
    """The public calibration of private Frank–Wolfe on X of shape ``data_shape`` = (n records, p covariates),
    both public."""
    n, p = _sizes(data_shape)
    share = (cfg.intercept_share or DEFAULT_INTERCEPT_SHARE) if cfg.intercept else 0.0
    eps_mean, eps_fw = cfg.epsilon * share, cfg.epsilon * (1.0 - share)
    if cfg.steps is not None:
        steps, steps_source = cfg.steps, "set by the user"
    elif cfg.step_scale is not None:
        steps, steps_source = scaled_steps(n, eps_fw, cfg.step_scale), f"T = {cfg.step_scale:g}·(nε)^(2/3)"
    elif cfg.step_rule == "risk-bound":
        steps = risk_bound_steps(n, p, eps_fw, cfg.delta, cfg.radius, cfg.selection, cfg.composition, cfg.constraint)
        steps_source = "risk-bound rule: T minimises max(16r², 2)/(T + 2) + b(T)·ln|S|"
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


def calibrate_noisy_gradient(cfg: NoisyGradientConfig, data_shape: tuple[int, ...]) -> Calibration:
    """σ of the Gaussian noise on each step's gradient for (ε, δ) over T steps (module docstring), on X of public
    shape ``data_shape`` = (n, p)."""
    n, p = _sizes(data_shape)
    steps = cfg.steps if cfg.steps is not None else theorem25_steps(n, cfg.epsilon, cfg.radius)
    d2 = gradient_sensitivity(n, p, cfg.radius, cfg.constraint)
    rho = _zcdp_rho(cfg.epsilon, cfg.delta)
    sigma = d2 * math.sqrt(steps / (2.0 * rho))
    r1 = l1_radius_of(cfg.constraint, p, cfg.radius)
    deriv = (f"∇L(θ) = (2/n)Σ(⟨x,θ⟩ − y)x; with ‖x‖∞ ≤ 1 (so ‖x‖₂ ≤ √p), |y| ≤ 1 and ‖θ‖₁ ≤ R₁ = {r1:g} on C, "
             f"replacing one record moves it by at most Δ₂ = 4(R₁ + 1)√p/n = {d2:.4g} in ℓ2. Each of the T = {steps} "
             f"steps adds N(0, σ²I) (Gaussian mechanism, Δ₂²/(2σ²)-zCDP); T steps are ρ = {rho:.4g}-zCDP, the "
             f"largest ρ whose tight conversion gives ({cfg.epsilon:g}, {cfg.delta:g})-DP.")
    return Calibration(mechanism=MECHANISM_NOISY_GRADIENT, notion="approx", epsilon=cfg.epsilon, delta=cfg.delta,
                       sensitivity=d2, constant=sigma, constant_name="Gaussian σ = Δ₂√(T/(2ρ))", derivation=deriv,
                       reference=REFERENCE_NOISY_GRADIENT,
                       params={"steps": steps, "rho": rho, "constraint": cfg.constraint,
                               "gaussian_width": gaussian_width(cfg.constraint, p, cfg.radius)})

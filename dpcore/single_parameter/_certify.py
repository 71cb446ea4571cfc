"""What would certify: the sample size n at which Algorithm 5 (Asi, Duchi & Talwar 2025) passes its
tests for an *assumed* design, and the inverse (the smallest λ_min that passes at a given n).

Everything here is a function of public inputs only — the configuration (loss, geometry, radius, ρ,
c, s̄, ε, δ and its split), the number of columns d, n, and the user's *assumptions* λ_min and λ_max
about the Hessian ∇²L_n(θ̂) — so a page may show it outside the non-private box.

The prediction follows the very formulas of the release ([DERIVED] in
:mod:`dpcore.single_parameter._stability`). With the two Laplace draws of Algorithms 2 and 4 at their
lower quantile −q_i (P(Lap(1/ε_i) ≥ −q_i) = √p, so both hold with probability p):

* Algorithm 2: k̂ = ⌈K + L − log(1/(2δ₁))/ε₁⌉ ≥ K − j₁ with j₁ = ⌊log(1/(2δ₁))/ε₁ + q₁⌋, and the ladder
  gives λ̂ = B_{k̂} > R^{(j₁+1)}(λ_min) =: λ_lo (R^{(i)}(λ) < B_{K−i} by the minimality of the rungs).
* Algorithm 4 with ℓo = λ_lo: k_u ≥ K↑ − j₂, j₂ = ⌊log(1/(2δ₂))/ε₂ + q₂⌋, and Λ̂ ≤ Λ_hi :=
  (Λ_cap + A)(1 + ψ)^{−(K↑ − j₂ − 1)} − A (Λ_cap when K↑ − j₂ < 1).
* The test: (C1) at λ_lo, ν·τ(λ_lo, Λ_hi) < 1 and ε_var(ν·τ; δ₄) ≤ ε₄ (14).

Every test quantity is monotone (τ falls with λ̂ and rises with Λ̂), so for data whose λ_min, λ_max
equal the assumptions the release passes with probability ≥ p at a predicted-passing n. λ_max may be
left at the public cap Λ_cap = M1 + ρ (assuming nothing).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._validation import check_int, check_positive
from ..errors import DPValueError
from ..limits import check_work
from ._recursion import upper_count
from ._stability import Constants, constants_for, eps_var

__all__ = ["Prediction", "predict", "n_to_certify", "min_lambda_to_certify", "domain_radius", "public_cap",
           "certified_floor", "abstention_floor", "floor_sentence", "BUDGET_SPLITS", "MAX_N", "certification_outlook", "budget_split"]

#: Largest n searched by :func:`n_to_certify`.
MAX_N = 10 ** 12
#: Most steps of the recursion (10) one prediction runs (issue 18): its count ⌊log(1/2δ₁)/ε₁ + Laplace quantile⌋
#: grows like 1/ε₁ and each step is a Python call (~1 µs); the "what would certify" panel runs three searches of
#: ~40 predictions each. ε = 10⁻³ (quarters split, δ = 10⁻⁵): 5.8·10⁴ steps, the panel 3.5 s of CPU; the cap, 10⁵,
#: keeps it near 6 s. At ε = 10⁻⁶ the count is 5.8·10⁷ and the panel ran for tens of minutes (the limits
#: benchmark's eigenvalues page sweep, ε typed at its minimum, release pressed: ⊥ and the panel).
MAX_PREDICT_STEPS = 100_000

#: Named budget splits of (ε, δ) over (λ̂, Λ̂, Gaussian shift, variance change) for Algorithm 5:
#: quarters (the implementation notes' default) and a Gaussian-heavy split (most of the budget on the
#: Gaussian step; the split found by the independent re-implementation in issue 20 — the paper states
#: none: it composed with a privacy-loss accountant).
BUDGET_SPLITS = {"quarters": (0.25, 0.25, 0.25, 0.25), "gaussian-heavy": (0.1, 0.1, 0.7, 0.1)}


@dataclass(frozen=True)
class Prediction:
    """The predicted outcome at (n, λ_min, λ_max) with probability ≥ ``prob``.

    ``lam_lo`` ≤ the released λ̂ and ``Lam_hi`` ≥ the released Λ̂ (both public functions of the
    assumptions); ``passes`` is True when (C1) and the test (14) hold at them.
    """

    n: int
    lam_min: float
    lam_max: float
    lam_lo: float
    Lam_hi: float
    tau: float
    eps_var: float
    eps4: float
    floor: float
    certified: bool
    passes: bool


def domain_radius(geometry: str, radius: float, d: int) -> tuple[float, float]:
    """(r₂, ν) of the public covariate domain, as Algorithm 5 derives them (ℓ2 ball: (r, 1);
    hypercube [−r, r]^d: (r√d, √d))."""
    if geometry == "l2-ball":
        return float(radius), 1.0
    if geometry == "hypercube":
        return float(radius) * math.sqrt(d), math.sqrt(d)
    raise DPValueError(f"geometry = {geometry!r}; use 'l2-ball' or 'hypercube'.")


def _constants(cfg, n: int, d: int) -> Constants:
    r2, _ = domain_radius(cfg.geometry, cfg.radius, d)
    return constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho)


def public_cap(cfg, d: int) -> float:
    """Λ_cap = M1 + ρ: bounds λ_max of every Hessian of this loss on this domain (public; free of n)."""
    return _constants(cfg, 2, d).cap


def certified_floor(cfg, n: int, d: int) -> float:
    """λ_c: (C1) holds at λ iff λ ≥ λ_c = 4·max{M1, c r₂ D, r₂ D/s̄}/n (public)."""
    return _constants(cfg, n, d).lam_c


def abstention_floor(cfg, n: int, d: int, rtol: float = 1e-9) -> float:
    """The ε-independent floor λ_ε∞: any data whose λ_min lies below it make Algorithm 5 abstain (⊥) at EVERY ε,
    except with probability at most δ₁ (public: from n, d, the loss, the domain, ρ, c, s̄ — not ε, not the data).

    Derivation. Algorithm 5 releases only if (C1) holds at its certified λ̂ (nλ̂ ≥ 4·max{M1, c r₂ D, r₂ D/s̄}) and
    ν·τ(λ̂, Λ̂) < 1 (a necessary part of the test (14): ε_var is +∞ for ντ ≥ 1, whatever ε₄). In (13),
    τ = (ψk + m)/(1 − ψ − m) with ψ = c r₂ Δ_n(λ̂), m = M1/(nλ̂), k = √(max(Λ̂, λ̂)/λ̂) ≥ 1, so
    τ(λ̂, Λ̂) ≥ τ(λ̂, λ̂) = (ψ + m)/(1 − ψ − m), which decreases in λ̂ (Δ_n and m decrease). Algorithm 2 gives
    λ̂ ≤ λ_min with probability ≥ 1 − δ₁ at every ε. Hence if λ_min < λ_ε∞ := inf{λ : (C1) at λ and
    ν·τ(λ, λ) < 1}, the release abstains with probability ≥ 1 − δ₁ whatever ε is. Returned to relative tolerance
    ``rtol`` (rounded up); the cap Λ_cap when no λ ≤ Λ_cap qualifies (nothing certifies at this n)."""
    n = check_int(n, "n", lo=2, hi=MAX_N)
    r2, nu = domain_radius(cfg.geometry, cfg.radius, d)
    k = constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho)

    def ok(lam: float) -> bool:
        return bool(k.C1(lam)) and lam > 0 and float(nu * k.tau_pair(lam, lam)[0]) < 1.0
    if not ok(k.cap):
        return float(k.cap)
    lo, hi = float(k.lam_c) * (1 - 1e-12), float(k.cap)
    if ok(k.lam_c):
        return float(k.lam_c)
    while hi - lo > rtol * hi:                          # ok(hi), not ok(lo): τ(λ, λ) decreases in λ
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def floor_sentence(cfg, n: int, d: int) -> str:
    """:func:`abstention_floor` in one sentence for the page, before the click (public)."""
    x = abstention_floor(cfg, n, d)
    cap = public_cap(cfg, d)
    if x >= cap:
        return (f"With n = {n:,} and d = {d} columns, **no λ_min certifies at any ε**: even λ_min at the public cap "
                f"M1 + ρ = {cap:.6g} fails (C1) or ν·τ < 1 (public: from n, d, the loss and the domain).")
    return (f"With n = {n:,} and d = {d} columns, **any λ_min below {x:.4g} abstains (⊥) at every ε**: the test needs "
            f"the certified λ̂ ≤ λ_min in (C1) (λ̂ ≥ λ_c = {certified_floor(cfg, n, d):.4g}) with ν·τ(λ̂, λ̂) < 1 — "
            "a floor from n, d, the loss and the domain, not from ε or the data (Λ_cap = "
            f"{cap:.6g} bounds λ_max). More rows lower it like 1/n.")


def _laplace_quantile(prob: float, eps: float) -> float:
    """q ≥ 0 with P(Lap(1/ε) ≥ −q) = √prob."""
    tail = 1.0 - math.sqrt(prob)
    return math.log(1.0 / (2.0 * tail)) / eps


def _iterate_R(k: Constants, lam: float, steps: int) -> float:
    for _ in range(steps):
        if lam <= 0:
            return 0.0
        lam = k.R_scalar(lam)
    return lam


def _check(cfg, d, prob) -> tuple[int, float]:
    d = check_int(d, "d (columns of the design, with the intercept)", lo=1, hi=10_000)
    prob = float(prob)
    if not (0.25 <= prob < 1):
        raise DPValueError(f"prob = {prob} must lie in [0.25, 1) (the probability that both Laplace draws are "
                           "at least their quantile).")
    return d, prob


def predict(cfg, n: int, d: int, lam_min: float, lam_max: Optional[float] = None, *, prob: float = 0.9
            ) -> Prediction:
    """The predicted outcome of Algorithm 5 (``cfg`` a :class:`FunctionalConfig`) on n rows and d columns
    whose Hessian has extreme eigenvalues ``lam_min`` ≤ ``lam_max`` (default λ_max = Λ_cap, the public cap).
    Public: uses only the configuration, n, d and the assumptions."""
    d, prob = _check(cfg, d, prob)
    n = check_int(n, "n", lo=2, hi=MAX_N)
    r2, nu = domain_radius(cfg.geometry, cfg.radius, d)
    k = constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho)
    lam_min = check_positive(lam_min, "assumed λ_min")
    lam_max = k.cap if lam_max is None else check_positive(lam_max, "assumed λ_max")
    if lam_min > k.cap * (1 + 1e-12) or lam_max > k.cap * (1 + 1e-12):
        raise DPValueError(f"the assumed eigenvalues exceed the public cap Λ_cap = M1 + ρ = {k.cap:.4g}, which bounds "
                           "every Hessian of this loss on this domain; enter values ≤ the cap.")
    if lam_max < lam_min:
        raise DPValueError(f"assumed λ_max = {lam_max:g} is below the assumed λ_min = {lam_min:g}; λ_max ≥ λ_min.")
    lam_max = min(lam_max, k.cap)
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    j1 = int(math.floor(math.log(1.0 / (2.0 * d1)) / e1 + _laplace_quantile(prob, e1)))
    check_work("steps of the recursion (10) in the prediction", {"⌊log(1/2δ₁)/ε₁ + Laplace quantile⌋ + 1": j1 + 1},
               MAX_PREDICT_STEPS, fix="raise ε or δ (or give the bounds a larger share of the budget)")
    lam_lo = _iterate_R(k, lam_min, j1 + 1)
    ok = lam_lo > 0 and bool(k.C1(lam_lo))
    Lam_hi, tau, ev = k.cap, math.inf, math.inf
    if ok:
        j2 = int(math.floor(math.log(1.0 / (2.0 * d2)) / e2 + _laplace_quantile(prob, e2)))
        Ku = int(upper_count(k, lam_max, np.array([lam_lo]))[0])
        ku = Ku - j2
        if ku >= 1:
            psi = float(k.psi(lam_lo))
            A = (k.M1 / k.n) / psi
            Lam_hi = min(k.cap, (k.cap + A) * (1.0 + psi) ** (-(ku - 1)) - A)
        Lam_hi = max(Lam_hi, lam_max)
        t, _ = k.tau_pair(lam_lo, Lam_hi)
        tau = float(t)
        ev = float(eps_var(nu * tau, log_delta=ld4))
    passes = bool(ok and nu * tau < 1 and ev <= e4)
    return Prediction(n, float(lam_min), float(lam_max), float(lam_lo), float(Lam_hi), tau, ev, float(e4),
                      float(k.lam_c), bool(ok), passes)


def n_to_certify(cfg, d: int, lam_min: float, lam_max: Optional[float] = None, *, prob: float = 0.9,
                 what: str = "release") -> Optional[int]:
    """Smallest n at which :func:`predict` passes (None if not even at :data:`MAX_N`).

    ``what="release"``: Algorithm 5's tests pass; ``"bound"``: only the certified lower bound λ̂ > 0 (in (C1)).
    ``lam_max`` None means the public cap (which does not depend on n)."""
    if what not in ("release", "bound"):
        raise DPValueError(f"what = {what!r}; use 'release' or 'bound'.")

    def ok(n):
        p = predict(cfg, n, d, lam_min, lam_max, prob=prob)
        return p.passes if what == "release" else p.certified
    lo, hi = 2, 64
    while not ok(hi):
        lo, hi = hi, hi * 4
        if hi > MAX_N:
            return None
    while hi - lo > 1:                                  # ok(hi) and not ok(lo) (predict is monotone in n)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def min_lambda_to_certify(cfg, n: int, d: int, lam_max: Optional[float] = None, *, prob: float = 0.9,
                          rtol: float = 1e-6) -> Optional[float]:
    """Smallest assumed λ_min (to relative tolerance ``rtol``) at which :func:`predict` passes at this n,
    with λ_max fixed (default: the public cap); None if even λ_min = λ_max does not pass."""
    n = check_int(n, "n", lo=2, hi=MAX_N)
    r2, _ = domain_radius(cfg.geometry, cfg.radius, d)
    cap = constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho).cap
    top = cap if lam_max is None else min(float(lam_max), cap)
    if not predict(cfg, n, d, top, top, prob=prob).passes:
        return None
    lo, hi = 0.0, top
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if mid > 0 and predict(cfg, n, d, mid, top, prob=prob).passes:
            hi = mid
        else:
            lo = mid
    return hi


def certification_outlook(cfg, n: int, d: int, lam_min: float, lam_max: float) -> tuple[list[str], str]:
    """The "what would certify" panel in words: markdown bullets and a caption, from public inputs only.

    The bullets: the n from which Algorithm 5 passes with probability ≥ 0.9 for the assumed ``lam_min`` and
    ``lam_max`` (:func:`n_to_certify`), the n from which the certified bound λ̂ alone lies in the region (C1), and
    the smallest λ_min that passes at this ``n`` (:func:`min_lambda_to_certify`); the caption: the certified
    floor λ_c at this n (:func:`certified_floor`) and how the prediction is made. Raises DPValueError as those
    functions do (e.g. a tiny ε whose recursion would exceed its cap).
    """
    need = n_to_certify(cfg, d, lam_min, lam_max)
    bound = n_to_certify(cfg, d, lam_min, lam_max, what="bound")
    lam_star = min_lambda_to_certify(cfg, n, d, lam_max)
    lines = [f"- with λ_min = {lam_min:g} and λ_max = {lam_max:g}, Algorithm 5 passes (with probability ≥ 0.9) "
             f"from **n = {need:,}** rows" if need else "- no n up to 10¹² passes for these values"]
    if bound:
        lines.append(f"- the certified bound λ̂ alone (λ̂ > 0, in the region (C1)) from n = {bound:,} rows; the "
                     "variance-change test (14) then needs the rest")
    lines.append(f"- at this n = {n:,}, it passes only if λ_min ≥ **{lam_star:.4g}** (with λ_max = {lam_max:g})"
                 if lam_star else f"- at this n = {n:,}, no λ_min ≤ λ_max = {lam_max:g} passes: more rows are "
                                  "needed whatever the design")
    caption = (f"Certified region (C1) at this n: λ̂ ≥ λ_c = {certified_floor(cfg, n, d):.4g}. The prediction "
               "runs the release's own formulas — the recursion (10) from λ_min, the upward recursion (12) to "
               "the cap, the test (14) — with both Laplace draws at the quantile they exceed with probability "
               "√0.9.")
    return lines, caption


def budget_split(name: str, share: float = 0.5) -> tuple[float, float, float, float]:
    """The shares of (ε, δ) over (λ̂, Λ̂, the Gaussian step, the variance test) of the split ``name``: one of
    :data:`BUDGET_SPLITS`, or ``"custom"`` — ``share`` for the two bounds (half each) and the rest for the Gaussian
    step and the test (half each)."""
    if name == "custom":
        return (share / 2, share / 2, (1 - share) / 2, (1 - share) / 2)
    return BUDGET_SPLITS[name]

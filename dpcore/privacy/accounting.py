"""Privacy notions, costs, conversions and composition.

Notions (all for the neighbouring relation stated in each cost; replace-one unless said):

* pure ε-DP          — P[M(D)∈S] ≤ e^ε P[M(D')∈S]
* (ε, δ)-DP          — P[M(D)∈S] ≤ e^ε P[M(D')∈S] + δ
* ρ-zCDP             — D_λ(M(D)‖M(D')) ≤ ρλ for all λ > 1 (Bun & Steinke 2016)
* ε-LDP              — each party's randomiser is ε-DP in its own input

References: Bun & Steinke (2016, arXiv:1605.02065); Canonne, Kamath & Steinke (2020) for the tight
zCDP → (ε, δ) conversion; Balle & Wang (2018) for the analytic Gaussian mechanism; Dwork, Rothblum
& Vadhan (2010) for advanced composition. See spec/query_release.md §4.1 and
spec/single_parameter.md §3.1.
"""
from __future__ import annotations

from typing import cast

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from scipy.special import log_ndtr

from ..numbers import number
from .._validation import (
    DPValueError,
    check_delta,
    check_epsilon,
    check_positive,
    check_rho,
)

NOTIONS = ("pure", "approx", "zcdp", "ldp")
_NOTION_LABEL = {"pure": "ε-DP", "approx": "(ε, δ)-DP", "zcdp": "ρ-zCDP", "ldp": "ε-LDP"}


@dataclass(frozen=True)
class PrivacyCost:
    """The privacy guarantee of one release.

    Attributes
    ----------
    notion : {"pure", "approx", "zcdp", "ldp"}
    epsilon, delta, rho : the numbers of ONE draw that apply to the notion (others are None / 0).
    neighbours : the neighbouring relation, e.g. ``"replace-one"`` (n fixed) or ``"add/remove-one"``.
    note : free text (e.g. "exact target; MCMC draw is approximately private").
    count : int
        Number of independent draws released, each with the per-draw cost above. Composition and
        conversions use the per-draw numbers and the count: k draws of ε-DP cost kε under basic
        composition but kε²/2 under zCDP (not (kε)²/2, which would over-charge k-fold).

    Examples
    --------
    >>> c = PrivacyCost.pure(1.0, count=100)
    >>> c.total_epsilon, c.as_zcdp_rho()
    (100.0, 50.0)
    """

    notion: str
    epsilon: float | None = None
    delta: float = 0.0
    rho: float | None = None
    neighbours: str = "replace-one"
    note: str = ""
    count: int = 1

    def __post_init__(self):
        if isinstance(self.count, bool) or int(self.count) != self.count or self.count < 1:
            raise DPValueError(f"count = {self.count!r} must be a whole number >= 1 (the number of draws).")
        object.__setattr__(self, "count", int(self.count))
        if self.notion not in NOTIONS:
            raise DPValueError(f"notion = {self.notion!r} is unknown; use one of {NOTIONS}.")
        if self.notion == "zcdp":
            if self.rho is None:
                raise DPValueError("a zCDP cost needs rho.")
            check_rho(self.rho)
        else:
            if self.epsilon is None:
                raise DPValueError(f"a {self.notion} cost needs epsilon.")
            check_epsilon(self.epsilon)
        if self.notion == "approx":
            check_delta(self.delta, allow_zero=True)
        elif self.delta != 0.0:
            raise DPValueError(f"delta = {self.delta} given for a {self.notion} cost; only (ε, δ)-DP has a δ.")

    # -- factories ---------------------------------------------------------------
    @classmethod
    def pure(cls, epsilon: float, neighbours: str = "replace-one", note: str = "", count: int = 1) -> PrivacyCost:
        return cls("pure", epsilon=float(epsilon), neighbours=neighbours, note=note, count=count)

    @classmethod
    def approx(cls, epsilon: float, delta: float, neighbours: str = "replace-one", note: str = "",
               count: int = 1) -> PrivacyCost:
        return cls("approx", epsilon=float(epsilon), delta=float(delta), neighbours=neighbours, note=note,
                   count=count)

    @classmethod
    def zcdp(cls, rho: float, neighbours: str = "replace-one", note: str = "", count: int = 1) -> PrivacyCost:
        return cls("zcdp", rho=float(rho), neighbours=neighbours, note=note, count=count)

    @classmethod
    def ldp(cls, epsilon: float, note: str = "", count: int = 1) -> PrivacyCost:
        return cls("ldp", epsilon=float(epsilon), neighbours="any two inputs of one party", note=note, count=count)

    def times(self, k: int) -> PrivacyCost:
        """The cost of releasing ``k`` times as many independent draws."""
        return replace(self, count=self.count * int(k))

    @property
    def total_epsilon(self) -> float | None:
        """count·ε (basic composition of the draws); None for a zCDP cost."""
        return None if self.epsilon is None else self.count * float(self.epsilon)

    @property
    def total_delta(self) -> float:
        """count·δ (basic composition of the draws)."""
        return min(self.count * float(self.delta), 1.0)

    # -- conversions -------------------------------------------------------------
    def as_zcdp_rho(self) -> float | None:
        """ρ implied by this cost: ε-DP ⇒ ε²/2-zCDP; None for (ε, δ)-DP with δ > 0 (no zCDP bound)."""
        if self.notion == "zcdp":
            return self.count * float(cast(float, self.rho))
        if self.notion in ("pure", "ldp") or (self.notion == "approx" and self.delta == 0):
            return self.count * pure_to_zcdp(cast(float, self.epsilon))
        return None

    def as_approx(self, delta: float | None = None, tight: bool = True) -> tuple[float, float]:
        """(ε, δ) implied by all ``count`` draws: basic composition (count·ε, count·δ); zCDP is
        composed first (count·ρ) and converted at the given δ (required for zCDP: there is no default δ)."""
        if self.notion == "zcdp":
            if delta is None:
                raise DPValueError("a ρ-zCDP cost has an (ε, δ) only at a chosen δ: pass delta (e.g. the budget's "
                                   "δ); there is no fixed conversion δ.")
            return zcdp_to_approx(self.count * cast(float, self.rho), delta, tight=tight), float(delta)
        return float(cast(float, self.total_epsilon)), float(self.total_delta)

    def describe(self) -> str:
        """One line, e.g. ``"ε = 1 (ε-DP, replace-one neighbours)"`` or, for k draws,
        ``"100 draws × ε = 1 (ε-DP, …)"``."""
        if self.notion == "zcdp":
            core = f"ρ = {number(cast(float, self.rho), 4)} (ρ-zCDP"
        elif self.notion == "approx":
            core = f"ε = {number(cast(float, self.epsilon), 4)}, δ = {number(self.delta, 3)} ((ε, δ)-DP"
        else:
            core = f"ε = {number(cast(float, self.epsilon), 4)} ({_NOTION_LABEL[self.notion]}"
        if self.count > 1:
            core = f"{self.count} draws × {core}"
        s = f"{core}, {self.neighbours} neighbours)"
        return f"{s}; {self.note}" if self.note else s


# -- conversions ------------------------------------------------------------------
def pure_to_zcdp(epsilon: float) -> float:
    """ε-DP implies (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4)."""
    return 0.5 * check_epsilon(epsilon) ** 2


def zcdp_to_approx_simple(rho: float, delta: float) -> float:
    """ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP (Bun & Steinke 2016, Prop. 1.3)."""
    rho = check_rho(rho)
    delta = check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_delta(rho: float, epsilon: float) -> float:
    """Tight δ(ε) for ρ-zCDP (Canonne, Kamath & Steinke 2020, Prop. 7).

    δ = inf_{λ>1} exp((λ−1)(λρ − ε)) / (λ−1) · (1 − 1/λ)^λ, minimised by bisection on the
    derivative (2λ−1)ρ − ε + ln(1 − 1/λ) = 0. Any λ gives a valid upper bound, so an
    imprecise search only makes δ larger (still valid).
    """
    rho = check_rho(rho)
    if not epsilon >= 0:
        raise DPValueError(f"epsilon = {epsilon} must be >= 0 for the zCDP conversion.")
    lo, hi = 1.0 + 1e-9, (epsilon + 1.0) / (2.0 * rho) + 2.0
    for _ in range(200):
        lam = 0.5 * (lo + hi)
        deriv = (2 * lam - 1) * rho - epsilon + math.log1p(-1.0 / lam)
        if deriv < 0:
            lo = lam
        else:
            hi = lam
    lam = 0.5 * (lo + hi)
    log_delta = (lam - 1) * (lam * rho - epsilon) + lam * math.log1p(-1.0 / lam) - math.log(lam - 1.0)
    return float(min(1.0, math.exp(min(log_delta, 0.0))))


def approx_to_zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ρ (to bisection precision, rounded down) whose tight conversion gives (ε, δ)-DP:
    zcdp_delta(ρ, ε) ≤ δ. Bisection on log ρ over [1e-12, 1e12]; the inverse of :func:`zcdp_to_approx`."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    lo, hi = math.log(1e-12), math.log(1e12)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if zcdp_delta(math.exp(mid), epsilon) <= delta:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)


@functools.lru_cache(maxsize=4096)
def zcdp_to_approx(rho: float, delta: float, tight: bool = True) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP; ``tight`` uses the numeric CKS20 conversion.

    Memoised (a pure function of three public numbers): the tight conversion is a bisection over a bisection
    (≈ 4·10⁴ evaluations, ≈ 20 ms), and every rerun of every page converts the ledger's ρ totals again."""
    simple = zcdp_to_approx_simple(rho, delta)
    if not tight:
        return simple
    lo, hi = 0.0, simple
    if zcdp_delta(rho, lo) <= delta:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if zcdp_delta(rho, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return float(hi)


# -- Gaussian calibration --------------------------------------------------------
def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """Exact δ(ε) of the Gaussian mechanism N(f(D), σ²I) with ℓ2-sensitivity Δ (Balle & Wang 2018, Thm 8).

    δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ), computed in log space.
    """
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    t1 = log_ndtr(a - b)
    t2 = epsilon + log_ndtr(-a - b)
    if t2 >= t1:
        return 0.0
    return float(math.exp(t1) * -math.expm1(t2 - t1))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ with Gaussian-mechanism δ(ε) ≤ δ: the analytic Gaussian mechanism (Balle & Wang 2018).

    Unit sensitivity reference values (spec/single_parameter.md §3.1): σ(1, 1e-5) = 3.7306,
    σ(0.5, 1e-6) = 8.0576, σ(2, 1e-5) = 1.9938, σ(8, 1e-5) = 0.6002, σ(0.1, 1e-5) = 30.7496.
    Bisection on log σ; the returned σ is rounded up so the guarantee holds.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    # δ(σ) decreases in σ: grow the bracket until it holds the answer (never return an unchecked end).
    lo, hi = math.log(1e-8), math.log(1e8)
    while gaussian_delta(math.exp(lo), epsilon) <= delta:
        lo -= 10.0
        if lo < math.log(1e-300):
            raise DPValueError(f"no σ found for epsilon = {epsilon:g}, delta = {delta:g}.")
    while gaussian_delta(math.exp(hi), epsilon) > delta:
        hi += 10.0
        if hi > math.log(1e300):
            raise DPValueError(f"epsilon = {epsilon:g}, delta = {delta:g} need σ > 1e300; raise epsilon or delta.")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(math.exp(mid), epsilon) <= delta:
            hi = mid
        else:
            lo = mid
    sigma = math.exp(hi)
    if not gaussian_delta(sigma, epsilon) <= delta:  # the guarantee, checked before returning
        raise DPValueError(f"analytic Gaussian calibration failed for epsilon = {epsilon:g}, delta = {delta:g}.")
    return float(sigma * sensitivity)


def gaussian_sigma_zcdp(rho: float, sensitivity: float) -> float:
    """σ = Δ₂/√(2ρ): the Gaussian mechanism with ℓ2-sensitivity Δ₂ is ρ-zCDP (Bun & Steinke 2016)."""
    return check_positive(sensitivity, "sensitivity") / math.sqrt(2.0 * check_rho(rho))


# -- composition -----------------------------------------------------------------
def compose_basic(costs: Iterable[PrivacyCost], delta_for_zcdp: float | None = None) -> PrivacyCost:
    """Basic (sequential) composition: ε's and δ's add.

    zCDP entries are first converted to (ε, δ_z)-DP at ``delta_for_zcdp`` each (tight conversion); without it a
    zCDP entry is refused (there is no fixed conversion δ: a budget converts at its own, :mod:`.notions`).
    All-pure input gives a pure cost; all-LDP input gives an LDP cost.
    """
    costs = list(costs)
    if not costs:
        raise DPValueError("compose_basic needs at least one cost.")
    eps = 0.0
    delta = 0.0
    for c in costs:
        e, d = c.as_approx(delta_for_zcdp)
        eps += e
        delta += d
    neighbours = _common_neighbours(costs)
    if all(c.notion == "pure" for c in costs):
        return PrivacyCost.pure(eps, neighbours=neighbours)
    if all(c.notion == "ldp" for c in costs):
        return PrivacyCost.ldp(eps)
    if all(c.notion in ("pure", "ldp") for c in costs):
        # an ε-LDP protocol is also ε-DP in the central model, so the sum is a pure-DP bound
        return PrivacyCost.pure(eps, neighbours=neighbours)
    return PrivacyCost.approx(eps, min(delta, 1.0 - 1e-16), neighbours=neighbours)


def compose_entry(costs: Iterable[PrivacyCost], delta_for_zcdp: float | None = None) -> PrivacyCost:
    """Several costs recorded as ONE ledger entry (e.g. k draws of each of three methods).

    When every cost has the same notion, per-draw numbers and neighbours, the per-draw form is
    kept with the counts added, so zCDP composition still charges Σk·ε²/2 rather than (Σkε)²/2
    (the k-fold over-charge of collapsing draws into one ε). Otherwise: :func:`compose_basic`.
    """
    costs = list(costs)
    if not costs:
        raise DPValueError("compose_entry needs at least one cost.")
    c0 = costs[0]
    if all((c.notion, c.epsilon, c.delta, c.rho, c.neighbours) == (c0.notion, c0.epsilon, c0.delta, c0.rho,
                                                                  c0.neighbours) for c in costs):
        return PrivacyCost(c0.notion, epsilon=c0.epsilon, delta=c0.delta, rho=c0.rho, neighbours=c0.neighbours,
                           note=c0.note, count=sum(c.count for c in costs))
    return compose_basic(costs, delta_for_zcdp)


def compose_zcdp(costs: Iterable[PrivacyCost]) -> PrivacyCost | None:
    """zCDP composition: ρ's add (ε-DP counts as ε²/2). None if an (ε, δ>0) entry has no zCDP bound."""
    costs = list(costs)
    if not costs:
        raise DPValueError("compose_zcdp needs at least one cost.")
    rhos = [c.as_zcdp_rho() for c in costs]
    if any(r is None for r in rhos):
        return None
    return PrivacyCost.zcdp(float(sum(cast("list[float]", rhos))), neighbours=_common_neighbours(costs))


def compose_advanced(epsilon: float, delta: float, k: int, delta_prime: float) -> PrivacyCost:
    """k-fold adaptive composition of (ε, δ)-DP steps (Dwork, Rothblum & Vadhan 2010).

    Result: (ε√(2k ln(1/δ')) + kε(e^ε − 1), kδ + δ')-DP.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    delta_prime = check_delta(delta_prime, "delta_prime")
    if int(k) != k or k < 1:
        raise DPValueError(f"k = {k} must be a whole number >= 1 (the number of composed steps).")
    eps_total = epsilon * math.sqrt(2 * k * math.log(1 / delta_prime)) + k * epsilon * math.expm1(epsilon)
    d_total = k * delta + delta_prime
    if d_total >= 1:
        raise DPValueError(f"k·δ + δ' = {d_total:.3g} >= 1: the composed guarantee is vacuous; lower δ.")
    return PrivacyCost.approx(eps_total, d_total)


def _common_neighbours(costs: list[PrivacyCost]) -> str:
    rel = {c.neighbours for c in costs}
    return rel.pop() if len(rel) == 1 else "mixed: " + ", ".join(sorted(rel))

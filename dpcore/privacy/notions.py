"""How a budget counts: its notion, and the exact conversion of every release's cost into it.

A dataset's budget is set in one of three notions (like Tumult Analytics' ``PureDP`` / ``ApproxDP`` / ``RhoZCDP``
budgets and OpenDP's ``Context``):

* ``"pure"`` — a total ε, basic composition, δ = 0. Admits ε-DP and ε-LDP releases only (k draws of ε cost kε).
* ``"approx"`` — a total (ε, δ), basic composition: k draws of (ε, δ) cost (kε, kδ); ε-DP costs (kε, 0); a ρ-zCDP
  release is converted by the tight conversion (Canonne, Kamath & Steinke 2020, Prop. 7) at δ_z = half of the δ
  that remains of the budget when it is charged — a number derived from the budget and the public costs already
  charged, never a fixed constant, so any number of zCDP releases can be admitted while ε lasts.
* ``"zcdp"`` — a total ρ, entered directly or as the (ε, δ) it must guarantee (ρ = the largest ρ whose tight
  conversion gives (ε, δ), :func:`~dpcore.privacy.accounting.approx_to_zcdp_rho`). k draws of ε-DP cost kε²/2
  (Bun & Steinke 2016, Prop. 1.4); k draws of ρ-zCDP cost kρ. An (ε, δ)-DP release with δ > 0 has no ρ-zCDP
  guarantee (only δ-approximate zCDP, Bun & Steinke 2016, §8), so it is refused under a ρ budget with that reason.

**Adaptivity (why a total that is spent release after release is valid).** The user chooses each release after
seeing the previous ones. Basic composition holds for such adaptively chosen (ε_i, δ_i) as a *privacy filter*
(Rogers, Roth, Ullman & Vadhan 2016, Thm 3.6: stopping when Σε_i would exceed ε or Σδ_i would exceed δ gives
(ε, δ)-DP). For zCDP, a filter that stops when Σρ_i would exceed ρ is a Rényi filter at every order α at once
(ρ-zCDP is α-RDP with ρα for all α > 1, and the Rényi filter of Feldman & Zrnic 2021, "Individual privacy
accounting via a Rényi filter", NeurIPS, Thm 3.1, holds for adaptively chosen RDP costs at each α); so the
interaction is ρ-zCDP and hence (ε(ρ, δ), δ)-DP for every δ (see also Whitehouse, Ramdas, Rogers & Wu 2023,
"Fully-adaptive composition in differential privacy", ICML). A PLD composition (:mod:`dpcore.privacy.pld`) is
*not* a filter: its total is shown for information only.

>>> s = spend(PrivacyCost.zcdp(0.01), "zcdp", delta_remaining=1e-5)
>>> (s.rho, s.epsilon)
(0.01, 0.0)
>>> round(spend(PrivacyCost.pure(0.3, count=2), "zcdp", delta_remaining=0.0).rho, 6)
0.09
>>> capacity(PrivacyCost.zcdp(0.01), "zcdp", rho=approx_to_zcdp_rho(3.0, 1e-5))
22
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from .._validation import DPValueError
from ..numbers import number
from .accounting import PrivacyCost, approx_to_zcdp_rho, zcdp_to_approx

__all__ = [
    "BUDGET_NOTIONS",
    "NOTION_LABELS",
    "MAX_CAPACITY",
    "NotionRefused",
    "Spend",
    "capacity",
    "click_cost",
    "costs_more",
    "entry_cost",
    "fits",
    "spend",
    "suggest_notion",
    "zcdp_budget_from_approx",
]

#: The notions a budget can be set in.
BUDGET_NOTIONS = ("pure", "approx", "zcdp")
#: Words for each notion (public).
NOTION_LABELS = {
    "pure": "pure ε-DP (basic composition)",
    "approx": "(ε, δ)-DP (basic composition)",
    "zcdp": "ρ-zCDP (privacy filter)",
}
#: Largest count :func:`capacity` reports (the loop that counts zCDP releases under an (ε, δ) budget stops there).
MAX_CAPACITY = 10_000
_TOL = 1e-9  # relative slack so that 10 releases of ε = 0.3 fit a total of 3 (floating-point sums)


class NotionRefused(DPValueError):
    """A release whose guarantee cannot be counted in the budget's notion (nothing computed)."""


@dataclass(frozen=True)
class Spend:
    """What a release takes off a budget, in the budget's own units.

    ``epsilon`` and ``delta`` for the ``"pure"`` and ``"approx"`` notions, ``rho`` for ``"zcdp"``; ``how`` says in
    words how the release's cost was converted (public: a function of the cost and the budget's public state).
    """

    epsilon: float = 0.0
    delta: float = 0.0
    rho: float = 0.0
    how: str = ""

    def __add__(self, other: Spend) -> Spend:
        return Spend(self.epsilon + other.epsilon, self.delta + other.delta, self.rho + other.rho,
                     "; ".join(h for h in (self.how, other.how) if h))

    def text(self, notion: str) -> str:
        """This spending in the notion's units: ``"ρ = 0.01"`` (``"zcdp"``) or ``"ε = 2, δ = 0"``.

        >>> Spend(rho=0.01).text("zcdp"), Spend(epsilon=2.0).text("approx")
        ('ρ = 0.01', 'ε = 2, δ = 0')
        """
        if _notion(notion) == "zcdp":
            return f"ρ = {_g0(self.rho)}"
        return f"ε = {_g0(self.epsilon)}, δ = {_g0(self.delta)}"


def _notion(notion: str) -> str:
    if notion not in BUDGET_NOTIONS:
        raise DPValueError(f"budget notion = {notion!r} is unknown; use one of {BUDGET_NOTIONS}.")
    return notion


def _g(x: float) -> str:
    return number(x, 4)


_g0 = _g


def spend(cost: PrivacyCost | Iterable[PrivacyCost], notion: str, *, delta_remaining: float) -> Spend:
    """Convert one click's cost(s) exactly into the budget's notion.

    Parameters
    ----------
    cost : PrivacyCost or several (one click may hold several mechanisms)
    notion : {"pure", "approx", "zcdp"}
    delta_remaining : float
        The δ that remains of an ``"approx"`` budget before this click (a zCDP release is converted at half of
        what remains when it is charged; several zCDP costs in one click halve it in turn). Ignored otherwise.

    Raises
    ------
    NotionRefused
        The cost has no valid conversion into the notion (pure budget: a δ > 0 or zCDP release; zCDP budget: an
        (ε, δ)-DP release with δ > 0; approx budget: a zCDP release when no δ remains). The message names the
        reason and the fix.
    """
    notion = _notion(notion)
    costs = [cost] if isinstance(cost, PrivacyCost) else list(cost)
    total = Spend()
    left = float(delta_remaining)
    for c in costs:
        if not isinstance(c, PrivacyCost):
            raise DPValueError(f"a cost must be a PrivacyCost; got {type(c).__name__}.")
        s = _one(c, notion, left)
        left -= s.delta
        total = total + s
    return total


def _one(c: PrivacyCost, notion: str, delta_remaining: float) -> Spend:
    k = c.count
    if notion == "pure":
        if c.notion in ("pure", "ldp"):
            return Spend(epsilon=k * cast(float, c.epsilon), how="")
        kind = "ρ-zCDP" if c.notion == "zcdp" else "(ε, δ)-DP with δ > 0"
        raise NotionRefused(f"Refused before computing anything: this release is {kind}, and a pure ε budget admits "
                            "only ε-DP releases (δ = 0). Choose a mechanism with a pure ε guarantee, or load the data "
                            "again with an (ε, δ) or ρ-zCDP budget.")
    if notion == "approx":
        if c.notion != "zcdp":
            return Spend(epsilon=k * cast(float, c.epsilon), delta=k * float(c.delta))
        rho = k * cast(float, c.rho)
        if not delta_remaining > 0:
            raise NotionRefused("Refused before computing anything: this ρ-zCDP release needs a δ > 0 to be counted "
                                "in an (ε, δ) budget, and none of the budget's δ remains. Choose an ε-DP mechanism, "
                                "or load the data again with a ρ-zCDP budget.")
        dz = 0.5 * delta_remaining
        eps = zcdp_to_approx(rho, dz)
        return Spend(epsilon=eps, delta=dz, how=f"ρ = {_g(rho)} counted as ε = {_g(eps)} at δ = {dz:.3g} "
                                                  "(half of the δ that remained; tight conversion)")
    # zcdp
    if c.notion in ("pure", "ldp"):
        rho = k * 0.5 * cast(float, c.epsilon) ** 2
        return Spend(rho=rho, how=f"ε = {_g(cast(float, c.epsilon))} counted as ρ = ε²/2 = "
                                  f"{_g(0.5 * cast(float, c.epsilon) ** 2)} per draw")
    if c.notion == "zcdp":
        return Spend(rho=k * cast(float, c.rho))
    raise NotionRefused("Refused before computing anything: this release is (ε, δ)-DP with δ > 0, which gives no "
                        "ρ-zCDP guarantee, so a ρ-zCDP budget cannot count it. Choose a mechanism with an ε-DP or "
                        "ρ-zCDP guarantee, or load the data again with an (ε, δ) budget.")


def entry_cost(costs: PrivacyCost | Sequence[PrivacyCost], notion: str, charged: Spend) -> PrivacyCost:
    """The ONE cost a ledger entry records for the costs of one click charged ``charged`` under ``notion``.

    The same notion, per-draw numbers and neighbours: the per-draw form with the counts added
    (:func:`~dpcore.privacy.accounting.compose_entry`). Costs with no ρ-zCDP part: basic composition (no δ is
    needed). Costs mixing ρ-zCDP with others: the cost charged — ρ-zCDP with ρ = ``charged.rho`` under a ρ budget
    (ε-DP parts as ε²/2), or the (ε, δ) charged under an (ε, δ) budget (its δ derived from the budget when the
    click was charged, never a fixed constant).

    >>> entry_cost([PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.5)], "zcdp", Spend(rho=1.0)).rho
    1.0
    """
    from .accounting import compose_basic, compose_entry

    cs = [costs] if isinstance(costs, PrivacyCost) else list(costs)
    if not cs:
        raise DPValueError("a click must have at least one cost.")
    c0 = cs[0]
    same = all((c.notion, c.epsilon, c.delta, c.rho, c.neighbours) == (c0.notion, c0.epsilon, c0.delta, c0.rho,
                                                                       c0.neighbours) for c in cs)
    if len(cs) == 1 or same:
        return compose_entry(cs)
    if not any(c.notion == "zcdp" for c in cs):
        return compose_basic(cs)
    neighbours = {c.neighbours for c in cs}
    nb = neighbours.pop() if len(neighbours) == 1 else "mixed: " + ", ".join(sorted({c.neighbours for c in cs}))
    if _notion(notion) == "zcdp":
        return PrivacyCost.zcdp(charged.rho, neighbours=nb)
    return PrivacyCost.approx(charged.epsilon, charged.delta, neighbours=nb)


def click_cost(costs: Sequence[PrivacyCost]) -> PrivacyCost:
    """The ONE cost a click declares for several costs, before its budget is known (no δ is assumed).

    Without ρ-zCDP parts, or all alike: as :func:`entry_cost`. ρ-zCDP parts with ε-DP ones: their zCDP
    composition (ε-DP as ρ = ε²/2, Bun & Steinke 2016, Prop. 1.4; ρ's add), a valid ρ-zCDP guarantee of the
    whole click. ρ-zCDP parts with (ε, δ)-DP ones (δ > 0) have no common guarantee without a δ: refused (declare
    them as separate requests of one click, whose costs the budget converts together).

    >>> click_cost([PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.5)]).rho
    1.0
    """
    cs = list(costs)
    if not cs or not all(isinstance(c, PrivacyCost) for c in cs):
        raise DPValueError("cost must be a PrivacyCost or a non-empty sequence of them.")
    if not any(c.notion == "zcdp" for c in cs) or all(c.notion == "zcdp" for c in cs) and len(
            {(c.rho, c.neighbours) for c in cs}) == 1:
        return entry_cost(cs, "approx", Spend())
    if any(c.notion == "approx" and c.delta > 0 for c in cs):
        raise DPValueError("one request mixes ρ-zCDP and (ε, δ)-DP costs, which have no common guarantee without "
                           "choosing a δ: declare them as separate requests of the click (ReleaseSession."
                           "check_budget converts them together into the budget's notion).")
    rho = sum(c.count * (cast(float, c.rho) if c.notion == "zcdp" else 0.5 * cast(float, c.epsilon) ** 2)
              for c in cs)
    nb = {c.neighbours for c in cs}
    return PrivacyCost.zcdp(float(rho), neighbours=nb.pop() if len(nb) == 1 else "mixed: " + ", ".join(
        sorted({c.neighbours for c in cs})))


def costs_more(actual: PrivacyCost, declared: PrivacyCost) -> bool:
    """Whether ``actual`` is more than ``declared``: compared in the (ε, δ) notion, which counts every cost (each
    component; a ρ-zCDP cost converted at the same small δ for both — the conversion is increasing in ρ, so the
    verdict does not depend on that δ).

    >>> costs_more(PrivacyCost.pure(1.0, count=3), PrivacyCost.pure(1.0, count=2))
    True
    """
    d = spend(declared, "approx", delta_remaining=1e-9)
    a = spend(actual, "approx", delta_remaining=1e-9)
    return a.epsilon > d.epsilon * (1 + _TOL) or a.delta > d.delta * (1 + _TOL) + 1e-300


def fits(notion: str, *, spent: Spend, new: Spend, epsilon: float = 0.0, delta: float = 0.0,
         rho: float = 0.0) -> bool:
    """Whether ``new`` fits what remains of a budget of totals (ε, δ) or ρ after ``spent`` (a relative slack of
    1e-9 for floating-point sums).

    >>> fits("pure", spent=Spend(epsilon=2.7), new=Spend(epsilon=0.3), epsilon=3.0)
    True
    """
    notion = _notion(notion)
    if notion == "zcdp":
        return spent.rho + new.rho <= rho * (1 + _TOL)
    return (spent.epsilon + new.epsilon <= epsilon * (1 + _TOL)
            and spent.delta + new.delta <= delta * (1 + _TOL) + 1e-300)


def zcdp_budget_from_approx(epsilon: float, delta: float) -> float:
    """The ρ budget that guarantees (ε, δ)-DP by the tight conversion (rounded down).

    >>> round(zcdp_budget_from_approx(3.0, 1e-5), 4)
    0.2242
    """
    return approx_to_zcdp_rho(epsilon, delta)


def capacity(cost: PrivacyCost | Sequence[PrivacyCost], notion: str, *, epsilon: float = 0.0, delta: float = 0.0,
             rho: float = 0.0) -> int:
    """How many releases of ``cost`` (one click) a fresh budget in ``notion`` admits, one after the other.

    At most :data:`MAX_CAPACITY`; 0 when the notion cannot count the cost at all.

    >>> capacity(PrivacyCost.pure(0.3), "pure", epsilon=3.0)
    10
    >>> capacity(PrivacyCost.approx(1.0, 1e-6), "zcdp", rho=0.2)
    0
    """
    spent = Spend()
    for i in range(MAX_CAPACITY):
        try:
            new = spend(cost, notion, delta_remaining=delta - spent.delta)
        except NotionRefused:
            return i
        if not fits(notion, spent=spent, new=new, epsilon=epsilon, delta=delta, rho=rho):
            return i
        spent = spent + new
        if notion == "zcdp" and new.rho > 0 and i == 0:
            return min(MAX_CAPACITY, int(math.floor(rho * (1 + _TOL) / new.rho)))
        if notion != "zcdp" and new.delta == 0 and new.epsilon > 0 and i == 0:
            return min(MAX_CAPACITY, int(math.floor(epsilon * (1 + _TOL) / new.epsilon)))
    return MAX_CAPACITY


def suggest_notion(costs: Sequence[PrivacyCost], *, epsilon: float, delta: float) -> tuple[str, dict[str, int]]:
    """For totals (ε, δ) and the kinds of release a user picked, how many of each every notion holds, and the
    notion that holds the most of them together (the smallest capacity over the picked kinds, then their sum).

    The ρ budget is the one that guarantees the same (ε, δ); the pure budget uses ε alone. With δ = 0 no ρ budget
    guarantees (ε, 0)-DP, so the ρ-zCDP notion holds nothing.

    >>> best, caps = suggest_notion([PrivacyCost.zcdp(0.01)], epsilon=3.0, delta=1e-5)
    >>> best, caps["zcdp"] > caps["approx"]
    ('zcdp', True)
    """
    if not costs:
        raise DPValueError("pick at least one kind of release to compare the notions on.")
    rho = zcdp_budget_from_approx(epsilon, delta) if delta > 0 else 0.0
    held: dict[str, list[int]] = {}
    for notion in BUDGET_NOTIONS:
        held[notion] = [0 if notion == "zcdp" and rho == 0 else
                        capacity(c, notion, epsilon=epsilon, delta=delta, rho=rho) for c in costs]
    score = {n: (min(v), sum(v)) for n, v in held.items()}
    best = max(BUDGET_NOTIONS, key=lambda n: score[n])
    return best, {n: min(v) for n, v in held.items()}

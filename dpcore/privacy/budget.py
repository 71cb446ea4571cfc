"""A privacy budget per loaded dataset, and the ledger file that carries it across a restart.

Why this module is long: the budget and the file that carries it are one contract (what is spent, on
which data, and how an uploaded ledger is validated so that it can never give budget back).

Like OpenDP's ``Context`` and Tumult's ``Session``, the budget is attached to the data: the user sets
a total (ε, δ) when loading a dataset, and every release on it is checked against what remains
*before* anything is computed (:func:`check_fits`). Spending is keyed by the dataset's identity — in a
tab's memory its content fingerprint (bounds excluded); in :mod:`dpcore.store` a keyed hash of its rows
that also finds near copies — so clearing the ledger's list gives nothing back and loading the same data
again finds its spending. The ledger file written here holds no identity (nothing derived from the data
but released values): an uploaded one is matched by what the user declared and can only add spending.

**Notions (how a budget counts).** A budget is set in one of :data:`~dpcore.privacy.notions.BUDGET_NOTIONS`:
pure ε (basic composition, δ = 0), (ε, δ) by basic composition, or ρ-zCDP as a privacy filter (its ρ entered
directly, or the largest ρ that guarantees the (ε, δ) entered). Every release's cost is converted into the
budget's units by :func:`dpcore.privacy.notions.spend` ONCE, when it is charged, and that :class:`Spend` is
stored with the entry (never recomputed from the costs later): a ρ-zCDP release under an (ε, δ) budget is
converted at half of the δ that remains then (no fixed conversion δ). Why these totals are valid when each
release is chosen after seeing the earlier ones (privacy filters: Rogers, Roth, Ullman & Vadhan 2016, Thm 3.6;
Feldman & Zrnic 2021, Thm 3.1; Whitehouse, Ramdas, Rogers & Wu 2023) is in :mod:`dpcore.privacy.notions`. The
ledger also shows the tight PLD total of the same releases (:func:`dpcore.privacy.pld.tight_epsilon`) — what
they would cost had they been fixed in advance; it is not enforced.

**δ and n.** A total δ ≥ 1/n permits mechanisms that publish a whole record with probability δ:
a budget with δ ≥ 1/n is refused unless ``allow_large_delta`` (an explicit override), and so is any
release whose δ is ≥ 1/n.

References: Rogers, Roth, Ullman & Vadhan (2016), "Privacy odometers and filters: pay-as-you-go
composition", NeurIPS; Bun & Steinke (2016); Canonne, Kamath & Steinke (2020).

>>> acct = DatasetAccount("f" * 64, "people.csv", 500, Budget(3.0, 1e-5, n=500))
>>> acct.record(LedgerEntry("mean", PrivacyCost.pure(1.0, count=2)))
>>> acct.spent(), acct.remaining()
((2.0, 0.0), (1.0, 1e-05))
>>> acct.check(PrivacyCost.pure(2.0))
Traceback (most recent call last):
...
dpcore.privacy.budget.BudgetExceeded: Refused before computing anything: this release costs ε = 2, δ = 0 but only ε = 1, δ = 1e-05 remain of the budget ε = 3, δ = 1e-05 of “people.csv” (spent so far: ε = 2, δ = 0). Lower ε, or unload and load the data again to raise its total (its spending is kept).
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, cast

import numpy as np

from .._validation import DPValueError, check_epsilon
from ..numbers import digits_to_show, number, rounded
from .accounting import NOTIONS, PrivacyCost, zcdp_to_approx
from .ledger import LedgerEntry, LedgerTotals, PrivacyLedger
from .notions import BUDGET_NOTIONS, NOTION_LABELS, NotionRefused, Spend, fits, spend, zcdp_budget_from_approx

__all__ = [
    "DEFAULT_BUDGET_EPSILON",
    "LEDGER_FORMAT",
    "MAX_LEDGER_BYTES",
    "AccountSummary",
    "Budget",
    "BudgetExceeded",
    "DatasetAccount",
    "LedgerFile",
    "check_fits",
    "checked_budget",
    "default_budget",
    "ledger_from_json",
    "ledger_to_json",
    "released_value",
    "short_cost",
    "spend_text",
]

#: The total ε a dataset gets unless the user sets another (before its first release).
DEFAULT_BUDGET_EPSILON = 3.0
#: The ledger file's format tag and version.
LEDGER_FORMAT, LEDGER_VERSION = "dp-mechanism-explorer ledger", 1
#: Largest ledger file read back (bytes).
MAX_LEDGER_BYTES = 5 * 2**20
#: Released values kept per ledger entry (numbers; longer arrays are cut and say so).
MAX_VALUE_ITEMS = 2000
_TOL = 1e-9  # relative slack so that 3 releases of ε = 1 fit a total of 3 (floating-point sums)


# -- costs in words ----------------------------------------------------------------------------
def _g(x: float) -> str:
    return number(x, 4)


def spend_text(cost: PrivacyCost | Iterable[PrivacyCost]) -> str:
    """The cost of a click in its own terms: the (ε, δ) of its ε-DP and (ε, δ)-DP parts (basic composition) and
    the ρ of its ρ-zCDP parts (zCDP composition) — no conversion, so no δ is assumed.

    >>> spend_text([PrivacyCost.pure(1.0), PrivacyCost.pure(1.0)])
    'ε = 2, δ = 0'
    >>> spend_text(PrivacyCost.zcdp(0.5))
    'ρ = 0.5'
    >>> spend_text([PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.5)])
    'ε = 1, δ = 0 + ρ = 0.5'
    """
    costs = [cost] if isinstance(cost, PrivacyCost) else list(cost)
    for c in costs:
        if not isinstance(c, PrivacyCost):
            raise DPValueError(f"a cost must be a PrivacyCost; got {type(c).__name__}.")
    z = [c for c in costs if c.notion == "zcdp"]
    other = [c for c in costs if c.notion != "zcdp"]
    parts = []
    if other:
        eps = sum(c.count * cast(float, c.epsilon) for c in other)
        delta = sum(c.count * float(c.delta) for c in other)
        parts.append(f"ε = {_g(eps)}, δ = {_g(delta)}")
    if z:
        parts.append(f"ρ = {_g(sum(c.count * cast(float, c.rho) for c in z))}")
    return " + ".join(parts)


def short_cost(cost: PrivacyCost) -> str:
    """A short cost cell: ``"ε=1"``, ``"100 × ε=0.5"``, ``"ρ=0.125"``, ``"ε=1, δ=1e-05"``."""
    if cost.notion == "zcdp":
        core = f"ρ={number(cast(float, cost.rho), 3)}"
    elif cost.notion == "approx":
        core = f"ε={number(cast(float, cost.epsilon), 3)}, δ={number(cost.delta, 2)}"
    elif cost.notion == "ldp":
        core = f"ε={number(cast(float, cost.epsilon), 3)} (local)"
    else:
        core = f"ε={number(cast(float, cost.epsilon), 3)}"
    return core if cost.count == 1 else f"{cost.count} × {core}"


# -- the budget --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Budget:
    """A dataset's total privacy budget, in its notion (see the module docstring).

    Attributes
    ----------
    epsilon : float
        Total ε (> 0, finite). For a ρ-zCDP budget: the ε it guarantees at ``delta`` (derived from ``rho`` when
        ``rho`` is given: the tight conversion, Canonne, Kamath & Steinke 2020).
    delta : float
        Total δ in [0, 1); 0 for a pure budget; > 0 for a ρ-zCDP one (the δ of its (ε, δ) guarantee).
    n : int or None
        Rows of the dataset (public: the app never drops rows). With n, δ ≥ 1/n is refused unless
        ``allow_large_delta``.
    allow_large_delta : bool
        The explicit override for δ ≥ 1/n.
    notion : {"pure", "approx", "zcdp"}
        How the budget counts (default ``"approx"``: (ε, δ) by basic composition).
    rho : float or None
        The ρ total of a ``"zcdp"`` budget: given directly (then ``epsilon`` is derived from it), or None to take
        the largest ρ that guarantees (``epsilon``, ``delta``)-DP
        (:func:`~dpcore.privacy.notions.zcdp_budget_from_approx`). None for the other notions.

    >>> Budget(3.0, 1e-5, notion="zcdp").describe()
    'ρ = 0.2242 (ρ-zCDP filter ⇒ ε = 3, δ = 1e-05)'
    >>> Budget(1.0, notion="pure").describe()
    'ε = 1 (pure ε-DP, δ = 0)'
    """

    epsilon: float
    delta: float = 0.0
    n: int | None = None
    allow_large_delta: bool = False
    notion: str = "approx"
    rho: float | None = None

    def __post_init__(self):
        if self.notion not in BUDGET_NOTIONS:
            raise DPValueError(f"budget notion = {str(self.notion)[:20]!r} is unknown; use one of {BUDGET_NOTIONS}.")
        try:
            delta = float(self.delta)
        except (TypeError, ValueError):
            raise DPValueError(f"total delta = {self.delta!r} is not a number; use 0 ≤ delta < 1.") from None
        if not (0.0 <= delta < 1.0):
            raise DPValueError(f"total delta = {delta:g} must satisfy 0 ≤ delta < 1 (e.g. 1e-6).")
        object.__setattr__(self, "delta", delta)
        if self.notion == "pure" and delta > 0:
            raise DPValueError(f"total delta = {delta:g} for a pure ε budget: a pure budget has δ = 0. Set delta = 0, "
                               "or choose the (ε, δ) or ρ-zCDP notion to keep this δ.")
        if self.notion == "zcdp":
            if not delta > 0:
                raise DPValueError("total delta = 0 for a ρ-zCDP budget: ρ-zCDP guarantees (ε, δ)-DP only for δ > 0. "
                                   "Give the δ of its guarantee (1/(10n) is usual), or choose the pure ε notion.")
            if self.rho is None:
                eps = check_epsilon(self.epsilon, "total epsilon")
                object.__setattr__(self, "rho", float(zcdp_budget_from_approx(eps, delta)))
            else:
                try:
                    rho = float(self.rho)
                except (TypeError, ValueError):
                    raise DPValueError(f"total rho = {self.rho!r} is not a number; use rho > 0.") from None
                if not (math.isfinite(rho) and rho > 0):
                    raise DPValueError(f"total rho = {rho:g} must be a finite number > 0 (e.g. 0.2).")
                object.__setattr__(self, "rho", rho)
                object.__setattr__(self, "epsilon", float(zcdp_to_approx(rho, delta)))
        elif self.rho is not None:
            raise DPValueError(f"total rho = {self.rho!r} is given for a {self.notion!r} budget: only a ρ-zCDP budget "
                               "(notion='zcdp') has a ρ. Leave rho empty, or choose notion='zcdp'.")
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "total epsilon"))
        if self.n is not None:
            if isinstance(self.n, bool) or int(self.n) != self.n or self.n < 1:
                raise DPValueError(f"n = {self.n!r} must be a whole number ≥ 1 (the rows of the dataset).")
            object.__setattr__(self, "n", int(self.n))
            if delta >= 1.0 / self.n and not self.allow_large_delta:
                raise DPValueError(
                    f"total delta = {delta:g} ≥ 1/n = {1.0 / self.n:.3g} (n = {self.n}): with delta that large a "
                    f"mechanism may publish a whole record. Choose delta < 1/n (1/(10n) = {0.1 / self.n:.2g} is "
                    "usual), or tick the override for delta ≥ 1/n.")
        object.__setattr__(self, "allow_large_delta", bool(self.allow_large_delta))

    @classmethod
    def from_rho(cls, rho: float, delta: float, n: int | None = None, allow_large_delta: bool = False) -> Budget:
        """A ρ-zCDP budget entered as ρ; its ε is the tight conversion at ``delta``.

        >>> round(Budget.from_rho(0.5, 1e-6).epsilon, 3)
        5.222
        """
        return cls(1.0, delta, n, allow_large_delta, "zcdp", rho)

    def total(self) -> Spend:
        """The total in the notion's units (ρ for ``"zcdp"``, (ε, δ) otherwise)."""
        if self.notion == "zcdp":
            return Spend(rho=cast(float, self.rho))
        return Spend(epsilon=self.epsilon, delta=self.delta)

    def describe(self) -> str:
        """``"ε = 3, δ = 1e-05"``; ``"ε = 1 (pure ε-DP, δ = 0)"``; ``"ρ = 0.2242 (ρ-zCDP filter ⇒ ε = 3, δ = 1e-05)"``
        (a ρ and an ε printed here are rounded down: the ε is what the budget guarantees at most)."""
        if self.notion == "pure":
            return f"ε = {_g(self.epsilon)} (pure ε-DP, δ = 0)"
        if self.notion == "zcdp":
            return (f"ρ = {_down(cast(float, self.rho), 4)} (ρ-zCDP filter ⇒ ε = {_g(self.epsilon)}, "
                    f"δ = {_g(self.delta)})")
        return f"ε = {_g(self.epsilon)}, δ = {_g(self.delta)}"


def _digits(x: float, digits: int, up: bool) -> float:
    """``x`` rounded to ``digits`` significant digits, up (towards +∞) or down (:func:`dpcore.numbers.rounded`)."""
    return rounded(x, digits, "up" if up else "down")


def _down(x: float, digits: int) -> str:
    return number(x, digits, "down")


def _up(x: float, digits: int) -> str:
    return number(x, digits, "up")


def default_budget(n: int, notion: str = "approx") -> Budget:
    """The budget a dataset gets unless the user sets another: ε = :data:`DEFAULT_BUDGET_EPSILON`,
    δ = min(1e-5, 1/(10n)) (well below 1/n), counted as ``notion`` (a ρ-zCDP budget takes the largest ρ that
    guarantees that (ε, δ); a pure one has δ = 0).

    >>> default_budget(442).describe(), default_budget(50_000).delta
    ('ε = 3, δ = 1e-05', 2e-06)
    >>> default_budget(10**6, "zcdp").describe()
    'ρ = 0.1572 (ρ-zCDP filter ⇒ ε = 3, δ = 1e-07)'
    """
    delta = 0.0 if notion == "pure" else float(f"{min(1e-5, 0.1 / int(n)):.3g}")
    return Budget(DEFAULT_BUDGET_EPSILON, delta, n=int(n), notion=notion)


class BudgetExceeded(DPValueError):
    """A release refused because its cost exceeds what remains of its dataset's budget (nothing computed)."""


def _as_spend(spent: Spend | tuple[float, float]) -> Spend:
    if isinstance(spent, Spend):
        return spent
    eps, delta = spent
    return Spend(epsilon=float(eps), delta=float(delta))


def remaining_of(budget: Budget, spent: Spend) -> Spend:
    """What remains of ``budget`` after ``spent``, in its units (never below 0)."""
    if budget.notion == "zcdp":
        return Spend(rho=max(cast(float, budget.rho) - spent.rho, 0.0))
    return Spend(epsilon=max(budget.epsilon - spent.epsilon, 0.0), delta=max(budget.delta - spent.delta, 0.0))


def check_fits(name: str, n: int, budget: Budget, spent: Spend | tuple[float, float],
               cost: PrivacyCost | Iterable[PrivacyCost]) -> Spend:
    """The :class:`Spend` of ``cost`` (one or the costs of one click) in ``budget``'s units, converted ONCE here
    (:func:`~dpcore.privacy.notions.spend`; a ρ-zCDP cost under an (ε, δ) budget at half of the δ that remains
    after ``spent``). The one rule every account (in memory or in :mod:`dpcore.store`) checks with.

    Raises
    ------
    BudgetExceeded
        If it does not fit what remains, if the notion cannot count it (the reason and the fix), or if a draw's
        δ is ≥ 1/n without the override.
    """
    costs = [cost] if isinstance(cost, PrivacyCost) else list(cost)
    b, used = budget, _as_spend(spent)
    for c in costs:
        if not isinstance(c, PrivacyCost):
            raise DPValueError(f"a cost must be a PrivacyCost; got {type(c).__name__}.")
        d = float(c.delta) if c.notion == "approx" else 0.0   # per draw (a zCDP release's δ is the budget's)
        if d >= 1.0 / n and not b.allow_large_delta:
            raise BudgetExceeded(
                f"Refused before computing anything: δ = {_g(d)} per draw is ≥ 1/n = {1.0 / n:.3g} "
                f"(n = {n}): a mechanism with δ that large may publish a whole record. Lower δ below 1/n, "
                "or set the budget with the override for δ ≥ 1/n on the Data page.")
    try:
        new = spend(costs, b.notion, delta_remaining=max(b.delta - used.delta, 0.0))
    except NotionRefused as exc:
        raise BudgetExceeded(f"{exc} (Budget of “{name}”: {b.describe()}.)") from None
    if not fits(b.notion, spent=used, new=new, epsilon=b.epsilon, delta=b.delta, rho=b.rho or 0.0):
        left = remaining_of(b, used)
        hint = ("Lower ρ (or ε)" if b.notion == "zcdp" else
                "Lower ε, use a pure ε-DP mechanism (this budget has no δ left)"
                if new.delta > 0 and left.delta < new.delta else "Lower ε")
        raise BudgetExceeded(
            f"Refused before computing anything: this release costs {new.text(b.notion)}"
            + (f" ({new.how})" if new.how else "")
            + f" but only {left.text(b.notion)} remain of the budget {b.describe()} of “{name}” "
            f"(spent so far: {used.text(b.notion)}). {hint}, or unload and load the data again to raise its total "
            "(its spending is kept).")
    return new


def checked_budget(name: str, n: int, old: Budget, new: Budget, spent: Spend | tuple[float, float],
                   budget_open: bool) -> Budget:
    """The total ``new`` for an account (with its own ``n``) if allowed: any value while ``budget_open``;
    afterwards only lower; never below ``spent`` (in the notion's units). The notion may change only while the
    budget is open and only when what was spent can be counted in the new one as it was: nothing spent, or
    pure → (ε, δ) (the same units). Spending in one notion has no exact expression in another's, and the stored
    spending is never recomputed. Raises DPValueError naming the rule otherwise."""
    if not isinstance(new, Budget):
        raise DPValueError(f"a budget must be a Budget; got {type(new).__name__}.")
    used = _as_spend(spent)
    if new.notion != old.notion:
        if not budget_open:
            raise DPValueError(f"the budget of “{name}” ({old.describe()}) counts as {NOTION_LABELS[old.notion]}; "
                               "its notion cannot change after a release. Unload the dataset and load it again "
                               "to choose another notion before its next release.")
        carried = used == Spend() or (old.notion == "pure" and new.notion == "approx")
        if not carried and (used.epsilon, used.delta, used.rho) != (0.0, 0.0, 0.0):
            raise DPValueError(f"“{name}” has spent {used.text(old.notion)} counted as {NOTION_LABELS[old.notion]}; "
                               f"that spending cannot be counted as {NOTION_LABELS[new.notion]}. Keep the notion "
                               f"{old.notion!r} for this dataset.")
    if new.notion == "zcdp":
        if cast(float, new.rho) < used.rho * (1 - _TOL):
            raise DPValueError(f"a total of {new.describe()} is below what “{name}” has already spent "
                               f"({used.text('zcdp')}); choose at least that.")
    elif new.epsilon < used.epsilon * (1 - _TOL) or new.delta < used.delta * (1 - _TOL):
        raise DPValueError(f"a total of {new.describe()} is below what “{name}” has already spent "
                           f"({used.text(new.notion)}); choose at least that.")
    raised = (new.notion != old.notion or new.delta > old.delta
              or (new.allow_large_delta and not old.allow_large_delta)
              or (cast(float, new.rho) > cast(float, old.rho) if new.notion == "zcdp" else new.epsilon > old.epsilon))
    if not budget_open and raised:
        raise DPValueError(f"the budget of “{name}” ({old.describe()}) cannot be raised after a release; "
                           "unload the dataset and load it again to set a new total (its spending is kept).")
    return dataclasses.replace(new, n=n) if new.n != n else new


@dataclass(frozen=True)
class AccountSummary:
    """What the Data page and the ledger show of one account (:meth:`DatasetAccount.summary`).

    Attributes
    ----------
    notion, notion_label : the budget's notion and its words.
    total, spent, remaining : Spend — in the notion's units (ρ for ``"zcdp"``, (ε, δ) otherwise).
    guarantee : (ε, δ) — what the whole budget guarantees (for ``"zcdp"``: the tight conversion of ρ at δ).
    tight_epsilon : float or None
        The tight ε at the budget's δ of the listed DP releases by a PLD accountant
        (:func:`dpcore.privacy.pld.tight_epsilon`): what the same releases would cost had they been fixed in
        advance — not a privacy filter, not enforced. None when the budget's δ is 0 (a pure budget: its total is
        already exact) or nothing was released.
    n_releases : releases counted as DP.
    total_text, spent_text, remaining_text, guarantee_text, tight_text : str
        Display strings with enough digits to show any spending (a spent amount rounded UP, a remaining amount
        DOWN; positional notation, never ``1e+06``), e.g. ``"ρ = 0.02"``, ``"ε = 999970, δ = 0"``.
    conversions : tuple of str — how each release's cost was converted into the budget (empty where none was).
    """

    notion: str
    notion_label: str
    total: Spend
    spent: Spend
    remaining: Spend
    guarantee: tuple[float, float]
    tight_epsilon: float | None
    n_releases: int
    total_text: str
    spent_text: str
    remaining_text: str
    guarantee_text: str
    tight_text: str
    conversions: tuple[str, ...]


def _digits_for(total: Spend, parts: Iterable[Spend], notion: str) -> int:
    """Significant digits enough that the smallest spending shows beside the total (4 to 15)."""
    key = (lambda s: s.rho) if notion == "zcdp" else (lambda s: s.epsilon)
    small = [key(p) for p in parts if key(p) > 0]
    return digits_to_show(key(total), min(small) if small else 0.0)


def _spend_words(s: Spend, notion: str, digits: int, up: bool) -> str:
    f = _up if up else _down
    if notion == "zcdp":
        return f"ρ = {f(s.rho, digits)}"
    d = _digits(s.delta, 3, up)
    return f"ε = {f(s.epsilon, digits)}, δ = {'0' if d == 0 else f'{d:.3g}'}"


@dataclass
class DatasetAccount:
    """What one user dataset may spend and has spent in this session (append-only).

    Mutable on purpose, kept by :class:`~dpcore.privacy.ReleaseSession` per dataset identity.

    Attributes
    ----------
    fingerprint : str
        The dataset's identity: its content fingerprint without bounds (``Dataset.fingerprint(include_bounds=False)``).
    name : str
        Display name (the file name).
    n : int
        Rows.
    budget : Budget
        The total.
    entries : list of LedgerEntry
        Every release charged to this dataset (counted as DP or not), never removed. A counted entry holds its
        :class:`Spend` (``entry.spend``), decided when it was charged.
    budget_open : bool
        True until the first DP release after the data was loaded: the total may then be raised.
    columns : tuple of str
        The column names (declared by the file; what an uploaded ledger is matched by, with name and n).
    """

    fingerprint: str
    name: str
    n: int
    budget: Budget
    entries: list[LedgerEntry] = field(default_factory=list)
    budget_open: bool = True
    columns: tuple[str, ...] = ()

    @property
    def counted(self) -> list[LedgerEntry]:
        return [e for e in self.entries if e.counted_as_dp]

    def used(self) -> Spend:
        """What was spent, in the budget's units: the sum of the entries' stored :class:`Spend` (never
        recomputed from their costs)."""
        total = Spend()
        for e in self.counted:
            total = total + (e.spend if e.spend is not None else Spend())
        return Spend(total.epsilon, total.delta, total.rho)

    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent (pure and (ε, δ) budgets); for a ρ-zCDP budget the (ε, δ) its spent ρ guarantees at the
        budget's δ (the tight conversion)."""
        u = self.used()
        if self.budget.notion == "zcdp":
            return (float(zcdp_to_approx(u.rho, self.budget.delta)) if u.rho > 0 else 0.0,
                    self.budget.delta if u.rho > 0 else 0.0)
        return float(u.epsilon), float(u.delta)

    def remaining(self) -> tuple[float, float]:
        """(ε, δ) left (never below 0); for a ρ-zCDP budget the (ε, δ) that the remaining ρ guarantees at the
        budget's δ (:meth:`summary` gives the remaining ρ itself)."""
        if self.budget.notion == "zcdp":
            left = remaining_of(self.budget, self.used()).rho
            return (float(zcdp_to_approx(left, self.budget.delta)) if left > 0 else 0.0, self.budget.delta)
        eps, delta = self.spent()
        return max(self.budget.epsilon - eps, 0.0), max(self.budget.delta - delta, 0.0)

    def totals(self) -> LedgerTotals:
        """Totals of this dataset's DP releases: the enforced one (the sum of the stored spends, in the budget's
        units) and the tight PLD ε at the budget's δ (:func:`dpcore.privacy.pld.tight_epsilon`)."""
        t = PrivacyLedger(list(self.entries)).totals(self.budget.delta if self.budget.delta > 0 else None)
        u = self.used()
        return dataclasses.replace(t, enforced=u, notion=self.budget.notion, tight_epsilon=self._tight())

    def _tight(self) -> float | None:
        from .pld import tight_epsilon

        costs = [e.cost for e in self.counted]
        if not costs or not self.budget.delta > 0:
            return None
        return tight_epsilon(costs, self.budget.delta)

    def summary(self) -> AccountSummary:
        """The account in the budget's notion, with display strings (see :class:`AccountSummary`).

        >>> a = DatasetAccount("k", "d.csv", 10**7, Budget(1e6, 0.0, notion="pure"))
        >>> a.record(LedgerEntry("mean", PrivacyCost.pure(30.0)))
        >>> s = a.summary(); s.spent_text, s.remaining_text
        ('ε = 30, δ = 0', 'ε = 999970, δ = 0')
        """
        b, u = self.budget, self.used()
        total, left = b.total(), remaining_of(b, u)
        parts = [e.spend for e in self.counted if e.spend is not None]
        d = _digits_for(total, parts, b.notion)
        tight = self._tight()
        guarantee = (b.epsilon, b.delta)
        if b.notion == "zcdp":
            g_text = f"ε = {_down(b.epsilon, 6)}, δ = {_g(b.delta)} (ρ-zCDP filter, tight conversion)"
        else:
            g_text = f"ε = {_g(b.epsilon)}, δ = {_g(b.delta)}"
        t_text = ("" if tight is None else
                  f"ε = {_up(tight, 4)} at δ = {_g(b.delta)} (PLD accountant, dp-accounting): what the same "
                  "releases would cost had they been fixed in advance — not enforced")
        return AccountSummary(b.notion, NOTION_LABELS[b.notion], total, u, left, guarantee, tight, len(self.counted),
                              _spend_words(total, b.notion, d, up=False), _spend_words(u, b.notion, d, up=True),
                              _spend_words(left, b.notion, d, up=False), g_text, t_text,
                              tuple(e.spend.how for e in self.counted if e.spend is not None and e.spend.how))

    def fits(self, cost: PrivacyCost | Iterable[PrivacyCost]) -> bool:
        try:
            self.check(cost)
        except DPValueError:
            return False
        return True

    def check(self, cost: PrivacyCost | Iterable[PrivacyCost]) -> Spend:
        """The :class:`Spend` of ``cost`` (one or the costs of one click) in the budget's units; raise
        :class:`BudgetExceeded` (naming the cost, what remains and the fix) if it does not fit, if the notion
        cannot count it, or if a draw's δ is ≥ 1/n without the override."""
        return check_fits(self.name, self.n, self.budget, self.used(), cost)

    def record(self, entry: LedgerEntry) -> None:
        """Append a release (a DP one closes the budget to raising). A counted entry without its :class:`Spend`
        is converted now, when it is charged (:func:`~dpcore.privacy.notions.spend`); one whose cost the notion
        cannot count raises :class:`BudgetExceeded` (nothing recorded)."""
        if entry.counted_as_dp and entry.spend is None:
            try:
                s = spend(entry.cost, self.budget.notion,
                          delta_remaining=max(self.budget.delta - self.used().delta, 0.0))
            except NotionRefused as exc:
                raise BudgetExceeded(f"{exc} (Budget of “{self.name}”: {self.budget.describe()}.)") from None
            entry = dataclasses.replace(entry, spend=s)
        self.entries.append(entry)
        if entry.counted_as_dp:
            self.budget_open = False

    def set_budget(self, budget: Budget) -> None:
        """Set the total: any value while ``budget_open``; afterwards only lower. Never below what
        was spent; the notion only while open (:func:`checked_budget`)."""
        self.budget = checked_budget(self.name, self.n, self.budget, budget, self.used(), self.budget_open)

    def reopen(self, name: str | None = None) -> None:
        """The data was loaded again: its total may be raised until the next release (spending is kept)."""
        self.budget_open = True
        if name:
            self.name = str(name)


# -- released values in plain JSON types ---------------------------------------------------------
def released_value(value: Any, max_items: int = MAX_VALUE_ITEMS) -> Any:
    """A released value in plain JSON types, for the ledger file: numbers, lists, dicts of them.

    Arrays longer than ``max_items`` keep their first ``max_items`` numbers and say how many there
    were; non-finite floats become strings (``"nan"``, ``"inf"``). Objects with a ``value``
    attribute (a Release) give that value only — never their diagnostics. Sparse matrices give
    their non-zero cells.

    >>> released_value(np.array([1.0, np.nan]))
    [1.0, 'nan']
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return x if math.isfinite(x) else str(x)
    if hasattr(value, "tocoo") and hasattr(value, "shape"):  # scipy.sparse
        coo = value.tocoo()
        return {"shape": list(coo.shape), "nonzero rows": released_value(coo.row, max_items),
                "nonzero cols": released_value(coo.col, max_items), "values": released_value(coo.data, max_items)}
    if isinstance(value, np.ndarray):
        flat = value.ravel()
        if flat.size > max_items:
            return {"shape": list(value.shape), "first values": released_value(flat[:max_items].tolist(), max_items),
                    "note": f"{flat.size} values; the first {max_items} kept"}
        return released_value(value.tolist(), max_items)
    if isinstance(value, Mapping):
        return {str(k): released_value(v, max_items) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) > max_items:
            return released_value(np.asarray(value, dtype=object), max_items)
        return [released_value(v, max_items) for v in value]
    if hasattr(value, "value") and hasattr(value, "cost"):  # a Release: its value only
        return released_value(value.value, max_items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: released_value(getattr(value, f.name), max_items) for f in dataclasses.fields(value)}
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "…"


# -- the ledger file ---------------------------------------------------------------------------
def _cost_dict(c: PrivacyCost) -> dict:
    return {"notion": c.notion, "epsilon": c.epsilon, "delta": c.delta, "rho": c.rho, "count": c.count,
            "neighbours": c.neighbours, "note": c.note}


def _entry_dict(e: LedgerEntry) -> dict:
    d = {"time": e.time, "release": e.label, "counted as DP": e.counted_as_dp, "not DP because": e.reason,
         "cost": _cost_dict(e.cost), "released value": e.value}
    if e.spend is not None:
        d["charged"] = {"epsilon": e.spend.epsilon, "delta": e.spend.delta, "rho": e.spend.rho, "how": e.spend.how}
    return d


def ledger_to_json(accounts: Iterable[DatasetAccount], other: Iterable[LedgerEntry] = ()) -> str:
    """The ledger file: per dataset what the user declared (its name, n, column names), its budget, spending and
    every release (time, cost, released value); then the releases on public demo data. No identity, hash or
    other number computed from the data is written except released values. Read back by :func:`ledger_from_json`."""
    datasets = []
    for a in accounts:
        u = a.used()
        budget = {"epsilon": a.budget.epsilon, "delta": a.budget.delta, "notion": a.budget.notion,
                  "allow delta ≥ 1/n": a.budget.allow_large_delta}
        if a.budget.rho is not None:
            budget["rho"] = a.budget.rho
        datasets.append({"name": a.name, "n": a.n, "columns": list(a.columns), "budget": budget,
                         "spent (budget's units)": {"epsilon": u.epsilon, "delta": u.delta, "rho": u.rho},
                         "releases": [_entry_dict(e) for e in a.entries]})
    doc = {"format": LEDGER_FORMAT, "version": LEDGER_VERSION,
           "saved": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "composition": ("each budget in its notion (pure ε and (ε, δ): basic composition; ρ-zCDP: a privacy "
                           "filter); each release's charge was converted once, when it was charged"),
           "datasets": datasets, "public demo data (not charged to a budget)": [_entry_dict(e) for e in other]}
    return json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False)


@dataclass(frozen=True)
class LedgerFile:
    """A ledger file read back: the accounts (with their entries) and the demo-data entries.

    An account read from a file has no identity (``fingerprint`` is ``""``) and its budget no n (``n=None``,
    no override): it is matched to a loaded dataset by what the user declared (name, n, column names), and n,
    the δ ≥ 1/n guard and its override then come from the loaded data and the workspace, never from the file.
    """

    accounts: tuple[DatasetAccount, ...]
    other: tuple[LedgerEntry, ...]
    saved: str


def json_document(text: str | bytes, fmt: str, version: Any, bad: Any) -> dict:
    """The JSON object of a file that must say ``format: fmt`` and ``version``; ``bad(where, what)`` builds the
    error naming what is wrong (not JSON, another format, another version). ``NaN``/``Infinity`` are not JSON."""
    def _no_constant(name: str) -> Any:
        raise ValueError(name)

    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, RecursionError, ValueError):
        raise bad("the file", "is not JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise bad("the file", f"does not say format “{fmt}”")
    if doc.get("version") != version:
        raise bad("the file", f"has version {str(doc.get('version'))[:10]}; this app reads version {version}")
    return doc


def _bad(where: str, what: str) -> DPValueError:
    return DPValueError(f"This is not a valid ledger file: {where} {what}. Upload the JSON file saved with "
                        "“Download ledger (JSON)”, unchanged.")


#: Caps of an uploaded file's fields: largest n and draw count, longest texts.
MAX_FILE_N, MAX_FILE_COUNT, MAX_FILE_TEXT, MAX_FILE_COLUMNS = 10**9, 10**9, 2000, 1000
_TEXT_CAPS = {"name": 200, "time": 40, "neighbours": 40, "saved": 40, "notion": 10}


def _field(obj: Any, name: str, types: type | tuple, where: str) -> Any:
    """The field ``name`` of ``obj``, of one of ``types`` (a bool only where bool is named), range-checked:
    integers within :data:`MAX_FILE_N`, floats finite, strings bounded."""
    if not isinstance(obj, dict) or name not in obj:
        raise _bad(where, f"has no “{name}”")
    v = obj[name]
    allowed = types if isinstance(types, tuple) else (types,)
    if not isinstance(v, allowed) or (isinstance(v, bool) and bool not in allowed):
        raise _bad(where, f"has “{name}” = {str(v)[:40]!r} of the wrong type")
    if isinstance(v, int) and not isinstance(v, bool) and not (-MAX_FILE_N <= v <= MAX_FILE_N):
        raise _bad(where, f"has “{name}” = {str(v)[:20]}…, outside ±{MAX_FILE_N:.0e}")
    if isinstance(v, float) and not math.isfinite(v):
        raise _bad(where, f"has “{name}” = {v!r}, not a finite number")
    if isinstance(v, str) and len(v) > _TEXT_CAPS.get(name, MAX_FILE_TEXT):
        raise _bad(where, f"has “{name}” longer than {_TEXT_CAPS.get(name, MAX_FILE_TEXT)} characters")
    return v


def _num(v: Any, where: str, name: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > 1e300:
        raise _bad(where, f"has “{name}” = {str(v)[:40]!r}, not a finite number")
    return float(v)


def _entry_from(d: Any, where: str) -> LedgerEntry:
    c = _field(d, "cost", dict, where)
    notion = _field(c, "notion", str, where + " cost")
    if notion not in NOTIONS:
        raise _bad(where, f"has an unknown notion {notion[:20]!r}")
    count = _field(c, "count", int, where + " cost")
    if not 1 <= count <= MAX_FILE_COUNT:
        raise _bad(where + " cost", f"has “count” = {count}, outside 1 … {MAX_FILE_COUNT:.0e}")
    extra = {k: _field(c, k, str, where + " cost") if k in c else "" for k in ("neighbours", "note")}
    try:
        cost = PrivacyCost(notion, epsilon=_num(c.get("epsilon"), where, "epsilon"),
                           delta=_num(c.get("delta", 0.0), where, "delta") or 0.0, rho=_num(c.get("rho"), where, "rho"),
                           neighbours=extra["neighbours"] or "replace-one", note=extra["note"], count=count)
        spend_text(cost)
    except (DPValueError, OverflowError) as exc:
        raise _bad(where, f"has an invalid cost ({exc})") from None
    counted = _field(d, "counted as DP", bool, where)
    reason = _field(d, "not DP because", str, where)
    if not counted and not reason:
        raise _bad(where, "is not counted as DP but gives no reason")
    charged = None
    if "charged" in d and counted:
        ch = _field(d, "charged", dict, where)
        nums = []
        for k in ("epsilon", "delta", "rho"):
            v = _num(_field(ch, k, (int, float), where + " charged"), where, k)
            if v is None or v < 0 or (k == "delta" and v >= 1):
                raise _bad(where + " charged", f"has “{k}” = {v!r}, outside its range (≥ 0; δ < 1)")
            nums.append(v)
        how = _field(ch, "how", str, where + " charged") if "how" in ch else ""
        charged = Spend(nums[0], nums[1], nums[2], how)
    return LedgerEntry(_field(d, "release", str, where), cost, None, counted, reason, _field(d, "time", str, where),
                       d.get("released value"), None, charged)


def _account_from(a: Any, where: str) -> DatasetAccount:
    name = _field(a, "name", str, where)
    n = _field(a, "n", int, where)
    if not 1 <= n <= MAX_FILE_N:
        raise _bad(where, f"has “n” = {n}, outside 1 … {MAX_FILE_N:.0e}")
    cols = a.get("columns", [])
    if not (isinstance(cols, list) and len(cols) <= MAX_FILE_COLUMNS
            and all(isinstance(x, str) and len(x) <= 200 for x in cols)):
        raise _bad(where, f"has “columns” that are not a list of at most {MAX_FILE_COLUMNS} names")
    b = _field(a, "budget", dict, where)
    if "allow delta ≥ 1/n" in b:    # checked (only true/false), never used: the workspace decides the override
        _field(b, "allow delta ≥ 1/n", bool, where + " budget")
    notion = _field(b, "notion", str, where + " budget") if "notion" in b else "approx"   # older files: (ε, δ)
    if notion not in BUDGET_NOTIONS:
        raise _bad(where + " budget", f"has an unknown notion {notion!r}; use one of {BUDGET_NOTIONS}")
    rho = _num(_field(b, "rho", (int, float), where + " budget"), where, "rho") if b.get("rho") is not None else None
    try:   # n and the override are the loaded data's and the workspace's: not taken from the file
        budget = Budget(cast(float, _num(_field(b, "epsilon", (int, float), where + " budget"), where, "epsilon")),
                        cast(float, _num(_field(b, "delta", (int, float), where + " budget"), where, "delta")),
                        notion=notion, rho=rho)
    except DPValueError as exc:
        raise _bad(where, f"has an invalid budget ({exc})") from None
    acct = DatasetAccount("", name, n, budget, [], columns=tuple(cols))
    for j, e in enumerate(_field(a, "releases", list, where)):
        entry = _entry_from(e, f"{where}, release {j + 1}")
        ch = entry.spend
        if ch is not None and ((ch.epsilon or ch.delta) if notion == "zcdp" else ch.rho):
            raise _bad(f"{where}, release {j + 1}", f"has a charge that is not in its budget's units ({notion})")
        try:    # a release without its charge (an older file) is converted into the budget's notion here
            acct.record(entry)
        except BudgetExceeded as exc:
            raise _bad(f"{where}, release {j + 1}", f"cannot be counted in its budget ({exc})") from None
    acct.budget_open = not acct.counted
    u = acct.used()
    if not fits(notion, spent=Spend(), new=u, epsilon=budget.epsilon, delta=budget.delta, rho=budget.rho or 0.0):
        raise _bad(where, f"spent {u.text(notion)}, more than its budget {budget.describe()}")
    return acct


def ledger_from_json(data: bytes | str) -> LedgerFile:
    """Read and check a ledger file written by :func:`ledger_to_json`: every field range-checked (integers
    within caps, floats finite, strings bounded, booleans only ``true``/``false``).

    Raises
    ------
    DPValueError
        Naming what is wrong (not JSON, another format, a missing or invalid field, a budget below
        its own spending) — never a traceback.
    """
    if isinstance(data, bytes):
        if len(data) > MAX_LEDGER_BYTES:
            raise DPValueError(f"The ledger file is {len(data) / 2**20:.1f} MB; at most {MAX_LEDGER_BYTES // 2**20} MB "
                               "is read. Upload the JSON file saved with “Download ledger (JSON)”.")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _bad("the file", "is not UTF-8 text") from None
    doc = json_document(data, LEDGER_FORMAT, LEDGER_VERSION, _bad)
    accounts, seen = [], set()
    for i, a in enumerate(_field(doc, "datasets", list, "the file")):
        acct = _account_from(a, f"dataset {i + 1}")
        declared = (acct.name, acct.n, tuple(sorted(acct.columns)))
        if declared in seen:
            raise _bad(f"dataset {i + 1}", "repeats a dataset listed before")
        seen.add(declared)
        accounts.append(acct)
    demo_key = "public demo data (not charged to a budget)"
    demo = _field(doc, demo_key, list, "the file") if demo_key in doc else []
    other = tuple(_entry_from(e, f"demo release {j + 1}") for j, e in enumerate(demo))
    if any(e.counted_as_dp for e in other):
        raise _bad("a demo release", "is counted as DP (releases on public demo data never are)")
    saved = _field(doc, "saved", str, "the file") if "saved" in doc else ""
    return LedgerFile(tuple(accounts), other, saved)

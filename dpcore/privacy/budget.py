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

**Composition rule (what a budget counts).** Basic composition: a release of k draws costs
(kε, kδ) — ε-DP and ε-LDP draws (kε, 0), (ε, δ)-DP draws (kε, kδ) — and a ρ-zCDP release is first
converted to (ε(kρ, δ_z), δ_z)-DP at δ_z = :data:`ZCDP_DELTA` (tight conversion, Canonne, Kamath &
Steinke 2020). The ε's and δ's of the releases add. Basic composition holds when each release's
parameters are chosen after seeing the earlier results (a *privacy filter*: Rogers, Roth, Ullman &
Vadhan 2016, Thm 3.6), which is how a user of this app works; the zCDP total the ledger also shows
is often smaller but is given for information, not enforced. A budget with δ = 0 therefore refuses
every (ε, δ)-DP and zCDP release.

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
from .accounting import NOTIONS, PrivacyCost
from .ledger import LedgerEntry, LedgerTotals, PrivacyLedger

__all__ = [
    "DEFAULT_BUDGET_EPSILON",
    "LEDGER_FORMAT",
    "MAX_LEDGER_BYTES",
    "ZCDP_DELTA",
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
    "spend",
    "spend_text",
]

#: δ at which a zCDP release is converted to (ε, δ) for the budget and the ledger's basic total.
ZCDP_DELTA = 1e-6
#: The total ε a dataset gets unless the user sets another (before its first release).
DEFAULT_BUDGET_EPSILON = 3.0
#: The ledger file's format tag and version.
LEDGER_FORMAT, LEDGER_VERSION = "dp-mechanism-explorer ledger", 1
#: Largest ledger file read back (bytes).
MAX_LEDGER_BYTES = 5 * 2**20
#: Released values kept per ledger entry (numbers; longer arrays are cut and say so).
MAX_VALUE_ITEMS = 2000
_TOL = 1e-9  # relative slack so that 3 releases of ε = 1 fit a total of 3 (floating-point sums)


# -- costs as (ε, δ) spending ------------------------------------------------------------------
def spend(cost: PrivacyCost) -> tuple[float, float]:
    """The (ε, δ) a release takes off a budget: basic composition of its draws; zCDP converted at
    :data:`ZCDP_DELTA`.

    >>> spend(PrivacyCost.pure(1.0, count=10)), spend(PrivacyCost.approx(1.0, 1e-6, count=2))
    ((10.0, 0.0), (2.0, 2e-06))
    """
    if not isinstance(cost, PrivacyCost):
        raise DPValueError(f"a cost must be a PrivacyCost; got {type(cost).__name__}.")
    eps, delta = cost.as_approx(ZCDP_DELTA)
    return float(eps), float(delta)


def _g(x: float) -> str:
    return "0" if x == 0 else f"{x:.4g}"


def spend_text(cost: PrivacyCost | Iterable[PrivacyCost]) -> str:
    """The total (ε, δ) of a click in words, e.g. ``"ε = 2, δ = 0"``; zCDP also gives its ρ.

    >>> spend_text([PrivacyCost.pure(1.0), PrivacyCost.pure(1.0)])
    'ε = 2, δ = 0'
    >>> spend_text(PrivacyCost.zcdp(0.5))
    'ρ = 0.5 ⇒ ε = 5.222, δ = 1e-06'
    """
    costs = [cost] if isinstance(cost, PrivacyCost) else list(cost)
    eps = sum(spend(c)[0] for c in costs)
    delta = sum(spend(c)[1] for c in costs)
    rho = [cast(float, c.rho) * c.count for c in costs if c.notion == "zcdp"]
    head = f"ρ = {_g(sum(rho))} ⇒ " if rho else ""
    return f"{head}ε = {_g(eps)}, δ = {_g(delta)}"


def short_cost(cost: PrivacyCost) -> str:
    """A short cost cell: ``"ε=1"``, ``"100 × ε=0.5"``, ``"ρ=0.125"``, ``"ε=1, δ=1e-05"``."""
    if cost.notion == "zcdp":
        core = f"ρ={cost.rho:.3g}"
    elif cost.notion == "approx":
        core = f"ε={cost.epsilon:.3g}, δ={cost.delta:.2g}"
    elif cost.notion == "ldp":
        core = f"ε={cost.epsilon:.3g} (local)"
    else:
        core = f"ε={cost.epsilon:.3g}"
    return core if cost.count == 1 else f"{cost.count} × {core}"


# -- the budget --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Budget:
    """A dataset's total privacy budget (ε, δ) under basic composition (see the module docstring).

    Attributes
    ----------
    epsilon : float
        Total ε (> 0, finite).
    delta : float
        Total δ in [0, 1).
    n : int or None
        Rows of the dataset (public: the app never drops rows). With n, δ ≥ 1/n is refused unless
        ``allow_large_delta``.
    allow_large_delta : bool
        The explicit override for δ ≥ 1/n.
    """

    epsilon: float
    delta: float = 0.0
    n: int | None = None
    allow_large_delta: bool = False

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "total epsilon"))
        try:
            delta = float(self.delta)
        except (TypeError, ValueError):
            raise DPValueError(f"total delta = {self.delta!r} is not a number; use 0 ≤ delta < 1.") from None
        if not (0.0 <= delta < 1.0):
            raise DPValueError(f"total delta = {delta:g} must satisfy 0 ≤ delta < 1 (e.g. 1e-6).")
        object.__setattr__(self, "delta", delta)
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

    def describe(self) -> str:
        """``"ε = 3, δ = 1e-05"``."""
        return f"ε = {_g(self.epsilon)}, δ = {_g(self.delta)}"


def default_budget(n: int) -> Budget:
    """The budget a dataset gets unless the user sets another: ε = :data:`DEFAULT_BUDGET_EPSILON`,
    δ = min(1e-5, 1/(10n)) (well below 1/n).

    >>> default_budget(442)
    Budget(epsilon=3.0, delta=1e-05, n=442, allow_large_delta=False)
    >>> default_budget(50_000).delta
    2e-06
    """
    return Budget(DEFAULT_BUDGET_EPSILON, float(f"{min(1e-5, 0.1 / int(n)):.3g}"), n=int(n))


class BudgetExceeded(DPValueError):
    """A release refused because its cost exceeds what remains of its dataset's budget (nothing computed)."""


def check_fits(name: str, n: int, budget: Budget, spent: tuple[float, float],
               cost: PrivacyCost | Iterable[PrivacyCost]) -> None:
    """Raise :class:`BudgetExceeded` if ``cost`` (one or the costs of one click) does not fit what remains of
    ``budget`` after ``spent`` = (ε, δ), or if a draw's δ is ≥ 1/n without the override. The one rule every
    account (in memory or in :mod:`dpcore.store`) checks with."""
    costs = [cost] if isinstance(cost, PrivacyCost) else list(cost)
    b = budget
    for c in costs:
        d = spend(c)[1] / c.count  # per draw
        if d >= 1.0 / n and not b.allow_large_delta:
            raise BudgetExceeded(
                f"Refused before computing anything: δ = {_g(d)} per draw is ≥ 1/n = {1.0 / n:.3g} "
                f"(n = {n}): a mechanism with δ that large may publish a whole record. Lower δ below 1/n, "
                "or set the budget with the override for δ ≥ 1/n on the Data page.")
    eps = sum(spend(c)[0] for c in costs)
    delta = sum(spend(c)[1] for c in costs)
    s_eps, s_delta = spent
    r_eps, r_delta = max(b.epsilon - s_eps, 0.0), max(b.delta - s_delta, 0.0)
    if s_eps + eps > b.epsilon * (1 + _TOL) or s_delta + delta > b.delta * (1 + _TOL) + 1e-300:
        raise BudgetExceeded(
            f"Refused before computing anything: this release costs ε = {_g(eps)}, δ = {_g(delta)} but only "
            f"ε = {_g(r_eps)}, δ = {_g(r_delta)} remain of the budget {b.describe()} of “{name}” "
            f"(spent so far: ε = {_g(s_eps)}, δ = {_g(s_delta)}). Lower ε"
            + (", use a pure ε-DP mechanism (this budget has no δ)" if b.delta == 0 and delta > 0 else "")
            + ", or unload and load the data again to raise its total (its spending is kept).")


def checked_budget(name: str, n: int, old: Budget, new: Budget, spent: tuple[float, float], budget_open: bool
                   ) -> Budget:
    """The total ``new`` for an account (with its own ``n``) if allowed: any value while ``budget_open``;
    afterwards only lower; never below ``spent``. Raises DPValueError naming the rule otherwise."""
    if not isinstance(new, Budget):
        raise DPValueError(f"a budget must be a Budget; got {type(new).__name__}.")
    s_eps, s_delta = spent
    if new.epsilon < s_eps * (1 - _TOL) or new.delta < s_delta * (1 - _TOL):
        raise DPValueError(f"a total of {new.describe()} is below what “{name}” has already spent "
                           f"(ε = {_g(s_eps)}, δ = {_g(s_delta)}); choose at least that.")
    if not budget_open and (new.epsilon > old.epsilon or new.delta > old.delta
                            or (new.allow_large_delta and not old.allow_large_delta)):
        raise DPValueError(f"the budget of “{name}” ({old.describe()}) cannot be raised after a release; "
                           "unload the dataset and load it again to set a new total (its spending is kept).")
    return dataclasses.replace(new, n=n) if new.n != n else new


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
        Every release charged to this dataset (counted as DP or not), never removed.
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

    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent: the sum of :func:`spend` over the releases counted as DP."""
        parts = [spend(e.cost) for e in self.counted]
        return float(sum(p[0] for p in parts)), float(sum(p[1] for p in parts))

    def remaining(self) -> tuple[float, float]:
        """(ε, δ) left (never below 0)."""
        eps, delta = self.spent()
        return max(self.budget.epsilon - eps, 0.0), max(self.budget.delta - delta, 0.0)

    def totals(self) -> LedgerTotals:
        """Basic-composition and zCDP totals of this dataset's DP releases (zCDP converted at :data:`ZCDP_DELTA`)."""
        return PrivacyLedger(list(self.entries)).totals(ZCDP_DELTA)

    def fits(self, cost: PrivacyCost | Iterable[PrivacyCost]) -> bool:
        try:
            self.check(cost)
        except DPValueError:
            return False
        return True

    def check(self, cost: PrivacyCost | Iterable[PrivacyCost]) -> None:
        """Raise :class:`BudgetExceeded` (naming the cost and what remains) if ``cost`` (one or the
        costs of one click) does not fit, or if a draw's δ is ≥ 1/n without the override."""
        check_fits(self.name, self.n, self.budget, self.spent(), cost)

    def record(self, entry: LedgerEntry) -> None:
        """Append a release (a DP one closes the budget to raising)."""
        self.entries.append(entry)
        if entry.counted_as_dp:
            self.budget_open = False

    def set_budget(self, budget: Budget) -> None:
        """Set the total: any value while ``budget_open``; afterwards only lower. Never below what
        was spent."""
        self.budget = checked_budget(self.name, self.n, self.budget, budget, self.spent(), self.budget_open)

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
    eps, delta = spend(e.cost)
    return {"time": e.time, "release": e.label, "counted as DP": e.counted_as_dp, "not DP because": e.reason,
            "cost": _cost_dict(e.cost), "cost (ε, δ) under basic composition": [eps, delta],
            "released value": e.value}


def ledger_to_json(accounts: Iterable[DatasetAccount], other: Iterable[LedgerEntry] = ()) -> str:
    """The ledger file: per dataset what the user declared (its name, n, column names), its budget, spending and
    every release (time, cost, released value); then the releases on public demo data. No identity, hash or
    other number computed from the data is written except released values. Read back by :func:`ledger_from_json`."""
    datasets = []
    for a in accounts:
        eps, delta = a.spent()
        datasets.append({"name": a.name, "n": a.n, "columns": list(a.columns),
                         "budget": {"epsilon": a.budget.epsilon, "delta": a.budget.delta,
                                    "allow delta ≥ 1/n": a.budget.allow_large_delta},
                         "spent (basic composition)": {"epsilon": eps, "delta": delta},
                         "releases": [_entry_dict(e) for e in a.entries]})
    doc = {"format": LEDGER_FORMAT, "version": LEDGER_VERSION,
           "saved": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "composition": f"basic: ε's and δ's add; zCDP converted at δ = {ZCDP_DELTA:g} per release",
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
_TEXT_CAPS = {"name": 200, "time": 40, "neighbours": 40, "saved": 40}


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
        spend(cost)
    except (DPValueError, OverflowError) as exc:
        raise _bad(where, f"has an invalid cost ({exc})") from None
    counted = _field(d, "counted as DP", bool, where)
    reason = _field(d, "not DP because", str, where)
    if not counted and not reason:
        raise _bad(where, "is not counted as DP but gives no reason")
    return LedgerEntry(_field(d, "release", str, where), cost, None, counted, reason, _field(d, "time", str, where),
                       d.get("released value"), None)


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
    try:   # n and the override are the loaded data's and the workspace's: not taken from the file
        budget = Budget(cast(float, _num(_field(b, "epsilon", (int, float), where + " budget"), where, "epsilon")),
                        cast(float, _num(_field(b, "delta", (int, float), where + " budget"), where, "delta")))
    except DPValueError as exc:
        raise _bad(where, f"has an invalid budget ({exc})") from None
    entries = [_entry_from(e, f"{where}, release {j + 1}") for j, e in enumerate(_field(a, "releases", list, where))]
    acct = DatasetAccount("", name, n, budget, entries, budget_open=not any(e.counted_as_dp for e in entries),
                          columns=tuple(cols))
    s_eps, s_delta = acct.spent()
    if s_eps > budget.epsilon * (1 + _TOL) or s_delta > budget.delta * (1 + _TOL) + 1e-300:
        raise _bad(where, f"spent ε = {_g(s_eps)}, δ = {_g(s_delta)}, more than its budget {budget.describe()}")
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

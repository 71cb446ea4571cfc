"""The session's privacy ledger: what was released, its cost, and whether that cost is ε-DP.

One :class:`PrivacyLedger` lives in each user session (never at module level). An entry is either
*counted as DP* (its cost enters the totals) or not: a release whose randomness was a seed fixed
on purpose ("reproducible demo": anyone who knows the seed recomputes the noise), or whose bounds
were taken from the data, or a non-private teaching view. Those are listed with the reason and
kept out of the totals — a total that included them would claim a guarantee they do not have.
"""
from __future__ import annotations

from typing import cast

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

from .._validation import DPValueError, check_delta
from ..numbers import number
from .accounting import (
    _NOTION_LABEL,
    PrivacyCost,
    compose_basic,
    compose_zcdp,
    zcdp_to_approx,
)
from .notions import Spend

__all__ = ["LedgerEntry", "LedgerTotals", "PrivacyLedger"]


@dataclass(frozen=True)
class LedgerEntry:
    """One release in the ledger.

    Attributes
    ----------
    label : str
        What was released, in words (data, column(s), mechanism, ε, τ, norm, draws).
    cost : PrivacyCost
        Its cost (per-draw numbers × count).
    key : tuple or None
        The release key (a rerun of the same key is not recorded twice).
    counted_as_dp : bool
        False when the release is not DP as run (see ``reason``); its cost is then left out of the
        totals and shown apart.
    reason : str
        Why it is not counted as DP (empty when it is).
    time : str
        When it was released (ISO 8601, UTC; empty for entries made without one).
    value : Any
        The released value in plain JSON types (:func:`dpcore.privacy.budget.released_value`), or None.
    dataset : str or None
        The identity (content fingerprint) of the user's dataset it was charged to; None for demo data.
    spend : Spend or None
        What it took off its dataset's budget, in the budget's units, decided once when it was charged
        (:func:`dpcore.privacy.notions.spend`; ``spend.how`` says how its cost was converted). None for a
        release not charged to a budget.
    """

    label: str
    cost: PrivacyCost
    key: tuple | None = None
    counted_as_dp: bool = True
    reason: str = ""
    time: str = ""
    value: Any = None
    dataset: str | None = None
    spend: Spend | None = None


@dataclass(frozen=True)
class LedgerTotals:
    """Totals of a ledger's DP-counted entries under basic and zCDP composition.

    ``n_releases`` counts the entries counted as DP; ``n_not_dp`` the others (not in any total). Without a δ
    (``delta`` None) no ρ-zCDP entry is converted: ``basic_epsilon``/``basic_delta`` add the ε-DP and (ε, δ)-DP
    entries and ``basic_rho`` the ρ of the zCDP ones, said apart. A dataset's totals
    (:meth:`~dpcore.privacy.budget.DatasetAccount.totals`) also give ``enforced`` (the sum of the stored spends,
    in the budget's ``notion``) and ``tight_epsilon`` (PLD accountant at the budget's δ; not enforced).
    """

    n_releases: int
    basic_epsilon: float
    basic_delta: float
    zcdp_rho: float | None
    zcdp_epsilon: float | None
    delta: float | None
    n_not_dp: int = 0
    basic_rho: float = 0.0
    enforced: Spend | None = None
    notion: str | None = None
    tight_epsilon: float | None = None


@dataclass
class PrivacyLedger:
    """The releases made in one user session and their privacy costs.

    Mutable on purpose: one instance lives in each Streamlit session's ``st.session_state``
    (never at module level). Re-running a release with the same key is not counted twice.

    >>> ledger = PrivacyLedger()
    >>> ledger.add("mean of age", PrivacyCost.pure(1.0, count=100), key=("a",))
    True
    >>> ledger.add("median of age", PrivacyCost.pure(1.0), key=("b",), counted_as_dp=False,
    ...            reason="not DP: bounds taken from the data")
    True
    >>> t = ledger.totals()
    >>> (t.n_releases, t.basic_epsilon, t.zcdp_rho, t.n_not_dp)
    (1, 100.0, 50.0, 1)
    """

    entries: list[LedgerEntry] = field(default_factory=list)

    def add(self, label: str, cost: PrivacyCost, key: tuple | None = None, *, counted_as_dp: bool = True,
            reason: str = "", time: str | None = None, value: Any = None, dataset: str | None = None) -> bool:
        """Record a release (``time``: now, UTC, unless given); return False (and record nothing) if
        ``key`` was recorded before."""
        if not isinstance(cost, PrivacyCost):
            raise DPValueError(f"cost must be a PrivacyCost; got {type(cost).__name__}.")
        if not counted_as_dp and not reason:
            raise DPValueError("an entry not counted as DP needs a reason (shown in the ledger).")
        if key is not None and any(e.key == key for e in self.entries):
            return False
        time = datetime.now(timezone.utc).isoformat(timespec="seconds") if time is None else str(time)
        self.entries.append(LedgerEntry(str(label), cost, key, bool(counted_as_dp), str(reason), time, value, dataset))
        return True

    def clear(self) -> None:
        """Empty this list. It is a display: the spending of a user's dataset is kept by its
        :class:`~dpcore.privacy.budget.DatasetAccount`, which nothing clears."""
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def counted(self) -> list[LedgerEntry]:
        """Entries whose cost is counted as DP."""
        return [e for e in self.entries if e.counted_as_dp]

    @property
    def not_counted(self) -> list[LedgerEntry]:
        """Entries that are not DP as run (listed apart, in no total)."""
        return [e for e in self.entries if not e.counted_as_dp]

    def totals(self, delta: float | None = None) -> LedgerTotals:
        """Basic composition and zCDP composition of the entries counted as DP; the others are only counted
        (``n_not_dp``). With ``delta``, each zCDP entry is converted at ``delta`` into the basic total and the zCDP
        total is read at ``delta``; without it (the default: there is no fixed conversion δ) the zCDP entries'
        ρ is added apart (``basic_rho``)."""
        delta = None if delta is None else check_delta(delta)
        costs = [e.cost for e in self.counted]
        n_not = len(self.entries) - len(costs)
        if not costs:
            return LedgerTotals(0, 0.0, 0.0, 0.0, None if delta is None else 0.0, delta, n_not)
        z = compose_zcdp(costs)
        rho = None if z is None else z.rho
        eps_z = None if rho is None or delta is None else zcdp_to_approx(rho, delta)
        if delta is not None:
            basic = compose_basic(costs, delta_for_zcdp=delta)
            return LedgerTotals(len(costs), float(cast(float, basic.epsilon)), float(basic.delta), rho, eps_z, delta,
                                n_not)
        others = [c for c in costs if c.notion != "zcdp"]
        b_rho = float(sum(c.count * cast(float, c.rho) for c in costs if c.notion == "zcdp"))
        b_eps = float(sum(c.count * cast(float, c.epsilon) for c in others))
        b_delta = float(sum(c.count * float(c.delta) for c in others))
        return LedgerTotals(len(costs), b_eps, b_delta, rho, eps_z, None, n_not, b_rho)

    def to_frame(self, names: Mapping[str, str] | None = None):
        """The entries as a pandas DataFrame, one row per release, in words (ε, δ, ρ per draw × draws).

        The ``dataset`` column gives the dataset's name from ``names`` (identity → name), never its identity:
        a downloaded file holds no identity or hash of the data."""
        names = names or {}
        import pandas as pd

        import json

        from .budget import short_cost

        columns = ["time (UTC)", "release", "counted as DP", "not DP because", "cost", "ε (all draws)",
                   "δ (all draws)", "guarantee", "draws", "ε per draw", "δ per draw", "ρ per draw",
                   "ρ (zCDP, all draws)", "charged (budget's units)", "conversion", "neighbours", "dataset",
                   "released value", "note"]
        rows = [
            {
                "time (UTC)": e.time,
                "release": e.label,
                "cost": short_cost(e.cost),
                # a zCDP release's (ε, δ) depends on a δ: its cost is its ρ (never converted at a fixed δ)
                "ε (all draws)": None if e.cost.notion == "zcdp" else e.cost.count * float(e.cost.epsilon or 0.0),
                "δ (all draws)": None if e.cost.notion == "zcdp" else e.cost.count * float(e.cost.delta),
                "counted as DP": "yes" if e.counted_as_dp else "no",
                "not DP because": e.reason,
                "guarantee": _NOTION_LABEL[e.cost.notion],
                "draws": e.cost.count,
                "ε per draw": e.cost.epsilon,
                "δ per draw": e.cost.delta,
                "ρ per draw": e.cost.rho,
                "ρ (zCDP, all draws)": e.cost.as_zcdp_rho(),
                "charged (budget's units)": _charged(e.spend),
                "conversion": "" if e.spend is None else e.spend.how,
                "neighbours": e.cost.neighbours,
                "dataset": names.get(e.dataset, "your data") if e.dataset else "",
                "released value": "" if e.value is None else json.dumps(e.value, ensure_ascii=False),
                "note": e.cost.note,
            }
            for e in self.entries
        ]
        return pd.DataFrame(rows, columns=columns)


def _charged(s: Spend | None) -> str:
    if s is None:
        return ""
    if s.rho and not (s.epsilon or s.delta):
        return f"ρ = {number(s.rho, 6)}"
    return f"ε = {number(s.epsilon, 6)}, δ = {number(s.delta, 3)}"

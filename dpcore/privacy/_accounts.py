"""Where a :class:`~dpcore.privacy.ReleaseSession` keeps its budget accounts: in this tab's memory, or in a
workspace of :mod:`dpcore.store` (shared by every tab and server process, kept across restarts).

Both books answer the same calls; the session's release rules do not depend on which one it has. The store's
book spends in ONE database transaction before anything is computed (:meth:`StoreBook.reserve`), then adds the
released value (:meth:`StoreBook.finish`) or gives the spending back if the computation raised
(:meth:`StoreBook.cancel`: nothing was shown).

Imported ledgers (an uploaded file) are matched by what the user declared — name, n and column names — and
can only ADD spending (:func:`declares`, :meth:`import_into`): n, the δ ≥ 1/n guard and its override stay the
loaded data's and the workspace's.
"""
from __future__ import annotations

import dataclasses
import json
import threading
import weakref
from typing import Any, cast

from ..errors import DPValueError
from .accounting import PrivacyCost
from .budget import Budget, DatasetAccount, default_budget
from .ledger import LedgerEntry
from .notions import Spend, spend

__all__ = ["MemoryBook", "StoreBook", "declares", "same_release"]


def declares(imported: DatasetAccount, acct: DatasetAccount) -> bool:
    """True if an account read from a file names the loaded dataset ``acct``: the same name and n, and the
    same column names when both declare them."""
    same_cols = not imported.columns or not acct.columns or sorted(imported.columns) == sorted(acct.columns)
    return imported.name == acct.name and imported.n == acct.n and same_cols


def _lowered(old: Budget, imported: Budget, spent: Spend) -> Budget | None:
    """The lower of two totals of the SAME notion (ε and δ each, or ρ) if that is still ≥ what was spent; None if
    nothing changes. A file never changes a budget's notion (a total in another notion is ignored)."""
    if imported.notion != old.notion:
        return None
    if old.notion == "zcdp":
        rho = min(cast(float, old.rho), cast(float, imported.rho))
        if rho == old.rho or rho < spent.rho or imported.delta != old.delta:
            return None
        return Budget.from_rho(rho, old.delta, old.n, old.allow_large_delta)
    eps, delta = min(old.epsilon, imported.epsilon), min(old.delta, imported.delta)
    if (eps, delta) == (old.epsilon, old.delta) or eps < spent.epsilon or delta < spent.delta:
        return None
    return dataclasses.replace(old, epsilon=eps, delta=delta)


def same_release(e: LedgerEntry) -> tuple:
    """What makes two ledger entries the same release (an upload adds an entry only if it is not there yet)."""
    return e.time, e.label, e.cost, json.dumps(e.value, sort_keys=True, allow_nan=False)


def _new_entries(acct: DatasetAccount, imported: DatasetAccount) -> list[LedgerEntry]:
    """The file's releases not here yet, their charge cleared: each is converted into THIS account's notion when
    it is added (the file's charge was in the file's budget)."""
    have = {same_release(e) for e in acct.entries}
    return [dataclasses.replace(e, dataset=acct.fingerprint, spend=None) for e in imported.entries
            if same_release(e) not in have]


def _copy(acct: DatasetAccount) -> DatasetAccount:
    """A copy a caller may change without changing the snapshot (a store's account changes only through it)."""
    return dataclasses.replace(acct, entries=list(acct.entries))


class MemoryBook:
    """Accounts in this tab's memory (the behaviour without a store: gone with the tab)."""

    def __init__(self) -> None:
        self.accounts: dict[str, DatasetAccount] = {}
        self.demo: list[LedgerEntry] = []

    def open(self, key: str, n: int, name: str, budget: Budget | None, columns: tuple[str, ...]) -> DatasetAccount:
        acct = self.accounts.get(key)
        if acct is None:
            acct = DatasetAccount(key, str(name or "dataset"), int(n), default_budget(int(n)), columns=columns)
            self.accounts[key] = acct
        else:
            acct.reopen(name)
        if budget is not None:
            acct.set_budget(budget)
        return acct

    def open_data(self, ds: Any, budget: Budget | None) -> tuple[DatasetAccount, Any]:
        acct = self.open(self.identity(ds), ds.n_rows, ds.name or "dataset", budget,
                         tuple(map(str, ds.frame.columns)))
        return acct, None

    def identity(self, ds: Any) -> str:
        return str(ds.fingerprint(include_bounds=False))

    def get(self, key: str) -> DatasetAccount | None:
        return self.accounts.get(key)

    def set_budget(self, key: str, budget: Budget) -> DatasetAccount:
        acct = self._get(key)
        acct.set_budget(budget)
        return acct

    def all(self) -> list[DatasetAccount]:
        return list(self.accounts.values())

    def demo_entries(self) -> list[LedgerEntry]:
        return list(self.demo)

    def reserve(self, key: str, cost: PrivacyCost, label: str) -> Any:
        """The click's :class:`Spend` (checked; recorded by :meth:`finish` with the entry)."""
        return self._get(key).check(cost)

    def finish(self, token: Any, key: str, entry: LedgerEntry) -> None:
        """Record the entry with the spend decided at :meth:`reserve`; a release that cost more than it declared
        is charged the larger of the two in each unit (converted at the δ that remained when it was charged)."""
        acct = self._get(key)
        charged = token
        if isinstance(token, Spend):
            try:
                actual = spend(entry.cost, acct.budget.notion,
                               delta_remaining=max(acct.budget.delta - acct.used().delta, 0.0))
            except DPValueError:
                actual = token
            charged = Spend(max(token.epsilon, actual.epsilon), max(token.delta, actual.delta),
                            max(token.rho, actual.rho), token.how)
        acct.record(dataclasses.replace(entry, spend=charged) if entry.counted_as_dp else entry)

    def cancel(self, token: Any) -> None:
        return None

    def add(self, key: str | None, entry: LedgerEntry) -> None:
        if key is None:
            self.demo.append(entry)
        elif key in self.accounts:
            self.accounts[key].record(entry)

    def import_into(self, key: str, imported: DatasetAccount) -> list[LedgerEntry]:
        acct = self._get(key)
        added = _new_entries(acct, imported)
        probe = _copy(acct)
        for e in added:        # all or nothing: a release the notion cannot count refuses the whole upload
            probe.record(e)
        for e in added:
            acct.record(e)     # converted into this account's notion now, once
        lower = _lowered(acct.budget, imported.budget, acct.used())
        if lower is not None:
            acct.budget = lower
        return added

    def _get(self, key: str) -> DatasetAccount:
        acct = self.accounts.get(key)
        if acct is None:
            raise DPValueError("this dataset has no privacy budget yet: load it on the Data page, where its "
                               "budget is set.")
        return acct


class StoreBook:
    """Accounts in a :class:`dpcore.store.Workspace` (shared by the workspace's tabs; kept across restarts).

    ``identities`` maps a loaded table's content fingerprint (this tab's memory only) to the account it spends
    from, so a page asking for a table's identity several times a rerun hashes its rows once."""

    def __init__(self, workspace: Any) -> None:
        self.workspace = workspace
        self.identities: dict[str, str] = {}
        self.matches: dict[str, Any] = {}
        self._snapshot: tuple[int, list[DatasetAccount], list[LedgerEntry]] | None = None
        self._held: weakref.ref[threading.Thread] | None = None   # the thread whose reads reuse the snapshot

    def hold(self) -> None:
        """Read the workspace now (re-read only if its revision moved) and let the calling thread reuse that read without asking the revision again,
        until this book writes (which drops it) or :meth:`hold` is called again. Streamlit runs each script run in
        a thread of its own, so a run reads its workspace once instead of once per panel (a revision query each:
        14 a rerun of Home before, benchmarks/first_load.py --rerun); any other thread (another run, a test)
        still checks the revision on every read."""
        self._held = None
        self._read()                  # one revision query; the full read only if the workspace changed
        self._held = weakref.ref(threading.current_thread())

    def _read(self) -> tuple[list[DatasetAccount], list[LedgerEntry]]:
        """The workspace's accounts and demo entries, re-read only when its revision moved (one small query
        otherwise: a page asks for them several times a rerun; none in the thread holding the snapshot)."""
        if self._snapshot is not None and self._held is not None and self._held() is threading.current_thread():
            return self._snapshot[1], self._snapshot[2]
        rev = self.workspace.revision()
        if self._snapshot is None or self._snapshot[0] != rev:
            self._snapshot = (rev, list(self.workspace.accounts()), list(self.workspace.demo_entries()))
        return self._snapshot[1], self._snapshot[2]

    def _wrote(self) -> None:
        """This book changed the workspace: the next read asks the database again."""
        self._snapshot = None

    def open(self, key: str, n: int, name: str, budget: Budget | None, columns: tuple[str, ...]) -> DatasetAccount:
        self._wrote()
        return self.workspace.open_key(key, n, name, columns, budget)

    def open_data(self, ds: Any, budget: Budget | None) -> tuple[DatasetAccount, Any]:
        ident = self.workspace.store.identify(ds)
        self._wrote()
        acct, match = self.workspace.open_account(ident, ds.name or "dataset", budget)
        fp = str(ds.fingerprint(include_bounds=False))
        self.identities[fp], self.matches[fp] = acct.fingerprint, match
        return acct, match

    def identity(self, ds: Any) -> str:
        fp = str(ds.fingerprint(include_bounds=False))
        if fp not in self.identities:
            ident = self.workspace.store.identify(ds)
            match = self.workspace.find(ident)
            self.identities[fp] = ident.key if match is None else match.key
            self.matches[fp] = match
        return self.identities[fp]

    def get(self, key: str) -> DatasetAccount | None:
        return next((_copy(a) for a in self._read()[0] if a.fingerprint == key), None)

    def set_budget(self, key: str, budget: Budget) -> DatasetAccount:
        self._wrote()
        return self.workspace.set_budget(key, budget)

    def all(self) -> list[DatasetAccount]:
        return [_copy(a) for a in self._read()[0]]

    def demo_entries(self) -> list[LedgerEntry]:
        return list(self._read()[1])

    def reserve(self, key: str, cost: PrivacyCost, label: str) -> Any:
        self._wrote()
        return self.workspace.check_and_spend(key, cost, label=label)

    def finish(self, token: Any, key: str, entry: LedgerEntry) -> None:
        self._wrote()
        self.workspace.record(token, entry.value, entry.cost)

    def cancel(self, token: Any) -> None:
        self._wrote()
        if token is not None:
            self.workspace.cancel(token)

    def add(self, key: str | None, entry: LedgerEntry) -> None:
        if key is None or self.get(key) is not None:
            self._wrote()
            self.workspace.add_entry(key, entry)

    def import_into(self, key: str, imported: DatasetAccount) -> list[LedgerEntry]:
        self._wrote()
        acct = self.workspace.account(key)
        added = _new_entries(acct, imported)
        probe = _copy(acct)
        for e in added:        # all or nothing: a release the notion cannot count refuses the whole upload
            probe.record(e)
        for e in added:
            self.workspace.add_entry(key, e)
        acct = self.workspace.account(key)
        lower = _lowered(acct.budget, imported.budget, acct.used())
        if lower is not None:
            self.workspace.set_budget(key, lower)
        return added

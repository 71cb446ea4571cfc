"""The store: workspaces, their budget accounts, the ledger, kept data — one transaction per budget click.

Why this module is long: the store's whole contract (opening, the secret, workspaces, accounts, the atomic
check-and-spend, the ledger, kept data and its expiry) is one unit whose invariants — spending never exceeds
a budget, nothing is given back — are checked in one place.

**Concurrency.** :meth:`Workspace.check_and_spend` reads what an account has spent and inserts the new
spending in ONE transaction: on PostgreSQL ``SELECT … FOR UPDATE`` locks the account's row (a second click
waits, then reads the first one's spending: READ COMMITTED re-reads a locked row after the lock is
released); on SQLite the transaction begins with ``BEGIN IMMEDIATE`` (the database's write lock is taken
before the read). Two tabs or two server processes clicking at once therefore never spend more than the
budget. The spending is committed *before* anything is computed; :meth:`Workspace.record` then adds the
released value, and :meth:`Workspace.cancel` removes a spending whose computation raised (nothing shown).
A process killed in between leaves the spending counted (with no value): the safe direction.

**Secrets.** A workspace is named by a capability token of :data:`TOKEN_BYTES` × 8 bits from
:mod:`secrets`; the database keeps only its SHA-256, so a dump hands out no workspace. The server secret
keying the data's identity (:mod:`._identity`) comes from ``DPX_SERVER_SECRET`` or, for SQLite, a file
``dpx.secret`` beside the database (mode 0600, made on first start). PostgreSQL without the variable is
refused: several replicas must share the secret, and keeping it inside the database would let anyone
holding a dump recompute row hashes and test a candidate record against the stored sketches.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import time as _time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ..errors import DPValueError
from ..privacy.accounting import PrivacyCost
from ..privacy.budget import (
    Budget,
    BudgetExceeded,
    DatasetAccount,
    check_fits,
    checked_budget,
    default_budget,
)
from ..privacy.notions import NotionRefused, Spend, costs_more, entry_cost, spend
from ..privacy.ledger import LedgerEntry
from . import _schema as S
from ._identity import MATCH_FRACTION, DataIdentity, identify, matched_fraction, sketch_bytes, sketch_from_bytes

__all__ = ["DEFAULT_KEEP_DAYS", "TOKEN_BYTES", "KeptData", "Match", "Store", "Workspace", "open_store"]

#: Bytes of the workspace token (192 bits, URL-safe base64: 32 characters).
TOKEN_BYTES = 24
#: Days a table kept at the user's request stays on the server unless deleted earlier.
DEFAULT_KEEP_DAYS = 7
MAX_KEEP_DAYS = 90
_NAME_MAX = 200


def _now() -> float:
    return _time.time()


def _ts(now: datetime | float | None) -> float:
    if now is None:
        return _now()
    if isinstance(now, datetime):
        return (now if now.tzinfo else now.replace(tzinfo=timezone.utc)).timestamp()
    return float(now)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _cost_json(c: PrivacyCost) -> str:
    return json.dumps({"notion": c.notion, "epsilon": c.epsilon, "delta": c.delta, "rho": c.rho, "count": c.count,
                       "neighbours": c.neighbours, "note": c.note}, allow_nan=False)


def _cost_from(text: str) -> PrivacyCost:
    d = json.loads(text)
    return PrivacyCost(d["notion"], epsilon=d["epsilon"], delta=d["delta"], rho=d["rho"], neighbours=d["neighbours"],
                       note=d["note"], count=d["count"])


def _iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Match:
    """Which account a loaded table spends from, and why (for the Data page).

    ``key`` is the account's identity (what a release request names as its dataset); ``fraction`` the share of
    rows that coincide (1.0 for the same rows in any order); ``created`` is True for a new account.
    """

    key: str
    name: str
    fraction: float
    created: bool
    same_columns: bool

    def describe(self, loaded_name: str = "") -> str:
        """E.g. ``this looks like “a.csv”: 99.5 % of its rows; it spends from the budget of “a.csv”``."""
        if self.created:
            return "a new dataset: it gets its own budget (no dataset of this workspace shares ≥ 90 % of its rows)."
        extra = "" if self.same_columns else " (on that dataset's columns; this table has more)"
        pct = "100" if self.fraction >= 1.0 else f"{min(self.fraction * 100, 99.9):.1f}"
        return (f"this looks like “{self.name}”: {pct} % of its rows{extra}; it spends from the budget of "
                f"“{self.name}”.")


@dataclass(frozen=True)
class KeptData:
    """A table kept on the server at the user's request (its JSON is read with :meth:`Workspace.kept_table`)."""

    id: int
    name: str
    created: float
    expires: float


def open_engine(url: str | None = None, *, data_dir: str | os.PathLike[str] | None = None) -> Engine:
    """The database's connection pool, created or upgraded to :data:`~dpcore.store.LATEST_VERSION` first.

    The one way every part of the program opens the database (the store's budgets and workspaces, and the
    classroom's tables since version 6): one address, one engine configuration, one upgrade — a single write
    transaction under the database's lock (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on PostgreSQL), so of
    several processes opening it at once one upgrades and the others find it current.

    Parameters
    ----------
    url : str, optional
        A SQLAlchemy URL. Default: env ``DPX_DATABASE_URL``; else the SQLite file ``<data_dir>/dpx.sqlite3``
        (WAL mode, busy timeout :data:`~dpcore.store._schema.SQLITE_BUSY_MS` ms). PostgreSQL:
        ``postgresql+psycopg://user:password@host/db`` (``postgresql://`` is read as psycopg).
    data_dir : path, optional
        Where the SQLite file (and the store's secret) live. Default: env ``DPX_DATA_DIR``; required otherwise.

    Raises
    ------
    DPValueError
        If neither a URL nor a folder is given, the URL is not supported, or the database is newer than this
        program.
    """
    url = url or os.environ.get("DPX_DATABASE_URL") or None
    folder = data_dir if data_dir is not None else os.environ.get("DPX_DATA_DIR")
    if url is None and not folder:
        raise DPValueError("no database: pass data_dir (the folder of dpx.sqlite3), or set DPX_DATA_DIR or "
                           "DPX_DATABASE_URL.")
    engine = S.make_engine(url, Path(folder or "."))
    try:
        with S.transaction(engine) as conn:
            S.upgrade(conn)
    except BaseException:
        engine.dispose()
        raise
    return engine


def open_store(url: str | None = None, *, data_dir: str | os.PathLike[str] | None = None,
               secret: str | bytes | None = None) -> Store:
    """Open (and create or upgrade) the database: :func:`open_engine` with the server secret.

    Parameters
    ----------
    url, data_dir
        As for :func:`open_engine`.
    secret : str or bytes, optional
        The server secret (≥ 32 characters). Default: env ``DPX_SERVER_SECRET``; else, for SQLite, the file
        ``dpx.secret`` beside the database (created with mode 0600). PostgreSQL requires one of the two.
    """
    given = secret if secret is not None else os.environ.get("DPX_SERVER_SECRET") or None
    if given is not None:
        key = given.encode("utf-8") if isinstance(given, str) else bytes(given)
        if len(key) < 32:
            raise DPValueError(f"the server secret has {len(key)} characters; use at least 32 (e.g. the output of "
                               "python -c 'import secrets; print(secrets.token_hex(32))').")
    engine = open_engine(url, data_dir=data_dir)
    if given is None:
        path = S.secret_file_for(engine)
        if path is None:
            engine.dispose()
            raise DPValueError("a PostgreSQL store needs DPX_SERVER_SECRET (the same value on every server "
                               "process): the secret is never stored in the database, so a dump of it cannot "
                               "test a record. Generate one with python -c 'import secrets; "
                               "print(secrets.token_hex(32))'.")
        key = S.read_or_create_secret(path)
    return Store(engine, key)


class Store:
    """An open database (one per server process; thread-safe: every method uses its own connection)."""

    def __init__(self, engine: Engine, secret: bytes):
        self.engine = engine
        self.lazy_engine = S.lazy_engine(engine)     # commits that need not wait for the disk (record)
        self._secret = secret

    @property
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()
        self.lazy_engine.dispose()

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            return S.version_of(conn)

    # -- workspaces ----------------------------------------------------------------------------------
    def create_workspace(self) -> tuple[Workspace, str]:
        """A new empty workspace and its token (returned once: the database keeps only its hash)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with S.write(self.engine) as conn, conn.begin():
            wid = conn.execute(sa.insert(S.workspaces).values(token_hash=_token_hash(token), created=_now())
                               .returning(S.workspaces.c.id)).scalar_one()
        return Workspace(self, int(wid)), token

    def open_workspace(self, token: str) -> Workspace | None:
        """The workspace named by ``token``, or None (unknown, deleted, or not a token)."""
        if not isinstance(token, str) or not (16 <= len(token) <= 100):
            return None
        with self.engine.connect() as conn:
            wid = conn.execute(sa.select(S.workspaces.c.id)
                               .where(S.workspaces.c.token_hash == _token_hash(token))).scalar()
        return None if wid is None else Workspace(self, int(wid))

    def delete_workspace(self, token: str) -> bool:
        """Delete the workspace named by ``token`` and everything in it; False if there was none."""
        ws = self.open_workspace(token)
        if ws is None:
            return False
        ws.delete()
        return True

    def purge_expired(self, now: datetime | float | None = None) -> int:
        """Delete every kept table whose expiry is past; returns how many."""
        with S.write(self.engine) as conn, conn.begin():
            return int(conn.execute(sa.delete(S.kept_data).where(S.kept_data.c.expires <= _ts(now))).rowcount)

    def identify(self, frame: Any) -> DataIdentity:
        """The keyed identity of a table (a DataFrame or a :class:`~dpcore.data.Dataset`)."""
        return identify(getattr(frame, "frame", frame), self._secret)


def _budget_of(row: Any) -> Budget:
    """An account row's budget (a ρ-zCDP budget from its ρ: its ε is derived, the same on every read)."""
    if row.notion == "zcdp":
        return Budget.from_rho(row.rho, row.delta, n=int(row.n), allow_large_delta=bool(row.allow_large_delta))
    return Budget(row.epsilon, row.delta, n=int(row.n), allow_large_delta=bool(row.allow_large_delta),
                  notion=row.notion)


def _spent_of(row: Any) -> Spend:
    return Spend(row.spent_epsilon, row.spent_delta, row.spent_rho)


def _account_from(row: Any, entries: list[LedgerEntry]) -> DatasetAccount:
    budget = _budget_of(row)
    return DatasetAccount(row.key, row.name, int(row.n), budget, entries, bool(row.budget_open),
                          tuple(json.loads(row.columns)))


def _entry_from(row: Any, key: str | None, costs: dict[str, PrivacyCost]) -> LedgerEntry:
    """A ledger entry from its row; ``costs`` (one listing's) parses each distinct cost text once."""
    cost = costs.get(row.cost)
    if cost is None:
        cost = costs[row.cost] = _cost_from(row.cost)
    value = None if row.value is None else json.loads(row.value)
    charged = Spend(row.spend_epsilon, row.spend_delta, row.spend_rho, row.spend_how) if row.counted else None
    return LedgerEntry(row.label, cost, None, bool(row.counted), row.reason, row.time, value, key, charged)


# The statements of a click, built once (SQLAlchemy then reuses their compiled form; building a statement costs
# more CPU than running it on SQLite).
_ACCOUNT = (sa.select(S.accounts).where(S.accounts.c.workspace_id == sa.bindparam("b_ws"),
                                        S.accounts.c.key == sa.bindparam("b_key")))
_ACCOUNT_LOCKED = _ACCOUNT.with_for_update()
_INSERT_ENTRY = sa.insert(S.entries).returning(S.entries.c.id)
_SPEND = (sa.update(S.accounts).where(S.accounts.c.id == sa.bindparam("b_id"))
          .values(spent_epsilon=S.accounts.c.spent_epsilon + sa.bindparam("b_eps", type_=sa.Float),
                  spent_delta=S.accounts.c.spent_delta + sa.bindparam("b_delta", type_=sa.Float),
                  spent_rho=S.accounts.c.spent_rho + sa.bindparam("b_rho", type_=sa.Float), budget_open=False))
_BUMP = (sa.update(S.workspaces).where(S.workspaces.c.id == sa.bindparam("b_ws"))
         .values(revision=S.workspaces.c.revision + 1))
_REVISION = sa.select(S.workspaces.c.revision).where(S.workspaces.c.id == sa.bindparam("b_ws"))
_SET_VALUE = (sa.update(S.entries)
              .where(S.entries.c.id == sa.bindparam("b_id"), S.entries.c.workspace_id == sa.bindparam("b_ws"))
              .values(value=sa.bindparam("b_value"), state="released")
              .returning(S.entries.c.spend_epsilon, S.entries.c.spend_delta, S.entries.c.spend_rho,
                         S.entries.c.counted, S.entries.c.account_id, S.entries.c.cost))


@dataclass(frozen=True)
class Workspace:
    """One workspace of a :class:`Store`: its accounts (budget per dataset identity), ledger and kept data."""

    store: Store
    id: int

    @property
    def _engine(self) -> Engine:
        return self.store.engine

    def revision(self) -> int:
        """A number raised by every change to this workspace's accounts or ledger (0 if it was deleted)."""
        with self._engine.connect() as conn:
            return int(conn.execute(_REVISION, {"b_ws": self.id}).scalar() or 0)

    def exists(self) -> bool:
        with self._engine.connect() as conn:
            return conn.execute(sa.select(S.workspaces.c.id).where(S.workspaces.c.id == self.id)).scalar() is not None

    def delete(self) -> None:
        """Delete this workspace and everything in it (accounts, ledger, sketches, kept data)."""
        with S.write(self._engine) as conn, conn.begin():
            ids = sa.select(S.accounts.c.id).where(S.accounts.c.workspace_id == self.id)
            conn.execute(sa.delete(S.sketches).where(S.sketches.c.account_id.in_(ids)))
            for t in (S.entries, S.kept_data, S.accounts):
                conn.execute(sa.delete(t).where(t.c.workspace_id == self.id))
            conn.execute(sa.delete(S.workspaces).where(S.workspaces.c.id == self.id))

    # -- accounts ------------------------------------------------------------------------------------
    def find(self, ident: DataIdentity) -> Match | None:
        """The account a table with identity ``ident`` spends from: the same rows (any order), else the
        account with the largest share of coinciding rows ≥ :data:`MATCH_FRACTION` whose columns are a subset
        of the table's (oldest first on ties); None if there is none."""
        with self._engine.connect() as conn:
            rows = conn.execute(sa.select(S.accounts.c.id, S.accounts.c.key, S.accounts.c.name,
                                          S.accounts.c.columns, S.sketches.c.rows, S.sketches.c.sketch)
                                .select_from(S.accounts.outerjoin(S.sketches))
                                .where(S.accounts.c.workspace_id == self.id).order_by(S.accounts.c.id)).all()
        best: Match | None = None
        for r in rows:
            if r.key == ident.key:
                return Match(r.key, r.name, 1.0, False, True)
            cols = tuple(json.loads(r.columns))
            if r.sketch is None or not cols or not set(cols) <= set(ident.columns):
                continue
            mine = ident.sketch if tuple(sorted(cols)) == ident.columns else ident.projected_sketch(cols)
            frac = matched_fraction(sketch_from_bytes(r.sketch), int(r.rows), mine, ident.n)
            if frac >= MATCH_FRACTION and (best is None or frac > best.fraction):
                best = Match(r.key, r.name, frac, False, tuple(sorted(cols)) == ident.columns)
        return best

    def open_account(self, ident: DataIdentity, name: str, budget: Budget | None = None) -> tuple[DatasetAccount,
                                                                                                   Match]:
        """A table was loaded: the account it spends from (found by :meth:`find`, reopened so its total may
        be raised until its next release) or a new one (``budget`` or :func:`default_budget` of its n)."""
        match = self.find(ident)
        if match is None:
            self._insert_account(ident.key, name, ident.n, ident.columns, budget, ident)
            match = Match(ident.key, str(name)[:_NAME_MAX], 1.0, True, True)
        else:
            self.reopen(match.key)
            if budget is not None:
                self.set_budget(match.key, budget)
        return cast(DatasetAccount, self.account(match.key)), match

    def open_key(self, key: str, n: int, name: str, columns: Sequence[str] = (),
                 budget: Budget | None = None) -> DatasetAccount:
        """An account by a caller's identity string (no sketch: matched only by this exact key)."""
        if self.account(key) is None:
            self._insert_account(key, name, n, tuple(columns), budget, None)
        else:
            self.reopen(key)
            if budget is not None:
                self.set_budget(key, budget)
        return cast(DatasetAccount, self.account(key))

    def _insert_account(self, key: str, name: str, n: int, columns: Sequence[str], budget: Budget | None,
                        ident: DataIdentity | None) -> None:
        if not isinstance(key, str) or not key or len(key) > 64:
            raise DPValueError("a dataset's identity must be a non-empty string of at most 64 characters.")
        n = int(n)
        b = budget if budget is not None else default_budget(n)
        b = checked_budget(name, n, b, b, Spend(), True)
        try:
            with S.write(self._engine) as conn, conn.begin():
                conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
                aid = conn.execute(sa.insert(S.accounts).values(
                    workspace_id=self.id, key=key, name=str(name or "dataset")[:_NAME_MAX], n=n,
                    columns=json.dumps(list(columns), ensure_ascii=False), epsilon=b.epsilon, delta=b.delta,
                    allow_large_delta=b.allow_large_delta, budget_open=True, spent_epsilon=0.0, spent_delta=0.0,
                    notion=b.notion, rho=b.rho, spent_rho=0.0, created=_now()).returning(S.accounts.c.id)).scalar_one()
                if ident is not None:
                    conn.execute(sa.insert(S.sketches).values(account_id=aid, rows=ident.n,
                                                              sketch=sketch_bytes(ident.sketch)))
        except sa.exc.IntegrityError:
            pass    # another tab opened the same data at the same moment: its account is this one

    def _row(self, conn: Connection, key: str, *, lock: bool = False) -> Any:
        row = conn.execute(_ACCOUNT_LOCKED if lock else _ACCOUNT, {"b_ws": self.id, "b_key": key}).first()
        if row is None:
            raise DPValueError("this dataset has no privacy budget yet: load it on the Data page, where its "
                               "budget is set.")
        return row

    def account(self, key: str | None) -> DatasetAccount | None:
        """The account ``key`` with its entries, or None."""
        if not key:
            return None
        accts = self.accounts(key)
        return accts[0] if accts else None

    def accounts(self, key: str | None = None) -> list[DatasetAccount]:
        """Every account of the workspace (oldest first) with its entries in time order."""
        with self._engine.connect() as conn:
            q = sa.select(S.accounts).where(S.accounts.c.workspace_id == self.id).order_by(S.accounts.c.id)
            rows = conn.execute(q if key is None else q.where(S.accounts.c.key == key)).all()
            if not rows:
                return []
            ents = conn.execute(sa.select(S.entries).where(S.entries.c.account_id.in_([r.id for r in rows]))
                                .order_by(S.entries.c.id)).all()
        by: dict[int, list[LedgerEntry]] = {r.id: [] for r in rows}
        costs: dict[str, PrivacyCost] = {}
        keys = {r.id: r.key for r in rows}
        for e in ents:
            by[e.account_id].append(_entry_from(e, keys[e.account_id], costs))
        return [_account_from(r, by[r.id]) for r in rows]

    def reopen(self, key: str) -> None:
        """The data was loaded again: its total may be raised until its next release (spending kept)."""
        with S.write(self._engine) as conn, conn.begin():
            conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
            self._row(conn, key, lock=True)
            conn.execute(sa.update(S.accounts).where(S.accounts.c.workspace_id == self.id, S.accounts.c.key == key)
                         .values(budget_open=True))

    def set_budget(self, key: str, budget: Budget) -> DatasetAccount:
        """Set an account's total (:func:`~dpcore.privacy.budget.checked_budget`'s rules), atomically."""
        with S.write(self._engine) as conn, conn.begin():
            conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
            r = self._row(conn, key, lock=True)
            b = checked_budget(r.name, int(r.n), _budget_of(r), budget, _spent_of(r), bool(r.budget_open))
            conn.execute(sa.update(S.accounts).where(S.accounts.c.id == r.id).values(
                epsilon=b.epsilon, delta=b.delta, allow_large_delta=b.allow_large_delta, notion=b.notion, rho=b.rho))
        return cast(DatasetAccount, self.account(key))

    # -- spending ------------------------------------------------------------------------------------
    def check(self, key: str, cost: PrivacyCost | Iterable[PrivacyCost]) -> Spend:
        """The charge ``cost`` would take now, in the budget's units; raise BudgetExceeded if it does not fit
        (advisory: :meth:`check_and_spend` decides)."""
        with self._engine.connect() as conn:
            r = self._row(conn, key)
        return check_fits(r.name, int(r.n), _budget_of(r), _spent_of(r), cost)

    def check_and_spend(self, key: str, cost: PrivacyCost | Sequence[PrivacyCost], *, label: str,
                        time: str | None = None) -> int:
        """Check ``cost`` against the account's budget and record the spending, in ONE transaction.

        The cost is converted into the budget's notion here, once (:func:`~dpcore.privacy.budget.check_fits`,
        against the spending read under the lock), and that charge is stored with the entry and added to the
        account. Raises :class:`~dpcore.privacy.BudgetExceeded` (nothing recorded) if it does not fit; returns
        the entry's id, to pass to :meth:`record` (the released value) or :meth:`cancel` (nothing was shown)."""
        costs = [cost] if isinstance(cost, PrivacyCost) else list(cost)
        with S.write(self._engine) as conn, conn.begin():
            conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
            r = self._row(conn, key, lock=True)
            b = _budget_of(r)
            new = check_fits(r.name, int(r.n), b, _spent_of(r), costs)
            c = entry_cost(costs, b.notion, new)
            eid = conn.execute(_INSERT_ENTRY, {
                "workspace_id": self.id, "account_id": r.id, "time": time or _iso(), "label": str(label),
                "counted": True, "reason": "", "cost": _cost_json(c), "spend_epsilon": new.epsilon,
                "spend_delta": new.delta, "spend_rho": new.rho, "spend_how": new.how, "value": None,
                "state": "spent"}).scalar_one()
            conn.execute(_SPEND, {"b_id": r.id, "b_eps": new.epsilon, "b_delta": new.delta, "b_rho": new.rho})
        return int(eid)

    def record(self, entry_id: int, value: Any, cost: PrivacyCost | None = None) -> None:
        """Add the released value (plain JSON types) to a spending; with ``cost`` (what the release reports),
        a cost above the one spent is charged in full (the difference is added to the account, durably).

        The value's commit is lazy (:func:`~dpcore.store._schema.write` with ``durable=False``): the spending was
        committed durably by :meth:`check_and_spend`, so a click waits for the disk once, not twice."""
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        with S.write(self.store.lazy_engine, durable=False) as conn, conn.begin():
            conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
            e = conn.execute(_SET_VALUE, {"b_id": entry_id, "b_ws": self.id, "b_value": text}).first()
        if e is None:
            raise DPValueError(f"ledger entry {entry_id} is not in this workspace.")
        if cost is None or not e.counted or e.account_id is None or not costs_more(cost, _cost_from(e.cost)):
            return
        with S.write(self._engine) as conn, conn.begin():
            r = conn.execute(sa.select(S.accounts).where(S.accounts.c.id == e.account_id).with_for_update()).first()
            b = _budget_of(r)
            try:   # at the δ that remained when this entry was charged (its own δ given back)
                actual = spend(cost, b.notion, delta_remaining=max(b.delta - (r.spent_delta - e.spend_delta), 0.0))
            except NotionRefused:
                actual = Spend(e.spend_epsilon, e.spend_delta, e.spend_rho)
            d_eps, d_delta = max(actual.epsilon - e.spend_epsilon, 0.0), max(actual.delta - e.spend_delta, 0.0)
            d_rho = max(actual.rho - e.spend_rho, 0.0)
            if d_eps > 0 or d_delta > 0 or d_rho > 0:     # the release cost more than it declared: charge the rest
                conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
                conn.execute(sa.update(S.entries).where(S.entries.c.id == entry_id).values(
                    cost=_cost_json(cost), spend_epsilon=e.spend_epsilon + d_eps, spend_delta=e.spend_delta + d_delta,
                    spend_rho=e.spend_rho + d_rho))
                conn.execute(sa.update(S.accounts).where(S.accounts.c.id == e.account_id).values(
                    spent_epsilon=S.accounts.c.spent_epsilon + d_eps, spent_delta=S.accounts.c.spent_delta + d_delta,
                    spent_rho=S.accounts.c.spent_rho + d_rho))

    def cancel(self, entry_id: int) -> None:
        """Remove a spending whose computation raised before anything was shown (its budget comes back)."""
        with S.write(self._engine) as conn, conn.begin():
            conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
            e = conn.execute(sa.select(S.entries).where(S.entries.c.id == entry_id,
                                                        S.entries.c.workspace_id == self.id,
                                                        S.entries.c.state == "spent")).first()
            if e is None:
                return
            if e.account_id is not None:
                conn.execute(sa.select(S.accounts.c.id).where(S.accounts.c.id == e.account_id).with_for_update())
                conn.execute(sa.update(S.accounts).where(S.accounts.c.id == e.account_id).values(
                    spent_epsilon=S.accounts.c.spent_epsilon - e.spend_epsilon,
                    spent_delta=S.accounts.c.spent_delta - e.spend_delta,
                    spent_rho=S.accounts.c.spent_rho - e.spend_rho))
            conn.execute(sa.delete(S.entries).where(S.entries.c.id == entry_id))

    def add_entry(self, key: str | None, entry: LedgerEntry) -> None:
        """Record a release not counted as DP (``key``: its user dataset; None: public demo data). A counted
        entry may only be added to an account (an import: its spending is added, never checked away)."""
        with S.write(self._engine) as conn, conn.begin():
            conn.execute(_BUMP, {"b_ws": self.id})   # the tabs of this workspace re-read it
            r = None if key is None else self._row(conn, key, lock=True)
            aid = None if r is None else r.id
            if entry.counted_as_dp and r is None:
                raise DPValueError("a release counted as DP must be charged to a dataset's budget.")
            new = Spend()
            if entry.counted_as_dp and r is not None:   # converted into this account's notion now, once (never checked away)
                b = _budget_of(r)
                try:
                    new = spend(entry.cost, b.notion, delta_remaining=max(b.delta - r.spent_delta, 0.0))
                except NotionRefused as exc:
                    raise BudgetExceeded(f"{exc} (Budget of “{r.name}”: {b.describe()}.)") from None
            conn.execute(sa.insert(S.entries).values(
                workspace_id=self.id, account_id=aid, time=entry.time or _iso(), label=str(entry.label),
                counted=bool(entry.counted_as_dp), reason=str(entry.reason), cost=_cost_json(entry.cost),
                spend_epsilon=new.epsilon, spend_delta=new.delta, spend_rho=new.rho, spend_how=new.how,
                value=None if entry.value is None else json.dumps(entry.value, ensure_ascii=False, allow_nan=False),
                state="released"))
            if new.epsilon or new.delta or new.rho:
                conn.execute(sa.update(S.accounts).where(S.accounts.c.id == aid).values(
                    spent_epsilon=S.accounts.c.spent_epsilon + new.epsilon,
                    spent_delta=S.accounts.c.spent_delta + new.delta, spent_rho=S.accounts.c.spent_rho + new.rho,
                    budget_open=False))

    def demo_entries(self) -> list[LedgerEntry]:
        """Releases on public demo data (charged to no budget), in time order."""
        with self._engine.connect() as conn:
            rows = conn.execute(sa.select(S.entries).where(S.entries.c.workspace_id == self.id,
                                                           S.entries.c.account_id.is_(None))
                                .order_by(S.entries.c.id)).all()
        costs: dict[str, PrivacyCost] = {}
        return [_entry_from(r, None, costs) for r in rows]

    def all_entries(self) -> list[LedgerEntry]:
        """Every release of the workspace (its datasets' and the demo data's), in the order recorded."""
        keys = {a.fingerprint: a for a in self.accounts()}
        out = [e for a in keys.values() for e in a.entries] + self.demo_entries()
        return sorted(out, key=lambda e: e.time)

    # -- data kept at the user's request ------------------------------------------------------------------
    def keep_table(self, name: str, table: dict, *, days: float = DEFAULT_KEEP_DAYS,
                   now: datetime | float | None = None) -> KeptData:
        """Keep a table (the JSON of :func:`~dpcore.privacy.sessionfile.dataset_to_dict`) for ``days``."""
        if not (isinstance(days, (int, float)) and math.isfinite(days) and 0 < days <= MAX_KEEP_DAYS):
            raise DPValueError(f"days = {days!r} must be a number in (0, {MAX_KEEP_DAYS}].")
        t = _ts(now)
        payload = zlib.compress(json.dumps(table, ensure_ascii=False, allow_nan=False).encode("utf-8"), 6)
        with S.write(self._engine) as conn, conn.begin():
            kid = conn.execute(sa.insert(S.kept_data).values(
                workspace_id=self.id, name=str(name)[:_NAME_MAX], created=t, expires=t + days * 86400.0,
                payload=payload).returning(S.kept_data.c.id)).scalar_one()
        return KeptData(int(kid), str(name)[:_NAME_MAX], t, t + days * 86400.0)

    def kept(self, now: datetime | float | None = None) -> list[KeptData]:
        """The tables kept in this workspace and not expired at ``now``."""
        with self._engine.connect() as conn:
            rows = conn.execute(sa.select(S.kept_data.c.id, S.kept_data.c.name, S.kept_data.c.created,
                                          S.kept_data.c.expires)
                                .where(S.kept_data.c.workspace_id == self.id, S.kept_data.c.expires > _ts(now))
                                .order_by(S.kept_data.c.id)).all()
        return [KeptData(int(r.id), r.name, r.created, r.expires) for r in rows]

    def kept_table(self, kept_id: int) -> dict | None:
        """The JSON of a kept table, or None (deleted, expired or another workspace's)."""
        with self._engine.connect() as conn:
            p = conn.execute(sa.select(S.kept_data.c.payload).where(
                S.kept_data.c.id == int(kept_id), S.kept_data.c.workspace_id == self.id,
                S.kept_data.c.expires > _now())).scalar()
        return None if p is None else json.loads(zlib.decompress(p).decode("utf-8"))

    def delete_kept(self, kept_id: int) -> None:
        with S.write(self._engine) as conn, conn.begin():
            conn.execute(sa.delete(S.kept_data).where(S.kept_data.c.id == int(kept_id),
                                                      S.kept_data.c.workspace_id == self.id))

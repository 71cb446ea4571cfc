"""The database's tables, its versioned migrations, and how an engine is opened on each backend.

**Why a ``schema_version`` table and ordered migration functions, not Alembic.** The store is a library
schema of a handful of tables that must be upgraded *on open*, by whichever server process opens the
database first, while other processes may be opening it at the same moment. Here the upgrade is one
transaction under the database's write lock (``BEGIN IMMEDIATE`` on SQLite, a transaction-scoped advisory
lock on PostgreSQL; DDL is transactional on both), so a second process waits and then finds the schema
current. Alembic would add a migrations directory, an ``env.py`` and its own connection handling for the
same few ``CREATE TABLE`` statements, and its online upgrade is not serialised across processes without
the same lock. Each migration here is a function written with SQLAlchemy Core against the tables *of its
own version* (never the current ones), so an old database is upgraded exactly as a new one was built.

Versions: 1 — workspaces, budget accounts and ledger entries; 2 — data kept on the server at the user's
request, with an expiry; 3 — the keyed row sketch of each account (near-copy matching); 4 — a workspace's
revision, raised by every change to its accounts or ledger (a tab re-reads them only when it moved); 5 — the
budget's notion (``notion``, ``rho``; existing accounts: ``"approx"``, NULL), the ρ spent (``spent_rho``, 0) and
each entry's charge in ρ and how it was converted (``spend_rho``, ``spend_how``); 6 — the classroom game's
tables (``classroom_*``: classes, rounds, students, trials with the secret coins, answers), which until then a
separate ``create_tables`` kept in ``classroom.sqlite3`` (SQLite) or beside these tables (PostgreSQL): tables
already there are adopted as they are, and the rows of an old ``classroom.sqlite3`` beside a SQLite database are
copied in once, by this migration (:mod:`._import`).
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ..errors import DPValueError

__all__ = ["CLASSROOM_METADATA", "LATEST_VERSION", "METADATA", "accounts", "classroom_answers", "classroom_classes",
           "classroom_rounds", "classroom_students", "classroom_trials", "entries", "kept_data", "lazy_engine",
           "make_engine", "sketches", "transaction", "upgrade", "version_of", "workspaces", "write"]

#: Milliseconds a SQLite connection waits for another process's write lock before giving up.
SQLITE_BUSY_MS = 30_000
_PG_LOCK_ID = 0x64707831  # "dpx1": the advisory lock serialising schema upgrades on PostgreSQL
_WRITE = "dpx_write"      # execution option: this transaction writes (BEGIN IMMEDIATE on SQLite)
_LAZY = "dpx_lazy"        # execution option: this transaction's commit need not wait for the disk


def _workspaces(md: sa.MetaData, *, revision: bool = False) -> sa.Table:
    extra = [sa.Column("revision", sa.BigInteger, nullable=False, server_default="0")] if revision else []
    return sa.Table("workspaces", md,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
                    sa.Column("created", sa.Float, nullable=False), *extra)


def _accounts(md: sa.MetaData, *, notion: bool = False) -> sa.Table:
    extra = [sa.Column("notion", sa.String(10), nullable=False, server_default="approx"),
             sa.Column("rho", sa.Float, nullable=True),
             sa.Column("spent_rho", sa.Float, nullable=False, server_default="0")] if notion else []
    return sa.Table("accounts", md,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
                              nullable=False, index=True),
                    sa.Column("key", sa.String(64), nullable=False),
                    sa.Column("name", sa.String(200), nullable=False),
                    sa.Column("n", sa.BigInteger, nullable=False),
                    sa.Column("columns", sa.Text, nullable=False),          # JSON list of the column names
                    sa.Column("epsilon", sa.Float, nullable=False),
                    sa.Column("delta", sa.Float, nullable=False),
                    sa.Column("allow_large_delta", sa.Boolean, nullable=False),
                    sa.Column("budget_open", sa.Boolean, nullable=False),
                    sa.Column("spent_epsilon", sa.Float, nullable=False),
                    sa.Column("spent_delta", sa.Float, nullable=False),
                    sa.Column("created", sa.Float, nullable=False), *extra,
                    sa.UniqueConstraint("workspace_id", "key", name="uq_accounts_workspace_key"))


def _entries(md: sa.MetaData, *, notion: bool = False) -> sa.Table:
    extra = [sa.Column("spend_rho", sa.Float, nullable=False, server_default="0"),
             sa.Column("spend_how", sa.Text, nullable=False, server_default="")] if notion else []
    return sa.Table("entries", md,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
                              nullable=False, index=True),
                    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                              nullable=True, index=True),                    # NULL: public demo data
                    sa.Column("time", sa.String(40), nullable=False),
                    sa.Column("label", sa.Text, nullable=False),
                    sa.Column("counted", sa.Boolean, nullable=False),
                    sa.Column("reason", sa.Text, nullable=False),
                    sa.Column("cost", sa.Text, nullable=False),              # JSON of the PrivacyCost
                    sa.Column("spend_epsilon", sa.Float, nullable=False),
                    sa.Column("spend_delta", sa.Float, nullable=False),
                    sa.Column("value", sa.Text, nullable=True),              # JSON of the released value
                    sa.Column("state", sa.String(10), nullable=False),       # "spent" | "released"
                    *extra)


def _kept(md: sa.MetaData) -> sa.Table:
    return sa.Table("kept_data", md,
                    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
                              nullable=False, index=True),
                    sa.Column("name", sa.String(200), nullable=False),
                    sa.Column("created", sa.Float, nullable=False),
                    sa.Column("expires", sa.Float, nullable=False, index=True),
                    sa.Column("payload", sa.LargeBinary, nullable=False))   # zlib of the table's JSON


def _sketches(md: sa.MetaData) -> sa.Table:
    return sa.Table("account_sketches", md,
                    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                              primary_key=True),
                    sa.Column("rows", sa.BigInteger, nullable=False),
                    sa.Column("sketch", sa.LargeBinary, nullable=False))    # sorted 8-byte keyed row hashes


def _classroom(md: sa.MetaData) -> tuple[sa.Table, ...]:
    """The classroom's five tables (version 6; they reference each other only, never a workspace)."""
    def fk(name: str, table: str) -> sa.Column:
        return sa.Column(name, sa.Integer, sa.ForeignKey(f"{table}.id", ondelete="CASCADE"), nullable=False)

    def pk() -> sa.Column:
        return sa.Column("id", sa.Integer, primary_key=True, autoincrement=True)

    def played() -> list[sa.Column]:   # the setting a class plays now, or a round played
        return [sa.Column("scenario", sa.String(40), nullable=False),
                sa.Column("audit_id", sa.String(120), nullable=False),
                sa.Column("mutant", sa.Boolean, nullable=False),
                sa.Column("epsilon", sa.Float, nullable=False),
                sa.Column("delta", sa.Float, nullable=False)]

    classes = sa.Table("classroom_classes", md, pk(),
                       sa.Column("join_code", sa.String(8), nullable=False, unique=True),
                       sa.Column("teacher_key_hash", sa.String(64), nullable=False, unique=True),
                       *played(),
                       sa.Column("max_rounds", sa.Integer, nullable=False),
                       sa.Column("ended", sa.Boolean, nullable=False, default=False),
                       sa.Column("created_at", sa.Float, nullable=False),
                       sa.Column("last_activity", sa.Float, nullable=False, index=True))
    rounds = sa.Table("classroom_rounds", md, pk(), fk("class_id", "classroom_classes"),
                      sa.Column("number", sa.Integer, nullable=False), *played(),
                      sa.Column("is_open", sa.Boolean, nullable=False),
                      sa.Column("revealed", sa.Boolean, nullable=False, default=False),
                      sa.Column("opened_at", sa.Float, nullable=False),
                      sa.Column("closed_at", sa.Float),
                      sa.UniqueConstraint("class_id", "number", name="uq_classroom_round_number"))
    students = sa.Table("classroom_students", md, pk(), fk("class_id", "classroom_classes"),
                        sa.Column("nickname", sa.String(100), nullable=False),
                        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
                        sa.Column("joined_at", sa.Float, nullable=False),
                        sa.Column("last_action_at", sa.Float),
                        sa.UniqueConstraint("class_id", "nickname", name="uq_classroom_nickname"))
    trials = sa.Table("classroom_trials", md, pk(), fk("round_id", "classroom_rounds"),
                      fk("student_id", "classroom_students"),
                      sa.Column("secret_in", sa.Boolean, nullable=False),   # THE coin: never shown unrevealed
                      sa.Column("release", sa.Text, nullable=False),        # JSON list of floats (null: NaN, ⊥)
                      sa.UniqueConstraint("round_id", "student_id", name="uq_classroom_trial"))
    answers = sa.Table("classroom_answers", md, pk(), fk("round_id", "classroom_rounds"),
                       fk("student_id", "classroom_students"),
                       sa.Column("says_in", sa.Boolean, nullable=False),
                       sa.Column("confidence", sa.Integer),
                       sa.Column("answered_at", sa.Float, nullable=False),
                       sa.UniqueConstraint("round_id", "student_id", name="uq_classroom_answer"))
    return classes, rounds, students, trials, answers


def _version_table(md: sa.MetaData) -> sa.Table:
    return sa.Table("schema_version", md, sa.Column("version", sa.Integer, nullable=False))


# The current tables (what the queries use); each migration below builds its own copies.
METADATA = sa.MetaData()
workspaces, accounts = _workspaces(METADATA, revision=True), _accounts(METADATA, notion=True)
entries = _entries(METADATA, notion=True)
kept_data, sketches = _kept(METADATA), _sketches(METADATA)
#: The classroom's current tables (their own metadata: no foreign key leaves them; dpcore.classroom.storage).
CLASSROOM_METADATA = sa.MetaData()
classroom_classes, classroom_rounds, classroom_students, classroom_trials, classroom_answers = \
    _classroom(CLASSROOM_METADATA)


def _create(*builders: Callable[[sa.MetaData], sa.Table]) -> Callable[[Connection], None]:
    def migrate(conn: Connection) -> None:
        md = sa.MetaData()
        new = [build(md) for build in builders]
        for name, build in (("workspaces", _workspaces), ("accounts", _accounts)):
            if name not in md.tables:   # a table of an earlier version that a foreign key names (not created)
                build(md)
        for table in new:
            table.create(conn)
    return migrate


def _add_revision(conn: Connection) -> None:
    conn.execute(sa.text("ALTER TABLE workspaces ADD COLUMN revision BIGINT NOT NULL DEFAULT 0"))


def _add_notion(conn: Connection) -> None:
    """Version 5: existing budgets are (ε, δ) by basic composition, unchanged; nothing was spent in ρ."""
    for stmt in ("ALTER TABLE accounts ADD COLUMN notion VARCHAR(10) NOT NULL DEFAULT 'approx'",
                 "ALTER TABLE accounts ADD COLUMN rho FLOAT",
                 "ALTER TABLE accounts ADD COLUMN spent_rho FLOAT NOT NULL DEFAULT 0",
                 "ALTER TABLE entries ADD COLUMN spend_rho FLOAT NOT NULL DEFAULT 0",
                 "ALTER TABLE entries ADD COLUMN spend_how TEXT NOT NULL DEFAULT ''"):
        conn.execute(sa.text(stmt))


def _add_classroom(conn: Connection) -> None:
    """Version 6: the classroom's tables join the store's database.

    The previous version's ``create_tables`` made these same five tables (same columns, constraints and index)
    wherever ``DPX_DATABASE_URL`` pointed, or in ``classroom.sqlite3`` of the data folder: tables found here are
    adopted unchanged (``checkfirst``); when none was here and the database is a SQLite file with an old
    ``classroom.sqlite3`` beside it, that file's rows are copied in, in this same transaction (so once: the
    version is raised by the same commit)."""
    from ._import import import_classroom_file

    md = sa.MetaData()
    tables = _classroom(md)
    found = [t.name for t in tables if sa.inspect(conn).has_table(t.name)]
    for table in tables:
        table.create(conn, checkfirst=True)
    if not found and conn.dialect.name == "sqlite" and conn.engine.url.database:
        import_classroom_file(conn, tables, Path(conn.engine.url.database).with_name("classroom.sqlite3"))


#: Migration i+1 brings a database at version i to version i+1 (append only; never edit a released one).
MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    _create(_workspaces, _accounts, _entries),   # 1
    _create(_kept),                             # 2
    _create(_sketches),                         # 3
    _add_revision,                              # 4
    _add_notion,                                # 5
    _add_classroom,                             # 6
)
LATEST_VERSION = len(MIGRATIONS)


def version_of(conn: Connection) -> int:
    """The schema version of the database (0: empty)."""
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    v = conn.execute(sa.text("SELECT version FROM schema_version")).scalar()
    return int(v or 0)


def upgrade(conn: Connection, target: int = LATEST_VERSION) -> int:
    """Bring the database to ``target`` inside the caller's write transaction; return the version found.

    Raises
    ------
    DPValueError
        If the database was written by a newer version of this program (never downgraded).
    """
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_ID})
    found = version_of(conn)
    if found > LATEST_VERSION:
        raise DPValueError(f"the database has schema version {found}, newer than this program's {LATEST_VERSION}: "
                           "run the newer version of DP Mechanism Explorer, or point DPX_DATABASE_URL elsewhere.")
    if found == 0:
        _version_table(sa.MetaData()).create(conn)
        conn.execute(sa.text("INSERT INTO schema_version (version) VALUES (0)"))
    for v in range(found, target):
        MIGRATIONS[v](conn)
        conn.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": v + 1})
    return found


# -- engines -------------------------------------------------------------------------------------------------
def _sqlite_synchronous() -> str:
    """``DPX_SQLITE_SYNCHRONOUS``: ``FULL`` (default: a spending's commit waits until the disk has it, so even a
    power loss keeps it) or ``NORMAL`` (WAL: a commit survives any crash of the program, but a power loss or an
    OS crash may undo the last commits — faster on a slow disk)."""
    mode = os.environ.get("DPX_SQLITE_SYNCHRONOUS", "FULL").strip().upper()
    if mode not in ("FULL", "NORMAL"):
        raise DPValueError(f"DPX_SQLITE_SYNCHRONOUS = {mode[:20]!r}; use FULL (the default) or NORMAL.")
    return mode


def _sqlite_engine(path: Path) -> Engine:
    durable = _sqlite_synchronous()
    engine = sa.create_engine(f"sqlite+pysqlite:///{path}", connect_args={"timeout": SQLITE_BUSY_MS / 1000,
                                                                          "check_same_thread": False})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi: sqlite3.Connection, record: Any) -> None:
        dbapi.isolation_level = None   # transactions are begun below (pysqlite's own BEGIN is deferred)
        for pragma in ("journal_mode=WAL", f"busy_timeout={SQLITE_BUSY_MS}", "foreign_keys=ON",
                       f"synchronous={durable}"):
            dbapi.execute(f"PRAGMA {pragma}").close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # A writing transaction takes the write lock at BEGIN: its reads (what is spent) and its writes (the
        # spending) are then one serialised step, and two processes can never interleave between them.
        opts = conn.get_execution_options()
        conn.exec_driver_sql(f"PRAGMA synchronous={'NORMAL' if opts.get(_LAZY) else durable}")
        conn.exec_driver_sql("BEGIN IMMEDIATE" if opts.get(_WRITE) else "BEGIN")

    return engine


def make_engine(url: str | None, data_dir: Path) -> Engine:
    """An engine for ``url`` (``sqlite:///…`` or ``postgresql+psycopg://…``), or the SQLite file
    ``<data_dir>/dpx.sqlite3`` when ``url`` is None (the folder is created with mode 0700 if missing)."""
    if url is None:
        # owner-only: the database holds the keyed row sketches and any table a user asked the server to keep
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return _sqlite_engine(data_dir / "dpx.sqlite3")
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise DPValueError(f"database URL {url!r} names no file: an in-memory database is lost on exit; "
                               "use sqlite:////absolute/path/dpx.sqlite3.")
        return _sqlite_engine(Path(parsed.database))
    if parsed.get_backend_name() in ("postgresql", "postgres"):
        try:
            import psycopg  # noqa: F401  (the driver SQLAlchemy loads for postgresql+psycopg)
        except ImportError:
            raise DPValueError("a PostgreSQL database needs the psycopg driver: pip install 'psycopg[binary]'.") \
                from None
        parsed = parsed.set(drivername="postgresql+psycopg")
        return sa.create_engine(parsed, pool_pre_ping=True)
    raise DPValueError(f"database URL scheme {parsed.drivername!r} is not supported; use sqlite:///path or "
                       "postgresql+psycopg://user@host/db.")


def write(engine: Engine, *, durable: bool = True) -> Any:
    """A connection whose next transaction writes: ``with write(engine) as conn, conn.begin(): …``.
    On SQLite it begins with ``BEGIN IMMEDIATE``; on PostgreSQL writers lock the rows they change.

    ``durable=False``: the commit returns before the disk has it (SQLite WAL ``synchronous=NORMAL``; PostgreSQL
    ``synchronous_commit = off``). It is still atomic and ordered after every earlier commit, and the next
    durable commit flushes it; a power loss (not a crash of the program) may lose it. Used only for what may be
    lost without harm — the released value added to a spending that was itself committed durably."""
    return engine.connect().execution_options(**{_WRITE: True, _LAZY: not durable})


@contextmanager
def transaction(engine: Engine, *, durable: bool = True) -> Iterator[Connection]:
    """One writing transaction: ``with transaction(engine) as conn: …`` (:func:`write` and ``begin``): committed
    on leaving, rolled back on an exception."""
    with write(engine, durable=durable) as conn, conn.begin():
        yield conn


def lazy_engine(engine: Engine) -> Engine:
    """The engine for :func:`write` with ``durable=False``: on PostgreSQL a second pool whose sessions have
    ``synchronous_commit = off`` (set at connection, so no statement per transaction); on SQLite the same
    engine (its transaction begins with ``synchronous=NORMAL``)."""
    if engine.dialect.name != "postgresql":
        return engine
    return sa.create_engine(engine.url, pool_pre_ping=True,
                            connect_args={"options": "-c synchronous_commit=off"})


def secret_file_for(engine: Engine) -> Path | None:
    """Where the server secret lives beside a SQLite database (None for other backends)."""
    if engine.dialect.name != "sqlite" or not engine.url.database:
        return None
    return Path(engine.url.database).with_name("dpx.secret")


def read_or_create_secret(path: Path) -> bytes:
    """The secret in ``path``, created on first start with 32 random bytes (hex) and mode 0600.

    ``O_EXCL`` makes the first of several starting processes the only writer; the others read its file."""
    import secrets

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32))
    for _ in range(100):    # a process that lost the race may read before the winner has written
        text = path.read_text(encoding="ascii").strip()
        if text:
            break
        import time

        time.sleep(0.01)
    if len(text) < 32:
        raise DPValueError(f"the server secret file {path} holds {len(text)} characters; it must hold at least 32 "
                           "(delete it to have a new one made: the budgets' identities then change).")
    if os.stat(path).st_mode & 0o077:
        raise DPValueError(f"the server secret file {path} is readable by others; run chmod 600 {path}.")
    return text.encode("ascii")

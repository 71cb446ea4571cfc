"""State that outlives a browser tab: workspaces, budgets, spending, the ledger and kept data, in a database.

SQLite by default (one file under a data directory, WAL mode: several server processes on one host share it);
PostgreSQL for several servers (``DPX_DATABASE_URL=postgresql+psycopg://…``). SQLAlchemy 2 Core, one code path
for both, and one database for the whole program: :func:`open_engine` opens (and upgrades) it for the store and
for the classroom game (:mod:`dpcore.classroom.storage`, whose tables are migration 6). Schema and migrations:
:mod:`._schema` (the import of a pre-6 ``classroom.sqlite3``: :mod:`._import`); the data's keyed identity and
near-copy rule: :mod:`._identity`; the store, workspaces and the one-transaction check-and-spend: :mod:`._store`.

>>> import tempfile
>>> store = open_store(data_dir=tempfile.mkdtemp())
>>> ws, token = store.create_workspace()
>>> store.open_workspace(token) == ws, len(token) >= 32
(True, True)
>>> store.close()
"""
from ._identity import MATCH_FRACTION, SKETCH_K, DataIdentity, matched_fraction
from ._schema import LATEST_VERSION, transaction
from ._store import DEFAULT_KEEP_DAYS, TOKEN_BYTES, KeptData, Match, Store, Workspace, open_engine, open_store

__all__ = ["DEFAULT_KEEP_DAYS", "LATEST_VERSION", "MATCH_FRACTION", "SKETCH_K", "TOKEN_BYTES", "DataIdentity",
           "KeptData", "Match", "Store", "Workspace", "matched_fraction", "open_engine", "open_store", "transaction"]

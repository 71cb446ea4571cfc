"""State that outlives a browser tab: workspaces, budgets, spending, the ledger and kept data, in a database.

SQLite by default (one file under a data directory, WAL mode: several server processes on one host share it);
PostgreSQL for several servers (``DPX_DATABASE_URL=postgresql+psycopg://…``). SQLAlchemy 2 Core, one code path
for both. Schema and migrations: :mod:`._schema`; the data's keyed identity and near-copy rule:
:mod:`._identity`; the store, workspaces and the one-transaction check-and-spend: :mod:`._store`.

>>> import tempfile
>>> store = open_store(data_dir=tempfile.mkdtemp())
>>> ws, token = store.create_workspace()
>>> store.open_workspace(token) == ws, len(token) >= 32
(True, True)
>>> store.close()
"""
from ._identity import MATCH_FRACTION, SKETCH_K, DataIdentity, matched_fraction
from ._schema import LATEST_VERSION
from ._store import DEFAULT_KEEP_DAYS, TOKEN_BYTES, KeptData, Match, Store, Workspace, open_store

__all__ = ["DEFAULT_KEEP_DAYS", "LATEST_VERSION", "MATCH_FRACTION", "SKETCH_K", "TOKEN_BYTES", "DataIdentity",
           "KeptData", "Match", "Store", "Workspace", "matched_fraction", "open_store"]

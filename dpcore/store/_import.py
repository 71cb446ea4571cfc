"""Version 6's one-time import of the classroom file the previous version kept beside the store's SQLite file.

Until version 6 the classroom kept its tables, by its own ``create_tables``, in ``classroom.sqlite3`` of the data
folder (``DPX_DATA_DIR``), while the store used ``dpx.sqlite3`` there. Migration 6 (:mod:`._schema`) creates the
same tables in the store's database and, when that database is a SQLite file with a ``classroom.sqlite3`` beside
it, copies that file's rows here inside the migration's transaction: the rows and the new schema version are one
commit, so the copy happens exactly once (a failed copy leaves the database at version 5, to be retried whole at
the next start). Ids are kept, so every foreign key still points at its row. The old file is only read (SQLite may
fold its write-ahead log into it on closing); nothing reads it afterwards, and it may be deleted.

Why not a secret coin's concern: the copied trials keep their ``secret_in`` in the same database the classroom
now reads; nothing here prints or logs a row.
"""
from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

__all__ = ["import_classroom_file"]


def import_classroom_file(conn: Connection, tables: tuple[sa.Table, ...], path: Path) -> int:
    """Copy the rows of ``tables`` (parents first) from the SQLite file ``path``, if it exists, into ``conn``.

    Parameters
    ----------
    conn : Connection
        The store's database inside migration 6's write transaction (the tables just created there, empty).
    tables : tuple of Table
        The classroom's version-6 tables, in an order where every table follows the tables it references.
    path : Path
        The previous version's ``classroom.sqlite3``; a missing file, or one without a table, imports nothing.

    Returns
    -------
    int
        The number of rows copied.
    """
    if not path.is_file() or path.resolve() == Path(str(conn.engine.url.database)).resolve():
        return 0
    old = sa.create_engine(f"sqlite+pysqlite:///{path}")
    copied = 0
    try:
        with old.connect() as src:
            present = set(sa.inspect(src).get_table_names())
            for table in tables:
                if table.name not in present:
                    continue
                have = {c["name"] for c in sa.inspect(src).get_columns(table.name)}
                cols = [c for c in table.columns if c.name in have]
                rows = [dict(r) for r in src.execute(sa.select(*cols).order_by(table.c.id)).mappings()]
                if rows:
                    conn.execute(sa.insert(table), rows)
                    copied += len(rows)
    finally:
        old.dispose()
    return copied

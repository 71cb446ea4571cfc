"""Both database backends for the classroom's storage tests: SQLite in tmp_path, and a REAL PostgreSQL server
started once per session (initdb + pg_ctl in a temporary directory, as the unprivileged ``postgres`` user
through ``runuser`` when run as root, on a free port of 127.0.0.1), stopped at the end; one fresh database per
test. Without the PostgreSQL binaries the PostgreSQL half is skipped, unless ``REQUIRE_POSTGRES=1`` (then fails).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@pytest.fixture(scope="session")
def postgres_server():
    """URL prefix of a running PostgreSQL server (no database name)."""
    initdb, pg_ctl = PG_BIN / "initdb", PG_BIN / "pg_ctl"
    if not initdb.exists():
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail(f"REQUIRE_POSTGRES=1 but {initdb} does not exist (apt-get install postgresql-15)")
        pytest.skip(f"{initdb} not installed; set REQUIRE_POSTGRES=1 to make this a failure")
    root = Path(tempfile.mkdtemp(prefix="dpx-classroom-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
        os.chmod(root, 0o700)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run(_as_postgres([str(initdb), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                 "--no-sync"]), check=True, capture_output=True)
    opts = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={sock} -c fsync=off"
    subprocess.run(_as_postgres([str(pg_ctl), "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "start"]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(_as_postgres([str(pg_ctl), "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """URL of an empty database of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'dpx.sqlite3'}"
    server = request.getfixturevalue("postgres_server")
    name = "c_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    return f"{server}/{name}"


@pytest.fixture
def engine(db_url):
    """An engine on a fresh database of each backend with the classroom's tables (the store's, upgraded)."""
    from dpcore.store import open_engine

    e = open_engine(db_url)
    yield e
    e.dispose()

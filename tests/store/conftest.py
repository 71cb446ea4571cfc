"""Both backends for the store's tests: SQLite in tmp_path, and a REAL PostgreSQL server started once per test
session (initdb + pg_ctl in a temporary directory, as the unprivileged ``postgres`` user when run as root, on a
free port of 127.0.0.1), stopped at the end. Each test gets its own fresh PostgreSQL database.

Without the PostgreSQL binaries the PostgreSQL half is skipped — unless ``REQUIRE_POSTGRES=1`` (CI), where it
fails.
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

SECRET = "test-secret-" + "x" * 40
_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def _pg_bin(name: str) -> str | None:
    for d in _BIN_DIRS:
        if (d / name).exists():
            return str(d / name)
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@pytest.fixture(scope="session")
def postgres_server():
    """The URL of a running PostgreSQL server's maintenance database (``postgres``)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail("REQUIRE_POSTGRES=1 but initdb/pg_ctl were not found (apt-get install -y postgresql)")
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql); REQUIRE_POSTGRES=1 fails")
    root = Path(tempfile.mkdtemp(prefix="dpx-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres"), shutil.chown(sock, "postgres")
        os.chmod(root, 0o700)
    port = _free_port()
    subprocess.run(_as_postgres([initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                 "--no-sync"]), check=True, capture_output=True)
    opts = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={sock} -c fsync=off " \
           "-c max_connections=60"
    subprocess.run(_as_postgres([pg_ctl, "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "start"]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(_as_postgres([pg_ctl, "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def fresh_pg_database(server: str) -> str:
    """A new empty database on the server; its URL."""
    name = "t_" + uuid.uuid4().hex[:12]
    engine = sa.create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return f"{server}/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """The URL of an empty database of each backend (SQLite: a file in tmp_path)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'dpx.sqlite3'}"
    return fresh_pg_database(request.getfixturevalue("postgres_server"))


@pytest.fixture
def store(store_url):
    from dpcore.store import open_store

    s = open_store(store_url, secret=SECRET)
    yield s
    s.close()

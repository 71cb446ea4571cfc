"""Issue 34: the classroom's tables are the store's migration 6, in the store's database, on both backends.

A version-5 database holding a workspace with a budget and a ledger upgrades to 6 without losing them and then
plays a class; tables the previous version's classroom had already made in the same database are adopted with
their classes; an old ``classroom.sqlite3`` beside a SQLite store is copied in once; and two processes upgrading
one database at the same moment take turns (one runs migration 6, the other finds version 6)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from dpcore.classroom import storage as C
from dpcore.classroom.scenarios import check_setting
from dpcore.errors import DPValueError
from dpcore.privacy import Budget, PrivacyCost
from dpcore.store import LATEST_VERSION, Store, open_engine, open_store
from dpcore.store import _schema as S

from .conftest import SECRET

ROOT = Path(__file__).resolve().parents[2]
LAPLACE = check_setting("mean", "noise/laplace", False, 1.0)
CLASSROOM = {"classroom_classes", "classroom_rounds", "classroom_students", "classroom_trials", "classroom_answers"}


def _at_version(url: str, version: int) -> sa.engine.Engine:
    engine = S.make_engine(url, None)   # type: ignore[arg-type]  (a URL is given: no folder needed)
    with S.transaction(engine) as conn:
        S.upgrade(conn, target=version)
    return engine


def _tables(url: str) -> set[str]:
    engine = S.make_engine(url, None)   # type: ignore[arg-type]
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _play(engine, n_students: int = 2):
    """A class with ``n_students`` who each answered round 1 (closed and revealed)."""
    nc = C.create_class(engine, LAPLACE, 3, now=100.0)
    kids = [C.join(engine, nc.join_code, f"kid {i}", now=101.0) for i in range(n_students)]
    C.open_round(engine, nc.teacher_key, now=102.0)
    for i, k in enumerate(kids):
        C.answer(engine, k.join_code, k.token, 1, i % 2 == 0, 2, now=103.0)
    C.close_round(engine, nc.teacher_key, now=104.0)
    C.reveal_round(engine, nc.teacher_key, now=105.0)
    return nc, kids


def _count(engine, table) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def test_issue34_a_v5_database_with_a_workspace_and_a_ledger_upgrades_to_v6(store_url):
    engine = _at_version(store_url, 5)
    old = Store(engine, SECRET.encode())
    ws, token = old.create_workspace()
    ws.open_key("k1", 500, "survey.csv", ("age",), Budget(2.0, 1e-6, n=500))
    entry = ws.check_and_spend("k1", PrivacyCost.pure(0.5), label="mean age")
    ws.record(entry, 41.5)
    assert old.schema_version() == 5 and not CLASSROOM & _tables(store_url)
    old.close()

    store = open_store(store_url, secret=SECRET)          # the one code path that upgrades
    assert store.schema_version() == LATEST_VERSION == 6
    assert CLASSROOM <= _tables(store_url)
    back = store.open_workspace(token)
    assert back is not None and back.id == ws.id
    acct = back.account("k1")
    assert acct.budget == Budget(2.0, 1e-6, n=500) and acct.spent() == (0.5, 0.0)
    assert [(e.label, e.value) for e in acct.entries] == [("mean age", 41.5)]
    nc, kids = _play(store.engine)                        # the classroom plays in the same database
    assert C.teacher_class(store.engine, nc.teacher_key, now=106.0).join_code == nc.join_code
    assert _count(store.engine, C.answers) == 2
    store.close()
    again = open_store(store_url, secret=SECRET)          # reopening changes nothing
    assert again.schema_version() == 6 and _count(again.engine, C.answers) == 2
    again.close()


def test_issue34_classroom_tables_already_in_the_database_are_adopted_with_their_classes(store_url):
    """The previous version's classroom made its tables wherever DPX_DATABASE_URL pointed: on PostgreSQL (or a
    SQLite URL) they are in the store's database already, beside a schema at version 5."""
    engine = _at_version(store_url, 5)
    with S.transaction(engine) as conn:                    # what the previous create_tables did
        C.metadata.create_all(conn)
    nc, kids = _play(engine, 3)
    engine.dispose()
    upgraded = open_engine(store_url)
    with upgraded.connect() as conn:
        assert S.version_of(conn) == 6
    assert C.resume_student(upgraded, nc.join_code, kids[2].token, now=110.0).nickname == "kid 2"
    assert _count(upgraded, C.answers) == 3 and _count(upgraded, C.trials) == 3
    upgraded.dispose()


def _old_classroom_file(folder: Path):
    """The previous version's ``classroom.sqlite3`` in ``folder``, with a played class in it."""
    engine = S.make_engine(f"sqlite:///{folder / 'classroom.sqlite3'}", folder)
    C.metadata.create_all(engine)
    played = _play(engine, 3)
    return engine, played


def test_issue34_an_old_classroom_file_is_imported_once(tmp_path):
    _at_version(f"sqlite:///{tmp_path / 'dpx.sqlite3'}", 5).dispose()
    old, (nc, kids) = _old_classroom_file(tmp_path)
    with old.connect() as conn:
        coins = conn.execute(sa.select(C.trials.c.secret_in, C.trials.c.release).order_by(C.trials.c.id)).all()

    store = open_store(data_dir=tmp_path, secret=SECRET)  # DPX_DATA_DIR = tmp_path: dpx.sqlite3 at version 5
    e = store.engine
    assert store.schema_version() == 6
    assert C.teacher_class(e, nc.teacher_key, now=200.0).join_code == nc.join_code    # the key still opens it
    assert C.resume_student(e, nc.join_code, kids[0].token, now=200.0).nickname == "kid 0"
    with e.connect() as conn:
        assert conn.execute(sa.select(C.trials.c.secret_in, C.trials.c.release).order_by(C.trials.c.id)).all() \
            == coins                                                                   # the same coins and draws
    assert {t.name: _count(e, t) for t in C.metadata.sorted_tables} == {
        "classroom_classes": 1, "classroom_rounds": 1, "classroom_students": 3, "classroom_trials": 3,
        "classroom_answers": 3}
    C.open_round(e, nc.teacher_key, now=201.0)                                         # and the class plays on
    assert "recorded" in C.answer(e, nc.join_code, kids[1].token, 2, True, None, now=202.0)

    _play(old, 1)                          # an old process writes on after the upgrade: not copied again
    old.dispose()
    store.close()
    store = open_store(data_dir=tmp_path, secret=SECRET)
    assert _count(store.engine, C.classes) == 1 and _count(store.engine, C.answers) == 4
    store.close()


def test_issue34_a_new_database_imports_an_old_classroom_file_too(tmp_path):
    """A data folder where only the classroom was ever used: the store's database is new (0 → 6)."""
    old, (nc, _) = _old_classroom_file(tmp_path)
    old.dispose()
    e = open_engine(data_dir=tmp_path)
    assert C.teacher_class(e, nc.teacher_key, now=150.0).class_id == nc.class_id
    assert _count(e, C.answers) == 3
    e.dispose()


_UPGRADER = textwrap.dedent("""
    import pathlib, sys, time
    from dpcore.store import _schema as S
    url, marker, go = sys.argv[1:4]
    six = S.MIGRATIONS[5]

    def slow_six(conn):          # migration 6, held open for a second: the other process must wait for it
        six(conn)
        pathlib.Path(marker).write_text("ran")
        time.sleep(1.0)

    S.MIGRATIONS = S.MIGRATIONS[:5] + (slow_six,)
    engine = S.make_engine(url, pathlib.Path("."))
    while not pathlib.Path(go).exists():
        time.sleep(0.002)
    with S.transaction(engine) as conn:
        print(S.upgrade(conn))
""")


def test_issue34_two_processes_upgrading_at_once_create_the_tables_once(store_url, tmp_path):
    _at_version(store_url, 5).dispose()
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _UPGRADER, store_url, str(tmp_path / f"ran{i}"), str(go)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    time.sleep(1.5)                        # both have imported and are polling
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]
    assert sorted(int(out.strip()) for out, _ in outs) == [5, 6]    # one upgraded, the other found it done
    assert len(list(tmp_path.glob("ran*"))) == 1                    # migration 6 ran once
    engine = open_engine(store_url)
    with engine.connect() as conn:
        assert S.version_of(conn) == 6
        assert conn.execute(sa.text("SELECT count(*) FROM schema_version")).scalar() == 1
    assert CLASSROOM <= set(sa.inspect(engine).get_table_names())
    engine.dispose()


def test_issue34_a_database_newer_than_the_program_is_refused_by_the_classroom_too(store_url):
    engine = _at_version(store_url, 6)
    with S.transaction(engine) as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = 7"))
    engine.dispose()
    with pytest.raises(DPValueError, match="schema version 7, newer than this program's 6"):
        open_engine(store_url)

"""The store on both backends (SQLite file and a real PostgreSQL): workspaces, one-transaction budgets under
concurrency (threads and processes), the keyed identity and near-copy rule, migrations, expiry, restart."""
from __future__ import annotations

import multiprocessing
import sys
import types
import os
import stat
import threading
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from dpcore.data import load_csv
from dpcore.errors import DPValueError
from dpcore.privacy import Budget, BudgetExceeded, LedgerEntry, PrivacyCost
from dpcore.store import LATEST_VERSION, open_store
from dpcore.store import _schema as S

from .conftest import SECRET


def people(n: int = 200, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n).astype(float), "income": rng.normal(50, 10, n).round(2),
                         "city": rng.choice(["Oslo", "Lima", "Pune"], n)})


def opened(store, frame=None, name="people.csv", budget=None):
    ws, token = store.create_workspace()
    acct, match = ws.open_account(store.identify(people() if frame is None else frame), name, budget)
    return ws, token, acct, match


# -- workspaces ----------------------------------------------------------------------------------------------
def test_workspace_token_is_unguessable_and_only_its_hash_is_stored(store):
    ws, token = store.create_workspace()
    assert len(token) >= 32 and store.open_workspace(token) == ws
    assert store.open_workspace(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert store.open_workspace("short") is None
    with store.engine.connect() as conn:
        dump = repr(conn.execute(sa.select(S.workspaces)).all())
    assert token not in dump


def test_delete_workspace_removes_everything_in_it(store):
    ws, token, acct, _ = opened(store)
    ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(1.0), label="mean")
    ws.keep_table("people.csv", {"t": [1, 2]})
    other, _ = store.create_workspace()
    assert store.delete_workspace(token) and store.open_workspace(token) is None
    with store.engine.connect() as conn:
        for t in (S.accounts, S.entries, S.kept_data, S.sketches):
            assert conn.execute(sa.select(sa.func.count()).select_from(t)).scalar() == 0, t.name
    assert other.exists() and not store.delete_workspace(token)


# -- check and spend -----------------------------------------------------------------------------------------
def test_check_and_spend_refuses_with_the_budget_message_and_records_nothing(store):
    ws, _, acct, _ = opened(store, budget=Budget(3.0, 1e-5, n=200))
    eid = ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(2.0), label="mean of age")
    ws.record(eid, [41.5])
    with pytest.raises(BudgetExceeded, match=r"costs ε = 2, δ = 0 but only ε = 1, δ = 1e-05 remain of the budget "
                                             r"ε = 3, δ = 1e-05 of “people.csv”"):
        ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(2.0), label="again")
    a = ws.account(acct.fingerprint)
    assert a.spent() == (2.0, 0.0) and [e.value for e in a.entries] == [[41.5]] and not a.budget_open
    with pytest.raises(BudgetExceeded, match="1/n"):      # δ ≥ 1/n per draw, no override
        ws.check_and_spend(acct.fingerprint, PrivacyCost.approx(0.1, 0.01), label="big delta")


def test_cancel_gives_back_an_unshown_spending_and_record_charges_a_higher_actual_cost(store):
    ws, _, acct, _ = opened(store, budget=Budget(3.0, 0.0, n=200))
    eid = ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(3.0), label="raised")
    ws.cancel(eid)
    assert ws.account(acct.fingerprint).spent() == (0.0, 0.0)
    eid = ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(1.0), label="ok")
    ws.record(eid, 1.0, PrivacyCost.pure(1.5))
    assert ws.account(acct.fingerprint).spent() == (1.5, 0.0)


def test_non_dp_and_demo_entries_are_listed_apart(store):
    ws, _, acct, _ = opened(store)
    ws.add_entry(acct.fingerprint, LedgerEntry("teaching view", PrivacyCost.pure(1.0), counted_as_dp=False,
                                               reason="non-private teaching view", value=3))
    ws.add_entry(None, LedgerEntry("diabetes mean", PrivacyCost.pure(1.0), counted_as_dp=False, reason="built-in"))
    assert ws.account(acct.fingerprint).spent() == (0.0, 0.0)
    assert [e.label for e in ws.demo_entries()] == ["diabetes mean"]
    assert {e.label for e in ws.all_entries()} == {"teaching view", "diabetes mean"}
    with pytest.raises(DPValueError, match="charged to a dataset"):
        ws.add_entry(None, LedgerEntry("x", PrivacyCost.pure(1.0)))


def test_budget_rules_hold_in_the_store(store):
    ws, _, acct, _ = opened(store)
    ws.set_budget(acct.fingerprint, Budget(5.0, 1e-6))
    ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(1.0), label="a")
    with pytest.raises(DPValueError, match="cannot be raised after a release"):
        ws.set_budget(acct.fingerprint, Budget(6.0, 1e-6))
    ws.open_account(store.identify(people()), "people.csv")     # loaded again: may be raised until next release
    assert ws.set_budget(acct.fingerprint, Budget(6.0, 1e-6)).budget.epsilon == 6.0


def _click(ws, key, results, barrier):
    barrier.wait()
    try:
        ws.check_and_spend(key, PrivacyCost.pure(1.0), label="click")
        results.append("spent")
    except BudgetExceeded:
        results.append("refused")


def test_concurrent_threads_never_spend_more_than_the_budget(store):
    ws, _, acct, _ = opened(store, budget=Budget(3.0, 0.0, n=200))
    results: list[str] = []
    barrier = threading.Barrier(8)
    threads = [threading.Thread(target=_click, args=(ws, acct.fingerprint, results, barrier)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["refused"] * 5 + ["spent"] * 3
    assert ws.account(acct.fingerprint).spent() == (3.0, 0.0)


def _process_clicks(url: str, token: str, key: str, clicks: int, start, out) -> None:
    store = open_store(url, secret=SECRET)
    ws = store.open_workspace(token)
    start.wait()
    spent = 0
    for _ in range(clicks):
        try:
            ws.check_and_spend(key, PrivacyCost.pure(0.5), label="process click")
            spent += 1
        except BudgetExceeded:
            pass
    out.put(spent)
    store.close()


def test_two_processes_never_spend_more_than_the_budget(store, store_url, monkeypatch):
    # A spawned child re-runs the parent's __main__ by its path; in a test worker that ran an AppTest before, that is
    # a page script (pages/kng.py), which cannot run outside Streamlit: give the children an empty __main__.
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    ws, token, acct, _ = opened(store, budget=Budget(7.0, 0.0, n=200))
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_process_clicks, args=(store_url, token, acct.fingerprint, 12, start, out))
             for _ in range(2)]
    for p in procs:
        p.start()
    counts = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert sum(counts) == 14 and ws.account(acct.fingerprint).spent() == (7.0, 0.0)


# -- identity: the same people ------------------------------------------------------------------------------
def test_reordered_rows_extra_constant_column_and_one_edited_cell_spend_from_the_same_budget(store):
    df = people()
    ws, _, acct, first = opened(store, df)
    assert first.created
    reordered = df.sample(frac=1.0, random_state=3)[["city", "income", "age"]]
    m = ws.find(store.identify(reordered))
    assert m.key == acct.fingerprint and m.fraction == 1.0 and store.identify(reordered).key == acct.fingerprint
    extra = df.assign(country="NO")
    m = ws.find(store.identify(extra))
    assert m.key == acct.fingerprint and m.fraction == 1.0 and not m.same_columns
    edited = df.copy()
    edited.loc[5, "age"] = 99.0
    _, m = ws.open_account(store.identify(edited), "people-edited.csv")
    assert m.key == acct.fingerprint and not m.created and m.fraction == pytest.approx(199 / 200)
    assert "99.5 % of its rows" in m.describe() and "“people.csv”" in m.describe()
    assert len(ws.accounts()) == 1


def test_a_different_table_and_a_table_below_the_line_get_new_budgets(store):
    df = people()
    ws, _, acct, _ = opened(store, df)
    other = people(seed=2)
    _, m = ws.open_account(store.identify(other), "other.csv")
    assert m.created and m.key != acct.fingerprint
    far = df.copy()
    far.loc[:29, "income"] += 1000.0          # 30 of 200 rows changed: 85 % coincide, below 90 %
    assert ws.find(store.identify(far)) is None or ws.find(store.identify(far)).key != acct.fingerprint


def test_identity_ignores_the_files_formatting(store):
    a = load_csv(b"age,income\n30,1.5\n41,2.25\n", name="a.csv")
    b = load_csv(b"\xef\xbb\xbfincome;age\r\n2,25;41\r\n1,50;30\r\n", name="b.csv")
    assert store.identify(a).key == store.identify(b).key


def test_identity_depends_on_the_server_secret(store_url, tmp_path):
    s1 = open_store(store_url, secret=SECRET)
    s2 = open_store(store_url, secret="another-secret-" + "y" * 40)
    assert s1.identify(people()).key != s2.identify(people()).key
    s1.close(), s2.close()


def test_large_tables_are_matched_by_their_sketch(store):
    df = people(5000, seed=4)
    ws, _, acct, _ = opened(store, df)
    edited = df.copy()
    edited.loc[:99, "age"] = -1.0                  # 98 % coincide
    assert ws.find(store.identify(edited)).fraction == pytest.approx(0.98, abs=0.03)
    assert ws.find(store.identify(people(5000, seed=5))) is None


# -- lifetime: migrations, restart, expiry, secret ------------------------------------------------------------
def test_a_version_1_database_is_upgraded_on_open(store_url):
    engine = S.make_engine(store_url, None)   # type: ignore[arg-type]
    with S.write(engine) as conn, conn.begin():
        S.upgrade(conn, target=1)
        wid = conn.execute(sa.text("INSERT INTO workspaces (token_hash, created) VALUES ('h', 0) RETURNING id")
                           ).scalar()
        aid = conn.execute(sa.text("INSERT INTO accounts (workspace_id, key, name, n, columns, epsilon, delta, "
                             "allow_large_delta, budget_open, spent_epsilon, spent_delta, created) VALUES "
                             "(:w, 'k1', 'old.csv', 10, '[]', 3.0, 0.0, false, false, 1.0, 0.0, 0) RETURNING id"), {"w": wid}).scalar()
        cost = '{"notion": "pure", "epsilon": 1.0, "delta": 0.0, "rho": null, "count": 1, "neighbours": "replace-one", ' \
               '"note": ""}'
        conn.execute(sa.text("INSERT INTO entries (workspace_id, account_id, time, label, counted, reason, cost, "
                             "spend_epsilon, spend_delta, value, state) VALUES (:w, :a, 't', 'old mean', true, '', "
                             ":c, 1.0, 0.0, '2.5', 'released')"), {"w": wid, "a": aid, "c": cost})
    with engine.connect() as conn:
        assert S.version_of(conn) == 1 and not sa.inspect(conn).has_table("kept_data")
    engine.dispose()
    store = open_store(store_url, secret=SECRET)
    assert store.schema_version() == LATEST_VERSION
    from dpcore.store import Workspace

    ws = Workspace(store, int(wid))
    assert ws.account("k1").spent() == (1.0, 0.0) and ws.account("k1").entries[0].value == 2.5 and ws.kept() == []
    ws.keep_table("t", {"x": 1})
    with pytest.raises(BudgetExceeded):
        ws.check_and_spend("k1", PrivacyCost.pure(2.5), label="beyond the old spending")
    store.close()


def test_restart_reopening_the_store_finds_everything(store_url):
    store = open_store(store_url, secret=SECRET)
    ws, token, acct, _ = opened(store)
    ws.record(ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(1.0), label="mean"), 42.0)
    kept = ws.keep_table("people.csv", {"rows": 200})
    store.close()
    again = open_store(store_url, secret=SECRET)
    ws2 = again.open_workspace(token)
    a = ws2.account(acct.fingerprint)
    assert a.spent() == (1.0, 0.0) and a.entries[0].value == 42.0 and a.entries[0].label == "mean"
    assert ws2.kept_table(kept.id) == {"rows": 200}
    assert ws2.find(again.identify(people().iloc[::-1])).key == acct.fingerprint
    again.close()


def test_kept_data_expires_and_can_be_deleted(store):
    ws, _ = store.create_workspace()
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    a = ws.keep_table("a.csv", {"a": 1}, now=now)
    b = ws.keep_table("b.csv", {"b": 1}, now=now, days=30)
    assert [k.name for k in ws.kept(now)] == ["a.csv", "b.csv"]
    assert store.purge_expired(now + timedelta(days=6)) == 0
    assert store.purge_expired(now + timedelta(days=7, seconds=1)) == 1
    assert [k.id for k in ws.kept(now)] == [b.id] and ws.kept_table(a.id) is None
    ws.delete_kept(b.id)
    assert ws.kept(now) == []
    with pytest.raises(DPValueError, match="days"):
        ws.keep_table("c", {}, days=float("inf"))


def test_sqlite_secret_file_is_created_owner_only_and_reused(tmp_path, monkeypatch):
    monkeypatch.delenv("DPX_SERVER_SECRET", raising=False)
    monkeypatch.delenv("DPX_DATABASE_URL", raising=False)
    s = open_store(data_dir=tmp_path)
    path = tmp_path / "dpx.secret"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    key = s.identify(people()).key
    s.close()
    s = open_store(data_dir=tmp_path)
    assert s.identify(people()).key == key
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    s.close()


def test_postgres_without_a_secret_is_refused_naming_the_variable(postgres_server, monkeypatch):
    monkeypatch.delenv("DPX_SERVER_SECRET", raising=False)
    with pytest.raises(DPValueError, match="DPX_SERVER_SECRET"):
        open_store(f"{postgres_server}/postgres")


def test_no_database_named_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("DPX_DATABASE_URL", raising=False)
    monkeypatch.delenv("DPX_DATA_DIR", raising=False)
    with pytest.raises(DPValueError, match="DPX_DATA_DIR"):
        open_store()


def test_a_new_data_directory_is_owner_only(tmp_path, monkeypatch):
    monkeypatch.delenv("DPX_DATABASE_URL", raising=False)
    s = open_store(data_dir=tmp_path / "dpx-data", secret=SECRET)
    assert stat.S_IMODE(os.stat(tmp_path / "dpx-data").st_mode) == 0o700
    assert (tmp_path / "dpx-data" / "dpx.sqlite3").exists()
    s.close()


def test_an_empty_table_has_no_identity(store):
    with pytest.raises(DPValueError, match="at least one row"):
        store.identify(pd.DataFrame({"a": []}))

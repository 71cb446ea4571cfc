"""Issue 33 in the database (both backends): the budget's notion and ρ are stored, every charge is converted once in
``check_and_spend``'s one transaction and stored per entry (spend_rho) and per account (spent_rho); the top-up,
cancel and the imported-ledger path count ρ; concurrency stays exact; migration 5 upgrades a version-4 database."""
from __future__ import annotations

import json
import threading

import pytest
import sqlalchemy as sa

from dpcore.errors import DPValueError
from dpcore.privacy import Budget, BudgetExceeded, LedgerEntry, PrivacyCost, default_budget
from dpcore.privacy.budget import DatasetAccount
from dpcore.privacy._accounts import StoreBook
from dpcore.store import LATEST_VERSION, Workspace, open_store
from dpcore.store import _schema as S

from .conftest import SECRET


def _clicks(ws, key, cost, limit=200):
    for i in range(limit):
        try:
            ws.check_and_spend(key, cost, label=f"click {i}")
        except BudgetExceeded:
            return i
    return limit


def test_issue_33_capacities_through_check_and_spend(store):
    """Done when: default (ε = 3, δ = 1e-5) as ρ-zCDP admits ≥ 22 Gaussian releases at ρ = 0.01 and ≥ 44 at
    ρ = 0.005; as pure ε 10 Laplace releases at ε = 0.3 — each one transaction of the database."""
    ws, _ = store.create_workspace()
    for key, rho, at_least in (("a", 0.01, 22), ("b", 0.005, 44)):
        ws.open_key(key, 500, f"{key}.csv", budget=default_budget(500, "zcdp"))
        assert _clicks(ws, key, PrivacyCost.zcdp(rho)) >= at_least
        a = ws.account(key)
        assert a.budget.notion == "zcdp" and a.used().rho == pytest.approx(rho * len(a.counted))
        assert a.summary().remaining.rho >= 0 and a.summary().remaining.rho < rho
    ws.open_key("p", 500, "p.csv", budget=default_budget(500, "pure"))
    assert _clicks(ws, "p", PrivacyCost.pure(0.3)) == 10
    assert ws.account("p").budget.describe() == "ε = 3 (pure ε-DP, δ = 0)"


def test_a_large_table_admits_a_zcdp_release_and_the_charge_is_stored(store):
    ws, _ = store.create_workspace()
    acct = ws.open_key("big", 10**6, "big.csv")
    assert acct.budget.delta == pytest.approx(1e-7) and acct.budget.notion == "approx"
    ws.check_and_spend("big", PrivacyCost.zcdp(0.01), label="gaussian")
    (e,) = ws.account("big").counted
    assert e.spend.delta == pytest.approx(5e-8) and "half of the δ that remained" in e.spend.how
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(S.accounts).where(S.accounts.c.key == "big")).one()
    assert row.spent_delta == pytest.approx(5e-8) and row.spent_rho == 0.0 and row.notion == "approx"


def test_a_click_of_mixed_costs_is_converted_together_and_recorded_in_its_units(store):
    ws, _ = store.create_workspace()
    ws.open_key("z", 500, "z.csv", budget=Budget.from_rho(1.0, 1e-5, n=500))
    ws.check_and_spend("z", [PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.25)], label="two methods")
    (e,) = ws.account("z").counted
    assert e.cost == PrivacyCost.zcdp(0.75) and e.spend.rho == pytest.approx(0.75)
    ws.open_key("a", 500, "a.csv", budget=Budget(10.0, 1e-5, n=500))
    ws.check_and_spend("a", [PrivacyCost.approx(1.0, 1e-6), PrivacyCost.zcdp(0.25)], label="two methods")
    (e,) = ws.account("a").counted
    assert e.cost.notion == "approx" and e.cost.delta == pytest.approx(1e-6 + 4.5e-6)   # half of what remained


def test_top_up_and_cancel_count_rho(store):
    ws, _ = store.create_workspace()
    ws.open_key("z", 500, "z.csv", budget=Budget.from_rho(1.0, 1e-5, n=500))
    eid = ws.check_and_spend("z", PrivacyCost.zcdp(0.1), label="declared 0.1")
    ws.record(eid, 1.5, PrivacyCost.zcdp(0.3))          # cost more than declared: the rest is charged
    a = ws.account("z")
    assert a.used().rho == pytest.approx(0.3) and a.counted[0].spend.rho == pytest.approx(0.3)
    eid2 = ws.check_and_spend("z", PrivacyCost.zcdp(0.2), label="raised")
    assert ws.account("z").used().rho == pytest.approx(0.5)
    ws.cancel(eid2)                                      # nothing shown: its ρ comes back
    assert ws.account("z").used().rho == pytest.approx(0.3)
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(S.accounts.c.spent_rho)).scalar() == pytest.approx(0.3)


def test_notion_rules_in_the_store(store):
    ws, _ = store.create_workspace()
    ws.open_key("k", 500, "k.csv")
    assert ws.set_budget("k", Budget(3.0, 1e-5, notion="zcdp")).budget.notion == "zcdp"   # open, nothing spent
    ws.check_and_spend("k", PrivacyCost.zcdp(0.05), label="g")
    with pytest.raises(DPValueError, match="notion cannot change after a release"):
        ws.set_budget("k", Budget(3.0, 1e-5))
    assert ws.set_budget("k", Budget.from_rho(0.1, 1e-5)).budget.rho == 0.1            # lowering is allowed
    with pytest.raises(DPValueError, match="below what “k.csv” has already spent"):
        ws.set_budget("k", Budget.from_rho(0.01, 1e-5))
    ws.reopen("k")                                       # loaded again: open, but ρ was spent
    with pytest.raises(DPValueError, match="cannot be counted as"):
        ws.set_budget("k", Budget(3.0, 1e-5))


def test_an_imported_ledger_adds_rho_and_never_changes_the_notion(store):
    ws, _ = store.create_workspace()
    acct = ws.open_key("z", 500, "z.csv", budget=Budget.from_rho(0.5, 1e-5, n=500))
    book = StoreBook(ws)
    file_acct = DatasetAccount("", "z.csv", 500, Budget(30.0, 1e-5), columns=())
    file_acct.record(LedgerEntry("old", PrivacyCost.pure(0.3), time="2026-01-01T00:00:00+00:00"))
    added = book.import_into("z", file_acct)
    a = ws.account("z")
    assert len(added) == 1 and a.budget.notion == "zcdp" and a.budget.rho == 0.5
    assert a.used().rho == pytest.approx(0.045) and a.counted[0].spend.how.startswith("ε = 0.3 counted as ρ")
    bad = DatasetAccount("", "z.csv", 500, Budget(30.0, 1e-5))
    bad.record(LedgerEntry("approx", PrivacyCost.approx(0.3, 1e-7), time="2026-01-02T00:00:00+00:00"))
    with pytest.raises(BudgetExceeded, match="ρ-zCDP budget cannot count it"):
        book.import_into("z", bad)
    assert len(ws.account("z").counted) == 1 and acct.fingerprint == "z"


def _click(ws, key, results, barrier):
    barrier.wait()
    try:
        ws.check_and_spend(key, PrivacyCost.zcdp(0.01), label="click")
        results.append("spent")
    except BudgetExceeded:
        results.append("refused")


def test_concurrent_threads_never_spend_more_rho_than_the_budget(store):
    ws, _ = store.create_workspace()
    ws.open_key("z", 500, "z.csv", budget=Budget.from_rho(0.03, 1e-5, n=500))
    results: list[str] = []
    barrier = threading.Barrier(8)
    threads = [threading.Thread(target=_click, args=(ws, "z", results, barrier)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["refused"] * 5 + ["spent"] * 3
    assert ws.account("z").used().rho == pytest.approx(0.03)
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(S.accounts.c.spent_rho)).scalar() == pytest.approx(0.03)


def test_a_version_4_database_is_upgraded_to_budget_notions(store_url):
    engine = S.make_engine(store_url, None)   # type: ignore[arg-type]
    with S.write(engine) as conn, conn.begin():
        S.upgrade(conn, target=4)
        wid = conn.execute(sa.text("INSERT INTO workspaces (token_hash, created) VALUES ('h', 0) RETURNING id")
                           ).scalar()
        aid = conn.execute(sa.text(
            "INSERT INTO accounts (workspace_id, key, name, n, columns, epsilon, delta, allow_large_delta, "
            "budget_open, spent_epsilon, spent_delta, created) VALUES (:w, 'k1', 'old.csv', 1000, '[]', 3.0, 1e-5, "
            "false, false, 1.5, 1e-6, 0) RETURNING id"), {"w": wid}).scalar()
        cost = json.dumps({"notion": "approx", "epsilon": 1.5, "delta": 1e-6, "rho": None, "count": 1,
                           "neighbours": "replace-one", "note": ""})
        conn.execute(sa.text("INSERT INTO entries (workspace_id, account_id, time, label, counted, reason, cost, "
                             "spend_epsilon, spend_delta, value, state) VALUES (:w, :a, 't', 'old', true, '', :c, "
                             "1.5, 1e-6, '2.5', 'released')"), {"w": wid, "a": aid, "c": cost})
    with engine.connect() as conn:
        assert S.version_of(conn) == 4
        assert "notion" not in {c["name"] for c in sa.inspect(conn).get_columns("accounts")}
    engine.dispose()
    store = open_store(store_url, secret=SECRET)
    assert store.schema_version() == LATEST_VERSION == 6   # 5: the notions; 6: the classroom
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(S.accounts)).one()
        ent = conn.execute(sa.select(S.entries)).one()
    assert (row.notion, row.rho, row.spent_rho) == ("approx", None, 0.0)
    assert (ent.spend_rho, ent.spend_how) == (0.0, "")
    ws = Workspace(store, int(wid))
    a = ws.account("k1")
    assert a.budget == Budget(3.0, 1e-5, n=1000) and a.spent() == (1.5, 1e-6) and a.entries[0].value == 2.5
    assert a.counted[0].spend.epsilon == 1.5
    # the migrated budget counts a zCDP release at half the δ that remains (9e-6 → 4.5e-6), no fixed δ
    ws.check_and_spend("k1", PrivacyCost.zcdp(0.01), label="new gaussian")
    assert ws.account("k1").spent()[1] == pytest.approx(1e-6 + 4.5e-6)
    store.close()

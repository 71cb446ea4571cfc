"""Issue 33 in the budget: a budget counts in its notion (pure ε, (ε, δ), ρ-zCDP filter), every charge is converted
once when it is charged and stored, no fixed conversion δ is left, the ledger shows the tight PLD total beside the
enforced one, and a ledger file carries the notion without ever raising a budget or changing its notion."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dpcore.errors import DPValueError
from dpcore.privacy import (
    USER,
    Budget,
    BudgetExceeded,
    DatasetAccount,
    LedgerEntry,
    PrivacyCost,
    ReleaseRequest,
    ReleaseSession,
    check_bounds,
    default_budget,
    ledger_from_json,
    randomness_for,
    spend_text,
    zcdp_to_approx,
)
from dpcore.privacy.budget import checked_budget
from dpcore.privacy.notions import Spend

ROOT = Path(__file__).resolve().parents[2]
FP = "ab" * 32


def _req(cost, key=("mean",), fp=FP):
    return ReleaseRequest(key=(fp, *key), label="a release", kind=USER, randomness=randomness_for(USER),
                          bounds=check_bounds({"x": "declared"}), dataset=fp, cost=cost)


def _run(session, cost, key, fp=FP):
    session.new_draw()
    return session.run(_req(cost, key=key, fp=fp), lambda rng: 1.0, submitted=True, cost_of=lambda r: cost)


def _clicks(session, cost, limit=200, fp=FP):
    """How many releases of ``cost`` the dataset's budget admits, one click each (then refused)."""
    for i in range(limit):
        session.new_draw()
        try:
            session.run(_req(cost, key=("m", i), fp=fp), lambda rng: 1.0, submitted=True, cost_of=lambda r: cost)
        except BudgetExceeded:
            return i
    return limit


# -- the budget's notion ---------------------------------------------------------------------------------------
def test_a_budget_says_its_notion_and_checks_its_fields():
    z = Budget(3.0, 1e-5, notion="zcdp")
    assert z.rho == pytest.approx(0.22424916824634533) and z.epsilon == pytest.approx(3.0, abs=1e-9)
    assert z.describe() == "ρ = 0.2242 (ρ-zCDP filter ⇒ ε = 3, δ = 1e-05)"
    direct = Budget.from_rho(0.5, 1e-6)
    assert direct.epsilon == pytest.approx(zcdp_to_approx(0.5, 1e-6)) and direct.notion == "zcdp"
    assert Budget(2.0, notion="pure").describe() == "ε = 2 (pure ε-DP, δ = 0)"
    assert Budget(3.0, 1e-5).describe() == "ε = 3, δ = 1e-05" and Budget(3.0, 1e-5).notion == "approx"
    with pytest.raises(DPValueError, match="pure ε budget: a pure budget has δ = 0. Set delta = 0"):
        Budget(1.0, 1e-6, notion="pure")
    with pytest.raises(DPValueError, match="ρ-zCDP guarantees .* only for δ > 0"):
        Budget(1.0, 0.0, notion="zcdp")
    with pytest.raises(DPValueError, match="only a ρ-zCDP budget"):
        Budget(1.0, 1e-6, rho=0.1)
    with pytest.raises(DPValueError, match="notion = 'renyi' is unknown"):
        Budget(1.0, 1e-6, notion="renyi")
    with pytest.raises(DPValueError, match="total rho = -1"):
        Budget.from_rho(-1.0, 1e-6)
    # the default budget is unchanged: (ε = 3, δ = min(1e-5, 1/(10n))), (ε, δ) by basic composition
    d = default_budget(500)
    assert (d.epsilon, d.delta, d.notion, d.rho) == (3.0, 1e-5, "approx", None)


def test_issue_33_default_budget_counts_in_each_notion_through_the_session():
    """Done when: (ε = 3, δ = 1e-5) as ρ-zCDP admits ≥ 22 Gaussian releases at ρ = 0.01 and ≥ 44 at 0.005; as
    pure ε it still admits 10 Laplace releases at ε = 0.3 (in memory; the store's test does it by the database)."""
    for rho, at_least in ((0.01, 22), (0.005, 44)):
        s = ReleaseSession()
        s.open_dataset(FP, n=500, budget=default_budget(500, "zcdp"))
        assert _clicks(s, PrivacyCost.zcdp(rho)) >= at_least
    s = ReleaseSession()
    s.open_dataset(FP, n=500, budget=default_budget(500, "pure"))
    assert _clicks(s, PrivacyCost.pure(0.3)) == 10
    # the old rule (ZCDP_DELTA = 1e-6) held 4 at ρ = 0.01 under (ε, δ); now ε-costs convert at half the δ left
    s = ReleaseSession()
    s.open_dataset(FP, n=500, budget=default_budget(500))
    assert _clicks(s, PrivacyCost.zcdp(0.01)) >= 4


def test_a_large_table_admits_a_zcdp_release_under_its_default_budget():
    """Done when: n = 10⁶ admits a zCDP release under its default budget (δ = 1e-7 < the old fixed 1e-6)."""
    s = ReleaseSession()
    acct = s.open_dataset(FP, n=10**6, budget=None)
    assert acct.budget.delta == pytest.approx(1e-7)
    assert _clicks(s, PrivacyCost.zcdp(0.01), limit=1) == 1
    (e,) = s.account(FP).counted
    assert e.spend.delta == pytest.approx(5e-8) and "half of the δ that remained" in e.spend.how


def test_no_path_uses_a_fixed_conversion_delta():
    """Done when: no path uses a fixed conversion δ — ZCDP_DELTA is gone from dpcore's budget, ledger, session
    and store, and none of them converts a cost with ``as_approx`` (which needs a δ) or composes at a δ."""
    files = [*sorted((ROOT / "dpcore" / "privacy").glob("*.py")), *sorted((ROOT / "dpcore" / "store").glob("*.py"))]
    assert len(files) > 10
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert "ZCDP_DELTA" not in text, f
        if f.name in ("budget.py", "ledger.py", "session.py", "_accounts.py", "_store.py", "notions.py"):
            assert ".as_approx(" not in text, f
            assert not re.search(r"compose_entry\([^)]*,", text), f
    import dpcore.privacy as P

    assert not hasattr(P, "ZCDP_DELTA")
    # and the conversions have no default δ any more: a zCDP cost needs the caller's δ
    with pytest.raises(DPValueError, match="no fixed conversion δ"):
        PrivacyCost.zcdp(0.1).as_approx()
    with pytest.raises(DPValueError, match="no fixed conversion δ"):
        P.compose_basic([PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.1)])


def test_spend_text_says_a_click_in_its_own_terms():
    """Changed deliberately (issue 33): zCDP is no longer said as its (ε, δ) at δ = 1e-6."""
    assert spend_text([PrivacyCost.pure(1.0), PrivacyCost.pure(1.0)]) == "ε = 2, δ = 0"
    assert spend_text(PrivacyCost.zcdp(0.5)) == "ρ = 0.5"
    assert spend_text([PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.25, count=2)]) == "ε = 1, δ = 0 + ρ = 0.5"
    assert spend_text(PrivacyCost.approx(1.0, 1e-6, count=2)) == "ε = 2, δ = 2e-06"


def test_refusals_name_the_real_reason_and_the_fix():
    s = ReleaseSession()
    s.open_dataset(FP, n=1000, budget=Budget(3.0, 1e-5, n=1000))
    _run(s, PrivacyCost.approx(0.5, 1e-5), ("all δ",))
    with pytest.raises(BudgetExceeded, match="ρ-zCDP release needs a δ > 0 .* none of the budget's δ remains. "
                                             "Choose an ε-DP mechanism, or load the data again with a ρ-zCDP"):
        _run(s, PrivacyCost.zcdp(0.01), ("z",))
    fp2 = "cd" * 32
    s.open_dataset(fp2, n=1000, budget=Budget(3.0, 1e-5, n=1000, notion="zcdp"))
    with pytest.raises(BudgetExceeded, match="no ρ-zCDP guarantee, so a ρ-zCDP budget cannot count it.*"
                                             r"load the data again with an \(ε, δ\) budget"):
        _run(s, PrivacyCost.approx(0.5, 1e-7), ("a",), fp=fp2)
    _run(s, PrivacyCost.zcdp(0.2), ("z",), fp=fp2)
    with pytest.raises(BudgetExceeded, match=r"costs ρ = 0.05 but only ρ = 0.02425 remain .* Lower ρ"):
        _run(s, PrivacyCost.zcdp(0.05), ("z2",), fp=fp2)
    assert len(s.account(fp2).counted) == 1      # nothing recorded by a refusal


def test_each_charge_is_stored_when_charged_and_never_recomputed():
    acct = DatasetAccount("k", "d.csv", 1000, Budget(10.0, 1e-5))
    for _ in range(2):
        acct.record(LedgerEntry("g", PrivacyCost.zcdp(0.01)))
    first, second = (e.spend for e in acct.counted)
    assert first.delta == pytest.approx(5e-6) and second.delta == pytest.approx(2.5e-6)   # half of what remained
    assert acct.used().delta == pytest.approx(7.5e-6)
    # a stored charge stays what it was: lowering the total later does not change history
    acct.budget_open = True
    acct.set_budget(Budget(9.0, 8e-6))
    assert [e.spend for e in acct.counted] == [first, second]


def test_the_notion_changes_only_while_open_and_never_below_the_spending():
    b = Budget(3.0, 1e-5)
    z = Budget(3.0, 1e-5, notion="zcdp")
    assert checked_budget("d", 500, b, z, Spend(), True).notion == "zcdp"
    with pytest.raises(DPValueError, match="notion cannot change after a release"):
        checked_budget("d", 500, b, z, Spend(), False)
    with pytest.raises(DPValueError, match="cannot be counted as ρ-zCDP"):
        checked_budget("d", 500, b, z, Spend(epsilon=1.0), True)
    pure = Budget(3.0, notion="pure")
    assert checked_budget("d", 500, pure, b, Spend(epsilon=1.0), True).notion == "approx"   # the same units
    with pytest.raises(DPValueError, match="below what “d” has already spent"):
        checked_budget("d", 500, z, Budget.from_rho(0.1, 1e-5), Spend(rho=0.15), True)
    assert checked_budget("d", 500, z, Budget.from_rho(0.2, 1e-5), Spend(rho=0.15), False).rho == 0.2   # lower
    with pytest.raises(DPValueError, match="cannot be raised after a release"):
        checked_budget("d", 500, Budget.from_rho(0.2, 1e-5), z, Spend(rho=0.15), False)


# -- the ledger's totals and the summary -----------------------------------------------------------------------
def _dp_accounting_epsilon(costs, delta):
    """The same composition computed here directly with dp-accounting's PLD (canonical ε-DP / (ε, δ) mechanisms)."""
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    total = None
    for c in costs:
        base = pld.from_privacy_parameters(DifferentialPrivacyParameters(c.epsilon, c.delta),
                                           value_discretization_interval=1e-4)
        part = base.self_compose(c.count) if c.count > 1 else base
        total = part if total is None else total.compose(part)
    return total.get_epsilon_for_delta(delta)


@pytest.mark.parametrize("costs", [
    [PrivacyCost.pure(0.3, count=10)],
    [PrivacyCost.pure(1.0, count=3), PrivacyCost.approx(0.5, 1e-7, count=2)],
    [PrivacyCost.pure(0.1, count=50)],
])
def test_the_ledgers_tight_total_is_dp_accountings(costs):
    acct = DatasetAccount("k", "d.csv", 10**6, Budget(100.0, 1e-6))
    for c in costs:
        acct.record(LedgerEntry("r", c))
    s = acct.summary()
    want = _dp_accounting_epsilon(costs, 1e-6)
    assert s.tight_epsilon == pytest.approx(want, rel=1e-9)
    assert s.tight_epsilon <= s.spent.epsilon + 1e-12                 # never above the enforced basic total
    assert acct.totals().tight_epsilon == s.tight_epsilon and acct.totals().enforced == s.spent
    assert "had they been fixed in advance" in s.tight_text and "not enforced" in s.tight_text


def test_the_summary_prints_every_spending_rounded_outward():
    a = DatasetAccount("k", "d.csv", 10**8, Budget(1e6, 0.0, notion="pure"))
    a.record(LedgerEntry("mean", PrivacyCost.pure(30.0)))
    s = a.summary()
    assert (s.total_text, s.spent_text, s.remaining_text) == ("ε = 1000000, δ = 0", "ε = 30, δ = 0",
                                                              "ε = 999970, δ = 0")
    assert "e+" not in s.total_text + s.remaining_text and s.tight_epsilon is None   # pure: the total is exact
    a.record(LedgerEntry("tiny", PrivacyCost.pure(0.001)))
    s = a.summary()
    assert (s.spent_text, s.remaining_text) == ("ε = 30.001, δ = 0", "ε = 999969.999, δ = 0")
    z = DatasetAccount("k", "d.csv", 500, default_budget(500, "zcdp"))
    z.record(LedgerEntry("g", PrivacyCost.zcdp(0.1 / 3)))
    t = z.summary()
    spent, left = float(t.spent_text.split("= ")[1]), float(t.remaining_text.split("= ")[1])
    assert spent >= 0.1 / 3 and left <= z.budget.rho - 0.1 / 3        # spent rounded UP, remaining DOWN
    assert t.notion == "zcdp" and t.notion_label == "ρ-zCDP (privacy filter)" and t.guarantee[1] == 1e-5
    assert t.tight_epsilon == pytest.approx(zcdp_to_approx(0.1 / 3, 1e-5), rel=1e-9)


def test_the_ledger_frame_says_zcdp_costs_as_rho_and_the_charge():
    s = ReleaseSession()
    s.open_dataset(FP, n=1000, budget=Budget(3.0, 1e-5, n=1000))
    _run(s, PrivacyCost.zcdp(0.01), ("z",))
    frame = s.ledger_frame()
    row = frame.iloc[0]
    assert row["ρ (zCDP, all draws)"] == 0.01 and row["ε (all draws)"] is None
    assert row["charged (budget's units)"].startswith("ε = ") and "half of the δ" in row["conversion"]


# -- the ledger file -------------------------------------------------------------------------------------------
def _saved(budget, costs):
    s = ReleaseSession()
    s.open_dataset(FP, n=1000, name="people.csv", budget=budget)
    for i, c in enumerate(costs):
        _run(s, c, ("r", i))
    return s, s.to_json()


def test_the_file_round_trips_the_notion_and_rho():
    _, text = _saved(Budget.from_rho(0.2, 1e-5, n=1000), [PrivacyCost.zcdp(0.05), PrivacyCost.pure(0.1)])
    (a,) = ledger_from_json(text).accounts
    assert a.budget.notion == "zcdp" and a.budget.rho == 0.2 and a.used().rho == pytest.approx(0.05 + 0.005)
    doc = json.loads(text)
    assert doc["datasets"][0]["budget"]["rho"] == 0.2 and doc["datasets"][0]["releases"][0]["charged"]["rho"] == 0.05
    fresh = ReleaseSession()
    fresh.restore(ledger_from_json(text))
    acct = fresh.open_dataset(FP, n=1000, name="people.csv", budget=Budget.from_rho(0.2, 1e-5, n=1000))
    assert acct.used().rho == pytest.approx(0.055)


def test_an_uploaded_file_never_raises_a_budget_or_changes_its_notion():
    _, text = _saved(Budget(3.0, 1e-5, n=1000), [PrivacyCost.pure(1.0)])
    looser = json.loads(text)
    looser["datasets"][0]["budget"] = {"epsilon": 30.0, "delta": 1e-5, "notion": "zcdp"}
    for r in looser["datasets"][0]["releases"]:
        r.pop("charged")         # a consistent file of a ρ budget: its charges converted on reading
    s = ReleaseSession()
    acct = s.open_dataset(FP, n=1000, name="people.csv", budget=Budget(3.0, 1e-5, n=1000))
    s.restore(ledger_from_json(json.dumps(looser)))
    acct = s.account(FP)
    assert acct.budget.notion == "approx" and acct.budget.epsilon == 3.0 and acct.used().epsilon == 1.0
    # a file of (ε, δ) releases cannot be added to a ρ budget: refused whole, nothing added
    _, text2 = _saved(Budget(3.0, 1e-5, n=1000), [PrivacyCost.pure(1.0), PrivacyCost.approx(0.5, 1e-7)])
    z = ReleaseSession()
    z.open_dataset(FP, n=1000, name="people.csv", budget=Budget(3.0, 1e-5, n=1000, notion="zcdp"))
    with pytest.raises(BudgetExceeded, match="ρ-zCDP budget cannot count it"):
        z.restore(ledger_from_json(text2))
    assert z.account(FP).counted == []


@pytest.mark.parametrize("edit, why", [
    (lambda d: d["budget"].update(notion="renyi"), "unknown notion"),
    (lambda d: d["budget"].update(notion="zcdp", rho=-0.1), "invalid budget"),
    (lambda d: d["budget"].update(notion="pure"), "invalid budget"),
    (lambda d: d["budget"].update(rho="0.1"), "wrong type"),
    (lambda d: d["releases"][0].update(charged={"epsilon": 1.0, "delta": 1.5, "rho": 0.0}), "outside its range"),
    (lambda d: d["releases"][0].update(charged={"epsilon": -1.0, "delta": 0.0, "rho": 0.0}), "outside its range"),
    (lambda d: d["releases"][0].update(charged={"epsilon": 1.0, "delta": 0.0}), "has no “rho”"),
    (lambda d: d["budget"].update(notion="zcdp", rho=1e-4), "not in its budget's units"),
    (lambda d: d["budget"].update(epsilon=0.01), "more than its budget"),
])
def test_every_new_file_field_is_range_checked(edit, why):
    _, text = _saved(Budget(3.0, 1e-5, n=1000), [PrivacyCost.zcdp(0.01)])
    doc = json.loads(text)
    edit(doc["datasets"][0])
    with pytest.raises(DPValueError, match=why):
        ledger_from_json(json.dumps(doc))


def test_an_older_file_without_notion_reads_as_approx():
    _, text = _saved(Budget(3.0, 1e-5, n=1000), [PrivacyCost.pure(1.0)])
    doc = json.loads(text)
    d = doc["datasets"][0]
    del d["budget"]["notion"]
    for r in d["releases"]:
        del r["charged"]
    (a,) = ledger_from_json(json.dumps(doc)).accounts
    assert a.budget.notion == "approx" and a.used() == Spend(epsilon=1.0)

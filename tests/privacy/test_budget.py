"""A privacy budget per loaded dataset (issue 17, findings 3–5 at the dpcore level): refusal before
computing, spending kept by the data's identity (not by the ledger's list), the ledger file."""
from __future__ import annotations

import json

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.privacy import (
    USER,
    Budget,
    BudgetExceeded,
    PrivacyCost,
    ReleaseRequest,
    ReleaseSession,
    check_bounds,
    default_budget,
    ledger_from_json,
    randomness_for,
    released_value,
    spend,
    spend_text,
    zcdp_to_approx,
)

FP, FP2 = "ab" * 32, "cd" * 32


def _req(eps=1.0, key=("mean",), fp=FP, cost=None, **kw):
    return ReleaseRequest(key=(fp, *key, eps), label=f"mean of x, ε = {eps:g}", kind=USER,
                          randomness=randomness_for(USER), bounds=check_bounds({"x": "declared"}), dataset=fp,
                          cost=cost or PrivacyCost.pure(eps), **kw)


class Counter:
    """A compute function that counts its calls."""

    def __init__(self, cost=None):
        self.calls, self.cost = 0, cost

    def __call__(self, rng):
        self.calls += 1
        return float(rng.normal())


def _run(s, req, compute=None):
    compute = compute or Counter()
    return s.run(req, compute, submitted=True, cost_of=lambda r: req.cost)


def test_a_release_beyond_the_budget_is_refused_before_anything_is_computed():
    """Before: no budget — a 4th release at ε = 1 on data allotted ε = 3 was computed and charged (total 4).
    After: refused with BudgetExceeded naming the cost and what remains; compute is never called."""
    s = ReleaseSession()
    s.open_dataset(FP, n=500, name="people.csv", budget=Budget(3.0, 0.0, n=500))
    compute = Counter()
    for _ in range(3):
        _run(s, _req(1.0), compute)
        s.new_draw()
    assert compute.calls == 3 and s.account(FP).remaining() == (0.0, 0.0)
    with pytest.raises(BudgetExceeded) as err:
        _run(s, _req(1.0), compute)
    msg = str(err.value)
    assert "costs ε = 1, δ = 0" in msg and "only ε = 0, δ = 0 remain" in msg and "ε = 3, δ = 0" in msg
    assert "people.csv" in msg and "before computing anything" in msg
    assert compute.calls == 3 and s.account(FP).spent() == (3.0, 0.0) and len(s.ledger) == 3
    # a release that fits what remains of a larger budget still runs; one that is too big does not
    s.open_dataset(FP2, n=500, name="other.csv", budget=Budget(1.5, 0.0, n=500))
    with pytest.raises(BudgetExceeded, match="costs ε = 2, δ = 0 but only ε = 1.5"):
        _run(s, _req(2.0, fp=FP2), compute)
    assert compute.calls == 3
    assert _run(s, _req(1.5, fp=FP2), compute).status == "released" and compute.calls == 4


def test_a_user_release_counted_as_dp_needs_a_declared_cost_and_an_opened_dataset():
    s = ReleaseSession()
    compute = Counter()
    with pytest.raises(DPValueError, match="no privacy budget"):
        s.run(_req(), compute, submitted=True)
    s.open_dataset(FP, n=100)
    req = ReleaseRequest(key=(FP, "m"), label="m", kind=USER, randomness=randomness_for(USER),
                         bounds=check_bounds({"x": "declared"}), dataset=FP)
    with pytest.raises(DPValueError, match="declare its cost"):
        s.run(req, compute, submitted=True, cost_of=lambda r: PrivacyCost.pure(1.0))
    with pytest.raises(DPValueError, match="name its dataset"):
        ReleaseRequest(key=("m",), label="m", kind=USER, randomness=randomness_for(USER),
                       bounds=check_bounds({"x": "declared"}))
    assert compute.calls == 0


def test_clearing_the_ledger_list_gives_no_budget_back():
    """Finding 3. Before: clear, New draw, Release on the same data gave a ledger total of ε = 1 when 2 was
    spent (the ledger was the only account). After: the dataset's account says ε = 2 spent, 1 of 3 left."""
    s = ReleaseSession()
    s.open_dataset(FP, n=500, budget=Budget(3.0, 0.0, n=500))
    _run(s, _req(1.0))
    s.ledger.clear()
    s.new_draw()
    _run(s, _req(1.0))
    assert len(s.ledger) == 1  # the list (a display) was cleared …
    acct = s.account(FP)
    assert acct.spent() == (2.0, 0.0) and acct.remaining() == (1.0, 0.0)  # … the spending was not
    assert acct.totals().basic_epsilon == 2.0 and len(s.all_entries()) == 2


def test_loading_the_same_data_again_keeps_its_spending_and_only_then_allows_raising_the_total():
    s = ReleaseSession()
    acct = s.open_dataset(FP, n=500, name="people.csv")
    assert acct.budget == default_budget(500) and acct.budget_open
    acct.set_budget(Budget(2.0, 1e-5, n=500))          # before the first release: anything
    _run(s, _req(1.0))
    assert not acct.budget_open
    with pytest.raises(DPValueError, match="cannot be raised after a release"):
        acct.set_budget(Budget(5.0, 1e-5))
    acct.set_budget(Budget(1.5, 1e-5))                  # lowering is fine …
    with pytest.raises(DPValueError, match="below what “people.csv” has already spent"):
        acct.set_budget(Budget(0.5, 1e-5))              # … but not below the spending
    again = s.open_dataset(FP, n=500, name="people.csv")  # unload and load the same file
    assert again is acct and again.spent() == (1.0, 0.0) and again.budget.epsilon == 1.5 and again.budget_open
    again.set_budget(Budget(4.0, 1e-5))
    assert again.remaining() == (3.0, 1e-5)


def test_delta_at_least_one_over_n_is_refused_unless_overridden():
    with pytest.raises(DPValueError, match="≥ 1/n = 0.01"):
        Budget(1.0, 0.01, n=100)
    assert Budget(1.0, 0.01, n=100, allow_large_delta=True).delta == 0.01
    s = ReleaseSession()
    s.open_dataset(FP, n=100, budget=Budget(10.0, 0.5, n=100, allow_large_delta=True))
    assert _run(s, _req(1.0, cost=PrivacyCost.approx(1.0, 0.02))).status == "released"
    s.open_dataset(FP2, n=100, budget=Budget(10.0, 1e-3, n=100))
    with pytest.raises(BudgetExceeded, match="δ = 0.02 per draw is ≥ 1/n"):
        _run(s, _req(1.0, fp=FP2, cost=PrivacyCost.approx(1.0, 0.02)))
    assert default_budget(20).delta < 1 / 20 and default_budget(10**7).delta < 1e-7


def test_costs_compose_by_basic_composition_with_zcdp_converted_at_the_budgets_delta():
    """The rule stated in dpcore.privacy.budget (issue 33 changes it deliberately: no fixed ZCDP_DELTA): ε's and
    δ's add; a ρ-zCDP release under an (ε, δ) budget is converted at half of the δ that remains when it is
    charged, and that charge is stored with the entry."""
    assert spend(PrivacyCost.pure(1.0, count=10), "approx", delta_remaining=1e-5).epsilon == 10.0
    assert spend(PrivacyCost.ldp(0.5, count=4), "approx", delta_remaining=0.0).epsilon == 2.0
    a = spend(PrivacyCost.approx(1.0, 1e-7, count=3), "approx", delta_remaining=1e-5)
    assert (a.epsilon, a.delta) == (3.0, pytest.approx(3e-7))
    z = spend(PrivacyCost.zcdp(0.25, count=2), "approx", delta_remaining=1e-5)
    assert (z.epsilon, z.delta) == (pytest.approx(zcdp_to_approx(0.5, 5e-6)), 5e-6)
    s = ReleaseSession()
    s.open_dataset(FP, n=10_000, budget=Budget(20.0, 1e-5, n=10_000))
    for i, c in enumerate([PrivacyCost.pure(1.0, count=2), PrivacyCost.zcdp(0.5), PrivacyCost.approx(1, 1e-6)]):
        _run(s, _req(1.0, key=(i,), cost=c))
    acct = s.account(FP)
    assert acct.spent()[0] == pytest.approx(2 + zcdp_to_approx(0.5, 5e-6) + 1)
    assert acct.spent()[1] == pytest.approx(5e-6 + 1e-6)
    assert [e.spend.epsilon for e in acct.entries] == [2.0, pytest.approx(zcdp_to_approx(0.5, 5e-6)), 1.0]
    assert "half of the δ that remained" in acct.entries[1].spend.how
    # a budget with δ = 0 refuses zCDP with the real reason (no δ to convert at) and the fix
    s.open_dataset(FP2, n=10_000, budget=Budget(20.0, 0.0, n=10_000))
    with pytest.raises(BudgetExceeded, match="needs a δ > 0 .* none of the budget's δ remains.*ρ-zCDP budget"):
        _run(s, _req(1.0, fp=FP2, cost=PrivacyCost.zcdp(0.01)))
    assert spend_text([PrivacyCost.pure(1.0), PrivacyCost.pure(1.0)]) == "ε = 2, δ = 0"


def test_one_click_is_checked_as_a_whole():
    """A click releasing two mechanisms (KNG page) is refused as a whole when together they exceed the
    budget, even though each alone would fit: nothing is computed for either."""
    s = ReleaseSession()
    s.open_dataset(FP, n=500, budget=Budget(1.5, 0.0, n=500))
    reqs = [_req(1.0, key=(m,)) for m in ("kng", "exponential")]
    with pytest.raises(BudgetExceeded, match="costs ε = 2, δ = 0"):
        s.check_budget(reqs)
    s.check_budget(reqs[:1])
    # a cached release of the click is not charged again, so not counted in the check
    _run(s, reqs[0])
    with pytest.raises(BudgetExceeded, match="costs ε = 1, δ = 0 but only ε = 0.5"):
        s.check_budget(reqs)


def test_a_sequence_of_costs_is_one_entry():
    req = _req(1.0, cost=[PrivacyCost.pure(1.0, count=2), PrivacyCost.pure(1.0)])
    assert req.cost == PrivacyCost.pure(1.0, count=3)
    mixed = _req(1.0, cost=[PrivacyCost.pure(1.0), PrivacyCost.approx(1.0, 1e-6)])
    m = spend(mixed.cost, "approx", delta_remaining=1e-5)        # issue 33: spend takes the budget's notion
    assert (m.epsilon, m.delta) == (2.0, 1e-6)
    # ρ-zCDP with ε-DP: their zCDP composition (no δ assumed); with (ε, δ)-DP: refused, declare them apart
    assert _req(1.0, cost=[PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.5)]).cost == PrivacyCost.zcdp(1.0)
    with pytest.raises(DPValueError, match="separate requests"):
        _req(1.0, cost=[PrivacyCost.approx(1.0, 1e-6), PrivacyCost.zcdp(0.5)])


def test_the_ledger_file_round_trip_continues_the_count_after_a_restart():
    """Before: a restart lost the ledger and the budget (no file to carry them). After: the JSON file read
    into a new session restores the budget and the spending; loading the same data continues the count."""
    s = ReleaseSession()
    s.open_dataset(FP, n=500, name="people.csv", budget=Budget(3.0, 1e-5, n=500))
    _run(s, _req(1.0))
    s.new_draw()
    _run(s, _req(1.0))
    text = s.to_json()
    doc = json.loads(text)
    (d,) = doc["datasets"]
    # issue 33: the file says the budget's notion and the spending in its units (ρ too)
    assert d["budget"] == {"epsilon": 3.0, "delta": 1e-5, "notion": "approx", "allow delta ≥ 1/n": False}
    assert d["spent (budget's units)"] == {"epsilon": 2.0, "delta": 0.0, "rho": 0.0}
    r = d["releases"][0]
    assert r["time"].endswith("+00:00") and r["cost"]["epsilon"] == 1.0 and isinstance(r["released value"], float)

    fresh = ReleaseSession()   # the server restarted: a new, empty session
    assert fresh.restore(ledger_from_json(text.encode())) == ["people.csv"]
    acct = fresh.open_dataset(FP, n=500, name="people.csv")   # the user loads the same file again
    assert acct.spent() == (2.0, 0.0) and acct.remaining() == (1.0, 1e-5) and len(fresh.ledger) == 2
    with pytest.raises(BudgetExceeded, match="only ε = 1"):
        _run(fresh, _req(2.0))
    _run(fresh, _req(1.0))
    assert acct.spent() == (3.0, 0.0)
    # uploading the same file again adds nothing; an upload never raises a total
    fresh.restore(ledger_from_json(text))
    assert acct.spent() == (3.0, 0.0)
    looser = json.loads(text)
    looser["datasets"][0]["budget"]["epsilon"] = 30.0
    fresh.restore(ledger_from_json(json.dumps(looser)))
    assert acct.budget.epsilon == 3.0


@pytest.mark.parametrize("mutate, message", [
    (lambda d: "not json {", "is not JSON"),
    (lambda d: json.dumps([1, 2]), "does not say format"),
    (lambda d: json.dumps({**d, "format": "something else"}), "does not say format"),
    (lambda d: json.dumps({**d, "version": 99}), "version 99"),
    (lambda d: json.dumps({**d, "datasets": [{**d["datasets"][0], "budget": {**d["datasets"][0]["budget"],
                                                                           "allow delta ≥ 1/n": "false"}}]}),
     "wrong type"),
    (lambda d: json.dumps({**d, "datasets": [{**d["datasets"][0], "budget": {"epsilon": -1, "delta": 0}}]}),
     "invalid budget"),
    (lambda d: json.dumps({**d, "datasets": [{**d["datasets"][0], "budget": {"epsilon": 0.5, "delta": 0}}]}),
     "more than its budget"),
    (lambda d: json.dumps({**d, "datasets": [{**d["datasets"][0], "releases": [{"release": "x"}]}]}), "no “cost”"),
    (lambda d: json.dumps({**d, "datasets": [{**d["datasets"][0], "n": "500"}]}), "“n”"),
    (lambda d: json.dumps({**d, "datasets": d["datasets"] * 2}), "repeats a dataset"),
])
def test_a_bad_ledger_file_gets_a_clear_error(mutate, message):
    s = ReleaseSession()
    s.open_dataset(FP, n=500, name="people.csv", budget=Budget(3.0, 1e-5, n=500))
    _run(s, _req(1.0))
    doc = json.loads(s.to_json())
    with pytest.raises(DPValueError, match=message) as err:
        ledger_from_json(mutate(doc))
    assert "not a valid ledger file" in str(err.value) or "format" in str(err.value)
    with pytest.raises(DPValueError, match="at most 5 MB"):
        ledger_from_json(b" " * (6 * 2**20))
    with pytest.raises(DPValueError, match="not UTF-8"):
        ledger_from_json(b"\xff\xfe\x00bad")


def test_released_values_are_plain_json_and_never_diagnostics():
    class Release:
        value = np.array([1.5, np.inf])
        cost = PrivacyCost.pure(1.0)
        diagnostics = {"true mean": 42.0}

    assert released_value(Release()) == [1.5, "inf"]
    big = released_value(np.arange(5000.0))
    assert len(big["first values"]) == 2000 and "5000 values" in big["note"]
    json.dumps(released_value({"a": np.float32(1), "b": (np.int64(2), None)}), allow_nan=False)


def test_the_ledger_csv_frame_has_time_cost_and_released_value():
    s = ReleaseSession()
    s.open_dataset(FP, n=500, budget=Budget(3.0, 1e-5, n=500))
    _run(s, _req(1.0))
    frame = s.ledger.to_frame()
    row = frame.iloc[0]
    assert row["time (UTC)"].endswith("+00:00") and row["cost"] == "ε=1"
    assert row["ε (all draws)"] == 1.0 and row["δ (all draws)"] == 0.0
    assert float(row["released value"]) == s.ledger.entries[0].value

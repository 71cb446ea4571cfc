"""Save and resume a session (issue 22): the session file round-trips the ledger, the budgets, the pages'
settings and (only when asked) the data; resuming never gives budget back; hostile files are refused with a
message naming the field."""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from dpcore import data as dpdata
from dpcore.errors import DPValueError
from dpcore.privacy import USER, Budget, PrivacyCost, ReleaseRequest, ReleaseSession, check_bounds, randomness_for
from dpcore.privacy import sessionfile as SF

CSV = b"age,income,city\n34,52000,Paris\n51,61000.5,Lyon\n29,,Nice\n62,75000,Lille\n45,48000,Metz\n"


def _people():
    return dpdata.load_file(CSV, name="people.csv").with_bounds("age", 0, 100)


def _spend(s: ReleaseSession, fp: str, eps: float, tag: str) -> None:
    req = ReleaseRequest(key=(fp, tag), label=f"mean, ε = {eps:g}", kind=USER, randomness=randomness_for(USER),
                         bounds=check_bounds({"age": "declared"}), dataset=fp, cost=PrivacyCost.pure(eps))
    out = s.run(req, lambda rng: type("R", (), {"cost": PrivacyCost.pure(eps), "value": rng.random()})(),
                submitted=True)
    assert out.status == "released"


def _saved(include_data=True, spent=1.0):
    ds = _people()
    fp = ds.fingerprint(include_bounds=False)
    s = ReleaseSession()
    s.open_dataset(fp, ds.n_rows, ds.name, Budget(3.0, 0.0, n=ds.n_rows))
    _spend(s, fp, spent, "a")
    settings = {"kng_eps": 2.0, "_keep::kng_eps": 2.0, "kng_mechs": ("kng", "exponential"), "dp_seed": 5,
                "data_lo_1_x": 0.0, "kng_dataset": ds, "Weird Key": 1}
    return ds, fp, SF.session_to_json(s, settings, ds, include_data=include_data)


def test_round_trip_restores_ledger_budget_settings_and_data():
    ds, fp, text = _saved()
    back = SF.session_from_json(text.encode("utf-8"))
    assert back.settings == {"_keep::kng_eps": 2.0, "kng_eps": 2.0, "kng_mechs": ["kng", "exponential"]}
    assert back.dataset is not None and back.dataset.fingerprint() == ds.fingerprint()
    fresh = ReleaseSession()                       # after a restart
    fresh.restore(back.ledger)
    acct = fresh.open_dataset(back.dataset.fingerprint(include_bounds=False), back.dataset.n_rows, back.dataset.name)
    assert acct.remaining() == (2.0, 0.0) and acct.budget.epsilon == 3.0
    assert not acct.budget_open or acct.counted        # a DP release was made: spending stays


def test_without_the_tick_no_raw_data_is_written():
    ds, fp, text = _saved(include_data=False)
    assert "Paris" not in text and "52000" not in text
    back = SF.session_from_json(text)
    assert back.dataset is None and back.dataset_n == 5 and back.dataset_name == "people.csv"
    assert fp not in text and "fingerprint" not in text     # issue 31: no identity of the data in the file
    fresh = ReleaseSession()
    fresh.restore(back.ledger)
    again = _people()                               # the user loads the same file again (matched by name and n)
    assert fresh.open_dataset(again.fingerprint(include_bounds=False), again.n_rows,
                              again.name).remaining() == (2.0, 0.0)


def test_resuming_never_gives_budget_back():
    """A session that spent more since the file was saved keeps its spending and its lower total."""
    ds, fp, text = _saved(spent=1.0)
    s = ReleaseSession()
    s.restore(SF.session_from_json(text).ledger)
    s.open_dataset(fp, ds.n_rows, ds.name)
    _spend(s, fp, 1.5, "b")
    assert s.account(fp).remaining() == (0.5, 0.0)
    s.restore(SF.session_from_json(text).ledger)     # the older file uploaded again
    assert s.account(fp).remaining() == (0.5, 0.0)
    assert len(s.account(fp).entries) == 2


@pytest.mark.parametrize("payload, words", [
    (b"\x80\x04not json", "not UTF-8"),
    (pickle.dumps({"format": SF.SESSION_FORMAT}), "not"),
    (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
    (json.dumps({"format": "something else"}).encode(), "format"),
    (json.dumps({"format": SF.SESSION_FORMAT, "version": 99}).encode(), "version 99"),
    (json.dumps({"format": SF.SESSION_FORMAT, "version": 1}).encode(), "“ledger”"),
])
def test_hostile_or_foreign_files_are_refused_with_a_reason(payload, words):
    with pytest.raises(DPValueError, match="not a valid session file") as exc:
        SF.session_from_json(payload)
    assert words in str(exc.value)


def test_size_cap_is_checked_before_parsing(monkeypatch):
    monkeypatch.setattr(SF, "MAX_SESSION_BYTES", 100)
    with pytest.raises(DPValueError, match="at most"):
        SF.session_from_json(b" " * 101)


def _doc():
    return json.loads(_saved()[2])


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["settings"].__setitem__("dp_seed", 1), "setting 'dp_seed'"),
    (lambda d: d["settings"].__setitem__("kng_eps", {"a": 1}), "setting 'kng_eps'"),
    (lambda d: d["settings"].__setitem__("kng_x", list(range(500))), "setting 'kng_x'"),
    (lambda d: d["current dataset"]["table"]["values"][0].__setitem__(0, 10**400), "not a finite number"),
    (lambda d: (d["current dataset"]["table"]["index"].pop("range", None),
                d["current dataset"]["table"]["index"].update(values=[[1], [2], [3], [4], [5]])), "index holds a label"),
    (lambda d: d["current dataset"]["table"]["values"][0].__setitem__(0, "=cmd()"), "text in a numeric column"),
    (lambda d: d["current dataset"]["table"]["dtypes"].__setitem__(0, "category"), "unsupported type"),
    (lambda d: d["current dataset"]["table"]["values"][1].pop(), "does not have 5 values"),
    (lambda d: d["current dataset"].__setitem__("name", ["x"]), "“name”"),
    (lambda d: d["ledger"]["datasets"][0]["budget"].__setitem__("epsilon", 0.5), "more than its budget"),
    (lambda d: d["ledger"]["datasets"][0].pop("releases"), "“releases”"),
])
def test_edited_fields_are_named(edit, words):
    d = _doc()
    edit(d)
    with pytest.raises(DPValueError) as exc:
        SF.session_from_json(json.dumps(d))
    assert words in str(exc.value), str(exc.value)


def test_only_a_built_in_table_comes_back_as_public_data():
    """The kind decides what is charged: a user's table whose kind was edited to "simulated" comes back as the
    user's data; a built-in example stays built-in."""
    d = _doc()
    d["current dataset"]["kind"] = "simulated"
    assert SF.session_from_json(json.dumps(d)).dataset.kind == "user"
    wine = dpdata.builtin_dataset("wine")
    text = SF.session_to_json(ReleaseSession(), {}, wine, include_data=True)
    assert SF.session_from_json(text).dataset.kind == "built-in"


def test_public_settings_keeps_plain_page_values_only():
    out = SF.public_settings({"kng_eps": np.float64(1.5), "kng_draws": np.int64(3), "dp_ledger": [1],
                              "_dp_page": "x", "kng_obj": object(), "kng_list": (1, "a", None), "kng_nan": float("nan")})
    assert out == {"kng_draws": 3, "kng_eps": 1.5, "kng_list": [1, "a", None]}

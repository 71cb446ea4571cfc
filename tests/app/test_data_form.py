"""AppTest of issue 32 item 6 and its teacher items on the Data page: every column's bounds declared in ONE form
(one submit, one rerun), "fill from the codebook" that stays a declaration (never the data's min/max), one-click
classroom scenarios with a budget, and "Start a fresh demo workspace" — a new workspace, never a refund."""
from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, TIMEOUT
from tests.app.test_budget_app import _acct, _ok, _plain, _upload

pytestmark = pytest.mark.app
SUBMIT = "data_bounds_submit"
g = np.random.default_rng(32)
#: 12 numeric columns, as on the issue's real tables (10–13 columns took 26–33 s, one rerun per typed bound).
WIDE = pd.DataFrame({f"v{j}": g.uniform(10 * j, 10 * j + 5, 120).round(3) for j in range(12)})


def _new() -> AppTest:
    return _ok(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())


def _rows(at: AppTest, label: str) -> list:
    return [w for w in at.number_input if w.label == label]


def _texts(at: AppTest) -> str:
    return _plain("\n".join(str(e.value) for k in ("markdown", "caption", "success", "info", "warning", "error")
                            for e in getattr(at, k)))


def test_issue32_6_every_bound_is_declared_in_one_submit_one_rerun():
    """Before: each typed bound reran the page (≈ 1.3 s; 26–33 s for 10–13 columns). After: the 24 bounds of 12
    columns are typed into one form — nothing is applied (no rerun reaches the dataset) until the one submit, which
    declares all of them in one run."""
    at = _upload(_new(), WIDE.to_csv(index=False).encode(), "wide.csv")
    at.multiselect(key="data_columns").set_value(list(WIDE.columns)).run()
    lo, hi = _rows(at, "lower"), _rows(at, "upper")
    assert len(lo) == len(hi) == 12
    assert {w.proto.form_id for w in lo + hi + _rows(at, "impute missing with")} == {"data_bounds_form_1"}
    for j in range(12):
        lo[j].set_value(float(10 * j - 1))
        hi[j].set_value(float(10 * j + 6))
    at.run()                                          # a rerun without the submit: the form holds the values
    assert not at.session_state["dp_dataset"].bounds
    for j in range(12):                               # (AppTest drops unsubmitted form values on a run)
        _rows(at, "lower")[j].set_value(float(10 * j - 1))
        _rows(at, "upper")[j].set_value(float(10 * j + 6))
    t0 = time.perf_counter()
    _ok(at.button(key=SUBMIT).click().run())          # ONE run declares all 24 bounds
    seconds = time.perf_counter() - t0
    ds = at.session_state["dp_dataset"]
    assert {c: ds.bounds[c] for c in WIDE.columns} == {f"v{j}": (10.0 * j - 1, 10.0 * j + 6) for j in range(12)}
    assert set(ds.bound_sources.values()) == {"declared"} and not at.error
    print(f"12 columns (24 bounds) declared in one submit: one run of {seconds:.2f} s (AppTest)")


def test_issue32_6_a_refused_entry_names_field_value_and_fix_and_changes_nothing_else():
    """One submit with one impossible row: that row's error names the column, the value and the fix, its field
    keeps what was typed (a declaration is never silently changed) and the column keeps no bound; the other rows
    of the same submit are declared."""
    at = _upload(_new(), WIDE.to_csv(index=False).encode(), "wide.csv")
    at.multiselect(key="data_columns").set_value(["v0", "v1"]).run()
    _rows(at, "lower")[0].set_value(70.0)
    _rows(at, "upper")[0].set_value(50.0)
    _rows(at, "lower")[1].set_value(0.0)
    _rows(at, "upper")[1].set_value(100.0)
    _ok(at.button(key=SUBMIT).click().run())
    ds = at.session_state["dp_dataset"]
    assert "v0" not in ds.bounds and ds.bounds["v1"] == (0.0, 100.0)
    (err,) = [_plain(e.value) for e in at.error]
    assert "'v0'" in err and "lower = 70" in err and "upper = 50" in err and "swap or widen" in err, err
    assert [w.value for w in _rows(at, "lower")] == [70.0, 0.0]          # as typed, not "corrected"


def test_issue32_6_codebook_of_a_builtin_table_fills_its_documented_ranges_as_declarations():
    from dpcore.data import BUILTIN_DATASETS

    at = _new().switch_page("pages/data.py").run()
    _ok(at.button(key="data_builtin_wine").click().run())
    _ok(at.button(key="data_codebook_builtin").click().run())
    ds = at.session_state["dp_dataset"]
    documented = {b.column: (float(b.lower), float(b.upper)) for b in BUILTIN_DATASETS["wine"].bounds}
    assert dict(ds.bounds) == documented and set(ds.bound_sources.values()) == {"codebook"}
    assert at.multiselect(key="data_columns").value == list(documented)
    assert [w.value for w in _rows(at, "lower")] == [lo for lo, _ in documented.values()]
    assert "(source “codebook”: declared, not read from the data)" in _texts(at)
    assert not [w for w in at.warning if "NOT differentially private" in _plain(w.value)]


def test_issue32_6_an_uploaded_codebook_fills_declarations_never_the_data_min_max():
    """age is in [29, 62] and income in [48000, 75000] in the data. The codebook names age [18, 99] and a column
    the data lacks: age gets exactly [18, 99] (source "codebook"), income stays without bounds (never its min/max),
    the unknown name is reported. A codebook that states the data's own min/max is followed, as written."""
    csv = b"age,income,city\n34,52000,Paris\n51,61000.5,Lyon\n29,,Nice\n62,75000,Lille\n45,48000,Metz\n"
    at = _upload(_new(), csv, "people.csv")
    at.multiselect(key="data_columns").set_value(["age", "income"]).run()
    key = next(w.key for w in at.get("file_uploader") if str(w.key).startswith("data_codebook_file_"))
    at.file_uploader(key=key).set_value(("codebook.csv", b"column,lower,upper,units\nage,18,99,years\nzip,0,1,-\n",
                                         "text/csv"))
    _ok(at.run())
    _ok(at.button(key="data_codebook_go").click().run())
    ds = at.session_state["dp_dataset"]
    assert ds.bounds["age"] == (18.0, 99.0) and ds.bound_source("age") == "codebook"
    assert "income" not in ds.bounds and (29.0, 62.0) not in ds.bounds.values()
    assert "left out: zip" in _texts(at) and "Ignored the codebook's column(s) 'units'" in _texts(at)
    assert [w.value for w in _rows(at, "lower")][:1] == [18.0]
    at.file_uploader(key=key).set_value(("cb2.csv", b"column,lower,upper\nage,29,62\n", "text/csv"))
    _ok(at.run())
    _ok(at.button(key="data_codebook_go").click().run())
    assert at.session_state["dp_dataset"].bounds["age"] == (29.0, 62.0)       # the codebook said so
    assert at.session_state["dp_dataset"].bound_source("age") == "codebook"
    at.file_uploader(key=key).set_value(("bad.csv", b"column,lower,upper\nage,99,18\n", "text/csv"))
    _ok(at.run())
    _ok(at.button(key="data_codebook_go").click().run())
    assert any("line 2" in _plain(e.value) and "lower = 99" in _plain(e.value) and "swap" in _plain(e.value)
               for e in at.error)
    assert at.session_state["dp_dataset"].bounds["age"] == (29.0, 62.0)       # unchanged by a refused codebook


def _kng_mean(at: AppTest, col: str, eps: float = 1.0) -> AppTest:
    at.session_state["kng_source"] = "Dataset from the Data page"
    at.session_state["kng_view"] = "Release"
    at.session_state["kng_problem"] = "mean"
    at.session_state["kng_cols"] = [col]
    at.session_state["kng_eps_typed"] = eps
    _ok(at.switch_page("pages/kng.py").run())
    _ok(at.button(key="dp_new_draw").click().run())
    return _ok(at.button(key="kng_go").click().run())


def test_issue32_teacher_a_scenario_loads_table_bounds_budget_and_task_in_one_click():
    from dpcore.data import scenarios

    at = _new().switch_page("pages/data.py").run()
    labels = [b.label for b in at.button if str(b.key).startswith("data_scenario_")]
    assert "Diabetes: mean BMI at ε = 1" in labels and 2 <= len(labels) <= 4
    _ok(at.button(key="data_scenario_diabetes_bmi").click().run())
    ds = at.session_state["dp_dataset"]
    assert ds.kind == "user" and ds.n_rows == 442 and ds.name == scenarios.table_name("diabetes_bmi")
    assert ds.bounds["bmi"] == (10.0, 60.0) and ds.bound_source("bmi") == "codebook"
    assert at.multiselect(key="data_columns").value == ["bmi"]
    acct = _acct(at)
    assert acct.budget.epsilon == 3.0 and acct.spent() == (0.0, 0.0)
    text = _texts(at)
    assert "Diabetes: mean BMI at ε = 1** loaded" in text and "3 release(s) at ε = 1" in text
    assert "release the mean of bmi at ε = 1" in text
    _kng_mean(at, "bmi")                               # the task: charged to the scenario's budget
    assert _acct(at).spent()[0] == pytest.approx(1.0) and _acct(at).remaining()[0] == pytest.approx(2.0)


def test_issue32_teacher_loading_again_or_a_near_copy_never_gives_budget_back_in_one_workspace():
    """Within one workspace: the scenario again, the other scenario on the same patients, and a near copy (95 % of
    the rows, uploaded as a CSV) all spend from the one budget; nothing is refunded and the page says why."""
    import ui
    from dpcore.data import scenarios

    at = _new().switch_page("pages/data.py").run()
    _ok(at.button(key="data_scenario_diabetes_bmi").click().run())
    first = _acct(at).fingerprint
    _kng_mean(at, "bmi")
    at.switch_page("pages/data.py").run()
    for key in ("data_scenario_diabetes_bmi", "data_scenario_diabetes_regression"):
        _ok(at.button(key=key).click().run())
        acct = _acct(at)
        assert acct.fingerprint == first and acct.spent()[0] == pytest.approx(1.0) and acct.budget.epsilon == 3.0
        assert "already spent ε = 1 in this workspace" in _texts(at) and "never gives budget back" in _texts(at)
    frame = scenarios.scenario_dataset("diabetes_bmi").frame.copy()
    frame.iloc[:20, frame.columns.get_loc("bmi")] += 0.05            # 20 of 442 rows differ: a 95.5 % near copy
    _upload(at, frame.sample(frac=1.0, random_state=1).to_csv(index=False).encode(), "diabetes_copy.csv")
    assert _acct(at).fingerprint == first and _acct(at).spent()[0] == pytest.approx(1.0)
    assert at.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]


def test_issue32_teacher_a_fresh_demo_workspace_is_new_and_leaves_the_old_ledger_where_it_was():
    """"Start a fresh demo workspace": a new token and an empty ledger; the same scenario there starts from its full
    budget (nothing is shared across workspaces, as the page says); the old workspace still holds its spending;
    inside the new one, loading again gives nothing back either."""
    import ui

    at = _new().switch_page("pages/data.py").run()
    _ok(at.button(key="data_scenario_wine_alcohol").click().run())
    _kng_mean(at, "alcohol", 0.5)
    old_token = at.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]
    at.switch_page("pages/data.py").run()
    text = _texts(at)
    assert "not a refund" in text and "stay on the server where they were" in text
    assert "Across workspaces nothing is shared" in text and "holds per workspace" in text
    _ok(at.button(key="data_fresh_workspace").click().run())
    new_token = at.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]
    assert new_token and new_token != old_token and at.session_state["dp_dataset"] is None
    assert "previous workspace, its ledger and its spending stay on the server" in _texts(at)
    old = ui.workspace.store().open_workspace(old_token)
    assert old is not None and [a.spent()[0] for a in old.accounts()] == [pytest.approx(0.5)]   # untouched
    _ok(at.button(key="data_scenario_wine_alcohol").click().run())
    assert _acct(at).spent() == (0.0, 0.0) and _acct(at).budget.epsilon == 1.0     # a new workspace: a new budget
    _kng_mean(at, "alcohol", 0.5)
    at.switch_page("pages/data.py").run()
    _ok(at.button(key="data_scenario_wine_alcohol").click().run())
    assert _acct(at).spent()[0] == pytest.approx(0.5)                             # inside it: nothing back
    assert re.search(r"already spent ε = 0\.5 in this workspace", _texts(at))
    assert [a.spent()[0] for a in ui.workspace.store().open_workspace(old_token).accounts()] == [pytest.approx(0.5)]


@pytest.mark.parametrize("key", ["diabetes_bmi", "wine_alcohol", "diabetes_regression"])
def test_issue32_teacher_the_task_page_opens_ready_for_the_task(key):
    """"Go to the task's page" after a scenario: the KNG explorer opens on the Data page's table, the scenario's
    problem, the release view and its ε — nothing for the class to set (tried in Chromium: it opened on the built-in
    simulation in the teaching view at ε = 1)."""
    from dpcore.data import scenarios
    from ui.scenarios import TASK_PROBLEMS

    at = _new().switch_page("pages/data.py").run()
    _ok(at.button(key=f"data_scenario_{key}").click().run())
    _ok(at.switch_page("pages/kng.py").run())
    sc = scenarios.SCENARIOS[key]
    assert at.radio(key="kng_source").value == "Dataset from the Data page"
    assert at.selectbox(key="kng_problem").value == TASK_PROBLEMS[key]
    assert at.radio(key="kng_view").value == "Release"
    assert at.number_input(key="kng_eps_typed").value == sc.epsilon
    if TASK_PROBLEMS[key] == "linear_regression":
        assert at.selectbox(key="kng_y").value == "target" and at.multiselect(key="kng_x").value == ["bmi"]
    else:
        assert at.multiselect(key="kng_cols").value == list(sc.columns[:1])
    assert at.button(key="kng_go").label.startswith("Release")

"""AppTest of pages/lasso.py: defaults (simulated, released at once, not charged), ε changes the release,
the built-in diabetes data, an uploaded CSV (charged on click), bad input as clear errors, simulations."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner, ledger as _ledger

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "lasso.py")
_run = page_runner("lasso.py")

pytestmark = pytest.mark.app


def _errors(at):
    return " ".join(e.value for e in at.error)


def test_defaults_release_on_simulated_data_and_epsilon_changes_it():
    at = _run()
    assert any("Released" in s.value for s in at.success), [e.value for e in at.error]
    first = at.success[0].value
    metrics = [m.value for m in at.metric]
    assert _ledger(at).totals().n_releases == 0                      # simulated: not charged
    assert any("NOT PRIVATE" in m.value.upper() for m in at.markdown)
    table = at.table[0].value
    assert "score sensitivity Δ_s = 4r(r + 1)/n" in table.index and "steps T" in table.index
    at.session_state["lasso_eps_typed"] = 8.0
    at.run()
    _ok(at)
    assert [m.value for m in at.metric] != metrics or at.success[0].value != first
    assert len(at.get("plotly_chart")) >= 1


def test_diabetes_builtin():
    at = _run(lasso_source="Diabetes (built-in)")
    assert not at.error
    assert _ledger(at).totals().n_releases == 0
    assert any("press" in i.value for i in at.info) or at.success


def test_uploaded_csv_needs_a_click_and_is_charged():
    from dpcore.data import load_csv
    import ui
    g = np.random.default_rng(0)
    X = g.uniform(-2, 2, (500, 3))
    y = 0.5 * X[:, 0] - 0.3 * X[:, 2] + 0.1 * g.standard_normal(500)
    lines = ["a,b,c,resp"] + [",".join(f"{v:.5f}" for v in (*x, yy)) for x, yy in zip(X, y)]
    ds = load_csv("\n".join(lines).encode(), name="mine.csv")
    for c in ("a", "b", "c"):
        ds = ds.with_bounds(c, -2, 2)
    ds = ds.with_bounds("resp", -3, 3)
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["lasso_source"] = "Dataset from the Data page"
    at.run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 0
    assert any("press" in i.value for i in at.info)
    at.button(key="lasso_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1
    assert any("Released" in s.value for s in at.success)


@pytest.mark.parametrize("state,words", [
    ({"lasso_steps_rule": "set T", "lasso_T": 50_000}, "steps"),     # T above the cap
    ({"lasso_p": 90_000}, "p"),                                      # n·p above the simulator's cap
])
def test_bad_input_is_a_clear_error(state, words):
    at = _run(**state)
    assert words in _errors(at) and "Traceback" not in _errors(at)
    assert not at.success


def test_constant_column_is_not_refused_and_clipping_is_reported_apart():
    import pandas as pd

    from dpcore.data import Dataset
    import ui
    f = pd.DataFrame({"a": np.linspace(0, 1, 50), "const": np.ones(50), "resp": np.linspace(-1, 1, 50)})
    ds = Dataset(f, tuple(f.columns), {"a": (0, 1), "const": (0, 2), "resp": (-1, 1)}, "test", name="bad")
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["lasso_source"] = "Dataset from the Data page"
    at.run()
    _ok(at)
    assert "constant" not in _errors(at)          # refusing would publish a fact about the data (issue 17)
    at.button(key="lasso_go").click().run()
    _ok(at)
    assert any("Released" in s.value for s in at.success)
    f2 = pd.DataFrame({"a": np.linspace(0, 10, 50), "resp": np.linspace(-1, 1, 50)})
    ds2 = Dataset(f2, tuple(f2.columns), {"a": (0, 1), "resp": (-1, 1)}, "test", name="clipped")
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds2
    at.session_state["lasso_source"] = "Dataset from the Data page"
    at.run()
    at.button(key="lasso_go").click().run()
    _ok(at)
    assert any("clip" in w.value and "%" in w.value for w in at.warning)


def test_simulation_tabs_run():
    at = _run(lasso_n=1000, lasso_p=10)
    at.button(key="lasso_run_n").click().run()
    _ok(at)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert any("−2/3" in json.dumps(c, ensure_ascii=False) for c in charts)


def test_width_chart_is_shown_without_running_anything():
    at = _run()
    charts = [json.dumps(json.loads(c.proto.spec), ensure_ascii=False) for c in at.get("plotly_chart")]
    assert any("Gaussian width" in c for c in charts)


def test_intercept_on_user_data_reports_coefficients_in_the_users_units():
    import pandas as pd

    from dpcore.data import Dataset
    import ui
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 2, 500)
    f = pd.DataFrame({"x": x, "y": 50 - 2 * x + rng.normal(0, 1, 500)})
    ds = Dataset(f, ("x", "y"), {"x": (0.0, 10.0), "y": (0.0, 100.0)}, "offsets", name="offsets.csv")
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["lasso_source"] = "Dataset from the Data page"
    at.run()
    _ok(at)
    assert at.checkbox(key="lasso_intercept").value is True           # on by default for real columns
    at.button(key="lasso_go").click().run()
    _ok(at)
    table = at.dataframe[-1].value
    assert list(table["term"]) == ["intercept", "x"] and "units of y" in table.columns[2]
    assert any("centring means" in str(v) for v in at.table[0].value.index)   # the charge, shown before


def test_step_scale_rule_sets_the_public_T():
    at = _run(lasso_steps_rule="c·(nε)^(2/3)", lasso_c=0.05, lasso_n=20_000)
    acc = at.table[0].value
    assert "T = 0.05·(nε)^(2/3)" in acc.loc["steps T", "value"]


def test_switching_to_real_data_turns_the_intercept_on():
    at = _run(lasso_n=1000, lasso_p=10)
    assert at.checkbox(key="lasso_intercept").value is False        # the simulation is centred: none
    at.radio(key="lasso_source").set_value("Diabetes (built-in)").run()
    _ok(at)
    assert at.checkbox(key="lasso_intercept").value is True         # was False in Chromium after the switch


def _diabetes_as_upload():
    """scikit-learn's diabetes table as a user's upload (kind "user": charged, budgeted), with the public bounds
    of the built-in example (domain knowledge)."""
    from dpcore.data import Dataset, builtin_dataset

    b = builtin_dataset("diabetes")
    return Dataset(b.frame.reset_index(drop=True), b.numeric_columns, dict(b.bounds), "upload of diabetes.csv",
                   name="diabetes.csv")


def test_teaching_view_on_user_data_shows_the_intercept_fits_of_scikit_learn():
    """Issue 20 item 5: on a user's table the page had no non-private comparison ("shown on simulated and built-in
    data"). Now a View switch gives the labelled non-private teaching view (recorded as not DP): the constrained
    fit and scikit-learn's intercept Lasso and OLS in the columns' units; OLS equals an independent scikit-learn
    fit on the raw table (no cell of diabetes lies outside its public bounds)."""
    from sklearn.linear_model import LinearRegression

    import ui
    ds = _diabetes_as_upload()
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["lasso_source"] = "Dataset from the Data page"
    at.session_state["lasso_view"] = "Teaching view (not private)"
    at.run()
    _ok(at)
    at.button(key="lasso_go").click().run()
    _ok(at)
    entry = _ledger(at).entries[-1]
    assert not entry.counted_as_dp and _ledger(at).totals().n_releases == 0      # teaching: not DP, apart
    refs = next(d.value for d in at.dataframe if "scikit-learn OLS, intercept (non-private)" in d.value.columns)
    x_cols = [c for c in ds.numeric_columns if c != "target"]
    ols = LinearRegression().fit(ds.frame[x_cols].to_numpy(float), ds.frame["target"].to_numpy(float))
    np.testing.assert_allclose(refs["scikit-learn OLS, intercept (non-private)"], np.r_[ols.intercept_, ols.coef_],
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(refs["scikit-learn Lasso, intercept (non-private)"],
                               refs["constrained fit, intercept (non-private)"], rtol=1e-3, atol=1e-3)
    assert "released (private)" in refs.columns and list(refs["term"]) == ["intercept", *x_cols]

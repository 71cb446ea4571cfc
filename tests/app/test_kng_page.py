"""AppTest of pages/kng.py: defaults, a widget change that changes the output, the ledger, the
problems and their invalid combinations, the Data-page source, and routing through app.py."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import app_pages

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "kng.py")
SUBMIT = "FormSubmitter:kng_form-Release private estimates"

pytestmark = pytest.mark.app


def _run(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["kng_sim_n"] = 100
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    _ok(at)
    return at


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _charts(at: AppTest) -> list:
    return [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]


def _ledger(at: AppTest):
    from pages import _components as ui
    return at.session_state[ui.LEDGER_KEY]


def _submit(at: AppTest) -> AppTest:
    at.button(key=SUBMIT).click().run()
    _ok(at)
    return at


def test_defaults_then_epsilon_change_changes_output_and_ledger():
    at = _run()
    charts = _charts(at)
    assert len(charts) == 1 and any("KNG: draws" == t.get("name") for t in charts[0])
    assert any("KNG: density" == t.get("name") for t in charts[0])
    table = at.dataframe[1].value
    assert list(table["mechanism"]) == ["KNG", "Exponential mechanism"]
    # built-in simulation: synthetic data, so the draws are shown but not charged to the ledger
    assert _ledger(at).totals().n_releases == 0
    assert any("not charged" in c.value for c in at.caption)
    before = charts[0]
    at.run()  # a rerun recomputes nothing
    at.select_slider(key="kng_eps").set_value(0.1)
    _submit(at)
    after = _charts(at)[0]
    kng_b = next(t for t in before if t.get("name") == "KNG: draws")
    kng_a = next(t for t in after if t.get("name") == "KNG: draws")
    assert kng_a["x"] != kng_b["x"]
    assert _ledger(at).totals().n_releases == 0
    assert any("ε-DP" in m.value for m in at.markdown)  # privacy statement


@pytest.mark.parametrize("problem", ["mean", "median", "quantile", "linear_regression", "quantile_regression"])
def test_every_problem_runs(problem):
    at = _run(kng_problem=problem, kng_sweeps=200)
    assert len(at.get("plotly_chart")) >= 1
    assert not at.error, [e.value for e in at.error]
    if problem in ("linear_regression", "quantile_regression"):  # d = 2 (intercept + x1): contour + draws
        kinds = {t["type"] for t in _charts(at)[0]}
        assert "contour" in kinds and "scatter" in kinds
        assert len(at.dataframe) >= 3  # estimate, comparison, MCMC diagnostics


@pytest.mark.parametrize("problem,widget,value,match", [
    ("quantile", "kng_tau", 1.5, "tau"),
    ("quantile", "kng_lo", 10.0, "lower"),              # reversed bounds (upper is 4)
    ("linear_regression", "kng_B", 0.0, "B"),
    ("quantile_regression", "kng_tau", 0.0, "tau"),
])
def test_invalid_parameters_show_clear_errors(problem, widget, value, match):
    at = _run(kng_problem=problem, kng_sweeps=200)
    at.number_input(key=widget).set_value(value)
    _submit(at)
    assert any(match in e.value for e in at.error), [e.value for e in at.error]


def test_objective_perturbation_refused_for_quantile_regression():
    at = _run(kng_problem="quantile_regression", kng_sweeps=1000, kng_draws=20)
    at.multiselect(key="kng_mechs").set_value(["kng", "objective_perturbation"])
    _submit(at)
    assert any("linear regression only" in e.value for e in at.error)
    assert len(at.get("plotly_chart")) == 1  # KNG still shown


def test_geometric_median_pairs_and_coordinates():
    at = _run(kng_problem="median", kng_sweeps=1000, kng_draws=20)
    at.number_input(key="kng_sim_d_False").set_value(3).run()
    ms = next(w for w in at.multiselect if w.key.startswith("kng_cols_"))
    ms.set_value(["x1", "x2", "x3"])
    _submit(at)
    assert len(at.get("plotly_chart")) == 2  # 2-D view + pairs
    at.selectbox(key="kng_cj").set_value(2).run()
    _ok(at)


def test_dataset_from_data_page_needs_a_click():
    from dpcore import data as dpdata
    from pages import _components as ui

    frame = pd.DataFrame({"age": np.random.default_rng(0).uniform(20, 60, 80)})
    ds = dpdata.Dataset(frame, ("age",), {"age": (0.0, 100.0)}, "test data")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["kng_source"] = "Dataset from the Data page"
    at.run()
    _ok(at)
    assert any("Release private estimates" in i.value for i in at.info)
    assert _ledger(at).totals().n_releases == 0   # nothing spent before the click
    _submit(at)
    assert _ledger(at).totals().n_releases == 2 and len(at.get("plotly_chart")) == 1
    # 2 mechanisms x 100 draws x epsilon = 1 on the user's data: every draw is charged
    assert _ledger(at).totals().basic_epsilon == pytest.approx(2 * 100 * 1.0)
    at.run()  # a rerun is not a new release
    assert _ledger(at).totals().n_releases == 2


def test_routed_through_app():
    if "pages/kng.py" not in app_pages():
        pytest.skip("pages/kng.py is not registered in app.py yet")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/kng.py")
    at.session_state["kng_sim_n"] = 100
    at.run()
    _ok(at)
    assert len(at.get("plotly_chart")) == 1

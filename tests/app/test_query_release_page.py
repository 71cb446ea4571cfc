"""AppTest of pages/query_release.py: defaults, ρ changes the output, the universe cap message, the release
of marginals on a Data-page dataset through the release path (click, ledger, rerun not charged), routing."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import app_pages

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "query_release.py")
SUBMIT = "FormSubmitter:qr_form-Run simulation"

pytestmark = pytest.mark.app


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _run(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["qr_nmax"] = 100
    at.session_state["qr_reps"] = 2
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    _ok(at)
    return at


def _charts(at: AppTest) -> list:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _ledger(at: AppTest):
    import ui
    return at.session_state[ui.LEDGER_KEY]


def test_defaults_and_rho_changes_the_output():
    at = _run()
    charts = _charts(at)
    assert len(charts) == 5
    assert charts[0]["layout"]["xaxis"]["type"] == "log" and charts[0]["layout"]["yaxis"]["type"] == "log"
    names = {t["name"] for t in charts[0]["data"]}
    assert {"Gaussian only", "Projection", "Coarse projection", "Chaining", "Local projection"} <= names
    assert at.get("download_button"), "figures must be downloadable as CSV"
    before = at.session_state["qr_result"][1].errors["rms"].to_numpy()
    at.number_input(key="qr_rho").set_value(5.0)
    at.button(key=SUBMIT).click().run()
    _ok(at)
    after = at.session_state["qr_result"][1].errors["rms"].to_numpy()
    assert not np.allclose(before, after)
    assert _ledger(at).totals().n_releases == 0          # simulations are not releases


def test_time_model_refuses_a_heavy_lab_before_work(monkeypatch):
    """Issue 18: the lab at d = 14 ran for minutes (widget max now 11: 4^d work); at d = 11, w = 2 the time model
    refuses it up front, naming its terms and the 30 s cap, and no greedy net is computed."""
    from dpcore.query_release import _geometry as geometry

    def boom(*a, **k):
        raise AssertionError("work started")

    monkeypatch.setattr(geometry, "greedy_net", boom)
    at = _run(qr_d=11, qr_w=2, qr_nmax=1000, qr_reps=4)
    msgs = [e.value.replace("\\", "") for e in at.error]
    assert any("estimated time of the query-release lab run" in m and "greedy nets" in m and "cap of 30 s" in m
               for m in msgs), msgs
    assert at.number_input(key="qr_d").max == 11


def test_cone_and_thresholds_run():
    for kind in ("cone", "thresholds"):
        at = _run(qr_kind=kind)
        assert len(at.get("plotly_chart")) == 5


def test_release_on_data_page_dataset_needs_a_click_and_is_charged_once():
    from dpcore import data as dpdata
    import ui

    g = np.random.default_rng(0)
    frame = pd.DataFrame({"age": g.uniform(20, 60, 200), "colour": g.choice(["red", "blue", "green"], 200)})
    ds = dpdata.Dataset(frame, ("age",), {"age": (0.0, 100.0)}, "test data")
    at = _run(**{ui.DATASET_KEY: ds, "qr_cols": ["age", "colour"], "qr_t_age": 40.0, "qr_c_colour": "red"})
    assert _ledger(at).totals().n_releases == 0
    at.button(key="qr_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1
    table = at.dataframe[0].value
    assert len(table) == 4 and table["released answer"].notna().all()   # C(2,2)·2² queries
    assert table["query"].iloc[1] == "age=1,colour=0"
    at.run()
    assert _ledger(at).totals().n_releases == 1           # a rerun shows the cached release


def test_routed_through_app():
    if "pages/query_release.py" not in app_pages():
        pytest.skip("pages/query_release.py is not discovered")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/query_release.py")
    at.session_state["qr_nmax"] = 100
    at.session_state["qr_reps"] = 2
    at.run()
    _ok(at)
    assert len(at.get("plotly_chart")) == 5


def test_issue32_5_schema_labels_are_plain_text():
    """main labelled the threshold "threshold for my\\_column" (a Markdown escape in the accessible name). After: the
    widget's label is the plain text (its accessible name), shown literally above it, the widget's own collapsed."""
    from dpcore import data as dpdata
    import ui

    g = np.random.default_rng(0)
    frame = pd.DataFrame({"my_column": g.uniform(0, 9, 50), "kind*": g.choice(["a_b", "c"], 50)})
    ds = dpdata.Dataset(frame, ("my_column",), {"my_column": (0.0, 10.0)}, "test data")
    at = _run(**{ui.DATASET_KEY: ds, "qr_cols": ["my_column", "kind*"], "qr_c_kind*": "a_b"})
    _ok(at)
    num, text = at.number_input(key="qr_t_my_column"), at.text_input(key="qr_c_kind*")
    assert num.label == "threshold for my_column" and "\\" not in text.label and text.label.startswith("categories of kind*")
    assert num.proto.label_visibility.value == num.proto.label_visibility.COLLAPSED
    assert any(m.value == dpdata.literal("threshold for my_column") for m in at.markdown)

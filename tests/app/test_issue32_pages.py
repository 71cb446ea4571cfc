"""Issue 32, item 5, at page level (AppTest): each test failed on main b44e7ac."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore import data as D
import ui
from tests.app.pagetest import PAGES, assert_ok

pytestmark = pytest.mark.app


def _uploaded() -> D.Dataset:
    g = np.random.default_rng(1)
    frame = pd.DataFrame({"x1": g.uniform(0, 10, 80).round(2), "x2": g.uniform(0, 5, 80).round(2),
                          "y": g.choice([-1.0, 1.0], 80)})
    ds = D.load_csv(frame.to_csv(index=False).encode("utf-8"), name="survey.csv")
    return ds.with_bounds("x1", 0.0, 10.0).with_bounds("x2", 0.0, 5.0).with_bounds("y", -1.0, 1.0)


def _texts(at: AppTest) -> list[str]:
    return [re.sub(r"\\(.)", r"\1", e.value) for kind in ("markdown", "caption") for e in getattr(at, kind)]


def test_issue32_5_no_double_full_stop_after_the_provenance():
    """main: "…, 80 rows x 3 columns.. Each covariate x is mapped …" on the eigenvalues page."""
    at = AppTest.from_file(str(PAGES / "eigenvalues.py"), default_timeout=120)
    at.session_state[ui.DATASET_KEY] = _uploaded()
    at.session_state["sp_source"] = ui.links.EIGEN_SOURCES[3]
    at.run()
    assert_ok(at)
    shown = [t for t in _texts(at) if "columns" in t and "Each covariate" in t]
    assert shown, _texts(at)
    assert not [t for t in _texts(at) if ".." in t.replace("…", "")], [t for t in _texts(at) if ".." in t]


def _regression_upload() -> D.Dataset:
    g = np.random.default_rng(2)
    xs = {f"covariate_{j}": g.uniform(0, 1, 150).round(3) for j in range(8)}
    frame = pd.DataFrame({**xs, "outcome": g.uniform(0, 1, 150).round(3)})
    ds = D.load_csv(frame.to_csv(index=False).encode("utf-8"), name="survey.csv")
    for c in frame.columns:
        ds = ds.with_bounds(c, 0.0, 1.0)
    return ds


def test_issue32_5_ledger_names_response_every_covariate_and_the_file():
    """main: the LASSO label kept the first six columns (two releases on different covariates looked alike). After:
    the label names the response, all eight covariates and the file's name; the ledger CSV's dataset column is the
    file's name, and no download holds a hash of the data."""
    at = AppTest.from_file(str(PAGES / "lasso.py"), default_timeout=120)
    at.session_state[ui.DATASET_KEY] = _regression_upload()
    for k, v in {"lasso_source": "Dataset from the Data page", "lasso_steps_rule": "set T", "lasso_T": 20}.items():
        at.session_state[k] = v
    at.run()
    assert_ok(at)
    at.button(key="lasso_go").click().run()
    assert_ok(at)
    frame = at.session_state[ui.SESSION_KEY].ledger_frame()
    (label,) = frame["release"]
    assert "of outcome on " in label and all(f"covariate_{j}" in label for j in range(8)) and "survey.csv" in label
    assert list(frame["dataset"]) == ["survey.csv"]
    csv = D.to_safe_csv(frame)
    digests = [h for h in re.findall(r"[0-9a-f]{16,}", csv) if re.search("[a-f]", h)]   # (digits alone: values)
    ds = at.session_state[ui.DATASET_KEY]
    assert not digests and ds.fingerprint() not in csv and ds.fingerprint(include_bounds=False) not in csv


def test_issue32_5_histogram_column_labels_are_plain_text():
    """main: the histogram page's per-column widgets were labelled "my\\_column as" (a Markdown escape in the
    accessible name); after: plain text, shown literally above the widget."""
    g = np.random.default_rng(3)
    frame = pd.DataFrame({"my_column": g.uniform(0, 100, 60).round(1)})
    ds = D.load_csv(frame.to_csv(index=False).encode("utf-8"), name="survey.csv").with_bounds("my_column", 0.0, 100.0)
    at = AppTest.from_file(str(PAGES / "histograms.py"), default_timeout=120)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["h_source"] = "Dataset from the Data page"
    at.session_state["h_cols"] = ["my_column"]
    at.session_state["h_mode_my_column"] = "bins"
    at.run()
    assert_ok(at)
    assert at.radio(key="h_mode_my_column").label == "my_column as"
    assert at.number_input(key="h_bins_my_column").label == "bins of my_column over its public bounds"

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

"""Issue 32 §1–2 and §5 on the pages: the KNG regression preview's public design picker and "Check the preview"
(releases on a simulated twin: free, drawn beside the bands), the median's order-statistic floor said before the
click, and the histograms page's preview toggle keeping its value when a column is removed and added."""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import PAGES, assert_ok
from tests.app.test_accuracy_preview import TITLE, _dataset, _kng_frame
from tests.app.test_kng_page import RELEASE, _ledger, _run, _user_ds

pytestmark = pytest.mark.app


def _preview_chart(at: AppTest) -> dict:
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return next(c for c in charts if TITLE in json.dumps(c.get("layout", {}).get("title", ""), ensure_ascii=False))


def _captions(at: AppTest) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption]          # shown literally: Markdown-escaped


def _regression(**state) -> AppTest:
    at = _run(dp_dataset=_user_ds(), kng_source="Dataset from the Data page", kng_view=RELEASE,
              kng_problem="linear_regression", kng_y="income", kng_x=["age"], kng_accuracy_preview_on=True, **state)
    assert_ok(at)
    return at


def test_issue32_1_regression_preview_has_a_public_design_picker_and_shows_its_spread():
    at = _regression()
    assert at.selectbox(key="kng_preview_design").value == "box"
    text = " ".join(_captions(at))
    assert "over 4 public designs" in text and "x uniform on the declared bounds" in text
    before = [c for c in _captions(at) if "half of the time" in c]
    at.selectbox(key="kng_preview_design").set_value("narrow").run()
    assert_ok(at)
    after = [c for c in _captions(at) if "half of the time" in c]
    assert after != before and "sd = 1/10" in after[0]
    assert len(_ledger(at)) == 0                                   # nothing released, nothing charged


def test_issue32_1_check_the_preview_runs_releases_on_a_simulated_twin_for_free():
    at = _regression()
    assert not any("simulated twin (" in c for c in _captions(at))
    at.number_input(key="kng_check_reps").set_value(10)
    at.button(key="kng_check").click().run()
    assert_ok(at)
    checks = [c for c in _captions(at) if "releases on a simulated twin" in c]
    assert len(checks) == 1 and "10 releases" in checks[0] and "within the preview's 50 % error" in checks[0]
    twin = [t for t in _preview_chart(at)["data"] if t.get("name") == "a release on the simulated twin"]
    xs = twin[0]["x"] if twin else []
    xs = np.frombuffer(base64.b64decode(xs["bdata"]), dtype=xs["dtype"]) if isinstance(xs, dict) else xs
    assert len(twin) == 1 and len(xs) == 10 and np.all(np.asarray(xs) >= 0)
    assert len(_ledger(at)) == 0                                   # synthetic: no budget spent


def test_issue32_1_kng_median_floor_is_said_before_the_click():
    at = _run(dp_dataset=_user_ds(), kng_source="Dataset from the Data page", kng_view=RELEASE, kng_problem="median",
              kng_cols=["age"])
    assert any("order statistics around the sample median" in c for c in _captions(at))
    assert len(_ledger(at)) == 0
    mean = _run(dp_dataset=_user_ds(), kng_source="Dataset from the Data page", kng_view=RELEASE, kng_problem="mean")
    assert not any("order statistics" in c for c in _captions(mean))


def test_issue32_1_preview_toggle_keeps_its_value_after_a_column_is_removed_and_added():
    """The toggle was not drawn while no column was chosen; drawn again, it reached the browser without its value
    (proto.set_value unset), so the browser showed "off" and sent "off" back at the next rerun."""
    import ui

    at = AppTest.from_file(str(PAGES / "histograms.py"), default_timeout=180)
    at.session_state[ui.DATASET_KEY] = _dataset(_kng_frame(), {"age": (0.0, 100.0), "income": (0.0, 50.0)})
    at.session_state["h_source"] = "Dataset from the Data page"
    at.session_state["h_cols"] = ["age"]
    at.run()
    assert_ok(at)
    assert at.toggle(key="h_accuracy_preview_on").proto.value is True
    at.multiselect(key="h_cols").unselect("age").run()
    at.multiselect(key="h_cols").select("age").run()
    assert_ok(at)
    proto = at.toggle(key="h_accuracy_preview_on").proto
    assert proto.set_value and proto.value is True, proto
    at.toggle(key="h_accuracy_preview_on").set_value(False).run()
    at.multiselect(key="h_cols").unselect("age").run()
    at.multiselect(key="h_cols").select("age").run()
    proto = at.toggle(key="h_accuracy_preview_on").proto
    assert proto.set_value and proto.value is False                 # the user's "off" is kept too

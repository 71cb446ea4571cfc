"""AppTest checks of the small shared helpers of the ui package (issue 30): errors_shown, metrics, simulation_button."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.data import escape_markdown
from tests.app.conftest import TIMEOUT

pytestmark = pytest.mark.app


def _errors_script():
    import streamlit as st

    import ui

    with ui.errors_shown(stop=False):
        raise ValueError("epsilon = -1 must be > 0")
    st.write("after the first block")
    with ui.errors_shown():
        if st.session_state.get("bad"):
            raise ValueError("n = 0 must be >= 1")
    st.write("after the second block")


def test_errors_shown_says_the_error_and_stops_unless_told_not_to():
    at = AppTest.from_function(_errors_script, default_timeout=TIMEOUT).run()
    assert not at.exception
    first = escape_markdown("ε = -1 must be > 0")                          # show_error's words (greek, escaped)
    assert [e.value for e in at.error] == [first]
    assert [m.value for m in at.markdown] == ["after the first block", "after the second block"]
    at.session_state["bad"] = True
    at.run()
    assert [e.value for e in at.error] == [first, escape_markdown("n = 0 must be >= 1")]
    assert [m.value for m in at.markdown] == ["after the first block"]    # stopped there


def _metrics_script():
    import ui

    ui.metrics({"a": "1", "b": "2,000"}, help={"b": "why"})


def test_metrics_draws_one_column_each():
    at = AppTest.from_function(_metrics_script, default_timeout=TIMEOUT).run()
    assert [(m.label, m.value) for m in at.metric] == [("a", "1"), ("b", "2,000")]
    assert len(at.columns) == 2 and at.metric[1].help == "why" and not at.metric[0].help


def _simulation_script():
    import pandas as pd
    import streamlit as st

    import ui
    from dpcore import experiments

    def fake(exp_id, **kw):
        if kw.get("reps") == 0:
            raise ValueError("reps = 0 must be >= 1")
        return pd.DataFrame({"method": ["a", "a"], "x": [1, 2], "error": [1.0, 0.5], "se": [0.1, 0.1]})

    experiments.run_experiment = fake
    frame = ui.simulation_button("lasso", key="go", run=dict(
        methods=("p=100",), xs=(1000, 10_000), reps=st.session_state.get("reps", 2), seed=1, jobs=1, epsilon=1.0),
                                 figure=lambda f: __import__("plotly.graph_objects").graph_objects.Figure())
    st.write(f"frame: {None if frame is None else len(frame)}")


def test_simulation_button_runs_only_on_its_click_and_draws_exports_or_says_the_error(monkeypatch):
    from dpcore import experiments

    monkeypatch.setattr(experiments, "run_experiment", experiments.run_experiment)   # restored after the test
    at = AppTest.from_function(_simulation_script, default_timeout=TIMEOUT).run()
    assert not at.exception and at.markdown[-1].value == "frame: None" and not at.get("plotly_chart")
    at.button(key="go").click().run()
    assert not at.exception and at.markdown[-1].value == "frame: 2"
    assert len(at.get("plotly_chart")) == 1
    labels = {b.proto.label for b in at.get("download_button")}
    assert "Download the figure's data (CSV)" in labels
    # the export of the same run is offered (here refused: the stand-in sweep is no importable dpcore function)
    assert "Download as Python script" in labels or any("Export as code" in c.value for c in at.caption)
    at.session_state["reps"] = 0
    at.button(key="go").click().run()
    assert [e.value for e in at.error] == [escape_markdown("reps = 0 must be >= 1")] and at.markdown[-1].value == "frame: None"

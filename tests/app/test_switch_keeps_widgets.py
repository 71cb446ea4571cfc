"""Issue 20 item 5, on every page: a switch (a view, a data source, a simulator, a workload, an experiment, an
audited mechanism) and back again gives every widget back the value the user left it at.

The KNG explorer lost its "Draws per mechanism" on Teaching view → Release → Teaching view. The same happens
to any widget drawn only under one choice: Streamlit forgets the state of a widget a run does not draw, so
switching away and back re-created it at its default (the LASSO page's response column, the density page's
columns, the Data page's simulator parameters, the query-release workload sizes, the audit's sample size ...).
Each case below sets such widgets through the widget API, switches away, switches back, and reads them again.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import PAGES, assert_ok

pytestmark = pytest.mark.app


def _widget(at: AppTest, key: str):
    for kind in ("number_input", "selectbox", "multiselect", "radio", "checkbox", "slider", "select_slider",
                 "toggle", "text_input"):
        found = [w for w in at.get(kind) if w.key == key]
        if found:
            return found[0]
    raise AssertionError(f"no widget with key {key!r} on the page")


def _user_dataset():
    from dpcore.data import Dataset

    g = np.random.default_rng(0)
    frame = pd.DataFrame({"age": g.integers(18, 90, 300).astype(float), "score": g.uniform(0, 10, 300)})
    return Dataset(frame, tuple(frame.columns), {"age": (18.0, 90.0), "score": (0.0, 10.0)}, "test upload",
                   name="upload")


def _roundtrip(page: str, switch: str, there, back, changes: dict, **state) -> dict:
    """Run ``page`` with ``state``, set ``changes`` through the widgets, switch ``switch`` to ``there`` and back
    to ``back``; return the widgets' values read at the end."""
    import ui

    at = AppTest.from_file(str(PAGES / page), default_timeout=120)
    for k, v in state.items():
        at.session_state[ui.DATASET_KEY if k == "dataset" else k] = v
    at.run()
    assert_ok(at)
    for key, value in changes.items():
        _widget(at, key).set_value(value)
        at.run()
        assert_ok(at)
    assert {k: _widget(at, k).value for k in changes} == changes        # the changes took
    for target in (there, back):
        _widget(at, switch).set_value(target)
        at.run()
        assert_ok(at)
    return {k: _widget(at, k).value for k in changes}


CASES = {
    "kng: view (the draws of issue 20 item 5)": (
        "kng.py", "kng_view", "Release", "Teaching view (not private)", {"kng_draws": 7}, {"kng_sim_n": 100}),
    "kng: problem": ("kng.py", "kng_problem", "mean", "quantile", {"kng_tau": 0.25},
                     {"kng_sim_n": 100, "kng_problem": "quantile", "kng_view": "Release"}),
    "data: simulator": ("data.py", "data_sim_kind", "quantile_regression", "linear_regression",
                        {"data_sim_linear_regression_d": 5},
                        {"data_source": "Simulate a dataset", "data_sim_kind": "linear_regression"}),
    "lasso: data source": ("lasso.py", "lasso_source", "Simulated sparse regression", "Diabetes (built-in)",
                           {"lasso_y_Diabetes (built-in)": "bmi"},
                           {"lasso_source": "Diabetes (built-in)", "lasso_n": 200, "lasso_p": 5}),
    "eigenvalues: data source": (
        "eigenvalues.py", "sp_source", "Simulated robust regression", "Diabetes (built-in, robust regression)",
        {"sp_loss_Diabetes (built-in, robust regression)": "logistic", "sp_intercept": False,
         "sp_geometry": "l2-ball"},
        {"sp_source": "Diabetes (built-in, robust regression)", "sp_n": 500, "sp_d": 2}),
    "density: data source": ("density.py", "dn_source", "Simulated mixture", "Wine (built-in)",
                             {"dn_cols_Wine (built-in)": ["alcohol", "malic_acid"]},
                             {"dn_source": "Wine (built-in)", "dn_n": 200}),
    "histograms: data source": ("histograms.py", "h_source", "Synthetic sparse table", "Dataset from the Data page",
                                {"h_bins_age": 12, "h_mode_score": "categories"},
                                {"h_source": "Dataset from the Data page", "h_cols": ["age", "score"],
                                 "h_log2p": 8, "h_q": 10, "h_n": 100, "dataset": None}),
    "query release: workload": ("query_release.py", "qr_kind", "thresholds", "marginals", {"qr_d": 4, "qr_w": 1},
                                {"qr_nmax": 100, "qr_reps": 2}),
    "audit: mechanism": ("audit.py", "audit_id", None, None, {}, {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_switching_away_and_back_keeps_every_widgets_value(case):
    page, switch, there, back, changes, state = CASES[case]
    if page == "histograms.py":
        state = {**state, "dataset": _user_dataset()}
    if page == "audit.py":
        from dpcore.registry import audits

        ids = list(audits())
        first = "noise/laplace" if "noise/laplace" in ids else ids[0]
        there, back = next(i for i in ids if i != first), first
        changes, state = {f"audit_n::{first}": 12_345}, {"audit_id": first}
    assert _roundtrip(page, switch, there, back, changes, **state) == changes


def test_error_vs_n_experiment_switch_keeps_its_form_values():
    """The Error vs n page: each experiment's form (ε, replicates) survives choosing another experiment."""
    at = AppTest.from_file(str(PAGES / "error_vs_n.py"), default_timeout=120)
    at.run()
    assert_ok(at)
    first = at.selectbox(key="evn_experiment").value
    reps_key = f"evn_reps_{first}"
    other = next(o for o in at.selectbox(key="evn_experiment").options if o != first)
    at.slider(key=reps_key).set_value(3)
    next(b for b in at.button if b.label == "Run simulation").click().run()      # a form's values need its submit
    at.selectbox(key="evn_experiment").set_value(other).run()
    at.selectbox(key="evn_experiment").set_value(first).run()
    assert_ok(at)
    assert at.slider(key=reps_key).value == 3

"""AppTest of pages/error_vs_n.py: runs with defaults, changing ε changes the output, no ledger entry."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "error_vs_n.py")

pytestmark = pytest.mark.app


def _figure_data(at: AppTest) -> list:
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)["data"]


def _run_default() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_page_runs_with_defaults_and_epsilon_changes_output():
    at = _run_default()
    assert at.selectbox(key="evn_experiment").value == "kng-median"
    before = _figure_data(at)
    names = [t["name"] for t in before]
    assert any(n.startswith("KNG (slope") for n in names) and any(n.startswith("reference slope") for n in names)
    assert any("simulations on synthetic data" in i.value for i in at.info)
    at.select_slider(key="evn_eps_kng-median").set_value(0.1)
    at.button(key="FormSubmitter:evn_form_kng-median-Run simulation").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    after = _figure_data(at)
    assert after != before
    kng_before = next(t for t in before if t["name"].startswith("KNG"))
    kng_after = next(t for t in after if t["name"].startswith("KNG"))
    assert kng_after["y"] != kng_before["y"]
    # simulations are not releases: nothing in the ledger
    from pages import _components as ui
    assert at.session_state[ui.LEDGER_KEY].totals().n_releases == 0


def test_linear_figure_page_shows_protocol_note():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["evn_experiment"] = "kng-linear"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("max|Y|" in w.value for w in at.warning)
    names = [t["name"] for t in _figure_data(at)]
    assert any(n.startswith("Objective perturbation") for n in names)

"""AppTest of pages/error_vs_n.py: runs with defaults, ticks written in n, a caption computed from the
run (fitted slopes and gaps), changing ε changes the output, CSV download, no ledger entry."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "error_vs_n.py")

pytestmark = pytest.mark.app


def _figure(at: AppTest) -> dict:
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)


def _run_default() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _computed_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("At these settings"))


def _expected_slope_text(at: AppTest, exp_id: str, method: str) -> str:
    """The fitted slope of ``method`` computed here from the frame the page ran, as the caption writes it."""
    from dpcore.experiments import fit_slopes

    frame = at.session_state["evn_results"][exp_id][1]
    slope = fit_slopes(frame).set_index("method").loc[method, "slope"]
    return f"{slope:+.2f}".replace("-", "−").lstrip("+")


def test_page_runs_with_defaults_and_epsilon_changes_output():
    at = _run_default()
    assert at.selectbox(key="evn_experiment").value == "kng-median"
    before = _figure(at)
    names = [t["name"] for t in before["data"]]
    assert any(n.startswith("KNG (slope") for n in names) and any(n.startswith("reference slope") for n in names)
    assert before["layout"]["xaxis"]["type"] == "log" and before["layout"]["yaxis"]["type"] == "log"
    assert before["layout"]["xaxis"]["ticktext"] == ["10", "100", "1 000", "10 000", "100 000"]
    assert any("simulations on synthetic data" in i.value for i in at.info)
    caption = _computed_caption(at)
    assert caption.startswith("At these settings (ε = 1, n = 10 … 100 000, 30 replicates per n)")
    assert f"Exponential mechanism {_expected_slope_text(at, 'kng-median', 'exponential')}" in caption
    assert "At n = 100 000 the mean error relative to the non-private one is: KNG " in caption
    assert at.get("download_button"), "the figure's CSV must be downloadable"
    at.select_slider(key="evn_eps_kng-median").set_value(0.1)
    at.button(key="FormSubmitter:evn_form_kng-median-Run simulation").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    after = _figure(at)
    assert after["data"] != before["data"]
    kng_before = next(t for t in before["data"] if t["name"].startswith("KNG"))
    kng_after = next(t for t in after["data"] if t["name"].startswith("KNG"))
    assert kng_after["y"] != kng_before["y"]
    new_caption = _computed_caption(at)
    assert new_caption != caption and new_caption.startswith("At these settings (ε = 0.1,")
    assert f"KNG {_expected_slope_text(at, 'kng-median', 'kng')}" in new_caption
    # simulations are not releases: nothing in the ledger
    import ui
    assert at.session_state[ui.LEDGER_KEY].totals().n_releases == 0


def test_linear_figure_page_shows_protocol_note_and_declared_options():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["evn_experiment"] = "kng-linear"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("max|Y|" in w.value for w in at.warning)
    names = [t["name"] for t in _figure(at)["data"]]
    assert any(n.startswith("Objective perturbation") for n in names)
    assert at.number_input(key="evn_sweeps_kng-linear").value == 1_000       # the figure's quick setting
    assert at.radio(key="evn_constants_kng-linear").value == "paper"
    assert "Objective perturbation" in _computed_caption(at)


def test_range_slider_gets_no_default_and_state_warning(capfd):
    """The two-handled range slider needs value= (Streamlit reads the range from it) while its kept pair lived in
    the session state: Streamlit logged "was created with a default value but also had its value set via the Session
    State API" on every run (seen in the browser tier's server log). The pair now moves into value=."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.run()
    assert not at.exception
    assert "was created with a default value" not in capfd.readouterr().err

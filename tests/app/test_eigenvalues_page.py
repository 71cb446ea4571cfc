"""AppTest of pages/eigenvalues.py: defaults (simulated data, release shown, not charged), ε changes the
output, ⊥ on a small n, the built-in breast-cancer data, user data is charged on click, simulations."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner, ledger as _ledger

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "eigenvalues.py")
_run = page_runner("eigenvalues.py")

pytestmark = pytest.mark.app


def _texts(at):
    return [m.value for m in at.success] + [m.value for m in at.warning] + [c.value for c in at.caption]


def test_defaults_release_on_simulated_data_and_epsilon_changes_it():
    at = _run()
    assert any("Released" in s.value for s in at.success)
    first = at.success[0].value
    assert _ledger(at).totals().n_releases == 0            # simulated: not charged
    assert any("NOT PRIVATE" in m.value.upper() for m in at.markdown)
    at.session_state["sp_eps_typed"] = 4.0
    at.run()
    _ok(at)
    assert at.success and at.success[0].value != first
    assert len(at.get("plotly_chart")) >= 2                # release figure + certified bounds vs n


def test_small_n_abstains_with_the_reason():
    at = _run(sp_n=500)
    assert any("⊥" in w.value and r"\(C1\)" in w.value for w in at.warning)   # notes are shown literally


def test_breast_cancer_builtin():
    at = _run(sp_source="Breast cancer (built-in, logistic)")
    assert not any("⊥" in w.value for w in at.warning)      # built-in real data: a release needs a click
    at.button(key="sp_go").click().run()
    _ok(at)
    assert any("⊥" in w.value for w in at.warning)          # n = 569, d = 31: nothing certifies (stated)
    at.session_state["sp_rho"] = 1.0
    at.session_state["sp_eps_typed"] = 1e6
    at.run()
    _ok(at)
    # built-in data: recorded with its cost, never counted as DP (the seed is known)
    assert _ledger(at).totals().n_releases == 0


def test_user_data_needs_a_click_and_is_charged():
    from dpcore.data import Dataset
    from pages import _components as ui
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, (3000, 2))
    y = np.where(g.random(3000) < 1 / (1 + np.exp(-X @ [2.0, -1.0])), 1.0, -1.0)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "label": y})
    ds = Dataset(frame, ("a", "b", "label"), {"a": (-1, 1), "b": (-1, 1), "label": (-1, 1)}, "test upload",
                 name="upload")
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["sp_source"] = "Dataset from the Data page"
    at.run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 0
    assert any("press" in i.value for i in at.info)
    at.button(key="sp_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1
    assert at.success or any("⊥" in w.value for w in at.warning)


def test_bad_input_is_a_clear_error_not_a_traceback():
    src = "Breast cancer (built-in, logistic)"
    at = _run(sp_source=src, **{f"sp_y_{src}": "mean radius"})       # a non-binary response for logistic
    assert any("binary" in e.value for e in at.error)
    assert not at.button                                    # refused before a Release button is offered


def test_simulation_tabs_run():
    at = _run()
    at.button(key="sp_run_n").click().run()
    _ok(at)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) >= 3


def test_coverage_study_with_no_n_is_a_clear_error():
    # issue 18 widget sweep (CI tier): the "n" multiselect emptied crashed the page
    at = _run(sp_n=500, sp_d=2)
    at.multiselect(key="sp_cov_ns").set_value([])
    at.run()
    _ok(at)
    assert any("at least one n" in e.value for e in at.error), [e.value for e in at.error]

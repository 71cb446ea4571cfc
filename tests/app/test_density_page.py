"""AppTest of pages/density.py: defaults (simulated, released, not charged), ε changes the output, d = 2,
an uploaded CSV (needs a click, charged), bad input (bandwidth ≤ 0, grid over the cap), the simulation tabs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner, ledger as _ledger, charts as _charts

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "density.py")
_run = page_runner("density.py")

pytestmark = pytest.mark.app


def _first_draw(at):
    return _charts(at)[0]["data"]


def test_defaults_release_on_simulated_data_and_epsilon_changes_it():
    at = _run(dn_knorm_k=1, dn_draws=3)
    assert not at.error
    assert len(_charts(at)) >= 3                          # estimates, exponents chart, SVM boundary
    assert any("(α, β)" in m.value for m in at.markdown)
    assert _ledger(at).totals().n_releases == 0           # simulated: not charged
    before = _first_draw(at)
    at.session_state["dn_eps_typed"] = 8.0
    at.run()
    _ok(at)
    assert _first_draw(at) != before
    assert any("ε = 8" in c.value for c in at.caption)


def test_two_dimensional_simulated_data():
    at = _run(dn_d=2, dn_methods=["gp", "fourier-laplace"], dn_grid=32, dn_draws=2)
    assert not at.error
    assert any(t["type"] == "heatmap" for t in _first_draw(at))


def test_uploaded_csv_needs_a_click_and_is_charged():
    from dpcore.data import load_csv
    import ui
    g = np.random.default_rng(0)
    csv = pd.DataFrame({"age": g.normal(45, 12, 800).round(1), "score": g.uniform(0, 10, 800)}).to_csv(index=False)
    ds = load_csv(csv.encode(), name="upload.csv").with_bounds("age", 0, 100)
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["dn_source"] = "Dataset from the Data page"
    at.session_state["dn_methods"] = ["gp", "fourier-laplace"]
    at.run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 0
    assert any("press" in i.value for i in at.info)
    at.button(key="dn_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1
    assert any("NOT PRIVATE" in m.value.upper() for m in at.markdown)


@pytest.mark.parametrize("state, word", [({"dn_h": 0.0}, "bandwidth"),
                                         ({"dn_grid": 100_000}, "grid"), ({"dn_d": 2, "dn_grid": 2000}, "grid")])
def test_bad_input_is_a_clear_error_not_a_traceback(state, word):
    at = _run(**state)
    assert at.error and any(word in e.value for e in at.error)
    assert _ledger(at).totals().n_releases == 0


def test_simulation_buttons_run():
    at = _run(dn_knorm_k=1, dn_draws=2)
    at.button(key="dn_svm_acc").click().run()
    _ok(at)
    assert len(_charts(at)) >= 4


def test_private_bandwidth_option():
    at = _run(dn_eps_h=0.5, dn_methods=["gp"], dn_draws=2)
    assert not at.error
    assert any("Private bandwidth" in c.value for c in at.caption)


def _xy(trace):
    import base64

    def arr(v):
        if isinstance(v, dict):
            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        return np.asarray(v, dtype=float)
    return arr(trace["x"]), arr(trace["y"])


def test_axes_are_in_the_columns_units():
    """Issue 20 item 4: an age column with public bounds [18, 100] is drawn on an axis in years (18 … 100) with
    a density per year, not on [0, 1] "age rescaled from [18, 100]"."""
    from dpcore.data import load_csv
    import ui
    g = np.random.default_rng(0)
    csv = pd.DataFrame({"age": g.normal(45, 12, 800).clip(18, 100).round(1)}).to_csv(index=False)
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = load_csv(csv.encode(), name="upload.csv").with_bounds("age", 18, 100)
    at.session_state["dn_source"] = "Dataset from the Data page"
    at.run()
    at.button(key="dn_go").click().run()
    _ok(at)
    released, nonprivate = _charts(at)[:2]
    for fig in (released, nonprivate):
        title = fig["layout"]["xaxis"]["title"]["text"]
        assert title.startswith("age") and "rescaled" not in title
        assert "per unit of the column" in fig["layout"]["yaxis"]["title"]["text"]
        x, _ = _xy(fig["data"][0])
        assert x.min() >= 18 and x.max() <= 100 and x.max() - x.min() > 70
    x, y = _xy(next(t for t in nonprivate["data"] if t["name"] == "Non-private KDE"))
    assert 0.9 < float(np.sum(y) * (x[1] - x[0])) < 1.05                  # a density per year integrates to ≈ 1
    assert any("h = 0.05 on [0, 1] is 4.1 in age" in c.value for c in at.caption)

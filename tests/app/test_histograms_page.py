"""AppTest of pages/histograms.py: defaults (synthetic table, simulation not charged), ε changes the output,
the built-in wine table, an uploaded CSV (needs a click, charged; categories read from the data → not DP;
binned columns with declared bounds → DP), and bad inputs (too many categories, p too small)."""
from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner, ledger as _ledger, charts as _charts

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "histograms.py")
_run = page_runner("histograms.py")

pytestmark = pytest.mark.app


def _ys(trace) -> np.ndarray:
    y = trace["y"]
    if isinstance(y, dict):                                    # plotly's base64 encoding of numpy arrays
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return np.asarray(y, dtype=float)


def _errors(at) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def _upload(at, csv: str, name: str = "upload.csv", bounds=None):
    from dpcore.data.readers import load_csv
    import ui
    ds = load_csv(csv.encode(), name=name)
    for c, (lo, hi) in (bounds or {}).items():
        ds = ds.with_bounds(c, lo, hi)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["h_source"] = "Dataset from the Data page"


def test_defaults_show_release_trials_false_positives_and_error_vs_p_and_eps_changes_them():
    at = _run()
    charts = _charts(at)
    assert len(charts) == 4                                    # release, trials, false positives, error vs p
    assert _ledger(at).totals().n_releases == 0                # simulation: not charged
    assert any("(α, β)" in m.value for m in at.markdown)
    boxes = charts[1]["data"]
    names = [d["name"] for d in boxes]
    assert "Thresholded" in names and "Laplace" in names
    med = {d["name"]: float(np.median(_ys(d))) for d in boxes}
    assert med["Laplace"] > 5 * med["Thresholded"]            # ≈ 10× at ε = 1 on the NLCS-shaped table
    assert any("up to a constant" in str(a.get("text", "")) for a in charts[1]["layout"].get("annotations", []))
    assert any("γ bound" in m.label for m in at.metric)          # random DP section, with its guarantee
    assert any("NOT ε-DP" in c.value for c in at.caption)
    before = at.metric[1].value
    at.session_state["h_eps_typed"] = 0.1
    at.run()
    _ok(at)
    after = {d["name"]: float(np.median(_ys(d))) for d in _charts(at)[1]["data"]}
    assert after["Laplace"] > 5 * med["Laplace"]
    assert at.metric[1].value != before or after != med


def test_huge_p_uses_the_sparse_sampler():
    at = _run(h_log2p=30)
    assert any("sparse sampler" in c.value for c in at.caption)
    assert len(_charts(at)) == 3


def test_builtin_wine_release_needs_a_click_and_is_not_counted_as_dp():
    at = _run(h_source="Wine (built-in): cultivar × binned alcohol")
    assert any("press" in i.value for i in at.info)
    at.button(key="h_go").click().run()
    _ok(at)
    assert any("Not differentially private" in w.value for w in at.warning)
    assert len(_charts(at)) == 3                               # release + trials + false positives (teaching)


def test_uploaded_csv_text_column_is_charged_but_not_dp_and_binned_column_is_dp():
    g = np.random.default_rng(0)
    frame = pd.DataFrame({"town": g.choice(["Oban", "Ayr", "Wick", "Elgin"], 300), "age": g.uniform(18, 90, 300)})
    at = AppTest.from_file(PAGE, default_timeout=90)
    _upload(at, frame.to_csv(index=False), bounds={"age": (0, 100)})
    at.run()
    _ok(at)
    assert at.session_state["h_cols"] == ["age"]              # default: the first column with declared bounds
    at.session_state["h_cols"] = ["town"]
    at.run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 0 and any("press" in i.value for i in at.info)
    at.button(key="h_go").click().run()
    _ok(at)
    assert any("categories read from the data" in w.value for w in at.warning)
    assert len(_charts(at)) == 1                               # the release only: no trials on user data
    at.session_state["h_cols"] = ["age"]
    at.run()
    at.button(key="h_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1                # the binned (declared bounds) release is counted
    assert not any("Not differentially private" in w.value for w in at.warning)


def test_bad_input_many_distinct_values_as_categories_and_p_too_small():
    from dpcore.data import Dataset
    import ui
    g = np.random.default_rng(1)
    big = pd.DataFrame({"x": g.normal(size=1_000_000), "c": g.choice(list("abcdefg"), 1_000_000)})
    ds = Dataset(big, ("x",), {}, "a million rows", name="big")
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["h_source"] = "Dataset from the Data page"
    at.session_state["h_cols"] = ["x"]
    at.run()
    _ok(at)
    assert any("1,000,000 distinct values" in e and "cap" in e for e in _errors(at))
    at.session_state["h_cols"] = ["c"]
    at.session_state["h_p"] = 4
    at.run()
    _ok(at)
    assert any("p = 4 is smaller than the 7 categories" in e and "at least 7" in e for e in _errors(at))
    assert _ledger(at).totals().n_releases == 0


def test_integer_coded_survey_columns_read_as_integers_with_a_table_of_released_counts():
    """Issue 20 item 4: two survey answers coded 0…6 (public bounds [0, 6]) crossed. Before: seven equal bins per
    column labelled "[0, 0.8571) × [1, 1.857)", an x axis titled "cell", no table, a diagnostics header
    "false_positives error". After: one cell per integer ("3 × 4"), the axis names the columns, a table of the
    released counts by level with its CSV, readable diagnostics headers."""
    g = np.random.default_rng(3)
    frame = pd.DataFrame({"trust": g.integers(0, 7, 400).astype(float), "income band": g.integers(0, 7, 400)})
    at = AppTest.from_file(PAGE, default_timeout=90)
    _upload(at, frame.to_csv(index=False), bounds={"trust": (0, 6), "income band": (0, 6)})
    at.session_state["h_cols"] = ["trust", "income band"]
    at.run()
    _ok(at)
    assert at.radio(key="h_mode_trust").value == "integers"          # the default: whole bounds ≤ 50 apart
    assert any("p = 49 cells" in c.value for c in at.caption)
    at.button(key="h_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1
    bars = _charts(at)[0]
    labels = [str(x) for t in bars["data"] for x in t["x"]]
    assert "3 × 4" in labels and not any("[" in x or "." in x for x in labels)
    assert "trust × income band" in bars["layout"]["xaxis"]["title"]["text"]
    table = at.dataframe[0].value
    assert list(table.columns[1:3]) == ["trust", "income band"] and len(table) == 49
    assert set(table["trust"]) == {str(v) for v in range(7)}
    assert {"thresholded (released)", "Laplace (released)"} <= set(table.columns)
    assert any(b.label == "Download the released counts (CSV)" for b in at.get("download_button"))
    headers = [str(c) for d in at.dataframe[1:] for c in d.value.columns]
    assert headers and not any("_" in h for h in headers), headers


def test_bins_of_a_continuous_column_have_short_labels():
    g = np.random.default_rng(4)
    frame = pd.DataFrame({"age": g.uniform(18, 98, 300)})
    at = AppTest.from_file(PAGE, default_timeout=90)
    _upload(at, frame.to_csv(index=False), bounds={"age": (18, 98.5)})
    at.session_state["h_cols"] = ["age"]
    at.run()
    assert at.radio(key="h_mode_age").value == "bins" and at.radio(key="h_mode_age").options == ["equal bins",
                                                                                                   "categories (from the data)"]
    at.button(key="h_go").click().run()
    _ok(at)
    labels = list(at.dataframe[0].value["age"])
    assert labels[:2] == ["[18, 26.1)", "[26.1, 34.1)"] and max(map(len, labels)) <= 14

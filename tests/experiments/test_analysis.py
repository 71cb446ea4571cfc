"""Tests of the summaries (Monte-Carlo s.e., fitted slopes, computed description) and the figure."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpcore.experiments import describe, fit_slopes, format_number, format_summary, summarize


def _synthetic(slopes, ns=(10, 100, 1000, 10_000, 100_000), reps=4, noise=0.0, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    rows = []
    for m, b in slopes.items():
        for n in ns:
            for r in range(reps):
                rows.append({"method": m, "n": n, "rep": r,
                             "error": scale * n ** b * math.exp(noise * rng.standard_normal())})
    return pd.DataFrame(rows)


def test_fit_slopes_recovers_known_slopes_over_top_decades():
    f = _synthetic({"a": -0.5, "b": -1.0})
    s = fit_slopes(f).set_index("method")
    assert s.loc["a", "slope"] == pytest.approx(-0.5, abs=1e-12)
    assert s.loc["b", "slope"] == pytest.approx(-1.0, abs=1e-12)
    assert s.loc["a", "intercept"] == pytest.approx(math.log10(3.0), abs=1e-12)
    assert s.loc["a", "n_min"] == 100 and s.loc["a", "n_max"] == 100_000 and s.loc["a", "points"] == 4
    # a kink below the top three decades does not affect the fit
    g = f.copy()
    g.loc[g.n == 10, "error"] *= 100
    assert fit_slopes(g).set_index("method").loc["a", "slope"] == pytest.approx(-0.5, abs=1e-12)
    assert fit_slopes(g, decades=4).set_index("method").loc["a", "slope"] == pytest.approx(-0.9)


def test_summarize_standard_errors():
    f = _synthetic({"a": -0.5}, reps=400, noise=0.3, seed=1)
    s = summarize(f)
    sub = f[f.n == 100]["error"]
    row = s[s.n == 100].iloc[0]
    assert row.reps == 400
    assert row.mean_error == pytest.approx(sub.mean())
    assert row.se_log10_mean_error == pytest.approx(sub.std() / (20 * sub.mean() * math.log(10)))
    assert row.se_mean_log10_error == pytest.approx(np.log10(sub).std() / 20)
    # the s.e. is honest: log-normal noise with σ = 0.3 → s.e. of mean log10 ≈ 0.3/ln10/20
    assert row.se_mean_log10_error == pytest.approx(0.3 / math.log(10) / 20, rel=0.15)
    txt = format_summary(f)
    assert "fitted slopes" in txt and "1e+05" in txt


def test_describe_states_slopes_and_gaps_computed_from_the_frame():
    f = _synthetic({"nonprivate": -0.5, "kng": -0.5, "exponential": -0.33})
    f.loc[f.method == "kng", "error"] *= 1.5
    f.attrs = {"axis": "n", "log_x": True, "epsilon": 1.0, "reference_slope": -0.5, "reference_label": "n^−1/2",
               "method_labels": {"nonprivate": "Non-private", "kng": "KNG", "exponential": "exponential mechanism"}}
    text = describe(f)
    assert text.startswith("At these settings (ε = 1, n = 10 … 100 000, 4 replicates per n)")
    assert "Non-private −0.50; KNG −0.50; exponential mechanism −0.33 (reference −0.50, n^−1/2)" in text
    gap = 100_000 ** (-0.33) / 100_000 ** (-0.5)
    assert f"At n = 100 000 the mean error relative to the non-private one is: KNG 1.50×; " \
           f"exponential mechanism {gap:.2f}×." in text
    # the words follow the numbers: other data, other caption
    g = _synthetic({"nonprivate": -0.5, "exponential": -0.25})
    assert "exponential −0.25" in describe(g) and describe(g) != text
    assert describe(f.iloc[:0]) == "No results yet."


def test_format_number_has_no_exponents():
    assert [format_number(v) for v in (10, 1000, 1e6, 0.001, 2.5, 12345.5)] == \
        ["10", "1 000", "1 000 000", "0.001", "2.5", "12 345.5"]


def test_error_vs_n_figure_has_legend_slopes_reference_line_and_number_ticks():
    from dpcore.viz.experiments import error_vs_n_figure, error_vs_x_figure

    assert error_vs_n_figure is error_vs_x_figure
    f = _synthetic({"nonprivate": -0.5, "kng": -0.8})
    fig = error_vs_n_figure(f, title="t")
    names = [t.name for t in fig.data]
    assert any("slope −0.50" in n for n in names) and any("slope −0.80" in n for n in names)
    ref = [t for t in fig.data if t.name.startswith("reference")]
    assert len(ref) == 1
    assert np.diff(np.log10(ref[0].y))[0] / np.diff(np.log10(ref[0].x))[0] == pytest.approx(-0.5)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["10", "100", "1 000", "10 000", "100 000"]
    assert list(fig.layout.xaxis.tickvals) == [10, 100, 1000, 10_000, 100_000]
    data = fig.data[0]
    assert list(data.x) == [10, 100, 1000, 10_000, 100_000]
    assert np.allclose(data.y, 3.0 * np.array(data.x) ** -0.5)       # mean error in its own units
    assert data.error_y.array is not None and data.error_y.arrayminus is not None
    assert fig.data[0].line.color == "#000000" and fig.data[1].line.color == "#0072B2"   # dpcore.viz.style


def test_figure_on_a_linear_axis_has_no_log_x_and_no_reference_line_when_none():
    from dpcore.viz.experiments import error_vs_x_figure

    f = pd.DataFrame({"method": "a", "p": [1, 2, 3, 1, 2, 3], "rep": [0, 0, 0, 1, 1, 1],
                      "error": [1.0, 0.5, 0.25, 1.0, 0.5, 0.25]})
    f.attrs = {"axis": "p", "log_x": False, "axis_label": "dimension p", "reference_slope": None}
    fig = error_vs_x_figure(f)
    assert fig.layout.xaxis.type == "linear" and fig.layout.xaxis.title.text == "dimension p"
    assert not any(t.name.startswith("reference") for t in fig.data)
    assert "slope −0.30" in fig.data[0].name


def test_log_ticks_small_span_and_floats():
    from dpcore.viz.experiments import log_ticks

    assert log_ticks(100, 1000)[1] == ["100", "200", "500", "1 000"]
    assert log_ticks(0.01, 10)[1] == ["0.01", "0.1", "1", "10"]

"""The chart a page sends is the one it sent before the template moved out of the build (issue 21).

Figures are built without the plotly template (dpcore.viz.style.TEMPLATE: validating it was ≈ 15 ms a figure)
and ``ui.plot`` hands Streamlit the literal JSON with the template added, as a figure plotly does not validate
again (Streamlit rebuilt and validated one from a dict: ≈ 20 ms). Checked on every chart of each page's
default view: the spec Streamlit serialises from ``ui.chart_spec(fig)`` equals the spec it serialised from the
former input — the literal JSON of the figure with the template set at build time. (The accuracy preview's
figure, dpcore.viz.preview, never set the template and was drawn with Streamlit's default; it now has the app's
template like every other chart.)
"""
from __future__ import annotations

import copy
import json

import plotly.io as pio
import plotly.tools
import pytest

import ui
from tests.app.pagetest import page_runner

pytestmark = pytest.mark.app

PAGES = ["kng.py", "lasso.py", "histograms.py", "density.py", "eigenvalues.py", "query_release.py",
         "error_vs_n.py", "audit.py"]


def _sent(figure_or_data) -> dict:
    """The spec Streamlit puts in the chart's proto (st.plotly_chart's own two calls)."""
    return json.loads(pio.to_json(plotly.tools.return_figure_from_figure_or_data(figure_or_data, validate_figure=True),
                                  validate=False))


@pytest.mark.parametrize("page", PAGES)
def test_each_chart_of_the_default_view_is_sent_as_before(page, monkeypatch):
    from dpcore import data as dpdata
    from dpcore.viz import style

    figures = []
    original = ui.plot

    def recording(fig, *a, **k):
        figures.append(copy.deepcopy(fig))
        return original(fig, *a, **k)

    for module in ui, ui.preview, ui.release:     # the pages' charts, the accuracy preview's, the cost curve's
        monkeypatch.setattr(module, "plot", recording)
    page_runner(page)()
    if page != "audit.py":       # the audit page draws its charts after its button
        assert figures, f"{page} drew no chart through ui.plot"
    for fig in figures:
        before = dpdata.plotly_literal_spec(style.themed(copy.deepcopy(fig)).to_plotly_json())
        assert _sent(ui.chart_spec(fig)) == _sent(before)


def test_the_template_is_not_built_into_figures_and_is_added_when_drawn():
    import plotly.graph_objects as go

    from dpcore.viz import style

    assert "template" not in style.LAYOUT
    fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 0], name="a <b>"))
    fig.update_layout(**style.LAYOUT, title="t")
    spec = ui.chart_spec(fig).to_plotly_json()
    assert spec["layout"]["template"] == json.loads(json.dumps(pio.templates[style.TEMPLATE].to_plotly_json(),
                                                               cls=plotly.utils.PlotlyJSONEncoder))
    assert spec["data"][0]["name"] == "a &lt;b&gt;"          # still literal
    assert style.template_json() is not style.template_json()  # a fresh copy each time

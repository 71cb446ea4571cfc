"""Charts, metrics and downloads: a plotly figure drawn literally with its text alternative and its data as CSV;
a row of headline numbers.

Owns nothing in the session. Must never: render data-borne text as HTML (every spec goes through
dpcore.data.plotly_literal_spec), write a CSV without dpcore.data.to_safe_csv, or build the CSV on every rerun.
"""
from __future__ import annotations

import re
from typing import Any

import pandas as pd
import streamlit as st

from dpcore import data as dpdata


def safe_name(name: str) -> str:
    """``name`` reduced to a file name's safe characters (``data`` if nothing is left)."""
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._")
    return s or "data"


def download_csv(frame: pd.DataFrame, filename: str, label: str = "Download CSV", *,
                 key: str | None = None) -> None:
    """A download button for ``frame`` as CSV (dpcore.data.to_safe_csv neutralises formula-like cells).
    Clicking it does not rerun the page. The CSV is written when the button is clicked (Streamlit's deferred
    download), not on every rerun: it was ≈ 6 % of the server's time under load (py-spy, benchmarks/load.py)."""
    filename = safe_name(filename)
    if not filename.lower().endswith(".csv"):
        filename += ".csv"
    st.download_button(label, data=lambda: dpdata.to_safe_csv(frame), file_name=filename, mime="text/csv",
                       key=key or f"dp_download::{filename}", on_click="ignore", icon=":material/download:")


def plot(fig: Any, frame_for_csv: pd.DataFrame, name: str, caption: str | None = None) -> None:
    """Show a plotly figure (full width), its text alternative and a download button for the data behind it.

    Every text in the figure is shown literally (dpcore.data.plotly_literal_spec: data-borne names never render
    as HTML). The text alternative is the caption right under the chart: ``caption`` (the page's words: what
    the chart shows and its headline number) or else :func:`dpcore.viz.describe.describe` of the figure (title,
    axes, each series' last value or summary: only what the figure draws). Shown literally: it may quote
    column names.
    """
    from dpcore.viz.describe import describe

    name = safe_name(name)
    st.plotly_chart(chart_spec(fig), width="stretch", key=f"dp_plot::{name}")
    st.caption(dpdata.literal(caption or describe(fig)))
    download_csv(frame_for_csv, f"{name}.csv", "Download the figure's data (CSV)", key=f"dp_plot_download::{name}")


def chart_spec(fig: Any) -> Any:
    """What :func:`plot` gives ``st.plotly_chart``: ``fig``'s JSON made literal (dpcore.data.plotly_literal_spec)
    with the app's template (dpcore.viz.style.template_json), as a figure plotly does not validate again.

    Handing Streamlit the JSON as a dict made it rebuild and validate a figure from it (≈ 20 ms a chart, as much
    as building it). The spec Streamlit sends is the one it sent before (tests/app/test_chart_spec.py)."""
    import plotly.graph_objects as go

    from dpcore.viz import style

    spec = dpdata.plotly_literal_spec(fig.to_plotly_json())
    spec["layout"]["template"] = style.template_json()
    return go.Figure(spec, _validate=False)


def metrics(values: dict[str, str], help: dict[str, str] | None = None) -> None:
    """A row of ``st.metric``, one column each: ``{label: value}`` (values already formatted), with the tooltip
    ``help[label]`` where given."""
    for col, (label, value) in zip(st.columns(len(values)), values.items()):
        col.metric(label, value, help=(help or {}).get(label))

"""Plotly figure of the privacy-audit page: the two output distributions overlaid; no streamlit.

Returns ``(figure, frame)``; the frame holds the plotted numbers for a CSV download.
"""
from __future__ import annotations

import plotly.graph_objects as go

from dpcore.audit.explore import AuditSummary
from dpcore.viz.style import LAYOUT

__all__ = ["overlay_figure"]

COLOURS = {"D": "#0072B2", "D′": "#D55E00"}


def overlay_figure(summary: AuditSummary):
    """Histograms (density) of M(D) and M(D′) on common bins, with the verdict in the title."""
    f = summary.overlay
    fig = go.Figure()
    for name in ("D", "D′"):
        fig.add_trace(go.Bar(x=(f["bin_left"] + f["bin_right"]) / 2, y=f[f"density_{name}"],
                             width=f["bin_right"] - f["bin_left"], name=f"M({name})", opacity=0.55,
                             marker_color=COLOURS[name]))
    r = summary.result
    verdict = "REJECTED" if r.rejected else "not rejected"
    who = "broken mutant" if summary.mutant else "calibrated mechanism"
    fig.update_layout(**LAYOUT, barmode="overlay", bargap=0,
                      title=f"Outputs on D and D′ ({who}); claim ε = {r.epsilon:.4g}, δ = {r.delta:.3g}: {verdict}",
                      xaxis_title=summary.output_label + (" (first coordinate)" if "2-D" in summary.output_label else ""),
                      yaxis_title="density (share of outputs per unit)", legend=dict(orientation="h", y=-0.2))
    return fig, f.copy()

"""Plotly figure of the privacy-audit page: the two output distributions overlaid; no streamlit.

Returns ``(figure, frame)``; the frame holds the plotted numbers for a CSV download.
"""
from __future__ import annotations

import plotly.graph_objects as go

from dpcore.audit.explore import AuditSummary
from dpcore.viz.style import LAYOUT

__all__ = ["overlay_figure", "tradeoff_figure", "cost_tradeoff_figure"]

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


def tradeoff_figure(summary: AuditSummary):
    """What ε means: the claim's trade-off curve (largest true-positive rate of any test at each
    false-positive rate), the exact Gaussian-DP curve for Gaussian mechanisms, random guessing, and every
    audit event as a test (its conservative Clopper–Pearson corner): inside the curve for a correct
    mechanism, across it for a broken one."""
    import numpy as np
    import pandas as pd

    from dpcore.privacy.tradeoff import ALPHA_GRID, max_power_dp, max_power_gdp

    r = summary.result
    a = np.concatenate([[0.0], ALPHA_GRID])
    curves = [pd.DataFrame({"what": f"(ε = {r.epsilon:.3g}, δ = {r.delta:.3g})-DP bound", "fpr": a,
                            "tpr": max_power_dp(a, r.epsilon, r.delta)})]
    if summary.gdp_mu is not None:
        curves.append(pd.DataFrame({"what": f"Gaussian mechanism, exact (μ = Δ/σ = {summary.gdp_mu:.3g})", "fpr": a,
                                    "tpr": max_power_gdp(a, summary.gdp_mu)}))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="random guessing",
                             line=dict(color="#999999", dash="dot")))
    for c, (colour, dash) in zip(curves, (("#0072B2", "solid"), ("#009E73", "dash"))):
        fig.add_trace(go.Scatter(x=c["fpr"], y=c["tpr"], mode="lines", name=c["what"].iloc[0],
                                 line=dict(color=colour, dash=dash, width=2)))
    t = summary.tradeoff
    who = "broken mutant" if summary.mutant else "calibrated mechanism"
    for outside, colour, symbol, word in ((False, "#0072B2", "circle", "inside"), (True, "#D55E00", "x", "OUTSIDE")):
        pts = t[t["outside"] == outside] if len(t) else t
        if len(pts):
            fig.add_trace(go.Scatter(x=pts["fpr_upper"], y=pts["tpr_lower"], mode="markers",
                                     name=f"audit events ({who}), {word} the bound: {len(pts)}",
                                     marker=dict(color=colour, symbol=symbol, size=8),
                                     customdata=np.stack([pts["event"], pts["fpr"], pts["tpr"]], axis=1),
                                     hovertemplate="event %{customdata[0]}<br>FPR ≤ %{x:.4f} (estimate "
                                                   "%{customdata[1]:.4f})<br>TPR ≥ %{y:.4f} (estimate "
                                                   "%{customdata[2]:.4f})<extra></extra>"))
    fig.update_layout(**LAYOUT, title=f"What the claim means: any test's error rates ({who})",
                      xaxis_title="false-positive rate α: wrongly accuses D (share of runs on D′)",
                      yaxis_title="true-positive rate: rightly accuses D (share of runs on D)",
                      xaxis=dict(range=[0, 1]), yaxis=dict(range=[0, 1.02]), legend=dict(orientation="h", y=-0.25))
    points = t.assign(what="audit event (conservative corner)") if len(t) else t
    frame = pd.concat([*curves, points], ignore_index=True)
    return fig, frame


def cost_tradeoff_figure(costs, title: str = "What this cost means"):
    """The trade-off curve of one click's cost (or a ledger's): the largest true-positive rate any test can
    reach at each false-positive rate, with random guessing for reference."""
    import numpy as np
    import pandas as pd

    from dpcore.privacy.tradeoff import ALPHA_GRID, max_power_costs

    a = np.concatenate([[0.0], ALPHA_GRID])
    frame = pd.DataFrame({"false-positive rate": a, "largest true-positive rate": max_power_costs(a, costs)})
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="random guessing",
                             line=dict(color="#999999", dash="dot")))
    fig.add_trace(go.Scatter(x=frame.iloc[:, 0], y=frame.iloc[:, 1], mode="lines", name="any test under this cost",
                             line=dict(color="#0072B2", width=2)))
    fig.update_layout(**LAYOUT, title=title, height=360,
                      xaxis_title="false-positive rate α: wrongly accuses a person of being in the data",
                      yaxis_title="true-positive rate: rightly accuses", xaxis=dict(range=[0, 1]),
                      yaxis=dict(range=[0, 1.02]), legend=dict(orientation="h", y=-0.3))
    return fig, frame

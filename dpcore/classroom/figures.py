"""The projected dashboard's figure: what ε promises, the best adversary, and the class (plotly; no streamlit).

Three things on one (false-positive rate, true-positive rate) square, for the rounds played with one setting:
the trade-off curve of the claimed (ε, δ) (:func:`dpcore.privacy.tradeoff.max_power_dp`: no test of one
release can go above it), the best adversary's ROC for the mechanism actually played (the calibrated one or
its mutant; :func:`dpcore.classroom.roc.best_roc`, exact or estimated as its label says) and the class's pooled
points, one per confidence threshold, each with its 95 % Clopper–Pearson box. Made to be projected (reviewed
on a 1920×1080 screenshot): 24 px type set on every axis (ticks 22 px), black on white, thick lines,
black/blue/vermillion (Okabe–Ito), labelled axes fixed to the square [0, 1] × [0, 1].
"""
from __future__ import annotations

import numpy as np

from ..privacy.tradeoff import ALPHA_GRID, max_power_dp
from ..viz.style import GREY, OKABE_ITO
from .roc import best_roc
from .scenarios import Setting
from .scoring import ClassScore

__all__ = ["dashboard_figure", "FONT_SIZE"]

FONT_SIZE = 24
INK = "#000000"   # text and axes: black on white (contrast 21:1)
_NAMES = {3: "said in, sure (3)", 2: "said in, confidence ≥ 2", 1: "said in (the answers)",
          -1: "said in, or out with confidence 1", -2: "said in, or out with confidence ≤ 2"}


def _axis(title: str, rng: list[float]) -> dict:
    """An axis readable from the back of a lecture room, on its own: the fonts and colours are set on the axis
    itself, because a page's chart theme (Streamlit's) restyles axes that only inherit ``layout.font`` (small
    grey ticks on the projector); ``constrain="domain"`` keeps the square at [0, 1] on a wide screen (the
    aspect lock would otherwise stretch the x range to −50 %…150 %, rates that cannot exist)."""
    return dict(title=dict(text=title, font=dict(size=FONT_SIZE, color=INK), standoff=16), range=rng,
                tickformat=".0%", dtick=0.2, tickfont=dict(size=FONT_SIZE - 2, color=INK), showline=True,
                linecolor=INK, linewidth=2, ticks="outside", tickcolor=INK, gridcolor="#c8c8c8",
                zeroline=False, constrain="domain", fixedrange=True)


def dashboard_figure(setting: Setting, score: ClassScore):
    """The dashboard's figure for ``setting`` and the class's pooled ``score`` (plotly Figure)."""
    import plotly.graph_objects as go

    a = np.concatenate([[0.0], ALPHA_GRID])
    roc = best_roc(setting)
    claim = f"ε = {setting.epsilon:g}" + (f", δ = {setting.delta:g}" if setting.delta else "")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="guessing (ignores the release)",
                             line=dict(color=GREY, dash="dot", width=3)))
    fig.add_trace(go.Scatter(x=a, y=max_power_dp(a, setting.epsilon, setting.delta), mode="lines",
                             name=f"what {claim} allows: nobody can go above", line=dict(color="#000000", width=5)))
    who = "broken mechanism" if setting.mutant else "mechanism"
    fig.add_trace(go.Scatter(x=roc.fpr, y=roc.tpr, mode="lines", name=f"{who}: {roc.label}",
                             line=dict(color=OKABE_ITO["blue"], width=4, dash="dash")))
    pts = score.points
    if pts:
        bx, by = [], []
        for p in pts:
            bx += [p.fpr_lo, p.fpr_hi, p.fpr_hi, p.fpr_lo, p.fpr_lo, None]
            by += [p.tpr_lo, p.tpr_lo, p.tpr_hi, p.tpr_hi, p.tpr_lo, None]
        fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", fill="toself", name="95 % boxes (Clopper–Pearson)",
                                 line=dict(color=OKABE_ITO["vermillion"], width=2),
                                 fillcolor="rgba(213, 94, 0, 0.12)", hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=[p.fpr for p in pts], y=[p.tpr for p in pts], mode="markers", name="your class", cliponaxis=False,
            marker=dict(color=OKABE_ITO["vermillion"], size=[26 if p.threshold == 1 else 16 for p in pts],
                        symbol=["star" if p.threshold == 1 else "circle" for p in pts],
                        line=dict(color="#000000", width=2)),
            text=[_NAMES[p.threshold] for p in pts],
            hovertemplate="%{text}<br>wrongly said in: %{x:.0%}<br>rightly said in: %{y:.0%}<extra></extra>"))
    n = score.n_in + score.n_out
    fig.update_layout(
        title=dict(text=f"Your class ({n} answers) against the promise of {claim}", font=dict(size=FONT_SIZE + 6)),
        font=dict(size=FONT_SIZE, color=INK), margin=dict(l=110, r=30, t=80, b=100),
        xaxis=_axis("false-positive rate: said IN when the target was OUT", [0, 1]),
        yaxis=dict(_axis("true-positive rate: said IN when it was IN", [0, 1.02]), scaleanchor="x", scaleratio=1),
        legend=dict(orientation="h", y=-0.16, font=dict(size=FONT_SIZE - 2, color=INK)), plot_bgcolor="#ffffff",
        paper_bgcolor="#ffffff", height=860)
    return fig

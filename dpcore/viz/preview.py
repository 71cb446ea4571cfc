"""The accuracy-before-the-click figure: each selected mechanism's error, its 50 % and 90 % intervals.

One horizontal row per mechanism (a compact forest plot): a thick bar from 0 to the error not exceeded half
of the time, a thin one to the error not exceeded nine times in ten. Everything drawn comes from
:mod:`dpcore.preview` (public inputs only). A log x axis when the mechanisms differ by more than 30×.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd
import plotly.graph_objects as go

from ..preview import ErrorLaw
from .style import PALETTE

__all__ = ["preview_frame", "preview_figure"]


def preview_frame(laws: Sequence[ErrorLaw]) -> pd.DataFrame:
    """One row per mechanism: the measure, q50, q90, P(⊥), exact or simulated, and how (the figure's CSV)."""
    rows = []
    for law in laws:
        iv = law.intervals() if law.available else {0.5: float("nan"), 0.9: float("nan")}
        rows.append({"mechanism": law.label, "error measure": law.measure, "error ≤ (50 %)": iv[0.5],
                     "error ≤ (90 %)": iv[0.9], "P(withheld)": law.p_withheld,
                     "law": "exact" if law.exact else ("simulated" if law.available else "no preview"),
                     "how": law.basis or law.reason})
    return pd.DataFrame(rows)


def preview_figure(laws: Sequence[ErrorLaw], *, title: str = "Expected error of one release (before any click)"
                   ) -> tuple[go.Figure, pd.DataFrame]:
    """The forest plot of the available laws and its data frame."""
    frame = preview_frame(laws)
    shown = frame[frame["law"] != "no preview"]
    positive = shown["error ≤ (90 %)"][shown["error ≤ (90 %)"] > 0]
    log = len(positive) > 1 and positive.max() / positive.min() > 30
    x0 = float(positive.min()) / 10 if log else 0.0
    fig = go.Figure()
    for i, (_, r) in enumerate(shown.iterrows()):
        c = PALETTE[i % len(PALETTE)]
        name = str(r["mechanism"])
        for level, width in (("90 %", 3), ("50 %", 12)):
            v = r[f"error ≤ ({level})"]
            fig.add_trace(go.Scatter(x=[x0, max(v, x0)], y=[name, name], mode="lines", line=dict(color=c, width=width),
                                     name=f"{name}: {level}", showlegend=False,
                                     hovertemplate=f"{level}: error ≤ {v:.4g}<extra></extra>"))
    measures = sorted(set(shown["error measure"]))
    xt = measures[0] if len(measures) == 1 else "error (see the table for each mechanism's measure)"
    if log:
        fig.update_xaxes(type="log", exponentformat="power")   # 10⁻⁸, not SI "10n" (read as n rows)
    fig.update_layout(title=title, height=120 + 45 * max(len(shown), 1), margin=dict(l=10, r=10, t=50, b=40),
                      xaxis_title=xt + (" — log scale" if log else "") + "; thick: 50 %, thin: 90 %",
                      yaxis_title="mechanism")
    return fig, frame

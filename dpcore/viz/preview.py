"""The accuracy-before-the-click figure: each selected mechanism's error, its 50 % and 90 % intervals.

One horizontal row per mechanism (a compact forest plot): a thick bar from 0 to the error not exceeded half
of the time, a thin one to the error not exceeded nine times in ten. Everything drawn comes from
:mod:`dpcore.preview` (public inputs only). A log x axis when the mechanisms differ by more than 30×.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..preview import ErrorLaw
from ..preview_check import PreviewCheck, spread_range
from .style import PALETTE

__all__ = ["preview_frame", "preview_figure", "check_frame"]


def preview_frame(laws: Sequence[ErrorLaw]) -> pd.DataFrame:
    """One row per mechanism: the measure, q50, q90, P(⊥), exact or simulated, and how (the figure's CSV)."""
    rows = []
    for law in laws:
        iv = law.intervals() if law.available else {0.5: float("nan"), 0.9: float("nan")}
        lo50, hi50, hi90 = spread_range(law)[:3] if len(law.spread) > 1 else (float("nan"),) * 3
        rows.append({"mechanism": law.label, "error measure": law.measure, "error ≤ (50 %)": iv[0.5],
                     "error ≤ (90 %)": iv[0.9], "P(withheld)": law.p_withheld,
                     "50 % over the designs: lowest": lo50, "50 % over the designs: highest": hi50,
                     "90 % over the designs: highest": hi90,
                     "law": "exact" if law.exact else ("simulated" if law.available else "no preview"),
                     "how": law.basis or law.reason})
    return pd.DataFrame(rows)


def check_frame(checks: Sequence[PreviewCheck]) -> pd.DataFrame:
    """One row per release run on a simulated twin ("Check the preview"): the mechanism and its error (the
    figure's markers and their CSV); withheld releases are counted in the caption, not drawn."""
    return pd.DataFrame([{"mechanism": c.label, "release on the twin": i + 1, "error": float(e)}
                         for c in checks for i, e in enumerate(c.errors)], columns=["mechanism", "release on the twin",
                                                                                   "error"])


def preview_figure(laws: Sequence[ErrorLaw], *, title: str = "Expected error of one release (before any click)",
                   checks: Sequence[PreviewCheck] = ()) -> tuple[go.Figure, pd.DataFrame]:
    """The forest plot of the available laws and its data frame; a law with a spread over public designs adds a
    hollow bar from the lowest to the highest median error over them (and a tick at the highest 90 % error);
    ``checks`` (:func:`dpcore.preview_check.check_preview`) add each twin release's error as a dot on its row."""
    frame = preview_frame(laws)
    shown = frame[frame["law"] != "no preview"]
    ends = pd.concat([shown["error ≤ (90 %)"], shown["90 % over the designs: highest"].dropna(),
                      check_frame(checks)["error"]])
    positive = ends[ends > 0]
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
        if pd.notna(r["50 % over the designs: highest"]):     # a spread over public designs
            lo, hi, top = (r[f"{w} over the designs: {e}"] for w, e in (("50 %", "lowest"), ("50 %", "highest"),
                                                                      ("90 %", "highest")))
            fig.add_trace(go.Scatter(x=[max(lo, x0), max(hi, x0), max(top, x0)], y=[name] * 3, mode="markers",
                                     marker=dict(color=c, symbol=["line-ns-open", "line-ns-open", "x-thin-open"],
                                                 size=22, line=dict(width=2, color=c)), showlegend=False,
                                     name=f"{name}: over the designs",
                                     hovertemplate="over the public designs: %{x:.4g}<extra></extra>"))
    for check in checks:
        if len(check.errors) and check.label in set(shown["mechanism"]):
            fig.add_trace(go.Scatter(x=np.maximum(check.errors, x0), y=[check.label] * len(check.errors),
                                     mode="markers",
                                     marker=dict(color="black", size=7, opacity=0.6, symbol="circle-open"),
                                     name="a release on the simulated twin", showlegend=False,
                                     hovertemplate="a release on the twin: error %{x:.4g}<extra></extra>"))
    measures = sorted(set(shown["error measure"]))
    xt = measures[0] if len(measures) == 1 else "error (see the table for each mechanism's measure)"
    if log:
        fig.update_xaxes(type="log", exponentformat="power")   # 10⁻⁸, not SI "10n" (read as n rows)
    keys = (" — log scale" if log else "") + "; thick: 50 %, thin: 90 %"
    if shown["50 % over the designs: highest"].notna().any():
        keys += "; | |: the 50 % over the public designs, ×: their highest 90 %"
    if len(check_frame(checks)):
        keys += "; ○: releases on the simulated twin"
    fig.update_layout(title=title, height=120 + 45 * max(len(shown), 1), margin=dict(l=10, r=10, t=50, b=40),
                      xaxis_title=xt + keys, yaxis_title="mechanism")
    return fig, frame

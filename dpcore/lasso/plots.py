"""Plotly figures of private LASSO (Talwar, Thakurta & Zhang 2015), drawn by the page; no streamlit.

Every builder returns ``(figure, frame)``; the frame holds the plotted numbers for a CSV download.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..viz.experiments import error_vs_x_figure
from ..viz.style import DARK_GREY, LAYOUT, SYMBOLS, colour, label, line_style
from .calibration import gaussian_width
from .figures import lower_bound_curve

__all__ = ["coefficients_figure", "risk_vs_n_figure", "gaussian_width_figure"]


def coefficients_figure(names: Sequence[str], series: Mapping[str, np.ndarray], *, max_shown: int = 40
                        ) -> tuple[go.Figure, pd.DataFrame]:
    """The coefficient vectors side by side (markers per covariate). With more than ``max_shown``
    covariates, only those with the largest |coefficient| in any series are drawn (the CSV has all)."""
    frame = pd.DataFrame({"covariate": list(names), **{k: np.asarray(v, dtype=float) for k, v in series.items()}})
    shown = frame
    if len(frame) > max_shown:
        mag = frame[list(series)].abs().max(axis=1).to_numpy()
        keep = np.sort(np.argsort(-mag, kind="stable")[:max_shown])
        shown = frame.iloc[keep]
    fig = go.Figure()
    for i, k in enumerate(series):
        fig.add_trace(go.Scatter(x=shown["covariate"], y=shown[k], mode="markers", name=label(k, topic="lasso"),
                                 marker=dict(color=colour(k, i, topic="lasso"), size=9, symbol=SYMBOLS[i % len(SYMBOLS)])))
    fig.add_hline(y=0, line=dict(color="#bbbbbb", width=1))
    sub = "" if shown is frame else f" (the {len(shown)} largest of {len(frame)})"
    fig.update_layout(title=f"Coefficients θ_j{sub}", xaxis_title="covariate j",
                      yaxis_title="θ_j (response and covariates in public units [−1, 1])", **LAYOUT)
    return fig, frame


def risk_vs_n_figure(frame: pd.DataFrame) -> go.Figure:
    """Excess risk vs n (log–log, fitted slopes, reference slope −2/3) with Theorem 3.1's lower-bound rate
    (n log n)^−2/3 drawn through the first point of the first method — its constant is unknown (Ω̃)."""
    fig = error_vs_x_figure(frame)
    ms = frame.groupby(["method", "n"], sort=True)["error"].mean().reset_index()
    if len(ms):
        first = ms[ms["method"] == ms["method"].iloc[0]]
        n0, e0 = float(first["n"].iloc[0]), float(first["error"].iloc[0])
        ns = np.geomspace(ms["n"].min(), ms["n"].max(), 30)
        c = e0 / float(lower_bound_curve(n0))
        fig.add_trace(go.Scatter(x=ns, y=lower_bound_curve(ns, c), mode="lines", line=dict(color=DARK_GREY, dash="dot"),
                                 name="Theorem 3.1 lower-bound rate (n log n)^−2/3 (constant unknown: through the "
                                      "first point)", hoverinfo="skip"))
    return fig


def gaussian_width_figure(ps: Sequence[int] = (10, 100, 1000, 10_000, 100_000), radius: float = 1.0
                          ) -> tuple[go.Figure, pd.DataFrame]:
    """Gaussian width G_C = E sup_{s∈C}⟨g, s⟩ vs p for the ℓ1 ball, the simplex and the ℓ∞ ball (radius r):
    the noisy-gradient variant's risk grows with it (Theorem 2.6); the ℓ1 ball's and the simplex's grow like
    √log p, the ℓ∞ ball's like p. Log–log axes."""
    names = {"l1": "ℓ1 ball (2p vertices)", "simplex": "simplex (p vertices)", "linf": "ℓ∞ ball (2^p vertices)"}
    frame = pd.DataFrame([{"p": p, "set": names[c], "gaussian_width": gaussian_width(c, p, radius)}
                          for c in names for p in ps])
    fig = go.Figure()
    for i, (c, nm) in enumerate(names.items()):
        s = frame[frame["set"] == nm]
        fig.add_trace(go.Scatter(x=s["p"], y=s["gaussian_width"], mode="lines+markers", name=nm,
                                 **line_style(c, i, topic="lasso")))
    fig.update_layout(title="Gaussian width of C (Theorem 2.6's risk grows with it)", **LAYOUT)
    fig.update_xaxes(title="covariates p (log scale)", type="log")
    fig.update_yaxes(title="G_C = E sup⟨g, s⟩ over C, r = 1 (log scale)", type="log")
    return fig, frame

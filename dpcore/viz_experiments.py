"""Plotly figures for error-vs-n experiments (no streamlit).

:func:`error_vs_n_figure` draws log10(mean error) against log10 n per method, as in
Reimherr & Awan (2019) Figs 1–2, with ±1.96 Monte-Carlo standard-error bars (delta method on the
log of the mean), a dashed reference line of slope −1/2 through the non-private curve's first
point, and each method's fitted slope (top decades of n) in its legend entry.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.experiments.analysis import SLOPE_DECADES, fit_slopes, summarize

#: Colour per method (colour-blind-safe Okabe–Ito palette); others cycle through it.
_PALETTE = ("#000000", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
_FIXED = {"nonprivate": "#000000", "kng": "#0072B2", "exponential": "#D55E00", "objective_perturbation": "#009E73"}
Z95 = 1.96


def error_vs_n_figure(frame: pd.DataFrame, *, title: str | None = None, decades: float = SLOPE_DECADES,
                      reference_slope: float | None = None, labels: dict[str, str] | None = None) -> go.Figure:
    """Log–log error-vs-n figure of a tidy experiment frame.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`dpcore.experiments.run_experiment` (columns method, n, rep, error).
    title : str, optional
        Defaults to ``frame.attrs["title"]``.
    decades : float
        Top decades of n used for the fitted slopes shown in the legend.
    reference_slope : float, optional
        Slope of the dashed reference line (default ``frame.attrs["reference_slope"]`` or −1/2).
    labels : dict, optional
        Display names of methods (default ``frame.attrs["method_labels"]``).
    """
    attrs = getattr(frame, "attrs", {}) or {}
    labels = dict(attrs.get("method_labels", {}), **(labels or {}))
    ref = attrs.get("reference_slope", -0.5) if reference_slope is None else reference_slope
    summ = summarize(frame)
    slopes = {r.method: r.slope for r in fit_slopes(frame, decades).itertuples()} if not summ.empty else {}
    fig = go.Figure()
    methods = list(pd.unique(summ["method"])) if not summ.empty else []
    for i, m in enumerate(methods):
        s = summ[summ["method"] == m]
        x = np.log10(s["n"].to_numpy(float))
        y = s["log10_mean_error"].to_numpy(float)
        se = np.nan_to_num(s["se_log10_mean_error"].to_numpy(float), nan=0.0)
        slope = slopes.get(m, np.nan)
        name = labels.get(m, m) + (f" (slope {slope:+.2f})" if np.isfinite(slope) else "")
        colour = _FIXED.get(m, _PALETTE[i % len(_PALETTE)])
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines+markers", name=name, line=dict(color=colour),
            error_y=dict(type="data", array=Z95 * se, visible=True, thickness=1),
            customdata=np.c_[s["n"].to_numpy(), s["reps"].to_numpy(), se],
            hovertemplate=(f"{labels.get(m, m)}<br>n = %{{customdata[0]:,.0f}}<br>log10 mean error = %{{y:.3f}}"
                           "<br>MC s.e. = %{customdata[2]:.3f} (%{customdata[1]} reps)<extra></extra>"),
        ))
    if methods:
        anchor = summ[summ["method"] == ("nonprivate" if "nonprivate" in methods else methods[0])]
        anchor = anchor[np.isfinite(anchor["log10_mean_error"])]
        if len(anchor):
            x0 = np.log10(float(anchor["n"].iloc[0]))
            y0 = float(anchor["log10_mean_error"].iloc[0])
            xs = np.log10(summ["n"].to_numpy(float))
            xr = np.array([xs.min(), xs.max()])
            fig.add_trace(go.Scatter(x=xr, y=y0 + ref * (xr - x0), mode="lines",
                                     name=f"reference slope {ref:+g}",
                                     line=dict(color="#888888", dash="dash"), hoverinfo="skip"))
    fig.update_layout(
        title=title if title is not None else attrs.get("title", "Error vs n"),
        xaxis_title="log10 n", yaxis_title="log10 mean error  ‖θ̂ − θ*‖₂",
        legend=dict(title=f"bars: ±{Z95} MC s.e.; slopes: top {decades:g} decades"),
        template="plotly_white", margin=dict(l=60, r=20, t=60, b=50),
    )
    fig.update_xaxes(dtick=1)
    return fig

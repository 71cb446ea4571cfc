"""Plotly figures of sweep frames (no streamlit): mean error against the swept axis.

:func:`error_vs_x_figure` draws each method's mean error over replicates against the experiment's
axis (n, ε, p, 1/α, …), as in Reimherr & Awan (2019) Figs 1–2: on log–log axes when the axis is
logarithmic, with ticks written as numbers in the axis's units (n = 100, 1 000, 10 000 — not
exponents), ±1.96 Monte-Carlo standard-error bars (delta method on the log of the mean), a dashed
reference line of the slope the experiment declares (n^−1/2, …) through the non-private curve's
first point, and each method's fitted slope in its legend entry. Labels, colours, dashes and markers
(each method its own) come from :mod:`dpcore.viz.style`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.experiments.analysis import SLOPE_DECADES, fit_slopes, format_number, frame_axis, summarize
from dpcore.viz import style

Z95 = 1.96


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Tick values and labels of a log axis spanning [lo, hi]: the powers of ten (with 2 and 5 in
    between when the span is under two decades), written as plain numbers.

    >>> log_ticks(100, 10_000)[1]
    ['100', '1 000', '10 000']
    """
    if not (lo > 0 and hi >= lo):
        return [], []
    k0, k1 = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    mult = (1, 2, 5) if k1 - k0 < 2 else (1,)
    vals = [m * 10.0**k for k in range(k0, k1 + 1) for m in mult]
    vals = [v for v in vals if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
    if len(vals) < 2:
        vals = sorted(set(vals) | {float(lo), float(hi)})
    return vals, [format_number(round(v, 12)) for v in vals]


def error_vs_x_figure(frame: pd.DataFrame, *, title: str | None = None, decades: float = SLOPE_DECADES,
                      reference_slope: float | None = None, labels: dict[str, str] | None = None) -> go.Figure:
    """Error-vs-x figure of a tidy experiment frame (log–log when the axis is logarithmic).

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`dpcore.experiments.run_experiment` (columns method, <axis>, rep, error;
        ``frame.attrs`` names the axis, its label and scale, and the reference slope).
    title : str, optional
        Defaults to ``frame.attrs["title"]``.
    decades : float
        Top decades of x used for the fitted slopes shown in the legend.
    reference_slope : float, optional
        Slope of the dashed reference line (default ``frame.attrs["reference_slope"]``; None in
        both: no line).
    labels : dict, optional
        Display names of methods (default ``frame.attrs["method_labels"]``, then the style's).
    """
    attrs = getattr(frame, "attrs", {}) or {}
    x, log_x = frame_axis(frame)
    labels = dict(attrs.get("method_labels", {}), **(labels or {}))
    name_of = lambda m: labels.get(m) or style.label(m)  # noqa: E731
    ref = attrs.get("reference_slope", -0.5) if reference_slope is None else reference_slope
    summ = summarize(frame, x)
    slopes = {r.method: r.slope for r in fit_slopes(frame, decades, x).itertuples()} if not summ.empty else {}
    fig = go.Figure()
    methods = list(pd.unique(summ["method"])) if not summ.empty else []
    for i, m in enumerate(methods):
        s = summ[summ["method"] == m]
        y = s["mean_error"].to_numpy(float)
        se = np.nan_to_num(s["se_log10_mean_error"].to_numpy(float), nan=0.0)
        slope = slopes.get(m, np.nan)
        name = name_of(m) + (f" (slope {slope:+.2f})".replace("-", "−") if np.isfinite(slope) else "")
        fig.add_trace(go.Scatter(
            x=s[x].to_numpy(float), y=y, mode="lines+markers", name=name, **style.line_style(m, i),
            error_y=dict(type="data", symmetric=False, array=y * (10 ** (Z95 * se) - 1),
                         arrayminus=y * (1 - 10 ** (-Z95 * se)), visible=True, thickness=1),
            customdata=np.c_[s["reps"].to_numpy(), se],
            hovertemplate=(f"{name_of(m)}<br>{x} = %{{x:,}}<br>mean error = %{{y:.4g}}"
                           "<br>MC s.e. of log10 = %{customdata[1]:.3f} (%{customdata[0]} reps)<extra></extra>"),
        ))
    xs = summ[x].to_numpy(float) if methods else np.array([])
    if methods and ref is not None:
        anchor = summ[summ["method"] == ("nonprivate" if "nonprivate" in methods else methods[0])]
        anchor = anchor[np.isfinite(anchor["log10_mean_error"])]
        if len(anchor):
            x0, y0 = float(anchor[x].iloc[0]), float(anchor["mean_error"].iloc[0])
            xr = np.array([xs.min(), xs.max()])
            yr = y0 * (xr / x0) ** ref if log_x else y0 * 10 ** (ref * (xr - x0))
            rl = attrs.get("reference_label")
            fig.add_trace(go.Scatter(x=xr, y=yr, mode="lines",
                                     name=f"reference slope {ref:+g}".replace("-", "−") + (f" ({rl})" if rl else ""),
                                     line=dict(color=style.GREY, dash="dash"), hoverinfo="skip"))
    fig.update_layout(
        title=title if title is not None else attrs.get("title", f"Error vs {x}"),
        legend=dict(title=f"bars: ±{Z95} MC s.e.; slopes: top {decades:g} decades" if log_x
                    else f"bars: ±{Z95} MC s.e."),
        **style.LAYOUT,
    )
    fig.update_xaxes(title=attrs.get("axis_label", x), type="log" if log_x else "linear")
    if log_x and len(xs):
        vals, text = log_ticks(xs.min(), xs.max())
        fig.update_xaxes(tickmode="array", tickvals=vals, ticktext=text)
    fig.update_yaxes(title=attrs.get("error_label", "mean error") + " (log scale)", type="log",
                     exponentformat="none")
    return fig


#: Name kept for error-vs-n figures.
error_vs_n_figure = error_vs_x_figure

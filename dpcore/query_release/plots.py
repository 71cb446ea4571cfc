"""Plotly figures of the query-release lab (Błasiok, Bun, Nikolov & Steinke 2019).

Each function takes a frame from :func:`dpcore.query_release.run_lab` and returns a figure; the
frame itself is what the page offers as CSV.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..viz.style import GREY, LAYOUT, OKABE_ITO, SYMBOLS, colour, label, line_style

TOPIC = "query_release"

__all__ = ["method_label", "error_vs_n_figure", "packing_profile_figure", "sample_complexity_figure", "answers_figure",
           "error_summary"]


def method_label(method: str) -> str:
    """Plain-words label of a query-release method (declared in the topic's styles)."""
    return label(method, topic=TOPIC)


def error_summary(errors: pd.DataFrame, metric: str = "rms") -> pd.DataFrame:
    """Per (method, n): root-mean-square over replicates of ``metric`` ("rms": err₂; "max": ‖·‖_∞ error)
    and its standard error (delta method)."""
    g = errors.groupby(["method", "n"], sort=False)[metric]
    out = g.agg(ms=lambda v: float(np.mean(np.square(v))), sd=lambda v: float(np.std(np.square(v), ddof=1))
                if len(v) > 1 else 0.0, reps="size").reset_index()
    out["error"] = np.sqrt(out["ms"])
    out["se"] = out["sd"] / np.sqrt(out["reps"]) / (2 * np.maximum(out["error"], 1e-300))
    return out[["method", "n", "reps", "error", "se"]]


def error_vs_n_figure(errors: pd.DataFrame, *, metric: str = "rms", alpha: float | None = None,
                      floor: float | None = None, title: str = "") -> go.Figure:
    """Error vs n, log–log, one line per method (each its own dash and marker; local methods dotted with open
    markers), with the target α and the
    coarse/chaining rounding floor α/2 as horizontal lines."""
    s = error_summary(errors, metric)
    fig = go.Figure()
    for i, (m, d) in enumerate(s.groupby("method", sort=False)):
        fig.add_trace(go.Scatter(x=d["n"], y=d["error"], mode="lines+markers", name=method_label(m), **line_style(m, i, topic=TOPIC),
                                 error_y=dict(type="data", array=2 * d["se"], visible=True)))
    if alpha is not None:
        fig.add_hline(y=alpha, line=dict(color="black", dash="dash"), annotation_text=f"target α = {alpha:g}")
    if floor is not None:
        fig.add_hline(y=floor, line=dict(color=OKABE_ITO["vermillion"], dash="dot"),
                      annotation_text=f"rounding floor of coarse/chaining ≤ α/2 = {floor:g}",
                      annotation_position="bottom right")
    what = "RMS error err₂ (normalised, per query)" if metric == "rms" else "worst-case error ‖·‖∞ (per query)"
    fig.update_layout(**LAYOUT, title=title or f"{what} vs n", xaxis_title="sample size n (records)",
                      yaxis_title=what, xaxis_type="log", yaxis_type="log")
    return fig


def packing_profile_figure(profile: pd.DataFrame, width_over_sqrt_k: float | None = None) -> go.Figure:
    """t ↦ ln s(t), the greedy packing profile (within a factor-2 change of scale of ln sep₂(X, t))."""
    fig = go.Figure(go.Scatter(x=profile["t"], y=profile["log_s"], mode="lines+markers", name="ln s(t)",
                               line=dict(color=colour("projection", topic=TOPIC))))
    if width_over_sqrt_k is not None:
        fig.add_hline(y=width_over_sqrt_k, line=dict(dash="dash", color=GREY),
                      annotation_text=f"w(X)/√k = {width_over_sqrt_k:.3g}")
    fig.update_layout(**LAYOUT, title="Packing profile ln s(t) (greedy t-separated set, d₂ = ‖·‖₂/√k)",
                      xaxis_title="scale t (normalised ℓ2 distance)", yaxis_title="ln s(t) (nats)", xaxis_type="log")
    return fig


def sample_complexity_figure(complexity: pd.DataFrame) -> go.Figure:
    """n*(α) vs 1/α: empirical (markers), explicit upper bounds (dashed), the local heuristics (dash-dot, ε-LDP)
    and the packing lower bound (solid black)."""
    fig = go.Figure()
    for i, (curve, d) in enumerate(complexity.groupby("curve", sort=False)):
        d = d.sort_values("inv_alpha")
        kind = d["kind"].iloc[0]
        m = curve.split(" (")[0]
        if kind == "lower bound":
            line, mode, col = dict(color="black", width=3), "lines", "black"
            d = d[d["n"] > 0]
        else:
            col = colour(m, i, topic=TOPIC)
            line = dict(color=col) if kind == "empirical" else dict(color=col, dash="dash" if kind == "upper bound"
                                                                   else "dashdot")
            mode = "lines+markers"  # (each method its marker: the lines differ by shape too)
        name = curve if kind == "lower bound" else f"{method_label(m)} ({kind})"
        fig.add_trace(go.Scatter(x=d["inv_alpha"], y=d["n"], mode=mode, name=name, line=line,
                                 marker=dict(color=col, size=8, symbol=SYMBOLS[i % len(SYMBOLS)])))
    fig.update_layout(**LAYOUT, title="Sample complexity: smallest n with RMS error ≤ α",
                      xaxis_title="1/α (inverse target error)", yaxis_title="n (records)", xaxis_type="log",
                      yaxis_type="log")
    return fig


def answers_figure(answers: pd.DataFrame) -> go.Figure:
    """A few queries' true, noisy (before projection) and released (projected) answers."""
    fig = go.Figure()
    for col, name, c in (("true", "true answer", "#000000"), ("noisy", "noisy (before projection)", GREY),
                         ("projected", "released (after projection)", colour("projection", topic=TOPIC))):
        fig.add_trace(go.Bar(x=answers["query"], y=answers[col], name=name, marker_color=c))
    m = answers["method"].iloc[0] if len(answers) else ""
    fig.update_layout(**LAYOUT, barmode="group", title=f"Answers to the first queries ({method_label(m)})",
                      xaxis_title="query", yaxis_title="answer (fraction of records)")
    return fig

"""Plotly figures of the single-parameter topic, drawn by the "certified eigenvalue bounds" page (Asi, Duchi &
Talwar 2025); no streamlit.

Every builder returns ``(figure, frame)``; the frame holds the plotted numbers for a CSV download.
Labels and colours are the topic's declared styles, read through :mod:`dpcore.viz.style`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..viz.style import GREY, LAYOUT, SYMBOLS, colour, label

__all__ = ["bounds_vs_n_figure", "release_figure"]

#: The topic whose declared styles (labels and colours) these figures use.
_TOPIC = "single_parameter"


def _band(fig, x, lo, hi, key, name):
    c = colour(key, topic=_TOPIC)
    fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself",
                             fillcolor=c, opacity=0.18, line=dict(width=0), name=f"{name}: 10–90 %",
                             hoverinfo="skip"))


def bounds_vs_n_figure(study: pd.DataFrame, *, delta: float) -> tuple[go.Figure, pd.DataFrame]:
    """True λ_min and λ_max (non-private, averaged over the simulated datasets) with the median and
    10–90 % band of the certified bounds λ̂ (Algorithm 2) and Λ̂ (Algorithm 4), the certification floor
    λ_c and the cap Λ_cap, against n (log x axis, linear y axis from 0). Hover shows the empirical coverage."""
    x = study["n"].to_numpy(float)
    fig = go.Figure()
    for k, (key, q) in enumerate((("lam_hat", "lam_hat"), ("Lam_hat", "Lam_hat"))):
        lo, hi = study[f"{q}_q10"].to_numpy(float), study[f"{q}_q90"].to_numpy(float)
        _band(fig, x, lo, hi, key, label(key, topic=_TOPIC))
        cov = study["coverage_min" if key == "lam_hat" else "coverage_max"]
        fig.add_trace(go.Scatter(x=x, y=study[f"{q}_q50"], mode="lines+markers",
                                 name=f"{label(key, topic=_TOPIC)} (median)",
                                 line=dict(color=colour(key, topic=_TOPIC)),
                                 marker=dict(symbol=SYMBOLS[k], size=8),
                                 customdata=cov, hovertemplate="n = %{x}<br>%{y:.4g}<br>coverage %{customdata:.4f}"))
    for k, key in enumerate(("lambda_min", "lambda_max"), start=2):
        fig.add_trace(go.Scatter(x=x, y=study[key], mode="lines+markers", name=label(key, topic=_TOPIC),
                                 line=dict(color=colour(key, topic=_TOPIC), dash="solid", width=3),
                                 marker=dict(symbol=SYMBOLS[k], size=8)))
    fig.add_trace(go.Scatter(x=x, y=study["floor"], mode="lines", name="certification floor λ_c (public)",
                             line=dict(color=GREY, dash="dot")))
    fig.add_trace(go.Scatter(x=x, y=study["cap"], mode="lines", name="cap Λ_cap = M1 + ρ (public)",
                             line=dict(color=GREY, dash="dash")))
    top = 1.6 * float(study["lambda_max"].max())
    cap = float(study["cap"].iloc[0])
    fig.update_layout(**LAYOUT, title=f"Certified eigenvalue bounds (each holds with probability ≥ 1 − {delta / 2:g}); "
                                      f"λ̂ = 0: not certified; Λ̂ = Λ_cap = {cap:g} (off the chart when larger)",
                      xaxis_title="sample size n (records)", yaxis_title="eigenvalue of ∇²L_n(θ̂) (loss units)",
                      xaxis_type="log", yaxis=dict(range=[0, min(top, 1.05 * cap)]),
                      legend=dict(orientation="h", y=-0.25))
    return fig, study.copy()


def release_figure(value: float, noise_sd: float, oracle: float | None, oracle_sd: float | None,
                   ) -> tuple[go.Figure, pd.DataFrame]:
    """The released value with its ±1.96·sd band, beside the oracle's (non-private) value and band."""
    rows = [{"what": label("alg5", topic=_TOPIC), "value": value, "sd": noise_sd}]
    if oracle is not None:
        rows.append({"what": "⟨v, θ̂⟩ ± 1.96·σ(ε, δ)·LS_v (non-private oracle)", "value": oracle, "sd": oracle_sd})
    frame = pd.DataFrame(rows)
    fig = go.Figure()
    for i, r in frame.iterrows():
        key = "alg5" if i == 0 else "oracle"
        fig.add_trace(go.Scatter(x=[r.value], y=[r.what], mode="markers",
                                 marker=dict(size=12, color=colour(key, topic=_TOPIC)),
                                 error_x=dict(type="constant", value=1.96 * r.sd), name=r.what))
    fig.update_layout(**LAYOUT, title="Released ⟨v, θ⟩ with its noise scale (95 % band)",
                      xaxis_title="⟨v, θ⟩ (units of the coefficient)", showlegend=False, height=280)
    return fig, frame

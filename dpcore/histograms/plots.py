"""Figures of the histograms topic: released cells side by side, error distributions over trials
(box plots with the all-zeros line and the slides' bound shapes), false positives."""
from __future__ import annotations

import math

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..viz import style

TOPIC = "histograms"
__all__ = ["PAGE_INTRO", "TRIALS_NOTE", "synthetic_caption", "cells_frame", "cells_figure", "counts_table", "error_box_figure", "false_positive_figure"]

#: The sparse-histograms page's opening paragraph (Markdown) and the note under its repeated trials.
PAGE_INTRO = (
    "A histogram over a **public** domain of p cells, of which only q are occupied. Laplace noise of scale 2/ε in "
    "every cell (one record replaced moves two counts: ℓ1-sensitivity 2) costs ℓ1 error ≈ 2p/ε — far above n when "
    "p ≫ n. **Hard thresholding** zeroes every noisy cell ≤ τ = (2/ε) log p: an empty cell survives with "
    "probability 1/(2p), so about ½ false positive per release, and the error becomes O(q log p / ε). Thresholding "
    "is post-processing: same ε. The slides write the privacy parameters as (α, β); this app writes them (ε, δ).")
TRIALS_NOTE = (
    "Laplace + clip/round is simulated while replicates × p ≤ 2^23; beyond, Laplace's ℓ1 error comes from its exact "
    "law Gamma(p, 2/ε). Dotted lines: the slides' minimax rates with the unknown constant set to 1 — shapes, up to "
    "a constant. The oracle threshold τ = (2/ε) log(p/q) uses the data's own q: NOT private, a comparison only.")


def synthetic_caption(log2p: int, table: Any) -> str:
    """The caption under the page's simulated (public) table."""
    return (f"Simulated (public) table: p = 2^{log2p} = {table.p:,}, q = {table.q:,}, n = {table.n:,}; counts "
            "1 + Multinomial(n − q, Dirichlet(0.3)) — at the defaults, the shape of Hall's NLCS table (a synthetic "
            "stand-in). Not charged.")

_LABELS = {"laplace": "Laplace", "laplace-clip-round": "Laplace + clip/round", "threshold": "Thresholded",
           "oracle-threshold": "Threshold, oracle q (NOT private)", "all-zeros": "All-zeros output"}


def _label(m: str) -> str:
    return _LABELS.get(m) or style.label(m, topic=TOPIC)


def cells_frame(labels: Sequence[str] | None, truth: np.ndarray | None, laplace: np.ndarray | None,
                threshold: np.ndarray, *, limit: int = 5000) -> pd.DataFrame:
    """One row per cell (the first ``limit`` cells with a non-zero released or true value): released
    values of both mechanisms and, when given, the true count (non-private)."""
    keep = threshold != 0
    if laplace is not None and laplace.size <= 5000:
        keep = np.ones_like(keep)
    if truth is not None:
        keep |= truth != 0
    idx = np.flatnonzero(keep)[:limit]
    out = {"cell": idx, "label": [labels[i] if labels is not None and i < len(labels) else str(i) for i in idx]}
    if laplace is not None:
        out["Laplace (released)"] = laplace[idx]
    out["thresholded (released)"] = threshold[idx]
    if truth is not None:
        out["true count (NOT private)"] = truth[idx]
    return pd.DataFrame(out)


def counts_table(frame: pd.DataFrame, columns: Sequence[str], levels: Sequence[Sequence[str]] | None = None
                 ) -> pd.DataFrame:
    """The released counts as a table a reader can use: one column per histogram column holding its level
    (the labels of a crossed table split back into the two columns' levels), then the released values (and
    the true counts when present). ``frame`` from :func:`cells_frame`; ``levels`` = the labels of each
    column's levels for a crossed table (``CrossedLabels.levels``)."""
    out = frame.drop(columns=["label"]).rename(columns={"cell": "cell index"})
    if len(columns) == 2 and levels is not None:
        k2 = len(levels[1])
        idx = frame["cell"].to_numpy()
        inside = idx < len(levels[0]) * k2
        first = [levels[0][i // k2] if ok else "(padding)" for i, ok in zip(idx, inside)]
        second = [levels[1][i % k2] if ok else "(padding)" for i, ok in zip(idx, inside)]
        out.insert(1, str(columns[0]), first)
        out.insert(2, str(columns[1]), second)
    else:
        out.insert(1, str(columns[0]) if columns else "cell", frame["label"].astype(str).to_numpy())
    return out


def cells_figure(frame: pd.DataFrame, *, max_bars: int = 60, axis_title: str = "cell") -> go.Figure:
    """Grouped bars of the released values (and the true counts, if present) for up to ``max_bars`` cells
    (those with the largest thresholded value first); ``axis_title`` names the column(s) of the cells."""
    f = frame.sort_values("thresholded (released)", ascending=False).head(max_bars).sort_values("cell")
    fig = go.Figure()
    colours = {"Laplace (released)": style.colour("laplace", 1, topic=TOPIC),
               "thresholded (released)": style.colour("threshold", 2, topic=TOPIC),
               "true count (NOT private)": "#000000"}
    for col in [c for c in colours if c in f.columns]:
        fig.add_trace(go.Bar(x=f["label"].astype(str), y=f[col], name=col, marker_color=colours[col],
                             opacity=0.45 if col.startswith("true") else 0.9))
    fig.update_layout(barmode="group", title=f"Released counts ({len(f)} cells shown)", **style.LAYOUT)
    fig.update_xaxes(title=axis_title, type="category")
    fig.update_yaxes(title="count (records)")
    return fig


def error_box_figure(frame: pd.DataFrame, *, n: int, bounds: Mapping[str, float] | None = None,
                     metric: str = "error", title: str | None = None) -> go.Figure:
    """Box plots of ``metric`` (default ℓ1 ``error``) per method over replicates, log y, with the
    all-zeros line at n (ℓ1) and the slides' minimax shapes as dotted lines labelled "up to a constant"."""
    fig = go.Figure()
    shown, zeros = [], 0
    for i, m in enumerate([m for m in pd.unique(frame["method"]) if m != "all-zeros"]):
        y = frame.loc[frame["method"] == m, metric].dropna()
        zeros += int((y <= 0).sum())
        y = y[y > 0]                       # an error of 0 has no place on a log axis (counted in the title)
        shown.append(y.to_numpy(float))
        if len(y):
            fig.add_trace(go.Box(y=y, name=_label(m), marker_color=style.colour(m, i, topic=TOPIC), boxpoints="all",
                                 jitter=0.3))
    if metric == "error":
        fig.add_hline(y=n, line=dict(color="#000000", dash="dash"),
                      annotation_text=f"all-zeros output: ℓ1 = n = {n:,}", annotation_position="top left")
    for j, (name, v) in enumerate((bounds or {}).items()):
        fig.add_hline(y=v, line=dict(color=style.GREY, dash="dot"), annotation_text=f"{name}, up to a constant",
                      annotation_position="bottom right" if j else "top right")
    label = {"error": "ℓ1 error (counts)", "l2": "ℓ2 error (counts)", "max_error": "max error (counts)"}[metric]
    title = title or f"{label} over repeated releases"
    if zeros:
        title += f" ({zeros} releases with error 0 are not drawn on the log axis)"
    fig.update_layout(title=title, showlegend=False, **style.LAYOUT)
    values = np.concatenate(shown + [np.asarray([n] if metric == "error" else [], float),
                                     np.asarray(list((bounds or {}).values()), float)])
    values = values[np.isfinite(values) & (values > 0)]
    span = [math.log10(values.min()) - 0.2, math.log10(values.max()) + 0.2] if values.size else None
    fig.update_yaxes(title=label + " (log scale)", type="log", exponentformat="none", range=span)
    return fig


def false_positive_figure(frame: pd.DataFrame, *, expected: float) -> go.Figure:
    """False positives (released non-zero cells that are empty in the data) per replicate of the
    thresholded releases, with the expected (p − q)·P(noise > τ)."""
    f = frame[frame["method"].isin(["threshold", "oracle-threshold"])]
    fig = go.Figure()
    for i, m in enumerate(pd.unique(f["method"])):
        fig.add_trace(go.Box(y=f.loc[f["method"] == m, "false_positives"], name=_label(m),
                             marker_color=style.colour(m, i + 2, topic=TOPIC), boxpoints="all", jitter=0.3))
    fig.add_hline(y=expected, line=dict(color="#000000", dash="dash"),
                  annotation_text=f"expected (p − q)/(2p) = {expected:.3g}", annotation_position="top left")
    fig.update_layout(title="False positives among the empty cells", showlegend=False, **style.LAYOUT)
    fig.update_yaxes(title="false positives per release (cells)")
    return fig

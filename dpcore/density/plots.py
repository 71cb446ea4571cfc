"""Plotly figures of the density page (Hall 2012; HRW 2013); no streamlit. Builders return (figure, frame)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.data import literal
from dpcore.viz.style import DASHES, GREY, LAYOUT, SYMBOLS, colour, label

TOPIC = "density"
__all__ = ["method_label", "estimates_figure", "heatmaps_figure", "comparison_figure", "units_caption", "exponents_figure",
           "svm_figure", "accuracy_figure"]

_NAMES = {"gp": "GP (RKHS) KDE", "fourier-laplace": "Fourier + Laplace", "knorm": "K-norm (orbitope)",
          "nonprivate": "Non-private KDE", "truth": "true density (simulation)"}


def method_label(m: str) -> str:
    """Plain-words label of a density method (``"gp"``, ``"fourier-laplace"``, ``"knorm"``, ``"nonprivate"``, ...)."""
    return _NAMES.get(m) or label(m, topic=TOPIC)


def _units(bounds) -> tuple[float, float]:
    """(lower, width) of the public bounds of an axis; (0, 1) when none are given (the rescaled axis)."""
    if bounds is None:
        return 0.0, 1.0
    lo, hi = map(float, bounds)
    return lo, hi - lo


def estimates_figure(comparison, *, reference: dict | None = None, axis_label: str = "x rescaled to [0, 1]",
                     max_lines: int = 3, bounds: tuple[float, float] | None = None) -> tuple[go.Figure, pd.DataFrame]:
    """d = 1: a few released draws per method (thin lines) and the 10–90 % band over all draws; optional
    reference curves ``{name: values on the grid}`` (the true density, the non-private KDE).

    ``bounds`` = the column's public (lower, upper): the axis is drawn in the column's own units (x = lower +
    u·(upper − lower)) and the density per unit of the column (divided by upper − lower) — a public change of
    variables of the released estimate on [0, 1]. ``axis_label`` then names the column."""
    lo, width = _units(bounds)
    x = lo + width * comparison.grid
    fig = go.Figure()
    frame = comparison.frame().assign(x=lambda f: lo + width * f["x"], density=lambda f: f["density"] / width)
    for k, (m, r) in enumerate(comparison.releases.items()):
        v = np.asarray(r.value) / width
        c = colour(m, k, topic=TOPIC)
        if len(v) > 1:
            q10, q90 = np.quantile(v, [0.1, 0.9], axis=0)
            fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([q90, q10[::-1]]), fill="toself",
                                     fillcolor=c, opacity=0.2, line=dict(width=0), hoverinfo="skip",
                                     name=f"{method_label(m)}: 10–90 % of {len(v)} draws"))
        for i, row in enumerate(v[:max_lines]):
            fig.add_trace(go.Scatter(x=x, y=row, mode="lines", line=dict(color=c, width=1.5, dash=DASHES[k % len(DASHES)]),
                                     opacity=0.8,
                                     name=f"{method_label(m)} (draws)", legendgroup=m, showlegend=i == 0))
    for i, (name, vals) in enumerate((reference or {}).items()):
        vals = np.asarray(vals) / width
        fig.add_trace(go.Scatter(x=x, y=vals, mode="lines", name=method_label(name),
                                 line=dict(color="#000000", width=3, dash="solid" if i == 0 else "dash")))
        frame = pd.concat([frame, pd.DataFrame({"method": name, "draw": 0, "x": x, "density": vals})],
                          ignore_index=True)
    fig.update_layout(**LAYOUT, title="Released density estimates (draws and band over repeated draws)",
                      xaxis_title=axis_label, yaxis_title="density (per unit of the rescaled axis)" if bounds is None
                      else "density (per unit of the column)",
                      legend=dict(orientation="h", y=-0.2))
    return fig, frame


def heatmaps_figure(comparison, *, reference: dict | None = None,
                    axis_labels=("x₁ rescaled to [0, 1]", "x₂ rescaled to [0, 1]"),
                    bounds: tuple | None = None) -> tuple[go.Figure, pd.DataFrame]:
    """d = 2: the first released draw of each method (and reference surfaces) as heatmaps on one colour scale.
    ``bounds`` = ((lower₁, upper₁), (lower₂, upper₂)), public: axes in the columns' units, density per unit area."""
    (lo1, w1), (lo2, w2) = (_units(None), _units(None)) if bounds is None else map(_units, bounds)
    panels = [(m, np.asarray(r.value)[0] / (w1 * w2)) for m, r in comparison.releases.items()]
    panels += [(m, np.asarray(v) / (w1 * w2)) for m, v in (reference or {}).items()]
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[method_label(m) for m, _ in panels])
    top = max(float(np.max(v)) for _, v in panels)
    bottom = min(float(np.min(v)) for _, v in panels)
    for j, (_, v) in enumerate(panels):
        fig.add_trace(go.Heatmap(z=v.T, x=lo1 + w1 * comparison.grid, y=lo2 + w2 * comparison.grid, zmin=bottom,
                                 zmax=top, colorscale="Viridis", showscale=j == 0, colorbar=dict(title="density")),
                      row=1, col=j + 1)
        fig.update_xaxes(title_text=axis_labels[0], row=1, col=j + 1)
    fig.update_yaxes(title_text=axis_labels[1], row=1, col=1)
    fig.update_layout(**LAYOUT, title="Released 2-D density estimates (first draw of each method)")
    frame = comparison.frame()
    if bounds is not None:
        frame = frame.assign(x1=lo1 + w1 * frame["x1"], x2=lo2 + w2 * frame["x2"], density=frame["density"] / (w1 * w2))
    return fig, frame


def comparison_figure(comparison, *, reference: dict, axis_labels: Sequence[str],
                      bounds: Sequence[tuple[float, float]]) -> tuple[go.Figure, pd.DataFrame]:
    """The released estimates in the columns' own units, by dimension: :func:`estimates_figure` of the one column
    (d = 1, with every ``reference`` curve) or :func:`heatmaps_figure` of the two (d = 2, with the ``"nonprivate"``
    surface of ``reference`` only). ``axis_labels`` and ``bounds`` (public): one per column."""
    if len(bounds) == 1:
        return estimates_figure(comparison, reference=reference, axis_label=axis_labels[0], bounds=bounds[0])
    return heatmaps_figure(comparison, reference={k: v for k, v in reference.items() if k == "nonprivate"},
                           axis_labels=tuple(axis_labels), bounds=tuple(bounds))


def units_caption(h: float, columns: Sequence[str], bounds: Sequence[tuple[float, float]]) -> str:
    """The caption of :func:`comparison_figure`: the axes are in the columns' units, and the bandwidth ``h`` (on the
    rescaled [0, 1]) in each column's units, ``h·(upper − lower)`` (public bounds; column names shown literally)."""
    return ("Axes in the columns' own units: the estimate is computed on [0, 1] (each column rescaled by its public "
            "bounds) and drawn back in the columns' units, density per unit of the column; h = "
            f"{h:.4g} on [0, 1] is " + ", ".join(f"{h * (hi - lo):.4g} in {literal(c)}"
                                                 for c, (lo, hi) in zip(columns, bounds)) + ".")


def exponents_figure(ex: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """The exponents chart: fitted MISE slopes vs d (markers) and the theory exponents (lines)."""
    fig = go.Figure()
    for i, m in enumerate(pd.unique(ex["method"])):
        s = ex[ex.method == m]
        symbol = SYMBOLS[i % len(SYMBOLS)]
        fig.add_trace(go.Scatter(x=s.d, y=s.slope_total, mode="markers+lines", name=f"{method_label(m)}: fitted MISE slope",
                                 line=dict(color=colour(m, i, topic=TOPIC)), marker=dict(symbol=symbol, size=9)))
        fig.add_trace(go.Scatter(x=s.d, y=s.theory, mode="markers+lines", name=f"{method_label(m)}: theory exponent"
                                 + (" (noise term)" if m != "nonprivate" else ""),
                                 line=dict(color=colour(m, i, topic=TOPIC), dash="dot"), marker=dict(symbol=f"{symbol}-open", size=9)))
    fig.add_hline(y=0, line=dict(color=GREY, width=1))
    fig.update_layout(**LAYOUT, title="MISE ∝ n^slope: the Laplace rate breaks down as d grows; the GP keeps the "
                                      "non-private rate", xaxis_title="dimension d", yaxis_title="exponent of n",
                      legend=dict(orientation="h", y=-0.25))
    return fig, ex.copy()


def svm_figure(grid: np.ndarray, fields: dict, X: np.ndarray, y: np.ndarray) -> tuple[go.Figure, pd.DataFrame]:
    """Decision boundaries {f = 0} of the named fields on the grid, over the training points."""
    fig = go.Figure()
    for i, (name, f) in enumerate(fields.items()):
        fig.add_trace(go.Contour(z=f.T, x=grid, y=grid, contours=dict(start=0, end=0, size=1, coloring="lines"),
                                 line=dict(width=3, color=colour(name, i, topic=TOPIC), dash="solid" if i == 0 else "dash"),
                                 showscale=False, name=f"{method_label(name)}: f = 0", showlegend=True))
    for lab, sym in ((1.0, "circle"), (-1.0, "x")):
        sel = y == lab
        fig.add_trace(go.Scatter(x=X[sel, 0], y=X[sel, 1], mode="markers", marker=dict(symbol=sym, size=5,
                                 color=GREY), name=f"class {int(lab):+d}", opacity=0.6))
    fig.update_layout(**LAYOUT, title="Kernel SVM decision boundary: non-private vs private (GP noise)",
                      xaxis_title="x₁ (rescaled to [0, 1])", yaxis_title="x₂ (rescaled to [0, 1])",
                      legend=dict(orientation="h", y=-0.2))
    frame = pd.DataFrame({"x1": np.repeat(grid, len(grid)), "x2": np.tile(grid, len(grid)),
                          **{n: f.ravel() for n, f in fields.items()}})
    return fig, frame


def accuracy_figure(frame: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """Test accuracy vs ε (log x) with the non-private accuracy as a reference line."""
    fig = go.Figure()
    s = frame.groupby("epsilon").accuracy.agg(["mean", "std"]).reset_index()
    fig.add_trace(go.Scatter(x=s.epsilon, y=s["mean"], error_y=dict(array=s["std"]), mode="markers+lines",
                             name="private SVM (GP noise)", line=dict(color=colour("gp", topic=TOPIC))))
    fig.add_hline(y=float(frame.nonprivate_accuracy.iloc[0]), line=dict(color="#000000", dash="dash"),
                  annotation_text="non-private")
    fig.update_layout(**LAYOUT, title="Kernel SVM: test accuracy vs ε", xaxis_title="privacy parameter ε",
                      yaxis_title="test accuracy", xaxis_type="log", yaxis=dict(range=[0.4, 1.0]))
    return fig, frame

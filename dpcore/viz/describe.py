"""Text alternatives of figures (no streamlit): a short plain-text summary of what a plotly figure draws.

The app shows it as the caption under every chart (WCAG 2.1 success criterion 1.1.1, non-text content): the
figure's title, its axes (and whether they are logarithmic), and one headline per trace — a line's last
point (and its middle one where curves share both ends), the range of a scatter, the median of a box or a histogram, the largest bar, the range of a surface.
A density curve is summarised by its peak.
It is made from the figure alone, so it says nothing the figure does not show.

>>> import plotly.graph_objects as go
>>> fig = go.Figure(go.Scatter(x=[100, 1000], y=[0.5, 0.05], mode="lines", name="Laplace"))
>>> _ = fig.update_layout(title="Error vs n", xaxis_title="n (records)", yaxis_title="mean error", xaxis_type="log")
>>> describe(fig)
'Chart: Error vs n. x: n (records), log scale; y: mean error. Laplace: 0.05 at n = 1000 (from 0.5 at 100).'
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["describe"]

_TAG = re.compile(r"<[^>]*>")


def _text(s: Any) -> str:
    """Plain text of a plotly label (its HTML tags such as <br> and <b> dropped)."""
    return " ".join(_TAG.sub(" ", str(s or "")).split())


def _num(v: Any) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return _text(v)
    if not np.isfinite(f):
        return str(f)
    return f"{f:.4g}".replace("e+0", "e").replace("e-0", "e-").replace("-", "−")


def _finite(values: Any) -> np.ndarray:
    if values is None:
        return np.array([])
    try:
        a = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([])
    return a[np.isfinite(a)]


def _numeric(values: list) -> bool:
    try:
        return len(values) > 0 and all(v is not None and not isinstance(v, str) for v in values) and \
            np.asarray(values, dtype=float).size == len(values)
    except (TypeError, ValueError):
        return False


def _axis(fig: Any, which: str) -> tuple[str, bool]:
    ax = getattr(fig.layout, f"{which}axis")
    title = _text(ax.title.text) if ax.title is not None else ""
    return title, ax.type == "log"


def _ends(t: Any) -> tuple | None:
    """A line trace's first and last points (rounded), to spot series that share both ends."""
    if t.type not in ("scatter", "scattergl") or "lines" not in (t.mode or "lines") or t.x is None or t.y is None:
        return None
    x, y = list(t.x), list(t.y)
    if len(x) < 3 or not (_numeric(x) and _numeric(y)):
        return None
    return tuple(round(float(v), 9) for v in (x[0], y[0], x[-1], y[-1]))


def _trace(t: Any, xname: str, density: bool, shared_ends: frozenset | set = frozenset()) -> str | None:
    if getattr(t, "showlegend", None) is False:
        return None  # a repeat of a series already named (e.g. further draws of one mechanism)
    name = _text(getattr(t, "name", None)) or t.type
    if t.type in ("scatter", "scattergl"):
        if getattr(t, "fill", None) in ("toself", "tonexty", "tozeroy"):
            return None  # a band: its lines' summaries say enough
        x, y = list(t.x) if t.x is not None else [], list(t.y) if t.y is not None else []
        if _numeric(x) and not _numeric(y):  # a horizontal chart: values along x, one label per row
            vals = ", ".join(_num(a) if _text(b) == name else f"{_text(b)} {_num(a)}" for a, b in zip(x[:4], y[:4]))
            return f"{name}: {vals}" + (f" and {len(x) - 4} more" if len(x) > 4 else "")
        pts = [(a, b) for a, b in zip(x, y) if _numeric([b]) and np.isfinite(float(b))] if y else []
        if not pts:
            return None
        if len(pts) == 1:
            return f"{name}: {_num(pts[0][1])} at {_num(pts[0][0])}"
        mode = t.mode or "lines"
        at_x = f"{xname} = " if xname else ""
        if "lines" in mode and density:  # a density curve: where it peaks says more than its last value
            k = int(np.argmax([float(b) for _, b in pts]))
            return f"{name}: peak {_num(pts[k][1])} at {at_x}{_num(pts[k][0])}"
        if "lines" in mode:
            (x0, y0), (x1, y1) = pts[0], pts[-1]
            at = f" at {xname} = {_num(x1)}" if xname else f" at {_num(x1)}"
            text = f"{name}: {_num(y1)}{at} (from {_num(y0)} at {_num(x0)})"
            if _ends(t) in shared_ends:  # several curves share both ends: where they differ is in between
                xs = np.array([float(a) for a, _ in pts])
                k = int(np.argmin(np.abs(xs - (xs.min() + xs.max()) / 2)))
                text += f", {_num(pts[k][1])} at {_num(pts[k][0])}"
            return text
        ys = np.array([float(b) for _, b in pts])
        return f"{name}: {len(pts)} points, y from {_num(ys.min())} to {_num(ys.max())}"
    if t.type == "histogram":
        v = _finite(t.x if t.x is not None else t.y)
        return f"{name}: {len(v)} values, median {_num(np.median(v))}" if len(v) else None
    if t.type == "box":
        v = _finite(t.y if t.y is not None else t.x)
        return f"{name}: median {_num(np.median(v))} over {len(v)} values" if len(v) else None
    if t.type == "bar":
        if not len(_finite(t.y)) or t.x is None:
            return None
        bar_x, bar_y = list(t.x), np.asarray(t.y, dtype=float)
        k = int(np.nanargmax(bar_y))
        return f"{name}: {len(bar_y)} bars, largest {_num(bar_y[k])} at {_num(bar_x[k])}"
    if t.type in ("heatmap", "contour"):
        z = _finite(t.z)
        return f"{name}: values from {_num(z.min())} to {_num(z.max())}" if len(z) else None
    if t.type == "splom":
        dims = t.dimensions or ()
        n = len(dims[0].values) if dims and dims[0].values is not None else 0
        return f"{name}: {n} points over {len(dims)} coordinates"
    return name


def describe(fig: Any, max_traces: int = 6) -> str:
    """One paragraph of plain text: the figure's title, axes and one headline per trace (the first
    ``max_traces`` that have data; the count of the others). Reference lines drawn as shapes
    (``add_hline``) and subplot titles are listed from the figure's annotations."""
    parts = []
    title = _text(fig.layout.title.text) if fig.layout.title is not None else ""
    parts.append(f"Chart: {title}." if title else "Chart.")
    (xt, xlog), (yt, ylog) = _axis(fig, "x"), _axis(fig, "y")
    axes = [f"{w}: {t}" + (", log scale" if log and "log" not in t else "") for w, t, log in
            (("x", xt, xlog), ("y", yt, ylog)) if t]
    if axes:
        parts.append("; ".join(axes) + ".")
    density = yt.lower().startswith("density")
    ends = [e for e in (_ends(t) for t in fig.data) if e is not None]
    shared = {e for e in ends if ends.count(e) > 1}
    xname = xt.split(" (")[0].split(":")[0]
    lines = [s for s in (_trace(t, xname, density, shared) for t in fig.data) if s]
    if lines:
        more = len(lines) - max_traces
        parts.append("; ".join(lines[:max_traces]) + (f"; and {more} more series" if more > 0 else "") + ".")
    notes = [n for n in (_text(a.text) for a in (fig.layout.annotations or ())) if n and n not in title]
    if notes:
        parts.append("Marked on the chart: " + "; ".join(notes[:4]) + ".")
    return " ".join(parts)

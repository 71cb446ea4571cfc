"""Summaries of sweep frames: Monte-Carlo standard errors, fitted slopes and a plain-words reading.

The KNG paper (Reimherr & Awan 2019, Figs 1–2) plots log10 of the *average* error over
replicates against log10 n. :func:`summarize` gives, per (method, x): the mean error,
``log10_mean_error`` with its delta-method Monte-Carlo s.e. ``sd(error) / (sqrt(R) · mean · ln 10)``,
and the mean of log10 errors with its s.e. ``sd(log10 error) / sqrt(R)``. :func:`fit_slopes` fits
``log10_mean_error = a + b · log10 x`` (``a + b · x`` on a linear axis) by least squares; on a log
axis over the top ``decades`` decades of x (x ≥ max x / 10**decades; all x if fewer than two
points qualify). The axis is the frame's own (``frame.attrs["axis"]``, else ``n``).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Decades of x (counted down from the largest x) used to fit slopes on a log axis.
SLOPE_DECADES = 3.0


def frame_axis(frame: pd.DataFrame, x: str | None = None) -> tuple[str, bool]:
    """The swept column of ``frame`` and whether its axis is logarithmic (from ``frame.attrs``)."""
    attrs = getattr(frame, "attrs", {}) or {}
    name = x or attrs.get("axis") or "n"
    return name, bool(attrs.get("log_x", True))


_SYMBOLS = {"epsilon": "ε", "delta": "δ", "rho": "ρ", "tau": "τ", "alpha": "α", "inv_alpha": "1/α"}


def symbol(x: str) -> str:
    """How users read an axis name: ``epsilon`` → ε (other names unchanged)."""
    return _SYMBOLS.get(x, x)


def summarize(frame: pd.DataFrame, x: str | None = None) -> pd.DataFrame:
    """Per (method, x): reps, mean_error, log10_mean_error, se_log10_mean_error,
    mean_log10_error, se_mean_log10_error (Monte-Carlo standard errors; NaN with one replicate)."""
    x, _ = frame_axis(frame, x)
    cols = ["method", x, "reps", "mean_error", "log10_mean_error", "se_log10_mean_error",
            "mean_log10_error", "se_mean_log10_error"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    order = {m: i for i, m in enumerate(pd.unique(frame["method"]))}
    err = frame["error"].to_numpy(float)
    tmp = frame[["method", x]].copy()
    tmp["error"] = err
    with np.errstate(divide="ignore"):
        tmp["log10_error"] = np.log10(err)
    g = tmp.groupby(["method", x], sort=False)
    out = g.agg(reps=("error", "size"), mean_error=("error", "mean"), sd_error=("error", "std"),
                mean_log10_error=("log10_error", "mean"), sd_log10=("log10_error", "std")).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["log10_mean_error"] = np.log10(out["mean_error"])
        out["se_log10_mean_error"] = out["sd_error"] / (np.sqrt(out["reps"]) * out["mean_error"] * math.log(10))
        out["se_mean_log10_error"] = out["sd_log10"] / np.sqrt(out["reps"])
    out["_o"] = out["method"].map(order)
    out = out.sort_values(["_o", x]).drop(columns=["_o", "sd_error", "sd_log10"]).reset_index(drop=True)
    out.attrs = {}
    return out[cols]


def fit_slopes(frame: pd.DataFrame, decades: float = SLOPE_DECADES, x: str | None = None,
               log_x: bool | None = None) -> pd.DataFrame:
    """Least-squares slope of log10(mean error) on log10(x) (on x if the axis is linear), per method.

    Returns a frame with columns method, slope, intercept, se_slope (from the residuals; NaN with
    two points), ``<x>_min``, ``<x>_max`` (``n_min``, ``n_max`` for an n axis), points. Methods
    with fewer than two distinct x get NaN slopes. On a log axis only the top ``decades`` decades
    of x are used.
    """
    x, log_default = frame_axis(frame, x)
    log_x = log_default if log_x is None else log_x
    summ = summarize(frame, x)
    rows = []
    for method, sub in summ.groupby("method", sort=False):
        sub = sub[np.isfinite(sub["log10_mean_error"])]
        sel = sub
        if log_x and len(sub):
            sel = sub[sub[x] >= sub[x].max() / 10.0 ** decades * (1 - 1e-12)]
            if len(sel) < 2:
                sel = sub
        xv = sel[x].to_numpy(float)
        xv = np.log10(xv) if log_x else xv
        y = sel["log10_mean_error"].to_numpy(float)
        slope = intercept = se = np.nan
        if len(xv) >= 2 and np.ptp(xv) > 0:
            slope, intercept = np.polyfit(xv, y, 1)
            if len(xv) > 2:
                resid = y - (intercept + slope * xv)
                se = math.sqrt(resid @ resid / (len(xv) - 2) / np.sum((xv - xv.mean()) ** 2))
        rows.append({"method": method, "slope": float(slope), "intercept": float(intercept),
                     "se_slope": float(se), f"{x}_min": sel[x].min() if len(sel) else 0,
                     f"{x}_max": sel[x].max() if len(sel) else 0, "points": int(len(sel))})
    return pd.DataFrame(rows, columns=["method", "slope", "intercept", "se_slope", f"{x}_min", f"{x}_max", "points"])


def format_number(v: float) -> str:
    """A number as users read it: ``1 000``, ``100 000``, ``0.01``, ``2.5`` (no exponents).

    >>> format_number(100000), format_number(0.01), format_number(2.5), format_number(1e7)
    ('100 000', '0.01', '2.5', '10 000 000')
    """
    v = float(v)
    if math.isfinite(v) and v == int(v) and abs(v) < 1e16:
        return f"{int(v):,}".replace(",", " ")
    if abs(v) >= 1000:
        return f"{v:,.1f}".replace(",", " ")
    return f"{v:.4g}"


def _signed(v: float, digits: int = 2) -> str:
    """``−0.33`` with a true minus sign."""
    return f"{v:+.{digits}f}".replace("-", "−").lstrip("+")


def format_summary(frame: pd.DataFrame, decades: float = SLOPE_DECADES) -> str:
    """Plain-text report: log10(mean error) ± Monte-Carlo s.e. per x and method, and the slopes."""
    x, log_x = frame_axis(frame)
    summ = summarize(frame, x)
    if summ.empty:
        return "(no results)"
    cell = summ.assign(cell=[f"{m:+.3f} ±{s:.3f}" if np.isfinite(s) else f"{m:+.3f}"
                             for m, s in zip(summ["log10_mean_error"], summ["se_log10_mean_error"])])
    methods = list(pd.unique(summ["method"]))
    table = cell.pivot(index=x, columns="method", values="cell")[methods]
    table.index = [f"{v:.0e}" if v >= 1e4 else f"{v:g}" for v in table.index]
    lines = [f"log10(mean error) ± Monte-Carlo s.e., by {x} (rows) and method (columns):",
             table.to_string(), ""]
    mean_log = summ.pivot(index=x, columns="method", values="mean_log10_error")[methods]
    mean_log.index = table.index
    lines += ["mean of log10(error):", mean_log.to_string(float_format=lambda v: f"{v:+.3f}"), ""]
    slopes = fit_slopes(frame, decades, x)
    where = f"log10({x}) (top {decades:g} decades)" if log_x else x
    lines.append(f"fitted slopes of log10(mean error) on {where}:")
    for r in slopes.itertuples(index=False):
        d = r._asdict()
        se = f" ± {r.se_slope:.3f}" if np.isfinite(r.se_slope) else ""
        lines.append(f"  {r.method:<24s} {r.slope:+.3f}{se}   ({x} = {d[f'{x}_min']:g} … {d[f'{x}_max']:g}, "
                     f"{r.points} points)")
    return "\n".join(lines)


def describe(frame: pd.DataFrame, decades: float = SLOPE_DECADES, labels: dict | None = None) -> str:
    """What the plot of ``frame`` shows at its settings, in words, computed from the frame.

    States the settings, each method's fitted slope (with the reference slope the experiment
    declares) and, at the largest x, each private method's mean error as a multiple of the
    non-private one (the gap), e.g. "… the exponential mechanism's fitted slope is −0.33 …".
    """
    attrs = getattr(frame, "attrs", {}) or {}
    x, log_x = frame_axis(frame)
    summ = summarize(frame, x)
    if summ.empty:
        return "No results yet."
    labels = dict(attrs.get("method_labels", {}), **(labels or {}))
    name = lambda m: labels.get(m, m)  # noqa: E731
    xs = sorted(summ[x].unique())
    sx = symbol(x)
    settings = [f"{sx} = {format_number(xs[0])} … {format_number(xs[-1])}"]
    if attrs.get("epsilon") is not None and x != "epsilon" and np.isfinite(attrs["epsilon"]):
        settings.insert(0, f"ε = {attrs['epsilon']:g}")
    settings.append(f"{int(summ['reps'].max())} replicates per {sx}")
    slopes = fit_slopes(frame, decades, x)
    parts = [f"{name(r.method)} {_signed(r.slope)}" for r in slopes.itertuples() if np.isfinite(r.slope)]
    on = f"log10 {sx}" if log_x else sx
    text = f"At these settings ({', '.join(settings)}), the fitted slopes of log10 mean error on {on} are: "
    text += "; ".join(parts) if parts else "not available (fewer than two values of the axis)"
    ref = attrs.get("reference_slope")
    if ref is not None and parts:
        rl = attrs.get("reference_label")
        text += f" (reference {_signed(ref, 2)}{f', {rl}' if rl else ''})"
    text += "."
    top = summ[summ[x] == xs[-1]].set_index("method")["mean_error"]
    if "nonprivate" in top.index and top["nonprivate"] > 0:
        gaps = [f"{name(m)} {v / top['nonprivate']:.2f}×" for m, v in top.items()
                if m != "nonprivate" and np.isfinite(v)]
        if gaps:
            text += (f" At {sx} = {format_number(xs[-1])} the mean error relative to the non-private one is: "
                     + "; ".join(gaps) + ".")
    return text

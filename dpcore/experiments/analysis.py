"""Summaries of error-vs-n frames: Monte-Carlo standard errors and fitted log–log slopes.

The paper (Reimherr & Awan 2019, Figs 1–2) plots log10 of the *average* error over replicates
against log10 n. :func:`summarize` gives, per (method, n): the mean error, ``log10_mean_error``
with its delta-method Monte-Carlo s.e. ``sd(error) / (sqrt(R) · mean · ln 10)``, and the mean of
log10 errors with its s.e. ``sd(log10 error) / sqrt(R)``. :func:`fit_slopes` fits
``log10_mean_error = a + b · log10 n`` by least squares over the top ``decades`` decades of n
(n ≥ max n / 10**decades; all n if fewer than two points qualify).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Decades of n (counted down from the largest n) used to fit slopes.
SLOPE_DECADES = 3.0


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (method, n): reps, mean_error, log10_mean_error, se_log10_mean_error,
    mean_log10_error, se_mean_log10_error (Monte-Carlo standard errors; NaN with one replicate)."""
    if frame.empty:
        return pd.DataFrame(columns=["method", "n", "reps", "mean_error", "log10_mean_error",
                                     "se_log10_mean_error", "mean_log10_error", "se_mean_log10_error"])
    order = {m: i for i, m in enumerate(pd.unique(frame["method"]))}
    err = frame["error"].to_numpy(float)
    tmp = frame[["method", "n"]].copy()
    tmp["error"] = err
    with np.errstate(divide="ignore"):
        tmp["log10_error"] = np.log10(err)
    g = tmp.groupby(["method", "n"], sort=False)
    out = g.agg(reps=("error", "size"), mean_error=("error", "mean"), sd_error=("error", "std"),
                mean_log10_error=("log10_error", "mean"), sd_log10=("log10_error", "std")).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["log10_mean_error"] = np.log10(out["mean_error"])
        out["se_log10_mean_error"] = out["sd_error"] / (np.sqrt(out["reps"]) * out["mean_error"] * math.log(10))
        out["se_mean_log10_error"] = out["sd_log10"] / np.sqrt(out["reps"])
    out["_o"] = out["method"].map(order)
    out = out.sort_values(["_o", "n"]).drop(columns=["_o", "sd_error", "sd_log10"]).reset_index(drop=True)
    return out[["method", "n", "reps", "mean_error", "log10_mean_error", "se_log10_mean_error",
                "mean_log10_error", "se_mean_log10_error"]]


def fit_slopes(frame: pd.DataFrame, decades: float = SLOPE_DECADES) -> pd.DataFrame:
    """Least-squares slope of log10(mean error) on log10(n) per method, over the top ``decades``.

    Returns a frame with columns method, slope, intercept, se_slope (from the residuals; NaN with
    two points), n_min, n_max, points. Methods with fewer than two distinct n get NaN slopes.
    """
    summ = summarize(frame)
    rows = []
    for method, sub in summ.groupby("method", sort=False):
        sub = sub[np.isfinite(sub["log10_mean_error"])]
        n_max = sub["n"].max() if len(sub) else np.nan
        sel = sub[sub["n"] >= n_max / 10.0 ** decades * (1 - 1e-12)] if len(sub) else sub
        if len(sel) < 2:
            sel = sub
        x = np.log10(sel["n"].to_numpy(float))
        y = sel["log10_mean_error"].to_numpy(float)
        slope = intercept = se = np.nan
        if len(x) >= 2 and np.ptp(x) > 0:
            slope, intercept = np.polyfit(x, y, 1)
            if len(x) > 2:
                resid = y - (intercept + slope * x)
                se = math.sqrt(resid @ resid / (len(x) - 2) / np.sum((x - x.mean()) ** 2))
        rows.append({"method": method, "slope": float(slope), "intercept": float(intercept),
                     "se_slope": float(se), "n_min": int(sel["n"].min()) if len(sel) else 0,
                     "n_max": int(sel["n"].max()) if len(sel) else 0, "points": int(len(sel))})
    return pd.DataFrame(rows, columns=["method", "slope", "intercept", "se_slope", "n_min", "n_max", "points"])


def format_summary(frame: pd.DataFrame, decades: float = SLOPE_DECADES) -> str:
    """Plain-text report: log10(mean error) ± Monte-Carlo s.e. per n and method, and the slopes."""
    summ = summarize(frame)
    if summ.empty:
        return "(no results)"
    cell = summ.assign(cell=[f"{m:+.3f} ±{s:.3f}" if np.isfinite(s) else f"{m:+.3f}"
                             for m, s in zip(summ["log10_mean_error"], summ["se_log10_mean_error"])])
    methods = list(pd.unique(summ["method"]))
    table = cell.pivot(index="n", columns="method", values="cell")[methods]
    table.index = [f"{n:.0e}" if n >= 1e4 else str(n) for n in table.index]
    lines = ["log10(mean error) ± Monte-Carlo s.e., by n (rows) and method (columns):",
             table.to_string(), ""]
    mean_log = summ.pivot(index="n", columns="method", values="mean_log10_error")[methods]
    mean_log.index = table.index
    lines += ["mean of log10(error):", mean_log.to_string(float_format=lambda v: f"{v:+.3f}"), ""]
    slopes = fit_slopes(frame, decades)
    lines.append(f"fitted slopes of log10(mean error) on log10(n) (top {decades:g} decades):")
    for r in slopes.itertuples():
        se = f" ± {r.se_slope:.3f}" if np.isfinite(r.se_slope) else ""
        lines.append(f"  {r.method:<24s} {r.slope:+.3f}{se}   (n = {r.n_min:g} … {r.n_max:g}, {r.points} points)")
    return "\n".join(lines)

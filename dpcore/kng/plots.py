"""Plotly figures and tables for the KNG explorer (no streamlit).

``results`` map a mechanism's short name ("kng", "exponential", "objective_perturbation") to its
:class:`dpcore.kng.KNGRelease`. Every figure builder returns ``(figure, frame)``: the frame holds
the numbers drawn, for a CSV download. Densities are computed from the data with
:func:`dpcore.kng.log_density` — they are for teaching (what the mechanism samples from), not part
of any release. Labels and colours come from :mod:`dpcore.viz.style` (the topic's declared styles).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore import kng
from dpcore.data.export import plotly_literal
from dpcore.viz import style
from dpcore.viz.style import DASHES, LAYOUT, SYMBOLS, colour

_LAYOUT = dict(LAYOUT)
NONPRIVATE_COLOUR = colour("nonprivate")

__all__ = ["MCMC_RELEASE_NOTE", "PAGE_INTRO", "QR_TEACH_DRAWS", "scaled_units_note", "label", "draws_frame", "comparison_frame", "diagnostics_frame", "plot_window", "density_1d",
           "density_2d", "figure_1d", "figure_2d", "pairs_figure"]

#: What a release does with MCMC draws (the teaching view's note under its diagnostics table).
MCMC_RELEASE_NOTE = ("MCMC: each draw is the last state of its own chain, released whether or not the chains mixed "
                     "(mixed: max R-hat ≤ 1.05 and min ESS ≥ 100, in the table above — non-private).")
#: The KNG explorer's opening paragraph (Markdown).
PAGE_INTRO = (
    "The **K-norm gradient mechanism** samples θ with density ∝ exp(−ε‖∇ℓ(θ; D)‖_K / (2Δ)): it favours θ where the "
    "gradient of the loss is small, i.e. near the non-private estimate θ̂. Compare it with the exponential mechanism "
    "(density ∝ exp(−εℓ(θ; D)/(2Δ_ℓ))) and, for linear regression, objective perturbation. Each draw of each "
    "mechanism costs ε: a click costs ε × mechanisms × draws, shown on its button; the release view starts with one "
    "mechanism and one draw. [Reimherr & Awan (2019)](https://arxiv.org/abs/1905.09436), Thm 3.1.")
#: Quantile regression's MCMC touches every record at each move (no sufficient statistics): its teaching view
#: keeps its own, smaller number of draws, so that the default view (n = 1 000, KNG and the exponential
#: mechanism, 1 000 sweeps) runs in seconds, not the 34 s that 100 draws took.
QR_TEACH_DRAWS = 25


def scaled_units_note(y_bound: float, bounds: Mapping[str, tuple], xs: Sequence[str], y: str) -> str:
    """What the regressions' B means in the data's units, from the PUBLIC bounds only: x divided by its largest
    |bound|, y by ``y_bound``; the B of lines spanning the public ranges."""
    yb, (ylo, yhi) = float(y_bound), bounds[y]
    hint = 1 + sum((yhi - ylo) / yb * max(map(abs, bounds[c])) / np.ptp(bounds[c]) for c in xs)
    return (f"Scaled units: x divided by its largest public |value|, y by {yb:g}. B = 1: every prediction over the "
            f"public x-box within ±{yb:g}; lines spanning the public ranges suggest B ≈ {hint:.2g}.")


def label(method: str) -> str:
    """Plain-words label of a KNG method ("kng", "exponential", "objective_perturbation"), as the topic declares it."""
    return style.label(method, topic="kng")


def _released(results: Mapping[str, "kng.KNGRelease"]) -> dict:
    return {m: r for m, r in results.items() if r.released}


# ----------------------------------------------------------------------------- tables
def _tmpl(name: str) -> str:
    """A column name inside a hover template: literal (HTML entities) and no %{…} substitution."""
    return plotly_literal(name).replace("%", "&#37;")


def draws_frame(results: Mapping[str, "kng.KNGRelease"], names: Sequence[str]) -> pd.DataFrame:
    """Tidy table of the released draws: mechanism, draw, one column per coordinate."""
    rows = []
    for m, r in _released(results).items():
        f = pd.DataFrame(r.value, columns=list(names))
        f.insert(0, "draw", np.arange(1, len(f) + 1))
        f.insert(0, "mechanism", label(m))
        rows.append(f)
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["mechanism", "draw", *names])


def comparison_frame(results: Mapping[str, "kng.KNGRelease"], nonprivate: np.ndarray) -> pd.DataFrame:
    """One row per mechanism: cost, sampler, error of the draws to the non-private estimate, spread.

    The error columns compare with the non-private estimate: a teaching view, computed from the data.
    """
    rows = []
    for m, r in results.items():
        row = {"mechanism": label(m), "epsilon per draw": r.cost.epsilon, "draws": r.size,
               "total epsilon": r.cost.total_epsilon,
               "sampler": "exact" if r.diagnostics.mcmc is None else "MCMC (approx.)", "released": r.released,
               "sensitivity": r.calibration.sensitivity, "density constant": r.calibration.constant}
        if r.released:
            err = np.linalg.norm(r.value - nonprivate, axis=1)
            row["mean error ‖θ̃ − θ̂‖₂"] = float(err.mean())
            row["median error"] = float(np.median(err))
            row["spread (RMS sd)"] = float(np.sqrt(np.mean(r.value.var(axis=0)))) if r.size > 1 else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def diagnostics_frame(results: Mapping[str, "kng.KNGRelease"]) -> pd.DataFrame:
    """Non-private MCMC diagnostics, one row per MCMC-sampled mechanism."""
    rows = []
    for m, r in results.items():
        d = r.diagnostics.mcmc
        if d is None:
            continue
        rows.append({"mechanism": label(m), "chains": d.n_chains, "sweeps": d.n_sweeps, "burn-in": d.burn_in,
                     "acceptance": d.acceptance, "max R-hat": d.max_rhat, "min ESS": d.min_ess,
                     "mixed": (r.diagnostics.values["chains mixed (non-private)"] == "mixed"
                               if "chains mixed (non-private)" in r.diagnostics.values else d.mixed()),
                     "released": r.released})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- densities
def plot_window(results: Mapping[str, "kng.KNGRelease"], nonprivate: np.ndarray, pad: float = 0.5,
                lower: np.ndarray | None = None, upper: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-coordinate plotting range covering the released draws and θ̂, widened by ``pad`` × range."""
    pts = [np.atleast_2d(nonprivate)] + [r.value for r in _released(results).values()]
    allp = np.vstack(pts)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    width = np.maximum(hi - lo, 1e-9 * (1.0 + np.abs(allp).max(axis=0)))
    lo, hi = lo - pad * width, hi + pad * width
    if lower is not None:
        lo = np.maximum(lo, lower)
    if upper is not None:
        hi = np.minimum(hi, upper)
    return lo, hi


def density_1d(problem: str, data: Any, mechanism: str, *, epsilon: float, norm: str, params: Mapping,
               lo: float, hi: float, m: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """The mechanism's density on [lo, hi], normalised numerically over that range (trapezoid rule)."""
    grid = np.linspace(lo, hi, m)
    lp = kng.log_density(problem, data, grid[:, None], mechanism=mechanism, epsilon=epsilon, norm=norm, **params)
    return grid, _normalise(grid, lp)


def _normalise(grid: np.ndarray, lp: np.ndarray) -> np.ndarray:
    if not np.isfinite(lp).any():
        return np.zeros_like(grid)
    w = np.exp(lp - np.max(lp[np.isfinite(lp)]))
    z = np.trapezoid(w, grid)
    return w / z if z > 0 else w


def density_2d(problem: str, data: Any, mechanism: str, *, epsilon: float, norm: str, params: Mapping,
               centre: np.ndarray, coords: tuple[int, int], lo: np.ndarray, hi: np.ndarray, m: int = 80):
    """Density over coordinates ``coords`` (others held at ``centre``), normalised on the m × m grid."""
    i, j = coords
    g1 = np.linspace(lo[i], hi[i], m)
    g2 = np.linspace(lo[j], hi[j], m)
    T1, T2 = np.meshgrid(g1, g2, indexing="xy")
    th = np.tile(np.asarray(centre, dtype=float), (m * m, 1))
    th[:, i] = T1.ravel()
    th[:, j] = T2.ravel()
    lp = kng.log_density(problem, data, th, mechanism=mechanism, epsilon=epsilon, norm=norm, **params).reshape(m, m)
    Z = np.zeros_like(lp)
    ok = np.isfinite(lp)
    if ok.any():
        Z = np.where(ok, np.exp(lp - lp[ok].max()), 0.0)
        cell = (g1[1] - g1[0]) * (g2[1] - g2[0]) if m > 1 else 1.0
        Z = Z / (Z.sum() * cell) if Z.sum() > 0 else Z
    return g1, g2, Z


# ----------------------------------------------------------------------------- figures
def figure_1d(results: Mapping[str, "kng.KNGRelease"], nonprivate: np.ndarray, name: str,
              densities: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None, title: str = ""):
    """Histograms of the draws (density scale), the mechanisms' densities and the non-private estimate."""
    fig = go.Figure()
    frames = []
    for m, r in _released(results).items():
        fig.add_trace(go.Histogram(x=r.value[:, 0], histnorm="probability density", name=f"{label(m)}: draws",
                                   marker_color=colour(m, 0, "kng"), opacity=0.45, nbinsx=min(60, max(10, r.size // 5))))
    for k, (m, (grid, pdf)) in enumerate((densities or {}).items()):
        fig.add_trace(go.Scatter(x=grid, y=pdf, mode="lines", name=f"{label(m)}: density",
                                 line=dict(color=colour(m, k, "kng"), width=2, dash=DASHES[k % len(DASHES)])))
        frames.append(pd.DataFrame({"mechanism": label(m), name: grid, "density": pdf}))
    fig.add_vline(x=float(nonprivate[0]), line=dict(color=NONPRIVATE_COLOUR, dash="dash"),
                  annotation_text="non-private θ̂", annotation_position="top")
    fig.update_layout(title=title or f"Private draws of {name}", xaxis_title=name, yaxis_title="density",
                      barmode="overlay", **_LAYOUT)
    draws = draws_frame(results, [name])
    frame = pd.concat([draws.assign(kind="draw"), *(f.assign(kind="density") for f in frames)], ignore_index=True)
    return fig, frame


def figure_2d(results: Mapping[str, "kng.KNGRelease"], nonprivate: np.ndarray, names: Sequence[str],
              coords: tuple[int, int], contour=None, contour_mechanism: str = "kng", title: str = ""):
    """Scatter of the draws over two coordinates, the non-private estimate and (optionally) a density contour."""
    i, j = coords
    fig = go.Figure()
    if contour is not None:
        g1, g2, Z = contour
        fig.add_trace(go.Contour(x=g1, y=g2, z=Z, colorscale="Blues", opacity=0.6, ncontours=12, showscale=False,
                                 name=f"{label(contour_mechanism)} density", contours=dict(coloring="fill"),
                                 hovertemplate=f"{_tmpl(names[i])}=%{{x:.4g}}<br>{_tmpl(names[j])}=%{{y:.4g}}<br>density=%{{z:.3g}}"
                                               "<extra></extra>"))
    for k, (m, r) in enumerate(_released(results).items()):
        fig.add_trace(go.Scatter(x=r.value[:, i], y=r.value[:, j], mode="markers", name=f"{label(m)}: draws",
                                 marker=dict(color=colour(m, k, "kng"), size=7, opacity=0.7, symbol=SYMBOLS[k % len(SYMBOLS)],
                                             line=dict(width=0.5, color="white"))))
    fig.add_trace(go.Scatter(x=[nonprivate[i]], y=[nonprivate[j]], mode="markers", name="non-private θ̂",
                             marker=dict(color=NONPRIVATE_COLOUR, symbol="x", size=12)))
    fig.update_layout(title=title or f"Private draws: {names[j]} against {names[i]}", xaxis_title=names[i],
                      yaxis_title=names[j], **_LAYOUT)
    frame = draws_frame(results, names)
    if contour is not None:
        g1, g2, Z = contour
        G1, G2 = np.meshgrid(g1, g2, indexing="xy")
        frame = pd.concat([frame.assign(kind="draw"),
                           pd.DataFrame({"mechanism": label(contour_mechanism), "kind": "density grid",
                                         names[i]: G1.ravel(), names[j]: G2.ravel(), "density": Z.ravel()})],
                          ignore_index=True)
    return fig, frame


def pairs_figure(results: Mapping[str, "kng.KNGRelease"], names: Sequence[str], max_dims: int = 6):
    """Scatter matrix of the draws (first ``max_dims`` coordinates), coloured by mechanism."""
    frame = draws_frame(results, names)
    dims = list(names)[:max_dims]
    fig = go.Figure()
    for k, m in enumerate(_released(results)):
        sub = frame[frame["mechanism"] == label(m)]
        fig.add_trace(go.Splom(dimensions=[dict(label=c, values=sub[c]) for c in dims], name=label(m),
                               marker=dict(color=colour(m, k, "kng"), size=5, opacity=0.6, symbol=SYMBOLS[k % len(SYMBOLS)]),
                               diagonal_visible=False,
                               showupperhalf=False))
    fig.update_layout(title="Pairs of coordinates of the private draws", height=max(400, 170 * len(dims)), **_LAYOUT)
    return fig, frame

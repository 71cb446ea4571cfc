"""Data for private LASSO: the sparse-regression simulator and the map of a Dataset's columns into the
public domain ‖x‖∞ ≤ 1, |y| ≤ 1 (Talwar, Thakurta & Zhang 2015, §2.2).

A column with declared public bounds [lo, hi] is mapped by the PUBLIC affine map v ↦ (v − m)/h,
m = (lo + hi)/2, h = (hi − lo)/2, so the bounds become [−1, 1]; values beyond the bounds are clipped
to them (counted, among the non-private diagnostics) — never rescaled with data maxima.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .._rng import RNGLike, as_generator
from .._validation import check_choice, check_int, check_positive
from ..data import Dataset, public_columns
from ..errors import DataError, DPValueError
from .configs import MAX_P

__all__ = ["sparse_regression", "sparse_regression_suffstats", "simulated_dataset", "Design", "prepare_design", "MAX_SIM_CELLS",
           "CLIP_WARN_FRACTION", "SUPPORT_TOL", "shown", "diabetes_dataset", "MAX_TABLE_CELLS", "units_caption"]

#: Largest n·p the simulator builds (memory: 8 bytes a cell).
MAX_SIM_CELLS = 60_000_000
#: Largest simulated table (n·p cells) built as a Dataset for the app.
MAX_TABLE_CELLS = 5_000_000
#: Largest p of a simulated table for the app (p ≫ n allowed: n = 200, p = 2000).
MAX_TABLE_P = 2000
#: |θ_j| at or below this counts as zero: in the support (release summary) and in the units table alike.
SUPPORT_TOL = 1e-12
#: Significant digits of the numbers the units table shows (float noise beyond them is not a digit of the answer).
SHOWN_DIGITS = 12


def shown(x: float) -> float:
    """``x`` rounded to :data:`SHOWN_DIGITS` significant digits, −0.0 as 0.0 (the one rule of the units table)."""
    return float(f"{float(x):.{SHOWN_DIGITS}g}") + 0.0


#: Warn when bounds clip more than this fraction of the records.
CLIP_WARN_FRACTION = 0.5


def sparse_regression(n: int, p: int, s: int = 5, *, radius: float = 1.0, signal: float = 0.8, noise: float = 0.1,
                      design: str = "uniform", rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, θ*): xᵢ iid uniform on [−1, 1]^p ("uniform") or ±1 ("rademacher"); θ* has s non-zeros at
    random coordinates with random signs and equal magnitude, ‖θ*‖₁ = signal·r (inside C);
    y = ⟨x, θ*⟩ + N(0, noise²), clipped to [−1, 1] (|y| ≤ 1: the paper's domain). p ≫ n allowed."""
    n = check_int(n, "n", lo=2)
    p = check_int(p, "p", lo=1, hi=MAX_P)
    s = check_int(s, "s (non-zeros)", lo=0, hi=p)
    if float(n) * p > MAX_SIM_CELLS:
        raise DPValueError(f"n·p = {n}·{p} = {float(n) * p:.3g} cells > {MAX_SIM_CELLS:.3g}; lower n or p.")
    check_positive(radius, "radius")
    check_positive(noise, "noise", allow_zero=True)
    check_positive(signal, "signal", allow_zero=True)
    check_choice(design, "design", ("uniform", "rademacher"))
    g = as_generator(rng)
    X = g.uniform(-1, 1, (n, p)) if design == "uniform" else np.where(g.random((n, p)) < 0.5, -1.0, 1.0)
    theta = np.zeros(p)
    if s:
        idx = g.choice(p, size=s, replace=False)
        theta[idx] = np.where(g.random(s) < 0.5, -1.0, 1.0) * signal * radius / s
    y = np.clip(X @ theta + noise * g.standard_normal(n), -1.0, 1.0)
    return X, y, theta


def sparse_regression_suffstats(n: int, p: int, s: int = 5, *, radius: float = 1.0, signal: float = 0.8,
                                noise: float = 0.1, rng: RNGLike = None, chunk: int = 20_000
                                ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """(XᵀX, Xᵀy, yᵀy, θ*) of a :func:`sparse_regression` dataset (x uniform on [−1, 1]^p), generated in
    chunks of rows so X is never held whole (figures at n up to 10⁶ with p ≤ 1000)."""
    n = check_int(n, "n", lo=2)
    p = check_int(p, "p", lo=1, hi=5000)
    s = check_int(s, "s (non-zeros)", lo=0, hi=p)
    g = as_generator(rng)
    theta = np.zeros(p)
    if s:
        idx = g.choice(p, size=s, replace=False)
        theta[idx] = np.where(g.random(s) < 0.5, -1.0, 1.0) * signal * radius / s
    G, b, yy = np.zeros((p, p)), np.zeros(p), 0.0
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        X = g.uniform(-1, 1, (m, p))
        y = np.clip(X @ theta + noise * g.standard_normal(m), -1.0, 1.0)
        G += X.T @ X
        b += X.T @ y
        yy += float(y @ y)
    return G, b, yy, theta


def simulated_dataset(n: int, p: int, s: int = 5, *, radius: float = 1.0, rng: RNGLike = None
                      ) -> tuple[Dataset, np.ndarray]:
    """:func:`sparse_regression` as a simulated Dataset (columns x1..xp, y; bounds [−1, 1]) and θ*; at most
    :data:`MAX_TABLE_CELLS` cells (a table the app holds in memory)."""
    if p > MAX_TABLE_P:
        raise DPValueError(f"p (covariates) = {p:,} is over the app's cap {MAX_TABLE_P:,} for a simulated table; lower "
                           "p. Larger designs: dpcore.lasso in Python, or `python -m dpcore reproduce lasso`.")
    if float(n) * p > MAX_TABLE_CELLS:
        raise DPValueError(f"a simulated table of n·p = {n:,}·{p:,} = {float(n) * p:.3g} cells is over the app's cap "
                           f"{MAX_TABLE_CELLS:.0e}; lower p (covariates) or n (rows). Larger designs: dpcore.lasso in "
                           "Python, or `python -m dpcore reproduce lasso`.")
    X, y, theta = sparse_regression(n, p, s, radius=radius, rng=rng)
    cols = [f"x{j + 1}" for j in range(p)]
    frame = pd.DataFrame(X, columns=cols)
    frame["y"] = y
    bounds = {c: (-1.0, 1.0) for c in cols + ["y"]}
    nz = np.flatnonzero(theta)
    prov = (f"simulated sparse regression: n = {n}, p = {p}, s = {s} non-zeros "
            f"({', '.join(f'x{j + 1} = {theta[j]:+.3g}' for j in nz[:10])}{' …' if nz.size > 10 else ''}), "
            "x uniform on [−1, 1]^p, noise sd 0.1, y clipped to [−1, 1]")
    return Dataset(frame, tuple(cols) + ("y",), bounds, prov, name="simulated sparse regression",
                   kind="simulated"), theta


def diabetes_dataset() -> Dataset:
    """scikit-learn's diabetes data (442 × 10, raw units) with the public bounds of
    :func:`dpcore.data.builtin_dataset` (domain knowledge, not the data)."""
    from ..data import builtin_dataset
    return builtin_dataset("diabetes")


@dataclass(frozen=True)
class Design:
    """(X, y) in the public domain and how they were made: column names, the public maps (m, h) of each
    column, the NON-PRIVATE clipping fraction (shown only among diagnostics)."""

    X: np.ndarray
    y: np.ndarray
    covariates: tuple[str, ...]
    response: str
    centre: np.ndarray
    half_width: np.ndarray
    clipped_fraction: float

    def user_units(self, value: np.ndarray, intercept: bool) -> pd.DataFrame:
        """Released coefficients back in the columns' own units (post-processing with the public maps).

        With x′ = (x − c_x)/h_x and y′ = (y − c_y)/h_y, the fit y′ = a + ⟨x′, θ⟩ reads y = β₀ + Σ β_j x_j with
        β_j = h_y θ_j / h_j and β₀ = c_y + h_y a − Σ β_j c_j; without an intercept a = 0 (the line is forced
        through the public centres, and β₀ is what that implies). Numbers by one rule (:func:`shown`): a coefficient
        the release summary counts as zero (|θ_j| ≤ :data:`SUPPORT_TOL`, :func:`~dpcore.lasso.release.private_fw.support`)
        is exactly 0 here, and every value is rounded to 12 significant digits (no float noise such as
        −8e-18 or 1.0100000000000002).
        """
        v = np.asarray(value, dtype=float)
        a, theta = (float(v[0]), v[1:]) if intercept else (0.0, v)
        theta = np.where(np.abs(theta) > SUPPORT_TOL, theta, 0.0)   # the support's rule: a 0 shows 0 (issue 32)
        c, h = self.centre, self.half_width
        beta = h[-1] * theta / h[:-1]
        b0 = c[-1] + h[-1] * a - float(beta @ c[:-1])
        return pd.DataFrame({"term": ["intercept" + ("" if intercept else " (implied by the public centres)"),
                                      *self.covariates],
                             "coefficient (scaled to [−1, 1])": [shown(a), *map(shown, theta)],
                             f"coefficient (units of {self.response} per unit of x)": [shown(b0), *map(shown, beta)]})

    @property
    def clip_warning(self) -> str | None:
        """A warning when the bounds clip most records (NON-PRIVATE: computed from the data)."""
        if self.clipped_fraction > CLIP_WARN_FRACTION:
            return (f"the declared bounds clip {self.clipped_fraction:.0%} of the records (more than "
                    f"{CLIP_WARN_FRACTION:.0%}): the fit describes the clipped data. Widen the bounds of the "
                    "covariates/response on the Data page (from domain knowledge) to clip fewer.")
        return None


def units_caption(intercept: bool) -> str:
    """What the table of :meth:`Design.user_units` is: the released coefficients in the columns' units, by the
    public maps; without an intercept, what the implied intercept means."""
    return ("The same released coefficients in the columns' own units (post-processing with the public bounds: "
            "β_j = h_y θ_j / h_j)." + ("" if intercept else " Without an intercept the line is forced through the "
                                      "centres of the bounds; the intercept shown is what that implies."))


def prepare_design(ds: Dataset, response: str, covariates: Sequence[str]) -> Design:
    """(X, y) from public columns, each mapped by its public bounds into [−1, 1] (module docstring).

    Raises DataError naming the column and the fix for: no covariates, the response among them, more than
    :data:`~dpcore.lasso.configs.MAX_P` covariates, a column without public bounds or not numeric, and bounds with
    lo = hi — all public facts. (A covariate that happens to be constant in the data is NOT refused: refusing would
    publish a fact about the data; Frank–Wolfe simply never gains by choosing it.)"""
    covariates = list(covariates)
    if not covariates:
        raise DataError("choose at least one covariate.")
    if response in covariates:
        raise DataError(f"the response {response!r} is also a covariate; remove it from the covariates.")
    if len(covariates) > MAX_P:
        raise DataError(f"{len(covariates)} covariates > the cap p = {MAX_P:,}; choose fewer covariates.")
    cols = public_columns(ds, covariates + [response])
    lo, hi = cols.lower, cols.upper
    half = (hi - lo) / 2.0
    zero = [c for c, h in zip(cols.columns, half) if h <= 0]
    if zero:
        raise DataError(f"column(s) {zero} have public bounds with lower = upper; widen them on the Data page.")
    raw = np.asarray(cols.values, dtype=float)
    centre = (hi + lo) / 2.0
    Z = (raw - centre) / half
    # records touched by clipping (a record is clipped when any of its cells was): NON-PRIVATE
    frame = ds.frame[covariates + [response]].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        out = ((frame < lo[None, :]) | (frame > hi[None, :])).any(axis=1)
    frac = float(out.mean()) if out.size else 0.0
    return Design(np.clip(Z[:, :-1], -1, 1), np.clip(Z[:, -1], -1, 1), tuple(covariates), response,
                  centre, half, frac)

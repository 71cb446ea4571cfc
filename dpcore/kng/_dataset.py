"""From a table with declared public bounds to the arguments of :func:`dpcore.kng.sample` (the built-in
simulated tables: :func:`dpcore.kng.designs.simulated_dataset`).

Used by the KNG explorer page (and usable from scripts): the bounds must be declared (public,
fixed before looking at the data); they become the mechanisms' public parameters — ``bounds`` for
the mean/median/quantile, ``x_bound``/``y_bound`` scales for the regressions. n is public: rows are
never dropped; a missing cell is replaced by the column's public imputation value (declared with
the bounds on a :class:`dpcore.data.Dataset`; default the midpoint of the bounds), and how many
were imputed is a NON-PRIVATE diagnostic (:attr:`ProblemData.imputed`), never shown beside a release.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from .._validation import DPValueError


@dataclass(frozen=True)
class ProblemData:
    """Data and public parameters for one problem.

    ``data``: array (n,) / (n, k), or (X, y), n = the number of rows; ``params``: keyword arguments
    for :func:`dpcore.kng.sample` (bounds / x_bound, y_bound); ``names``: the coordinates of θ.
    ``imputed``: NON-PRIVATE counts of missing cells replaced by the public imputation value, per
    column (show them only apart from a release, labelled non-private). ``bounds_from_data``: the
    columns whose bounds were read off the data — a release using them is not DP.
    """

    data: Any
    params: dict = field(default_factory=dict)
    names: tuple = ()
    n: int = 0
    imputed: Mapping[str, int] = field(default_factory=dict)
    bounds_from_data: tuple = ()


def _bounds_of(bounds: Mapping[str, tuple], col: str) -> tuple[float, float]:
    if col not in bounds:
        raise DPValueError(f"column {col!r} has no declared public bounds; declare them on the Data page "
                           "(they must be fixed before looking at the data).")
    lo, hi = bounds[col]
    return float(lo), float(hi)


def problem_data(frame: Any, bounds: Optional[Mapping[str, tuple]], problem: str, columns: Sequence[str], *,
                 y_column: Optional[str] = None, intercept: bool = True) -> ProblemData:
    """Assemble the data of ``problem`` from ``frame`` (see the module docstring).

    ``frame`` is a :class:`dpcore.data.Dataset` (its bounds, imputation values and bound sources are
    used; ``bounds`` may be None) or a DataFrame with ``bounds`` (imputation at the midpoints).
    """
    from ..data import Dataset

    imputes: Mapping[str, float] = {}
    sources: Mapping[str, str] = {}
    if isinstance(frame, Dataset):
        bounds = frame.bounds if bounds is None else bounds
        imputes, sources, frame = frame.imputes, frame.bound_sources, frame.frame
    bounds = dict(bounds or {})
    columns = list(columns)
    if problem in ("linear_regression", "quantile_regression"):
        if y_column is None:
            raise DPValueError("choose the response column y for the regression.")
        if y_column in columns:
            raise DPValueError(f"the response {y_column!r} is also among the predictors; remove it from x.")
        if not columns and not intercept:
            raise DPValueError("the regression needs at least one predictor column or the intercept.")
        used = columns + [y_column]
    else:
        if not columns:
            raise DPValueError("choose at least one numeric column.")
        if problem == "quantile" and len(columns) != 1:
            raise DPValueError(f"the quantile is 1-D: choose exactly one column (got {len(columns)}).")
        used = columns
    missing = [c for c in used if c not in frame.columns]
    if missing:
        raise DPValueError(f"column(s) {missing} not found in the data.")
    sub = frame[used].apply(pd.to_numeric, errors="coerce")
    n = int(len(sub))
    if n == 0:
        raise DPValueError("the data have no rows.")
    imputed = {}
    for c in used:
        lo, hi = _bounds_of(bounds, c)
        miss = sub[c].isna()
        imputed[c] = int(miss.sum())
        if imputed[c]:
            sub[c] = sub[c].fillna(float(imputes.get(c, (lo + hi) / 2.0)))
    extra: dict[str, Any] = dict(imputed=imputed,
                                 bounds_from_data=tuple(c for c in used if sources.get(c) == "from data"))
    if problem in ("linear_regression", "quantile_regression") and y_column is not None:  # y checked above
        X = sub[columns].to_numpy(float)
        xb = [max(abs(v) for v in _bounds_of(bounds, c)) for c in columns]
        names = list(columns)
        if intercept:
            X = np.column_stack([np.ones(n), X])
            xb = [1.0] + xb
            names = ["intercept"] + names
        lo, hi = _bounds_of(bounds, y_column)
        params = {"x_bound": np.array(xb), "y_bound": max(abs(lo), abs(hi))}
        return ProblemData((X, sub[y_column].to_numpy(float)), params, tuple(names), n, **extra)
    lims = [_bounds_of(bounds, c) for c in columns]
    x = sub[columns].to_numpy(float)
    if len(columns) == 1:
        return ProblemData(x[:, 0], {"bounds": lims[0]}, tuple(columns), n, **extra)
    lows = np.array([a for a, _ in lims])
    highs = np.array([b for _, b in lims])
    return ProblemData(x, {"bounds": (lows, highs)}, tuple(columns), n, **extra)

"""The public value that fills a column's missing cells: the midpoint of its public bounds (free) or a
differentially private mean of its observed cells (charged to the dataset's budget), and — for the
labelled non-private teaching view only — what the filling does to the column's mean.

n stays public: missing cells are filled, never dropped, so whether a cell is missing is part of a record.

The private mean (replace-one neighbours on n rows; a missing cell is a value of the record)
-------------------------------------------------------------------------------------------
With public bounds [lo, hi], m = (lo + hi)/2 and w = hi − lo, release f(D) = (C, T) with

    C = number of observed cells,   T = Σ_observed (clip(x, lo, hi) − m)/w   (each term in [−½, ½]).

Replacing one record moves (C, T) by (±1, ≤ ½) (a missing cell ↔ an observed one at a bound) or by
(0, ≤ 1) (an observed value moved from lo to hi): the ℓ1-sensitivity is Δ₁ = 3/2, attained. The Laplace
mechanism adds Laplace(Δ₁/ε) to each coordinate: ε-DP (audited with a half-scale mutant in
tests/data/test_impute.py).
The value m + w·T̃/max(C̃, 1), clipped to [lo, hi], is post-processing (Dwork, McSherry, Nissim & Smith 2006;
the noisy-sum/noisy-count mean of Dwork & Roth 2014, §3.3).

>>> import numpy as np
>>> r = release_mean_imputation(np.array([1.0, np.nan, 3.0, 5.0]), (0.0, 10.0), 1e9, rng=0)
>>> round(r.value, 6), r.cost.epsilon
(3.0, 1000000000.0)
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._rng import as_generator
from ..exact import discrete_laplace
from .._validation import check_epsilon
from ..mechanism import Calibration, Note, Release

__all__ = ["MEAN_SENSITIVITY", "mean_imputation_config", "laplace_statistics", "release_mean_imputation",
           "imputation_effect"]

#: ℓ1-sensitivity of (observed count, Σ centred and scaled observed values) under replace-one.
MEAN_SENSITIVITY = 1.5


def mean_imputation_config(epsilon: float) -> Calibration:
    """The public calibration of the private mean at ε (Laplace, Δ₁ = 3/2): its cost is known before any draw
    (``mean_imputation_config(ε).cost(1)``)."""
    eps = check_epsilon(epsilon)
    return Calibration(
        mechanism="data/impute-mean", notion="pure", epsilon=eps, sensitivity=MEAN_SENSITIVITY,
        constant=MEAN_SENSITIVITY / eps, constant_name="Laplace scale b = Δ₁/ε",
        derivation=("(observed count, Σ observed (x − m)/w) moves by ℓ1 ≤ 3/2 when one record is replaced "
                    "(missing ↔ a bound: (1, ½); lo ↔ hi: (0, 1)); noise of scale Δ₁/ε on each coordinate (exact discrete "
                    "Laplace on the integer count, Laplace on the sum) is ε-DP by "
                    "the triangle inequality."),
        reference="Dwork, McSherry, Nissim & Smith (2006); the noisy-sum/noisy-count mean, Dwork & Roth (2014) §3.3",
        neighbours="replace-one")


def laplace_statistics(stats: np.ndarray, cal: Calibration, rng=None) -> np.ndarray:
    """``stats`` (…, 2) + noise of scale b = ``cal.constant`` per coordinate (the mechanism's one random step).

    The observed count (an integer) gets exact discrete Laplace noise (:func:`dpcore.exact.discrete_laplace`), the
    centred sum continuous Laplace noise. ε-DP is unchanged: the joint law has density (w.r.t. counting × Lebesgue
    measure) ∝ exp(−(|c̃ − c| + |t̃ − t|)/b), whose ratio between neighbours is ≤ exp(‖(Δc, Δt)‖₁/b) ≤ e^ε with
    Δ₁ = 3/2 and b = Δ₁/ε.
    """
    stats = np.asarray(stats, dtype=float)
    g = as_generator(rng)
    out = stats.copy()
    out[..., 0] += discrete_laplace(cal.constant, stats.shape[:-1], g)
    out[..., 1] += g.laplace(0.0, cal.constant, size=stats.shape[:-1])
    return out


def _statistics(values: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    lo, hi = map(float, bounds)
    v = np.asarray(values, dtype=float)
    seen = ~np.isnan(v)
    return np.array([float(seen.sum()), float(((np.clip(v[seen], lo, hi) - (lo + hi) / 2) / (hi - lo)).sum())])


def _mean_from_noisy(noisy: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """Post-processing of noisy (C̃, T̃) rows (…, 2): m + w·T̃/max(C̃, 1), clipped to the bounds."""
    lo, hi = bounds
    noisy = np.asarray(noisy, dtype=float)
    return np.clip((lo + hi) / 2 + (hi - lo) * noisy[..., 1] / np.maximum(noisy[..., 0], 1.0), lo, hi)


def release_mean_imputation(values: Any, bounds: tuple[float, float], epsilon: float, *, rng=None,
                            override=None) -> Release:
    """An ε-DP mean of a column's observed cells (NaN = missing), clipped to its public ``bounds``, to fill
    its missing cells. ``values``: all n cells of the column as read (before imputation and clipping).
    ``override`` (audits only): replaces the Laplace calibration (a mutant)."""
    lo, hi = map(float, bounds)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"the private mean needs finite public bounds lower < upper (got [{lo:g}, {hi:g}]).")
    cal = mean_imputation_config(epsilon)
    if override is not None:
        cal = override(cal)
    noisy = laplace_statistics(_statistics(values, (lo, hi)), cal, rng)
    value = float(_mean_from_noisy(noisy, (lo, hi)))
    notes = (Note("info", "Private mean of the observed cells: Laplace noise on (observed count, sum of the "
                          "observed values centred at the midpoint of the bounds and divided by their width), "
                          f"ℓ1-sensitivity {MEAN_SENSITIVITY:g}; the ratio clipped to the bounds "
                          f"[{lo:g}, {hi:g}] is post-processing."),)
    return Release("data/impute-mean", value, cal.cost(1), cal, True, notes, config=(lo, hi, float(epsilon)))


def imputation_effect(values: Any, bounds: tuple[float, float], fills: dict[str, float]) -> pd.DataFrame:
    """NON-PRIVATE (teaching view): the column's mean and standard deviation over its observed cells only,
    and over all n rows with the missing cells filled by each value of ``fills`` (name → value), values
    clipped to the bounds as every mechanism reads them."""
    lo, hi = map(float, bounds)
    v = np.asarray(values, dtype=float)
    seen = ~np.isnan(v)
    x = np.clip(v, lo, hi)
    rows = [{"cells used": "observed only (missing left out)", "rows": int(seen.sum()),
             "mean": float(x[seen].mean()) if seen.any() else np.nan,
             "sd": float(x[seen].std(ddof=1)) if seen.sum() > 1 else np.nan}]
    for name, fill in fills.items():
        f = np.where(seen, x, float(fill))
        rows.append({"cells used": f"all rows, missing filled with {name} = {fill:.6g}", "rows": len(f),
                     "mean": float(f.mean()) if len(f) else np.nan,
                     "sd": float(f.std(ddof=1)) if len(f) > 1 else np.nan})
    frame = pd.DataFrame(rows)
    frame["shift of the mean"] = frame["mean"] - frame["mean"].iloc[0]
    return frame

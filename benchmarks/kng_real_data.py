"""KNG regressions on real, ill-conditioned designs (issue 9 §1): released or withheld, slope error, time.

Designs: scikit-learn's diabetes data (target ~ bmi, public bounds bmi [10, 60], target [0, 400];
cond(XᵀX) ≈ 260 after scaling) and :func:`dpcore.kng.designs.correlated_design` (n = 400, two predictors
with correlation 0.98 and an intercept). For KNG linear regression (exact sampler) and KNG median
regression (preconditioned MCMC with parallel tempering), at ε = 1 and ε = 1000, over 5 seeds: how
many releases were released (not withheld), the largest relative slope error against the non-private
fit at ε = 1000, and the median time per release (one draw, default sweeps). Also the coordinate-wise
MCMC that these replace (``sampler="mcmc"`` with the old one-at-a-time chain) for comparison.

Usage::

    python benchmarks/kng_real_data.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcore import kng  # noqa: E402
from dpcore.data import builtin_dataset  # noqa: E402
from dpcore.kng import designs  # noqa: E402
from dpcore.kng._regression import LinearRegression, QuantileRegression  # noqa: E402

SEEDS = range(5)


def _designs():
    out = {}
    for problem in ("linear_regression", "quantile_regression"):
        ds = builtin_dataset("diabetes")
        pdata = kng.problem_data(ds.frame, ds.bounds, problem, ["bmi"], y_column="target")
        out["diabetes", problem] = (pdata.data, {**pdata.params, "B": 2.0 if problem == "linear_regression" else 3.0},
                                    [1])
        X, y = designs.correlated_design(400, rng=1)
        out["correlated 0.98", problem] = ((X, y), {"x_bound": 1.0, "y_bound": 1.5, "B": 1.0}, [1, 2])
    return out


def run(label: str, problem: str, data, params, slopes, extra=None) -> None:
    extra = extra or {}
    qr = {"tau": 0.5} if problem == "quantile_regression" else {}
    for eps in (1.0, 1000.0):
        times, released, errs = [], 0, []
        for seed in SEEDS:
            t = time.perf_counter()
            r = kng.sample(problem, data, mechanism="kng", epsilon=eps, size=1, rng=seed, **params, **qr, **extra)
            times.append(time.perf_counter() - t)
            released += bool(r.released)
            if r.released:
                th = r.diagnostics.values["non-private estimate"]
                errs.append(float(np.max(np.abs(r.value[0, slopes] - th[slopes]) / np.abs(th[slopes]))))
        sampler = r.diagnostics.values.get("sampler", "?")
        err = f"{100 * max(errs):6.2f} %" if errs else "   —   "
        print(f"{label:<18} {problem:<20} ε = {eps:<6g} released {released}/{len(SEEDS)}  max slope error {err}  "
              f"{1000 * statistics.median(times):8.1f} ms/release  [{sampler}]")


def main() -> None:
    print("== KNG on ill-conditioned designs: 5 seeds, one draw per release ==")
    for (label, problem), (data, params, slopes) in _designs().items():
        run(label, problem, data, params, slopes)
    print("\n== For comparison: the one-at-a-time (coordinate-wise) MCMC these replace ==")
    saved = LinearRegression.mcmc_kind, QuantileRegression.mcmc_kind
    LinearRegression.mcmc_kind = QuantileRegression.mcmc_kind = lambda self, P, cfg: "coordinate"
    try:
        for (label, problem), (data, params, slopes) in _designs().items():
            run(label, problem, data, params, slopes, {"sampler": "mcmc"})
    finally:
        LinearRegression.mcmc_kind, QuantileRegression.mcmc_kind = saved


if __name__ == "__main__":
    main()

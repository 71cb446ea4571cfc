"""Figure ``query-release``: error vs n on the cone and on 2-way marginals, central (ρ-zCDP) and local (ε-LDP).

One *unit* = (scenario, n, rep): it builds the public workload, the scenario's dataset of size n, and
runs every requested method once with the unit's own generator, returning one row per method with
the normalised RMS error err₂ = (‖M(D) − x̄‖²/k)^{1/2} (and ‖·‖_∞). Expected shapes (BBNS §1, §5):
Gaussian ∝ 1/n; projection ∝ n^{−1/2} while the noise is outside the hull; coarse and chaining flatten
at their rounding floor (≤ α/2); local projection ∝ n^{−1/4}, local raw average ∝ n^{−1/2}.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._rng import RNGLike, as_generator, spawn
from ..errors import DPValueError
from . import central as C
from . import local as L
from .workloads import Cone, Marginals, WorkloadSpec, mean_point

__all__ = ["CENTRAL_METHODS", "LOCAL_METHODS", "SCENARIOS", "fit_slope", "run_unit", "scenario_data"]

CENTRAL_METHODS = ("gaussian", "projection", "coarse", "chaining")
LOCAL_METHODS = ("local-average", "local-projection", "local-coarse", "local-chaining")


def _cone() -> WorkloadSpec:
    return Cone(k=1000, r=0.05, L=10, n_dirs=32, seed=0)


def _marginals() -> WorkloadSpec:
    return Marginals(8, 2)


#: scenario → (workload builder, dataset description)
SCENARIOS: Mapping[str, Any] = {
    "cone": (_cone, "two far points: half the records at the apex, half at a rim point (t = 1)"),
    "marginals": (_marginals, "two far points: half the records at 00…0, half at 11…1"),
}


def scenario_data(scenario: str, n: int) -> np.ndarray:
    """The scenario's public dataset of n records (universe indices): two far points of X."""
    if scenario not in SCENARIOS:
        raise DPValueError(f"scenario = {scenario!r} is unknown; choose one of {', '.join(SCENARIOS)}.")
    wl = SCENARIOS[scenario][0]().build()
    far = wl.size - 1
    return np.where(np.arange(n) < n // 2, 0, far)


def _local_average(data, spec, epsilon, rng) -> np.ndarray:
    """The raw average of the randomizer's reports, no projection (the local analogue of Gaussian-only)."""
    wl = spec.build()
    c = 0.5 * (wl.points.min(axis=0) + wl.points.max(axis=0))
    R = float(np.sqrt(((wl.points - c) ** 2).sum(axis=1).max()))
    tot = np.zeros(wl.k)
    gens = spawn(rng, (data.size + 8191) // 8192)
    for j, lo in enumerate(range(0, data.size, 8192)):
        tot += L.randomize((wl.points[data[lo:lo + 8192]] - c) / R, epsilon, gens[j]).sum(axis=0)
    return c + R * tot / data.size


def run_unit(scenario: str, n: int, rng: RNGLike, *, methods=CENTRAL_METHODS + LOCAL_METHODS, rho: float = 0.5,
             epsilon: float = 1.0, alpha: float = 0.1) -> list[dict]:
    """One replicate at sample size n: a row per method with ``error`` (err₂) and ``max_error``."""
    spec = SCENARIOS[scenario][0]()
    data = scenario_data(scenario, n)
    truth = mean_point(data, spec.build())
    gens = dict(zip(methods, spawn(as_generator(rng), len(methods))))
    rows = []
    for m in methods:
        g = gens[m]
        if m == "gaussian":
            v = C.gaussian_release(data, C.GaussianConfig(spec, rho), rng=g).value
        elif m == "projection":
            v = C.projection_release(data, C.ProjectionConfig(spec, rho), rng=g).value
        elif m == "coarse":
            v = C.coarse_release(data, C.CoarseConfig(spec, rho, alpha), rng=g).value
        elif m == "chaining":
            v = C.chaining_release(data, C.ChainingConfig(spec, rho, alpha), rng=g).value
        elif m == "local-average":
            v = _local_average(data, spec, epsilon, g)
        elif m == "local-projection":
            v = L.local_projection_release(data, L.LocalProjectionConfig(spec, epsilon), rng=g).value
        elif m == "local-coarse":
            v = L.local_coarse_release(data, L.LocalCoarseConfig(spec, epsilon, alpha), rng=g).value
        elif m == "local-chaining":
            v = L.local_chaining_release(data, L.LocalChainingConfig(spec, epsilon, alpha), rng=g).value
        else:
            raise DPValueError(f"method = {m!r} is unknown; choose among {CENTRAL_METHODS + LOCAL_METHODS}.")
        rows.append({"scenario": scenario, "method": m, "n": int(n), "error": float(C.rms_error(v, truth)),
                     "max_error": float(C.max_error(v, truth))})
    return rows


def fit_slope(ns, errors) -> float:
    """Least-squares slope of log(error) on log(n)."""
    x, y = np.log(np.asarray(ns, dtype=float)), np.log(np.asarray(errors, dtype=float))
    return float(np.polyfit(x, y, 1)[0])




"""Sample-complexity calculator: explicit upper bounds, the packing lower bound and the empirical n*(α)
(Błasiok, Bun, Nikolov & Steinke 2019, §1.2–1.3, Thm 1.2–1.4, Lemma B.2).

All explicit constants are ours: the paper states its bounds up to absolute constants and its formulas
were lost, so the formulas below are RECONSTRUCTED (derived from the surviving proofs with explicit
constants). They depend only on the public universe X and ρ (or ε):

* Gaussian only:      n = diam₂(X)/(α√(2ρ))                              (exact: err₂ = σ)
* Projection:         n = diam₂(X) w(X)/(α² k √(2ρ))                     (E‖ŷ − x̄‖² ≤ σ w(X))
* Coarse projection:  n = 4 diam₂(Y) w(Y)/(α² k √(2ρ)), Y the (α/2)-net  (err₂ ≤ α/2 + projection error on Y)
* Chaining:           n = 4 (Σ_i (diam₂(X_i) w(X_i)/(k √(2ρ_i)))^{1/2})²/α², uniform ρ_i
* Lower bound:        n ≥ max_{β ≥ α} (β/α) √(((3/4) ln s(4β) − ln 2)/ρ), s = greedy packing size
  (Fano with I(D; M(D)) ≤ ρn² on a 4β-separated set, plus the padding reduction).
* Local (heuristic):  projection n = (R C_ε w(X)/(k α²))², raw average n = (R C_ε/α)².

The greedy packing size s(t) satisfies sep(X, 2t) ≤ s(t) ≤ sep(X, t), so the lower bound uses a
quantity within a factor-2 change of scale of the paper's sep₂.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_choice, check_int, check_rho
from ..errors import DPValueError
from ._central import rms_error
from ._geometry import (
    decompose_workload,
    diameter,
    greedy_net,
    mean_width,
    net_of_workload,
    workload_width,
)
from ._local import c_epsilon
from ._workloads import WorkloadSpec, mean_point
from .configs import ChainingConfig, CoarseConfig, GaussianConfig, ProjectionConfig
from .release._common import sample_outputs

__all__ = [
    "METHODS",
    "Geometry",
    "empirical_sample_complexity",
    "geometry",
    "local_bounds",
    "lower_bound",
    "upper_bounds",
]

METHODS = ("gaussian", "projection", "coarse", "chaining")


@dataclass(frozen=True, eq=False)
class Geometry:
    """Public geometry of a workload: diam₂, Monte-Carlo mean width (± s.e.), packing profile ln s(t)."""

    k: int
    size: int
    diam2: float
    width: float
    width_se: float
    ts: np.ndarray
    log_s: np.ndarray


def geometry(spec: WorkloadSpec, ts=None, *, draws: int = 1000, seed: int = 0) -> Geometry:
    """diam₂, w(X) (``draws`` Gaussian directions from the public ``seed``) and ln s(t) on a grid of scales."""
    wl = spec.build()
    if ts is None:
        top = max(wl.diam2 / math.sqrt(wl.k), 1e-3)
        ts = np.geomspace(top / 64, top, 13)
    ts = np.asarray(ts, dtype=float)
    w, se = workload_width(wl, draws, rng=seed)
    log_s = np.array([math.log(greedy_net(wl.points, float(t), with_assign=False).size) for t in ts])
    return Geometry(k=wl.k, size=wl.size, diam2=wl.diam2, width=w, width_se=se, ts=ts, log_s=log_s)


def _proj_n(diam: float, width: float, k: int, alpha: float, rho: float) -> float:
    return max(diam, 0.0) * max(width, 0.0) / (alpha ** 2 * k * math.sqrt(2 * rho))


def upper_bounds(spec: WorkloadSpec, alpha: float, rho: float, *, draws: int = 500, seed: int = 0) -> dict:
    """The explicit upper bounds on n for target RMS error α (keys: gaussian, projection, coarse, chaining)."""
    rho = check_rho(rho)
    wl = spec.build()
    k = wl.k
    w, _ = workload_width(wl, draws, rng=seed)
    out = {"gaussian": wl.diam2 / (alpha * math.sqrt(2 * rho)), "projection": _proj_n(wl.diam2, w, k, alpha, rho)}
    net = net_of_workload(spec, alpha / 2.0)
    Y = wl.points[net.centers]
    wy = mean_width(Y, draws, rng=seed)[0] if net.size > 1 else 0.0
    out["coarse"] = 4.0 * _proj_n(diameter(Y), wy, k, alpha, rho)
    dec = decompose_workload(spec, float(alpha))
    active = [lv for lv in dec.levels if lv.size > 1]
    if active:
        rho_i = rho / len(active)
        s = sum(math.sqrt(lv.diam2 * max(mean_width(lv.points, draws, rng=seed)[0], 0.0) / (k * math.sqrt(2 * rho_i)))
                for lv in active)
        out["chaining"] = 4.0 * s * s / alpha ** 2
    else:
        out["chaining"] = 0.0
    return out


def lower_bound(geo: Geometry, alpha: float, rho: float) -> float:
    """max_{β ≥ α} (β/α) √(((3/4) ln s(4β) − ln 2)/ρ) over the profile's grid (RECONSTRUCTED Thm 1.4 shape)."""
    rho = check_rho(rho)
    best = 0.0
    for t, ls in zip(geo.ts, geo.log_s):
        beta = t / 4.0
        if beta < alpha:
            continue
        val = 0.75 * ls - math.log(2.0)
        if val > 0:
            best = max(best, beta / alpha * math.sqrt(val / rho))
    return best


def local_bounds(spec: WorkloadSpec, alpha: float, epsilon: float, *, draws: int = 500, seed: int = 0) -> dict:
    """Heuristic local sample sizes (RECONSTRUCTED, constant c = 1): projection and raw average."""
    wl = spec.build()
    c = 0.5 * (wl.points.min(axis=0) + wl.points.max(axis=0))
    R = float(np.sqrt(((wl.points - c) ** 2).sum(axis=1).max()))
    w, _ = workload_width(wl, draws, rng=seed)
    ce = c_epsilon(epsilon)
    return {"local projection": (R * ce * w / (wl.k * alpha ** 2)) ** 2, "local raw average": (R * ce / alpha) ** 2}


def _config(method: str, spec: WorkloadSpec, rho: float, alpha: float) -> Any:
    if method == "gaussian":
        return GaussianConfig(spec, rho, sampler="float")
    if method == "projection":
        return ProjectionConfig(spec, rho)
    if method == "coarse":
        return CoarseConfig(spec, rho, alpha)
    return ChainingConfig(spec, rho, alpha)


def mc_rms_error(method: str, spec: WorkloadSpec, n: int, rho: float, alpha: float, record: int, reps: int,
                 rng: RNGLike) -> float:
    """Monte-Carlo err₂ on the dataset of n copies of universe row ``record`` (a worst-case-style dataset)."""
    data = np.full(int(n), int(record))
    cfg = _config(method, spec, rho, alpha)
    out = sample_outputs(data, cfg, reps, rng)
    truth = mean_point(data, spec.build())
    return float(np.sqrt(np.mean(rms_error(out, truth) ** 2)))


def empirical_sample_complexity(method: str, spec: WorkloadSpec, alpha: float, rho: float, *, record: int = 0,
                                reps: int = 20, n_max: int = 10 ** 7, seed: int = 0) -> int:
    """Smallest n (bisection on log n, common random numbers) with Monte-Carlo err₂ ≤ α on n copies of
    ``record``; ``n_max + 1`` if not reached by ``n_max`` (e.g. coarse/chaining's rounding floor above α)."""
    check_choice(method, "method", METHODS)
    check_rho(rho)
    reps = check_int(reps, "reps", lo=2, hi=10_000)
    n_max = check_int(n_max, "n_max", lo=2, hi=10 ** 9)
    if not 0 < alpha:
        raise DPValueError(f"alpha = {alpha} must be > 0.")

    def err(n):
        return mc_rms_error(method, spec, n, rho, alpha, record, reps, as_generator(seed))

    lo, hi = 1, 1
    while err(hi) > alpha:
        lo = hi
        hi *= 4
        if hi > n_max:
            return n_max + 1
    if hi == 1:
        return 1
    while hi - lo > max(1, lo // 50):   # 2% resolution
        mid = int(math.sqrt(lo * hi))
        mid = min(max(mid, lo + 1), hi - 1)
        if err(mid) <= alpha:
            hi = mid
        else:
            lo = mid
    return hi

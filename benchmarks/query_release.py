"""Query-release speed figures (prints; never a pass/fail test).

1. Exact projection onto conv X for 2-way marginals over d = 12 (|X| = 4096, k = 264) by pairwise
   Frank–Wolfe to a duality gap of 1e-8 (target: under 1 s), beside scipy's SLSQP on the same QP over
   smaller universes (extrapolated to |X| = 4096 by a power-law fit) and plain Frank–Wolfe's gap
   after the same time.
2. Sample-complexity bisection n*(α) for one workload and five α values (target: under 10 s).

Run: ``python benchmarks/query_release.py`` (add ``--quick`` for smaller settings).
"""
from __future__ import annotations

import sys
import time

import numpy as np
from scipy.optimize import minimize

from dpcore.query_release._bounds import METHODS, empirical_sample_complexity
from dpcore.query_release._projection import pairwise_frank_wolfe, plain_frank_wolfe
from dpcore.query_release._workloads import Marginals, Thresholds


def slsqp_projection(P: np.ndarray, y: np.ndarray) -> np.ndarray:
    N = P.shape[0]
    res = minimize(lambda w: 0.5 * np.sum((w @ P - y) ** 2), np.full(N, 1.0 / N), jac=lambda w: P @ (w @ P - y),
                   bounds=[(0, 1)] * N, method="SLSQP", options={"ftol": 1e-12, "maxiter": 5000},
                   constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones(N)}])
    return res.x @ P


def targets(P: np.ndarray, sigmas, seed: int = 0):
    g = np.random.default_rng(seed)
    xbar = P[g.integers(0, P.shape[0], 200)].mean(axis=0)
    return [xbar + s * g.standard_normal(P.shape[1]) for s in sigmas]


def main(quick: bool = False) -> None:
    print("== exact projection, 2-way marginals over d = 12 (|X| = 4096, k = 264), duality gap 1e-8 ==")
    P = Marginals(12, 2).build().points
    sigmas = (0.3, 0.1, 0.03, 0.01)
    for s, y in zip(sigmas, targets(P, sigmas)):
        t0 = time.perf_counter()
        pw = pairwise_frank_wolfe(P, y, tol=1e-8)
        dt = time.perf_counter() - t0
        plain = plain_frank_wolfe(P, y, tol=1e-8, time_limit=dt)
        pure = pairwise_frank_wolfe(P, y, tol=1e-8, correct_every=0, time_limit=dt)
        print(f"  noise σ = {s:<5g} pairwise FW: {dt:6.3f} s, {pw.iterations:6d} iterations, gap {pw.gap:.1e} "
              f"(converged: {pw.converged}) | plain FW after the same time: gap {plain.gap:.1e} "
              f"({plain.iterations} iterations) | pairwise FW without corrective steps: gap {pure.gap:.1e}")

    print("== generic QP (scipy SLSQP) on smaller universes, extrapolated ==")
    sizes, times = [], []
    for d in ((5, 6, 7) if quick else (5, 6, 7, 8)):
        Pd = Marginals(d, 2).build().points
        y = targets(Pd, (0.1,))[0]
        t0 = time.perf_counter()
        ys = slsqp_projection(Pd, y)
        dt = time.perf_counter() - t0
        t1 = time.perf_counter()
        ref = pairwise_frank_wolfe(Pd, y, tol=1e-10).y
        dpw = time.perf_counter() - t1
        sizes.append(Pd.shape[0])
        times.append(dt)
        print(f"  d = {d} (|X| = {Pd.shape[0]:4d}, k = {Pd.shape[1]:3d}): SLSQP {dt:7.3f} s vs pairwise FW {dpw:.4f} s; "
              f"max |difference| = {np.abs(ys - ref).max():.1e}")
    slope, icpt = np.polyfit(np.log(sizes), np.log(times), 1)
    print(f"  SLSQP time ∝ |X|^{slope:.2f}: extrapolated to |X| = 4096: {np.exp(icpt) * 4096 ** slope:,.0f} s")

    print("== sample-complexity bisection n*(α): thresholds over [128], ρ = 0.5, records at u = 128 ==")
    spec = Thresholds(128)
    t0 = time.perf_counter()
    for a in (0.4, 0.2, 0.1, 0.05, 0.025):
        ns = {m: empirical_sample_complexity(m, spec, a, 0.5, record=127, reps=10 if quick else 20) for m in METHODS}
        print(f"  α = {a:<6g}" + "  ".join(f"{m}: {v:>6d}" for m, v in ns.items()))
    print(f"  total {time.perf_counter() - t0:.2f} s for five α values × {len(METHODS)} methods")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

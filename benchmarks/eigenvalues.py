"""Speed figures for dpcore.single_parameter (prints a report; not a test).

1. At n = 1e5, d = 20 (robust regression, unit sphere, t₃ noise): the non-private fit (Newton solve +
   Hessian eigenvalues) beside Algorithm 2 (certified λ_min bound: validation, clipping, fit, ladder,
   count, Laplace) and Algorithm 5 (propose-test-release of ⟨e₁, θ⟩). Target: each within 3× the fit.
2. The ``eigen-bounds`` figure at its default size (7 ratios n/d × 25 replicates × d ∈ {5, 10, 20}).
   Target: under 2 minutes on this machine.

Usage::

    python benchmarks/eigenvalues.py            # both parts
    python benchmarks/eigenvalues.py --quick    # part 1 and a reduced figure (5 replicates)
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcore.experiments import run_experiment  # noqa: E402
from dpcore.single_parameter import FunctionalConfig, LambdaMinConfig, functional, lambda_min  # noqa: E402
from dpcore.single_parameter._fit import extreme_eigenvalues, fit  # noqa: E402
from dpcore.single_parameter.designs import robust_regression  # noqa: E402


def _median_time(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def part1(repeat: int) -> None:
    n, d = 100_000, 20
    X, y, _ = robust_regression(n, d, rng=1)
    data = (X, y)

    def nonprivate():
        F = fit("robust", X, y)
        return extreme_eigenvalues(F.H)

    # interleaved repeats, so that load on the shared machine hits the three timings alike
    times = {"fit": [], "a2": [], "a5": []}
    for _ in range(repeat):
        for key, fn in (("fit", nonprivate),
                        ("a2", lambda: lambda_min.release(data, LambdaMinConfig(), rng=2)),
                        ("a5", lambda: functional.release(data, FunctionalConfig(), rng=3))):
            t, out = _median_time(fn, 1)
            times[key].append(t)
            if key == "fit":
                lo, hi = out
            elif key == "a2":
                r2 = out
            else:
                r5 = out
    t_fit, t_a2, t_a5 = (statistics.median(times[k]) for k in ("fit", "a2", "a5"))
    print(f"n = {n:,}, d = {d} (median of {repeat} runs)")
    print(f"  non-private fit (Newton + eigvalsh) : {t_fit:7.3f} s   λ_min = {lo:.5f}, λ_max = {hi:.5f}")
    print(f"  Algorithm 2 (certified λ_min)       : {t_a2:7.3f} s   ({t_a2 / t_fit:.2f}× the fit)   λ̂ = {r2.value:.5f}")
    print(f"  Algorithm 5 (⟨e₁, θ⟩, PTR)          : {t_a5:7.3f} s   ({t_a5 / t_fit:.2f}× the fit)   value = "
          f"{r5.value:.5f} ({'released' if np.isfinite(r5.value) else '⊥'})")
    print(f"  target: within 3× -> {'OK' if max(t_a2, t_a5) <= 3 * t_fit else 'MISSED'}")


def part2(reps: int) -> None:
    t = time.perf_counter()
    frame = run_experiment("eigen-bounds", reps=reps, seed=2019, jobs=-1)
    el = time.perf_counter() - t
    print(f"\neigen-bounds figure, {reps} replicates, all ratios and d: {el:.1f} s "
          f"(target < 120 s at 25 replicates: {'OK' if el < 120 or reps != 25 else 'MISSED'})")
    tab = frame.groupby(["n_over_d", "method"])["error"].mean().unstack()
    print("mean relative error (λ_min − λ̂)/λ_min:")
    print(tab.to_string(float_format=lambda v: f"{v:.4f}"))
    print(f"coverage λ̂ ≤ λ_min over all {len(frame)} units: {frame['covered'].mean():.4f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    part1(repeat=5)
    part2(reps=5 if a.quick else 25)

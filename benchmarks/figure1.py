"""Benchmark of Figure 1 (KNG paper, linear regression, n = 1e2 … 1e7): prints figures, asserts nothing.

(a) floor: time to generate Figure 1's data and reduce it to sufficient statistics alone (the same
    tasks and worker processes as the full run, non-private OLS only);
(b) total: time of ``python -m dpcore reproduce kng-linear`` (run in-process, writing CSV + HTML);
(c) the ratio (b)/(a) — target ≤ 1.5;
(d) per-step cost of a naive sampler that recomputes the O(nd) gradient Xᵀ(y − Xθ) at every
    proposal, at n = 1e5 and n = 1e7, and its extrapolated total for the full figure.

Usage: python benchmarks/figure1.py [--reps 100] [--jobs -1] [--skip-total] [--skip-naive]
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dpcore import kng  # noqa: E402
from dpcore.experiments import registry, run_experiment  # noqa: E402


def floor(reps: int, jobs: int, seed: int, experiment: str = "kng-linear") -> float:
    """Seconds for the experiment's data and its non-private fit alone (same tasks and workers)."""
    t = time.perf_counter()
    run_experiment(experiment, reps=reps, jobs=jobs, seed=seed, methods=["nonprivate"])
    return time.perf_counter() - t


def total(reps: int, jobs: int, seed: int, outdir: str | None = None,
          experiment: str = "kng-linear") -> tuple[float, str]:
    """Seconds and printed summary of ``python -m dpcore reproduce <experiment>`` (run in-process)."""
    from dpcore.__main__ import main

    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        code = main(["reproduce", experiment, "--reps", str(reps), "--jobs", str(jobs), "--seed", str(seed),
                     "--out", outdir or tmp, "--quiet"], out=out, err=sys.stderr)
        el = time.perf_counter() - t
    if code != 0:
        raise SystemExit(f"reproduce failed with exit code {code}")
    return el, out.getvalue()


def naive_step_seconds(n: int, steps: int, rng: np.random.Generator) -> float:
    """Seconds per proposal when the ℓ∞ gradient norm is recomputed from the full data."""
    theta = kng.figure1_theta()
    X, y = kng.simulate_regression(min(n, 10**6), theta, rng=rng)
    if n > X.shape[0]:                       # tile to n rows (the cost, not the law, is measured)
        k = -(-n // X.shape[0])
        X = np.tile(X, (k, 1))[:n]
        y = np.tile(y, k)[:n]
    th = np.zeros(theta.size)
    t = time.perf_counter()
    for s in range(steps):
        th[s % th.size] += 1e-3
        r = y - X @ th                       # O(nd)
        g = X.T @ r                          # O(nd)
        float(np.max(np.abs(g)))
    return (time.perf_counter() - t) / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=2019)
    ap.add_argument("--out", default=None, help="keep the CSV/HTML of the full run here (default: a temporary directory)")
    ap.add_argument("--skip-total", action="store_true")
    ap.add_argument("--skip-naive", action="store_true")
    args = ap.parse_args()
    exp = registry()["kng-linear"]
    print(f"Figure 1 benchmark: ns = {exp.axis.values}, reps = {args.reps}, jobs = {args.jobs}, "
          f"cpu count = {os.cpu_count()}, sweeps = {exp.options['sweeps']}")
    a = floor(args.reps, args.jobs, args.seed)
    print(f"(a) data + sufficient statistics alone (floor): {a:8.1f} s")
    if not args.skip_total:
        b, report = total(args.reps, args.jobs, args.seed, args.out)
        print(f"(b) python -m dpcore reproduce kng-linear:      {b:8.1f} s")
        print(f"(c) ratio (b)/(a):                              {b / a:8.2f}   (target <= 1.5)")
        print("\n--- reproduce summary ---\n" + report)
    if not args.skip_naive:
        rng = np.random.default_rng(args.seed)
        per = {n: naive_step_seconds(n, steps, rng) for n, steps in ((10**5, 200), (10**7, 6))}
        sweeps, d = exp.options["sweeps"], len(kng.figure1_theta())
        b_row = (per[10**7] - per[10**5]) / (10**7 - 10**5)
        a0 = max(per[10**5] - b_row * 10**5, 0.0)
        steps_per_chain = sweeps * d
        chains = args.reps * 2               # KNG and the exponential mechanism need MCMC
        total_s = sum((a0 + b_row * n) * steps_per_chain * chains for n in exp.axis.values)
        for n, s in per.items():
            print(f"(d) naive O(nd) gradient per MCMC step at n = {n:.0e}: {s * 1e3:10.3f} ms")
        print(f"    naive total for the full figure ({sweeps} sweeps x {d} coordinates x {chains} chains per n, "
              f"one core): {total_s:.3g} s = {total_s / 86400:.3g} days")


if __name__ == "__main__":
    main()

"""Benchmark of Figure 2 (KNG paper, quantile regression, n = 10 … 1e5): prints figures, asserts nothing.

Times the data alone (non-private fit only) and ``python -m dpcore reproduce kng-quantile-regression``
at the paper's 100 replicates (target: under 2 minutes on 2 cores).

Usage: python benchmarks/figure2.py [--reps 100] [--jobs -1]
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dpcore.experiments import run_experiment  # noqa: E402


def main() -> None:
    from dpcore.__main__ import main as cli

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=2019)
    ap.add_argument("--out", default=None, help="keep the CSV/HTML of the full run here (default: a temporary directory)")
    args = ap.parse_args()
    t = time.perf_counter()
    run_experiment("kng-quantile-regression", reps=args.reps, jobs=args.jobs, seed=args.seed, methods=["nonprivate"])
    a = time.perf_counter() - t
    print(f"data + non-private quantile regression alone: {a:8.1f} s")
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        code = cli(["reproduce", "kng-quantile-regression", "--reps", str(args.reps), "--jobs", str(args.jobs),
                    "--seed", str(args.seed), "--out", args.out or tmp, "--quiet"], out=out, err=sys.stderr)
        b = time.perf_counter() - t
    print(f"python -m dpcore reproduce kng-quantile-regression: {b:8.1f} s   (target < 120 s)  exit {code}")
    print("\n--- reproduce summary ---\n" + out.getvalue())


if __name__ == "__main__":
    main()

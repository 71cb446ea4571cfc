"""Benchmark of Figure 2 (KNG paper, quantile regression, n = 10 … 1e5): prints figures, asserts nothing.

Times the data alone (non-private fit only) and ``python -m dpcore reproduce kng-quantile-regression``
at the paper's 100 replicates (target: under 2 minutes on 2 cores). Reuses the timing helpers of
benchmarks/figure1.py.

Usage: python benchmarks/figure2.py [--reps 100] [--jobs -1] [--seed 2019] [--out DIR]
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from figure1 import floor, total  # noqa: E402

EXPERIMENT = "kng-quantile-regression"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=2019)
    ap.add_argument("--out", default=None, help="keep the CSV/HTML of the full run here (default: a temporary directory)")
    args = ap.parse_args()
    a = floor(args.reps, args.jobs, args.seed, EXPERIMENT)
    print(f"data + non-private quantile regression alone: {a:8.1f} s")
    b, report = total(args.reps, args.jobs, args.seed, args.out, EXPERIMENT)
    print(f"python -m dpcore reproduce {EXPERIMENT}: {b:8.1f} s   (target < 120 s)")
    print("\n--- reproduce summary ---\n" + report)


if __name__ == "__main__":
    main()

"""Calibration runs of the query-release lab's time model (dpcore/query_release/_cost.py; issue 18).

Runs :func:`dpcore.query_release.run_lab` at the page's defaults (methods gaussian, projection, coarse, chaining,
local-projection; n ≤ 1000; 4 replicates; α down to 0.05) on w-way marginals for several d, and prints per phase
the measured seconds (wall and CPU of this process, from the lab's progress ticks) beside the model's terms:

* releases   — the simulated releases (ticks 1 … |ns|·|methods|) ↔ "simulated central releases" + "local reports"
* geometry   — the packing profile (one tick) ↔ part of "greedy nets" (13 profile scales)
* per-α      — upper bounds (α/2 nets, chaining levels) and the empirical sample complexity ↔ the rest of "greedy
  nets" + "sample-complexity releases"

The model is fitted to CPU seconds (what one core gives the run; wall seconds on the shared 2-core machine are
CPU × the share of a core the run got, printed with the load average). Prints; never a pass/fail test.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/query_release_cost.py --d 6 7 8 9``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure(d: int, w: int = 2) -> None:
    from dpcore.limits import work
    from dpcore.query_release import _cost as cost
    from dpcore.query_release import _lab as lab
    from dpcore.query_release import _workloads as W

    cfg = lab.LabConfig(W.Marginals(d, w), dataset="two far points",
                        methods=("gaussian", "projection", "coarse", "chaining", "local-projection"),
                        ns=(10, 30, 100, 300, 1000), reps=4, alphas=(0.4, 0.2, 0.1, 0.05))
    marks = []

    def progress(done: int, total: int) -> bool:
        marks.append((done, time.perf_counter(), time.process_time()))
        return True

    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    lab.run_lab(cfg, rng=0, progress=progress)
    n_rel = len(cfg.ns) * len(cfg.methods)
    rel, geo = marks[n_rel - 1], marks[n_rel]
    phases = {"releases": (rel[1] - t0, rel[2] - c0), "geometry": (geo[1] - rel[1], geo[2] - rel[2]),
              "per-α": (marks[-1][1] - geo[1], marks[-1][2] - geo[2])}
    terms = {k: work(f) * u for k, (f, u) in cost.lab_terms(cfg).items()}
    wall, cpu = marks[-1][1] - t0, marks[-1][2] - c0
    print(f"d = {d}, w = {w}: estimate {sum(terms.values()):6.1f} s; measured wall {wall:6.1f} s, CPU {cpu:6.1f} s "
          f"(load {load0:.1f} → {os.getloadavg()[0]:.1f})")
    for k, (pw, pc) in phases.items():
        print(f"    {k:<10} wall {pw:6.1f} s  CPU {pc:6.1f} s")
    for k, v in terms.items():
        print(f"    model: {k:<28} {v:6.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="*", default=[6, 7, 8, 9])
    ap.add_argument("--w", type=int, default=2)
    args = ap.parse_args()
    for d in args.d:
        measure(d, args.w)


if __name__ == "__main__":
    main()

"""Speed figures for dpcore.histograms (prints a report; not a test).

1. The thresholded histogram by the sparse sampler (cost O(q + F)) at p = 2^30, q = 10^4
   (n = 10^5): target under 0.5 s per release.
2. Beside it, the dense (naive) path at p = 2^20 — the same law, drawing p noise values — and the
   sparse sampler at p = 2^20 on a table with the same q and n.
3. (Moved) The Laplace release in every cell at p = 2^20, from the records (aggregation included) against a
   plain numpy version: ``benchmarks/peers.py`` (task 2).
4. Issue 36, the count of surviving empty cells: before (numpy's ``binomial`` at the double-precision survival
   probability, the sampler's step until issue 36) against after (the exact binomial, ``dpcore._binomial``) at
   p = 10^6 and 10^9 cells, q = 1 000: the step alone, and one release and 100 replicates of the sparse sampler
   (τ = b·log p: about ½ survivor per release; τ = b·log(p/2 000): about 10^3).

Usage::

    python benchmarks/histograms.py            # median of 7 releases each
    python benchmarks/histograms.py --repeat 3
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from dpcore import histograms as H  # noqa: E402
from dpcore.histograms import _sampling  # noqa: E402
from dpcore.histograms.release import threshold  # noqa: E402


def _median_time(fn, repeat: int):
    times, out = [], None
    fn()                                            # warm-up (imports, first allocation)
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def _numpy_binomial_count(kind, b, tau, M, g):
    """The step before issue 36 (for the comparison only): numpy's binomial at the double-precision probability."""
    return g.binomial(M, _sampling.survival_probability(kind, b, tau))


def exact_binomial_before_after(repeat: int) -> None:
    """Section 4: the surviving-empty-cells count, numpy's float binomial (before) against the exact one (after)."""
    exact_step = _sampling._surviving_empty
    print(f"\n4. count of surviving empty cells (issue 36): numpy binomial (before) vs exact (after), q = 1,000, "
          f"median of {repeat}")
    print(f"{'cells p':>8} {'τ rule':<16} {'what':<22} {'before':>10} {'after':>10} {'ratio':>6}")
    for p in (10**6, 10**9):
        table = H.sparse_table(p, 1000, 10_000, rng=5)
        for rule, kw in (("log p", {}), ("public q bound", {"q_bound": 2000})):
            cal = H.calibrate_threshold(H.ThresholdConfig(1.0, p, tau_rule=rule, **kw), (1,))
            tau = np.full(100, cal.constant * np.log(p / (cal.params["q_for_tau"])))
            g = np.random.default_rng(7)
            cases = (("the count, 100 reps", lambda f, c=cal, t=tau, p=p, g=g: f("geometric", c.constant, t, p - 1000, g)),
                     ("one release", lambda f, t=table, c=cal, g=g: _sampling.sample_threshold(t, c, 1, g)),
                     ("100 replicates", lambda f, t=table, c=cal, g=g: _sampling.sample_threshold(t, c, 100, g)))
            for what, run in cases:
                times = {}
                for label, step in (("before", _numpy_binomial_count), ("after", exact_step)):
                    _sampling._surviving_empty = step
                    try:
                        times[label], _ = _median_time(lambda run=run, step=step: run(step), repeat)
                    finally:
                        _sampling._surviving_empty = exact_step
                print(f"{p:>8.0e} {rule:<16} {what:<22} {times['before'] * 1e3:>7.2f} ms {times['after'] * 1e3:>7.2f} ms "
                      f"{times['after'] / times['before']:>5.2f}×")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    q, n = 10_000, 100_000
    big = H.sparse_table(2**30, q, n, rng=1)
    mid = H.sparse_table(2**20, q, n, rng=2)
    rows = []
    for label, table, cfg in (
        ("threshold, sparse sampler, p = 2^30", big, H.ThresholdConfig(1.0, 2**30)),
        ("threshold, sparse sampler, p = 2^20", mid, H.ThresholdConfig(1.0, 2**20)),
        ("threshold, dense (naive) path, p = 2^20", mid, H.ThresholdConfig(1.0, 2**20, sampler="dense")),
    ):
        t, rel = _median_time(lambda t=table, c=cfg: threshold.release(t, c, rng=3), args.repeat)
        rows.append((label, t, rel.value.nnz))
    print(f"q = {q:,} occupied cells, n = {n:,} records, ε = 1, replace-one; median of {args.repeat} releases")
    print(f"{'release':<42} {'time':>10} {'cells released':>16}")
    for label, t, nnz in rows:
        print(f"{label:<42} {t * 1e3:>8.2f} ms {nnz:>16,}")
    sparse_big, dense_mid = rows[0][1], rows[2][1]
    verdict = "OK" if sparse_big < 0.5 else "SLOWER THAN TARGET"
    print(f"\nsparse sampler at p = 2^30: {sparse_big * 1e3:.2f} ms (target < 500 ms: {verdict}); dense path at "
          f"p = 2^20: {dense_mid * 1e3:.2f} ms ({dense_mid / sparse_big:.1f}× the sparse sampler at 1024× fewer cells)")
    exact_binomial_before_after(args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

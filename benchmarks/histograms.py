"""Speed figures for dpcore.histograms (prints a report; not a test).

1. The thresholded histogram by the sparse sampler (cost O(q + F)) at p = 2^30, q = 10^4
   (n = 10^5): target under 0.5 s per release.
2. Beside it, the dense (naive) path at p = 2^20 — the same law, drawing p noise values — and the
   sparse sampler at p = 2^20 on a table with the same q and n.
3. The Laplace release (every cell) at p = 2^20.

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

from dpcore import histograms  # noqa: E402


def _median_time(fn, repeat: int):
    times, out = [], None
    fn()                                            # warm-up (imports, first allocation)
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    q, n = 10_000, 100_000
    big = histograms.sparse_table(2**30, q, n, rng=1)
    mid = histograms.sparse_table(2**20, q, n, rng=2)
    rows = []
    for label, table, cfg in (
        ("threshold, sparse sampler, p = 2^30", big, histograms.ThresholdConfig(1.0, 2**30)),
        ("threshold, sparse sampler, p = 2^20", mid, histograms.ThresholdConfig(1.0, 2**20)),
        ("threshold, dense (naive) path, p = 2^20", mid, histograms.ThresholdConfig(1.0, 2**20, sampler="dense")),
    ):
        t, rel = _median_time(lambda t=table, c=cfg: histograms.release.threshold.release(t, c, rng=3), args.repeat)
        rows.append((label, t, rel.value.nnz))
    t, rel = _median_time(lambda: histograms.release.laplace.release(mid, histograms.HistogramConfig(1.0, 2**20), rng=4), args.repeat)
    rows.append(("Laplace in every cell, p = 2^20", t, int((rel.value != 0).sum())))
    print(f"q = {q:,} occupied cells, n = {n:,} records, ε = 1, replace-one; median of {args.repeat} releases")
    print(f"{'release':<42} {'time':>10} {'cells released':>16}")
    for label, t, nnz in rows:
        print(f"{label:<42} {t * 1e3:>8.2f} ms {nnz:>16,}")
    sparse_big, dense_mid = rows[0][1], rows[2][1]
    verdict = "OK" if sparse_big < 0.5 else "SLOWER THAN TARGET"
    print(f"\nsparse sampler at p = 2^30: {sparse_big * 1e3:.2f} ms (target < 500 ms: {verdict}); dense path at "
          f"p = 2^20: {dense_mid * 1e3:.2f} ms ({dense_mid / sparse_big:.1f}× the sparse sampler at 1024× fewer cells)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

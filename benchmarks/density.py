"""Density speed figures (prints; never a pass/fail test).

GP-KDE on a 512-point grid at n = 10⁶, d = 1, against the project's own non-private KDE on the same grid
(linear binning on 2048 cells, then exact kernel sums over the cells: the same RKHS sensitivity, see
dpcore.density.release.kde): what the privacy adds. Also prints the largest gap between the binned KDE and the exact
kernel sums. The comparison with a like-for-like peer (a numpy FFT binned KDE on the same grid, interleaved, one
BLAS thread) is task 3 of ``benchmarks/peers.py``; scikit-learn's KernelDensity is exact (O(n·grid)), not a peer
of a binned KDE, and is no longer timed here.

Run: ``python benchmarks/density.py`` (``--quick``: n = 10⁵) with ``OPENBLAS_NUM_THREADS=1`` on a shared machine.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from dpcore import density as K
from dpcore.density import _kde
from dpcore.density.release import kde as gp


def best_of(fn, repeat: int = 5) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(quick: bool = False) -> None:
    n = 100_000 if quick else 1_000_000
    x = np.random.default_rng(0).beta(2, 5, n)
    cfg = K.GPKDEConfig(epsilon=1.0, delta=1e-3, bandwidth=0.02, grid=512)
    print(f"== KDE on a 512-point grid, n = {n:,}, d = 1, h = {cfg.bandwidth} ==")
    t_own, f_own = best_of(lambda: K.nonprivate_kde(x, cfg))
    t_gp, _ = best_of(lambda: gp.release(x, cfg, rng=1))
    print(f"own non-private KDE (linear binning, 2048 cells): {t_own:.3f} s")
    print(f"GP-KDE release (KDE + GP path on the grid):        {t_gp:.3f} s   ratio GP/own = {t_gp / t_own:.2f}"
          f"  (target ≤ 2)")
    sub = x[:20_000, None]
    exact = _kde.kde_on_grid(sub, cfg.bandwidth, 512)
    binned = _kde.kde_on_grid(sub, cfg.bandwidth, 512, binning=True, bins=cfg.bins)
    print(f"binned vs exact kernel sums (n = 20 000): max |Δf| = {np.abs(exact - binned).max():.2e} "
          f"(max f = {exact.max():.3f})")
    print("speed against a like-for-like peer (a numpy FFT binned KDE on the same grid): benchmarks/peers.py task 3")

if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

"""Density speed figures (prints; never a pass/fail test).

GP-KDE on a 512-point grid at n = 10⁶, d = 1, against the project's own non-private KDE on the same grid
(linear binning on 2048 cells, then exact kernel sums over the cells: the same RKHS sensitivity, see
dpcore.density.release.kde) and scikit-learn's KernelDensity (Gaussian kernel, score_samples on the grid).
Targets: GP within 2× of the own KDE; the own KDE faster than scikit-learn. Also prints the largest gap
between the binned KDE and the exact kernel sums, and between the own KDE and scikit-learn's.

Run: ``python benchmarks/density.py`` (``--quick``: n = 10⁵; scikit-learn takes about a minute at 10⁶). On a
shared machine set ``OPENBLAS_NUM_THREADS=1``: the GP factor is a 512 × 512 Cholesky (≈ 20 ms on one thread)
that multi-threaded BLAS can slow 10× under oversubscription. Measured (2 shared cores, one BLAS thread):
own KDE 0.025 s, GP-KDE 0.040 s (1.6×), scikit-learn 38.8 s.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from dpcore import density
from dpcore.density import _kde as K


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
    cfg = density.GPKDEConfig(epsilon=1.0, delta=1e-3, bandwidth=0.02, grid=512)
    print(f"== KDE on a 512-point grid, n = {n:,}, d = 1, h = {cfg.bandwidth} ==")
    t_own, f_own = best_of(lambda: K.nonprivate_kde(x, cfg))
    t_gp, _ = best_of(lambda: density.release.kde.release(x, cfg, rng=1))
    print(f"own non-private KDE (linear binning, 2048 cells): {t_own:.3f} s")
    print(f"GP-KDE release (KDE + GP path on the grid):        {t_gp:.3f} s   ratio GP/own = {t_gp / t_own:.2f}"
          f"  (target ≤ 2)")
    sub = x[:20_000, None]
    exact = K.kde_on_grid(sub, cfg.bandwidth, 512)
    binned = K.kde_on_grid(sub, cfg.bandwidth, 512, binning=True, bins=cfg.bins)
    print(f"binned vs exact kernel sums (n = 20 000): max |Δf| = {np.abs(exact - binned).max():.2e} "
          f"(max f = {exact.max():.3f})")
    from sklearn.neighbors import KernelDensity
    g = K.grid_axis(512)[:, None]
    t0 = time.perf_counter()
    kd = KernelDensity(kernel="gaussian", bandwidth=cfg.bandwidth).fit(x[:, None])
    f_sk = np.exp(kd.score_samples(g))
    t_sk = time.perf_counter() - t0
    print(f"scikit-learn KernelDensity (fit + score_samples): {t_sk:.3f} s   ratio sklearn/own = {t_sk / t_own:.1f}"
          f"  (target > 1)")
    print(f"own vs scikit-learn: max |Δf| = {np.abs(f_own - f_sk).max():.2e}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

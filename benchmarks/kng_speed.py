"""Speed figures for dpcore.kng (prints a report; not a test).

1. (Moved) The private median at n = 1e6 against np.median, OpenDP and diffprivlib, interleaved with
   equal repeats: ``benchmarks/peers.py`` (task 1).
2. KNG linear regression on sufficient statistics, 100 chains x 10 000 sweeps, d = 12 (the paper's
   Figure 1 design), at n = 1e2, 1e3 and 1e7: the sampling cost must not depend on n (O(d) per
   coordinate update); acceptance, R-hat and ESS (pooled over the chains, which share one dataset)
   at every n.

Usage::

    python benchmarks/kng_speed.py            # full (about a minute on 2 cores)
    python benchmarks/kng_speed.py --quick    # 1 000 sweeps
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcore import kng  # noqa: E402
from dpcore import mcmc  # noqa: E402


def _timeit(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def regression_benchmark(sweeps: int, chains: int, ns=(100, 1000, 10_000_000), mechanisms=("kng",)) -> None:
    theta = kng.figure1_theta()
    d = theta.size
    print(f"\n== Linear regression on sufficient statistics: d = {d}, {chains} chains x {sweeps:,} sweeps ==")
    print(f"{'mechanism':<12}{'n':>12}{'suffstats s':>13}{'sampling s':>12}{'accept':>8}{'max R-hat':>11}"
          f"{'min ESS':>9}{'‖θ̃−θ̂‖₂ med':>14}")
    for n in ns:
        t = time.perf_counter()
        st = kng.regression_suffstats_chunked(n, theta, rng=n)
        sc, _ = st.rescaled()  # the paper's protocol (y / max|y|): fine for a speed benchmark
        t_suff = time.perf_counter() - t
        A = np.broadcast_to(sc.XtX, (chains, d, d))
        b = np.broadcast_to(sc.Xty, (chains, d))
        ols = np.linalg.solve(sc.XtX, sc.Xty)
        for mech in mechanisms:
            t = time.perf_counter()
            res = kng.sample_linear_regression_suffstats(A, b, n, mechanism=mech, epsilon=1.0, B=1.0,
                                                         n_sweeps=sweeps, rng=7, keep_trace=True)
            t_s = time.perf_counter() - t
            rhat = float(np.max(mcmc.split_rhat(res.trace)))      # pooled: every chain targets the same law
            ess = float(np.min(mcmc.effective_sample_size(res.trace)))
            err = float(np.median(np.linalg.norm(res.theta - ols, axis=1)))
            print(f"{mech:<12}{n:>12,}{t_suff:>13.2f}{t_s:>12.2f}{res.diagnostics.acceptance:>8.3f}{rhat:>11.4f}"
                  f"{ess:>9.0f}{err:>14.3g}")


def budget_benchmark(work: float = 3e7) -> None:
    """Seconds per unit of the release path's work budget (dpcore.kng.release._engine.MAX_WORK = 3e8): one release
    of each MCMC-sampled problem sized to ``work`` units, so the cap's wall time can be read off."""
    from dpcore.kng.release import _engine as _release

    g = np.random.default_rng(0)
    print(f"\nRelease-path work budget (cap {_release.MAX_WORK:.0e} units): time for {work:.0e} units")
    cases = []
    for n in (1_000, 5_000):
        X = np.c_[np.ones(n), g.uniform(-1, 1, n)]
        y = np.clip(0.2 - 0.4 * X[:, 1] + 0.3 * g.normal(size=n), -1, 1)
        cases += [("quantile_regression", (X, y), m, {}) for m in ("kng", "exponential")]
    cases.append(("median", g.normal(size=(2_000, 2)), "kng", {"bounds": (-4, 4)}))
    cases.append(("linear_regression", cases[0][1], "kng", {}))
    for problem, data, mech, kw in cases:
        cfg = kng.make(problem, mechanism=mech, epsilon=1.0, size=50, n_sweeps=100, **kw)
        prob, P, _ = kng.prepared(data, cfg)
        per_sweep = _release.mcmc_work(prob, P, cfg)[0] / 100
        sweeps = max(10, int(work / per_sweep))
        t0 = time.perf_counter()
        kng.sample(problem, data, mechanism=mech, epsilon=1.0, size=50, n_sweeps=sweeps, rng=1, **kw)
        dt = time.perf_counter() - t0
        units = sweeps * per_sweep
        print(f"  {problem:<20}{mech:<12} n={P.n:>6}  {units:9.2g} units in {dt:6.2f} s  "
              f"-> the cap would take ~{dt * _release.MAX_WORK / units:5.1f} s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 000 sweeps instead of 10 000")
    ap.add_argument("--chains", type=int, default=100)
    ap.add_argument("--exponential", action="store_true", help="also time the exponential mechanism")
    args = ap.parse_args(argv)
    mechs = ("kng", "exponential") if args.exponential else ("kng",)
    regression_benchmark(1_000 if args.quick else 10_000, args.chains, mechanisms=mechs)
    budget_benchmark(1e7 if args.quick else 3e7)


if __name__ == "__main__":
    main()

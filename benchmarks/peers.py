"""The project against its peers and against its own non-private floor, like with like (prints a table; not a test).

For each task every method runs once per round, the rounds interleaved (so a load spike hits all of them), on the
same data, with ONE BLAS/OpenMP thread (env vars set before numpy loads, and threadpoolctl). For each peer the
table gives project / peer as min–max over the rounds (ratio of the same round's times), in CPU time and in wall
time; below 1 the project is faster. "floor" is the non-private computation a release cannot avoid (np.median, a
numpy Laplace histogram, a numpy FFT binned KDE, one XᵀX), i.e. the ratio says what privacy and checks cost.

Tasks (n, p, grids as in issue 21):

1. private median, n = 10⁶, public bounds [−10, 10], ε = 1: ``kng.release`` (KNG, exact sampler) vs np.median
   (floor), OpenDP ``make_private_quantile`` (1 001 candidates; its input already a Python list: the conversion is
   not timed), diffprivlib ``tools.median``.
2. Laplace in every cell, p = 2²⁰, from n = 10⁵ integer records (aggregation included on both sides): ``as_counts``
   + ``histogram_release`` vs numpy bincount + Laplace (floor).
3. GP-KDE, n = 10⁶, 512-point grid, h = 0.02, d = 1: ``gp_release`` (linear binning on 2 048 cells + GP path) vs a
   numpy FFT binned KDE on the same grid (floor: binning on the 512 grid and one FFT convolution, no privacy).
   scikit-learn's ``KernelDensity`` is exact (O(n·grid)), so it is not a like-for-like peer and is left out.
4. LASSO, n = 10⁶, p = 100, T = 1 000 (Gram path, no intercept, data in the domain): private Frank–Wolfe
   ``release(diagnostics=False)`` vs one XᵀX (floor) and scikit-learn's non-private ``Lasso(precompute=True)``
   (which forms XᵀX too) at an α giving a similar support size.
5. Exact projection onto conv X, 2-way marginals over d = 12 (|X| = 4 096, k = 264), duality gap 1e-8: pairwise
   Frank–Wolfe vs scipy ``nnls`` on the sum-to-one-augmented system and cvxpy + Clarabel on the QP.

Peers that are not installed are reported as such. They are not runtime or CI requirements: install them with
``pip install -r requirements-bench.txt``. diffprivlib 0.6.6 fails to import with scikit-learn ≥ 1.8 (its tree
models); its ``tools`` subpackage does not need them and is loaded without the package's ``__init__``.

Usage::

    python benchmarks/peers.py            # about 3 minutes on 2 cores
    python benchmarks/peers.py --quick    # n = 10⁵ (10⁵ × 100 for the LASSO), 2 rounds
    python benchmarks/peers.py --app      # and first_load.py and load.py --sessions 50 (≈ 6 more minutes)

The last lines print issue 21's targets — each task's ratio to its floor, and with ``--app`` the first load of
every page and 50 concurrent sessions — with the measured figure and whether it is met.
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _diffprivlib_tools():
    """diffprivlib.tools without diffprivlib/__init__ (which imports its scikit-learn tree models)."""
    spec = importlib.util.find_spec("diffprivlib")
    if spec is None:
        return None
    if "diffprivlib" not in sys.modules:
        pkg = types.ModuleType("diffprivlib")
        pkg.__path__ = list(spec.submodule_search_locations or [])
        sys.modules["diffprivlib"] = pkg
    import diffprivlib.tools as tools
    return tools


def interleaved(methods: dict, rounds: int) -> dict:
    """{name: [(cpu, wall), ...]}: every method once per round, in the same order each round (after a warm-up)."""
    for f in methods.values():
        f()
    out: dict = {k: [] for k in methods}
    for _ in range(rounds):
        for k, f in methods.items():
            c, w = time.process_time(), time.perf_counter()
            f()
            out[k].append((time.process_time() - c, time.perf_counter() - w))
    return out


class Rows(list):
    """A task's printed lines; ``floor``: project/floor CPU ratio (median, min, max) over the rounds, or None."""

    floor: tuple[float, float, float] | None = None


def report(task: str, times: dict, project: str, floor: str | None, notes: dict | None = None) -> Rows:
    rows = Rows()
    mine = times[project]
    med = lambda v, i: float(np.median([t[i] for t in v]))  # noqa: E731
    rows.append(f"{task}\n  {project:<44} cpu {1e3 * med(mine, 0):9.1f} ms   wall {1e3 * med(mine, 1):9.1f} ms")
    for k, v in times.items():
        if k == project:
            continue
        rc = [a[0] / b[0] for a, b in zip(mine, v)]
        rw = [a[1] / b[1] for a, b in zip(mine, v)]
        tag = "floor" if k == floor else "peer "
        if k == floor:
            rows.floor = (float(np.median(rc)), min(rc), max(rc))
        rows.append(f"  {tag} {k:<38} cpu {1e3 * med(v, 0):9.1f} ms   wall {1e3 * med(v, 1):9.1f} ms   "
                    f"project/{tag.strip()}: cpu {np.median(rc):.2f}× ({min(rc):.2f}–{max(rc):.2f})  "
                    f"wall {np.median(rw):.2f}× ({min(rw):.2f}–{max(rw):.2f})")
    for k, why in (notes or {}).items():
        rows.append(f"  peer  {k:<38} not run: {why}")
    return rows


def task_median(n: int, rounds: int) -> list[str]:
    from dpcore import kng
    y = np.random.default_rng(0).normal(size=n)
    cfg = kng.make("median", mechanism="kng", epsilon=1.0, bounds=(-10, 10))
    g = np.random.default_rng(1)
    methods = {"dpcore kng.release (median, KNG)": lambda: kng.release_for(cfg)(y, cfg, rng=g).value,
               "np.median": lambda: np.median(y)}
    skipped = {}
    try:
        import opendp.prelude as dp
        dp.enable_features("contrib")
        cands = list(np.linspace(-10, 10, 1001))
        m = dp.m.make_private_quantile(dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n),
                                       dp.symmetric_distance(), dp.max_divergence(), candidates=cands, alpha=0.5,
                                       scale=2.0 / 1.0)
        yl = y.tolist()
        methods["OpenDP make_private_quantile"] = lambda: m(yl)
    except Exception as exc:  # noqa: BLE001 — a benchmark reports, it does not fail
        skipped["OpenDP make_private_quantile"] = f"{type(exc).__name__}: {exc}"
    try:
        tools = _diffprivlib_tools()
        if tools is None:
            raise ImportError("diffprivlib is not installed")
        methods["diffprivlib tools.median"] = lambda: tools.median(y, epsilon=1.0, bounds=(-10, 10), random_state=2)
    except Exception as exc:  # noqa: BLE001
        skipped["diffprivlib tools.median"] = f"{type(exc).__name__}: {exc}"
    return report(f"1. private median, n = {n:,}, ε = 1", interleaved(methods, rounds),
                  "dpcore kng.release (median, KNG)", "np.median", skipped)


def task_histogram(p: int, n: int, rounds: int) -> list[str]:
    from dpcore import histograms as H
    from dpcore.histograms.release import laplace
    recs = np.random.default_rng(2).integers(0, p, n) // 7 * 7          # q ≈ n/… occupied cells
    cfg = H.HistogramConfig(1.0, p)
    b = H.calibrate_histogram(cfg, (n,)).constant

    def floor():
        g = np.random.default_rng(4)
        return np.bincount(recs, minlength=p) + g.laplace(0.0, b, p)

    methods = {"dpcore as_counts + histogram_release": lambda: laplace.release(H.as_counts(recs, p), cfg,
                                                                                    rng=4).value,
               "numpy bincount + Laplace": floor}
    return report(f"2. Laplace in every cell, p = 2^{p.bit_length() - 1}, n = {n:,} records (aggregation included)",
                  interleaved(methods, rounds), "dpcore as_counts + histogram_release", "numpy bincount + Laplace")


def fft_kde(x: np.ndarray, grid: int, h: float) -> np.ndarray:
    """A numpy KDE on linspace(0, 1, grid): linear binning on the grid, then one FFT convolution (kernel to 5h)."""
    t = np.clip(x, 0.0, 1.0) * (grid - 1)
    lo = np.minimum(t.astype(np.int64), grid - 2)
    w = t - lo
    c = np.bincount(lo, 1.0 - w, grid) + np.bincount(lo + 1, w, grid)
    half = min(grid - 1, int(np.ceil(5 * h * (grid - 1))))
    k = np.exp(-0.5 * (np.arange(-half, half + 1) / ((grid - 1) * h)) ** 2)
    m = 1 << int(np.ceil(np.log2(grid + 2 * half + 1)))
    f = np.fft.irfft(np.fft.rfft(c, m) * np.fft.rfft(k, m), m)[half:half + grid]
    return f / (x.size * np.sqrt(2 * np.pi) * h)


def task_kde(n: int, rounds: int) -> list[str]:
    from dpcore import density as K
    from dpcore.density.release import kde as gp
    x = np.random.default_rng(0).beta(2, 5, n)
    cfg = K.GPKDEConfig(epsilon=1.0, delta=1e-3, bandwidth=0.02, grid=512)
    gap = np.abs(fft_kde(x, 512, 0.02) - K.nonprivate_kde(x, cfg)).max() / K.nonprivate_kde(x, cfg).max()
    methods = {"dpcore gp_release (binned + GP path)": lambda: gp.release(x, cfg, rng=1).value,
               "numpy FFT binned KDE (same grid)": lambda: fft_kde(x, 512, 0.02)}
    rows = report(f"3. GP-KDE, n = {n:,}, 512-point grid, h = 0.02", interleaved(methods, rounds),
                  "dpcore gp_release (binned + GP path)", "numpy FFT binned KDE (same grid)")
    rows.append(f"  (the two non-private KDEs differ by at most {gap:.1e} of the peak)")
    return rows


def task_lasso(n: int, p: int, rounds: int) -> list[str]:
    from dpcore.lasso import LassoConfig
    from dpcore.lasso import release
    g = np.random.default_rng(2)
    X = g.uniform(-1, 1, (n, p))
    theta = np.zeros(p)
    theta[:5] = 0.2
    y = np.clip(X @ theta + 0.1 * g.normal(size=n), -1, 1)
    cfg = LassoConfig(epsilon=1.0, delta=1e-6, steps=1000, path="gram")
    methods = {"dpcore private Frank–Wolfe (Gram path)": lambda: release((X, y), cfg, rng=0,
                                                                          diagnostics=False).value,
               "one XᵀX": lambda: X.T @ X}
    skipped = {}
    try:
        from sklearn.linear_model import Lasso
        alpha = float(np.abs((2.0 / n) * (y @ X)).max()) / 2 * 0.2
        methods["scikit-learn Lasso(precompute=True)"] = lambda: Lasso(alpha=alpha, fit_intercept=False,
                                                                        precompute=True).fit(X, y).coef_
    except ImportError as exc:
        skipped["scikit-learn Lasso"] = str(exc)
    rows = report(f"4. LASSO, n = {n:,}, p = {p}, T = 1 000", interleaved(methods, rounds),
                  "dpcore private Frank–Wolfe (Gram path)", "one XᵀX", skipped)
    rows.extend(lasso_profile(X, y, cfg, rounds))
    return rows


def lasso_profile(X: np.ndarray, y: np.ndarray, cfg, rounds: int) -> list[str]:
    """Where the LASSO release's time goes beyond one XᵀX, each part timed alone (interleaved, CPU medians) as a
    share of one XᵀX: Xᵀy (a release needs it; the floor leaves it out), the domain check (min and max of every
    entry: the sensitivity needs ‖x‖∞ ≤ 1, ‖y‖ ≤ 1), the fused one-pass blocks the release runs, and the rest."""
    from dpcore.lasso.calibration import calibrate
    from dpcore.lasso._solver import gram_in_domain
    steps = int(calibrate(cfg, X.shape).params["steps"])
    parts = {"one XᵀX": lambda: X.T @ X, "Xᵀy": lambda: y @ X,
             "domain check (X.min, X.max)": lambda: (X.min(), X.max()),
             "gram_in_domain (blocks: check, XᵀX, Xᵀy)": lambda: gram_in_domain(X, y, steps, "gram")}
    t = interleaved(parts, rounds)
    med = {k: float(np.median([c for c, _ in v])) for k, v in t.items()}
    base = med["one XᵀX"]
    out = ["  profile (CPU, share of one XᵀX): " + "; ".join(f"{k} {v / base:.2f}" for k, v in med.items())]
    return out


def task_projection(rounds: int) -> list[str]:
    from scipy.optimize import nnls

    from dpcore.query_release._projection import pairwise_frank_wolfe
    from dpcore.query_release import Marginals
    P = Marginals(12, 2).build().points
    g = np.random.default_rng(0)
    y = P[g.integers(0, P.shape[0], 200)].mean(axis=0) + 0.03 * g.standard_normal(P.shape[1])
    big = 1e3                                        # weight of the Σw = 1 row (NNLS has no equality constraints)
    A = np.vstack([P.T, big * np.ones((1, P.shape[0]))])
    rhs = np.concatenate([y, [big]])
    methods = {"dpcore pairwise Frank–Wolfe (gap 1e-8)": lambda: pairwise_frank_wolfe(P, y, tol=1e-8),
               "scipy nnls (augmented)": lambda: nnls(A, rhs, maxiter=50 * P.shape[0])}
    skipped = {}
    try:
        import cvxpy as cp
        w = cp.Variable(P.shape[0])
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(P.T @ w - y)), [w >= 0, cp.sum(w) == 1])
        methods["cvxpy + Clarabel"] = lambda: prob.solve(solver="CLARABEL")
    except Exception as exc:  # noqa: BLE001
        skipped["cvxpy + Clarabel"] = f"{type(exc).__name__}: {exc}"
    rows = report("5. projection onto conv X, 2-way marginals d = 12 (|X| = 4 096, k = 264)",
                  interleaved(methods, rounds), "dpcore pairwise Frank–Wolfe (gap 1e-8)", None, skipped)
    pw = pairwise_frank_wolfe(P, y, tol=1e-8)
    x_nn = nnls(A, rhs, maxiter=50 * P.shape[0])[0]
    obj = lambda v: 0.5 * float(np.sum((v - y) ** 2))  # noqa: E731
    rows.append(f"  objective: pairwise FW {obj(pw.y):.10f}  "
                f"nnls {obj(x_nn @ P):.10f} (Σw = {x_nn.sum():.6f})")
    return rows


#: Issue 21's targets on the release-vs-floor ratios (CPU, median over rounds), by task number.
FLOOR_TARGETS = {1: ("KNG median release n = 10⁶ / np.median", 1.2),
                 2: ("Laplace-every-cell histogram p = 2²⁰ / numpy", 1.1),
                 3: ("GP-KDE release n = 10⁶, 512 grid / numpy FFT KDE", 1.5),
                 4: ("LASSO Gram release n = 10⁶, p = 100 / one XᵀX", 1.3)}


def _run_script(args: list[str]) -> str:
    """Output of another benchmark script of this directory (printed as it is, then parsed for the table)."""
    import subprocess
    out = subprocess.run([sys.executable, str(Path(__file__).resolve().parent / args[0]), *args[1:]],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1]).stdout
    print(out, flush=True)
    return out


def app_targets(rounds: int, sessions: int) -> list[tuple[str, str, str, bool | None]]:
    """Rows (measure, target, measured, met) of the app's targets: first load (first_load.py) and concurrent
    sessions (load.py), each run in its own process with its own server."""
    import re
    rows: list[tuple[str, str, str, bool | None]] = []
    out = _run_script(["first_load.py", "--rounds", str(rounds)])
    pages = re.findall(r"^(.+?)\s{2,}(\d+\.\d\d)\s+\d+\.\d\d–\s*\d+\.\d\d\s+([+-]\d+\.\d\d)", out, re.M)
    pages = [r for r in pages if not r[0].startswith(("page", "First"))]
    floor = {r[0].strip(): float(r[1]) for r in pages if r[0].startswith("floor")}
    pages = [r for r in pages if not r[0].startswith("floor")]
    if pages:
        home = float(pages[0][1])
        worst = max(pages, key=lambda r: float(r[1]))
        gap = max(float(r[2]) for r in pages)
        said = "; ".join(f"{k[len('floor: '):]} {v:.2f} s" for k, v in floor.items())
        rows.append(("first load in Chromium, Home", "≤ 1.3 s", f"{home:.2f} s (Streamlit floor: {said})",
                     home <= 1.3))
        rows.append(("first load, every page − Home", "≤ +0.3 s",
                     f"+{gap:.2f} s (slowest: {worst[0].strip()} {float(worst[1]):.2f} s)", gap <= 0.3))
    out = _run_script(["load.py", "--sessions", str(sessions)])
    m = re.search(r"p95 (\d+\.\d+) s", out)
    e = re.search(r"^errors: (\d+)", out, re.M)
    mem = re.search(r"\(([+-]\d+\.\d)% vs before\)", out)
    if m and e and mem:
        p95, errors, grow = float(m.group(1)), int(e.group(1)), float(mem.group(1))
        rows.append((f"{sessions} concurrent sessions (load.py)", "p95 ≤ 3 s, 0 errors, memory ≤ +10 %",
                     f"p95 {p95:.2f} s, {errors} errors, memory {grow:+.1f} %", p95 <= 3 and not errors and grow <= 10))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", type=int, nargs="*", help="task numbers to run (default: all)")
    ap.add_argument("--app", action="store_true",
                    help="also run first_load.py and load.py (a server and Chromium each; ≈ 6 more minutes)")
    ap.add_argument("--sessions", type=int, default=50, help="concurrent sessions for --app (default 50)")
    a = ap.parse_args(argv)
    n, rounds = (100_000, 2) if a.quick else (1_000_000, 5)
    tasks = {1: lambda: task_median(n, rounds + 2), 2: lambda: task_histogram(2**20, 100_000, rounds + 2),
             3: lambda: task_kde(n, rounds + 2), 4: lambda: task_lasso(n, 100, max(2, rounds - 2)),
             5: lambda: task_projection(max(2, rounds - 2))}
    table: list[tuple[str, str, str, bool | None]] = []
    with threadpool_limits(limits=1):
        blas = sorted({f"{i['internal_api']} {i['num_threads']} thread(s)" for i in threadpool_info()})
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs; load average "
              f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}; BLAS/OpenMP: {', '.join(blas)}")
        print("project/peer: median (min–max) over interleaved rounds (< 1: the project is faster); floor = non-private\n")
        for k in a.only or sorted(tasks):
            rows = tasks[k]()
            print("\n".join(rows), flush=True)
            if k in FLOOR_TARGETS and rows.floor is not None:
                what, target = FLOOR_TARGETS[k]
                med, lo, hi = rows.floor
                table.append((what + (" (--quick sizes)" if a.quick else ""), f"≤ {target}×",
                              f"{med:.2f}× ({lo:.2f}–{hi:.2f})", med <= target))
        print(f"\nload average at the end: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    if a.app:
        print()
        table += app_targets(3, a.sessions)
    table.append(("python -m pytest wall time (quiet host)", "≤ 100 s", "not run here: see docs/tests.md", None))
    print(f"\nIssue 21's targets ({time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the end; CPU ratios, one BLAS thread)")
    w = max(len(r[0]) for r in table)
    for what, target, got, met in table:
        print(f"  {what:<{w}}  target {target:<36} measured {got:<60} "
              f"{'met' if met else '—' if met is None else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

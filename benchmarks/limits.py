"""Limits benchmark (issue 18): each page's heaviest interaction, at the edges of its caps, with its seconds
and peak memory (prints; never a pass/fail test).

Budget: no single interaction over 30 s or 1 GB on the 2-core machine. Each case is the dpcore call a page
makes at a setting its widgets allow (the largest product the caps let through), or a setting the caps must
refuse (then the case shows the refusal and how little it cost). Every case runs in its own process (peak RSS
is the process's, imports included: ≈ 150–250 MB of numpy/scipy/pandas) with a wall-clock limit and an
address-space limit, so a runaway case is reported, not waited for.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/limits.py`` (``--only density`` for one page, ``--timeout``,
``--list``). The table: page, case, wall seconds, CPU seconds, peak RSS MB, load average, outcome; then per page its
slowest and largest case. The cases are single-threaded (OPENBLAS_NUM_THREADS=1), so their CPU seconds are what a
quiet core takes; on the shared 2-core machine the wall seconds are CPU × (load + 1)/2 or so: a case "over budget in
wall time only" ran under load, one "OVER BUDGET (CPU)" would be over on a quiet machine too.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S, BUDGET_MB = 30.0, 1024.0
#: Pages that read the session's dataset: driven twice, as they open and with the built-in diabetes data.
DATA_PAGES = ("pages/kng.py", "pages/density.py", "pages/eigenvalues.py", "pages/histograms.py",
              "pages/lasso.py", "pages/query_release.py", "pages/data.py")


# -- the cases: (page, name, code run in a child process) ---------------------------------------------------
def _user_frame(n: int, d: int = 2):
    """A user dataset of n rows with d numeric columns on public bounds [0, 1]."""
    import numpy as np
    import pandas as pd

    from dpcore.data import Dataset

    rng = np.random.default_rng(0)
    cols = tuple(f"c{j + 1}" for j in range(d))
    frame = pd.DataFrame(rng.beta(2, 5, (n, d)), columns=cols)
    return Dataset(frame, cols, {c: (0.0, 1.0) for c in cols}, "benchmark data", name="bench.csv")


def case_histograms_cross_10000x10000():
    from dpcore.histograms import column_histogram
    ds = _user_frame(100_000)
    column_histogram(ds, ["c1", "c2"], modes={"c1": "bins", "c2": "bins"}, bins={"c1": 10_000, "c2": 10_000})


def case_histograms_cross_4096x4096_release():
    """The largest crossed table the cap lets through (2^24 cells), released (dense Laplace) and drawn."""
    import numpy as np

    from dpcore import histograms
    from dpcore.histograms import column_histogram
    from dpcore.histograms import plots
    ds = _user_frame(100_000)
    ct = column_histogram(ds, ["c1", "c2"], modes={"c1": "bins", "c2": "bins"}, bins={"c1": 4096, "c2": 4096})
    cfg = histograms.ThresholdConfig(1.0, ct.counts.p, sampler="dense")
    rel = histograms.laplace_and_threshold_release(ct.counts, cfg, rng=0)
    cf = plots.cells_frame(ct.labels, None, rel.value.laplace, np.asarray(rel.value.threshold))
    plots.cells_figure(cf)


def case_density_1e6_grid512_draws100_d1():
    from dpcore import density
    x = __import__("numpy").random.default_rng(0).beta(2, 5, (1_000_000, 1))
    cfg = density.CompareConfig(epsilon=1.0, delta=1e-3, bandwidth=0.05, grid=512, d=1, k=200, knorm_k=2, draws=100)
    density.compare_release(x, cfg, rng=0)


def case_density_1e6_grid512_draws100_d2():
    from dpcore import density
    x = __import__("numpy").random.default_rng(0).beta(2, 5, (1_000_000, 2))
    cfg = density.CompareConfig(epsilon=1.0, delta=1e-3, bandwidth=0.05, grid=512, d=2, k=200, draws=100,
                          methods=("gp", "fourier-laplace"))
    density.compare_release(x, cfg, rng=0)


def case_density_knorm_k4_draws100():
    from dpcore import density
    x = __import__("numpy").random.default_rng(0).beta(2, 5, (2000, 1))
    cfg = density.CompareConfig(epsilon=1.0, delta=1e-3, bandwidth=0.05, grid=128, d=1, knorm_k=4, draws=100,
                          methods=("knorm",))
    density.compare_release(x, cfg, rng=0)


def _error_vs_n_at_limits(exp_id: str):
    """The Error vs n page at its own limits: the whole axis up to max_x, max_reps, every capped option at max."""
    from dpcore.experiments import registry, run_experiment
    exp = registry()[exp_id]
    lim = exp.app_limits
    xs = tuple(exp.axis.grid(lim.get("max_x")))
    opts = {k: lim[f"max_{k}"] for k in exp.app_options if f"max_{k}" in lim}
    opts.update({k: exp.quick.get(k, exp.options[k]) for k in exp.app_options if k not in opts})
    from dpcore.limits import BUDGET_SECONDS
    run_experiment(exp_id, xs=xs, reps=int(lim.get("max_reps", 50)), epsilon=exp.default_epsilon, seed=0, jobs=1,
                   max_seconds=BUDGET_SECONDS, **opts)


def case_error_vs_n_lasso():
    _error_vs_n_at_limits("lasso")


def case_density_d2_grid512_draws32():
    """The largest d = 2 release the caps allow at a 512² grid: 32 draws, n = 10⁶, k = 34."""
    from dpcore import density
    x = __import__("numpy").random.default_rng(0).beta(2, 5, (1_000_000, 2))
    cfg = density.CompareConfig(epsilon=1.0, delta=1e-3, bandwidth=0.05, grid=512, d=2, k=34, draws=32,
                          methods=("gp", "fourier-laplace"))
    density.compare_release(x, cfg, rng=0)


def case_density_knorm_k4_draws38():
    from dpcore import density
    x = __import__("numpy").random.default_rng(0).beta(2, 5, (2000, 1))
    cfg = density.CompareConfig(epsilon=1.0, delta=1e-3, bandwidth=0.05, grid=128, d=1, knorm_k=4, draws=38,
                          methods=("knorm",))
    density.compare_release(x, cfg, rng=0)


def case_kng_mean_d10_draws2000_sweeps10000():
    """KNG page: simulated n = 10⁵, 10 columns, 2000 draws × 10 000 sweeps (the widgets' maxima)."""
    import numpy as np
    import pandas as pd

    from dpcore import kng
    ds = kng.simulated_dataset("mean", 100_000, 10, rng=0)
    cols = list(ds.numeric_columns)
    pdata = kng.problem_data(pd.DataFrame(np.asarray(ds.frame[cols]), columns=cols), ds.bounds, "mean", cols)
    cfg = kng.make("mean", mechanism="kng", epsilon=1.0, norm="linf", size=2000, n_sweeps=10_000, **pdata.params)
    kng.release_for(cfg)(pdata.data, cfg, rng=0)


def case_kng_linreg_d12_draws2000():
    import numpy as np
    import pandas as pd

    from dpcore import kng
    ds = kng.simulated_dataset("linear_regression", 100_000, 12, rng=0)
    cols = list(ds.numeric_columns)
    xs, y = [c for c in cols if c != "y"], "y"
    pdata = kng.problem_data(pd.DataFrame(np.asarray(ds.frame[cols]), columns=cols), ds.bounds, "linear_regression",
                             xs, y_column=y, intercept=True)
    cfg = kng.make("linear_regression", mechanism="exponential", epsilon=1.0, norm="linf", size=2000,
                   n_sweeps=10_000, **pdata.params)
    kng.release_for(cfg)(pdata.data, cfg, rng=0)


def case_histograms_demo_p2e30():
    """The synthetic table at p = 2^30, q = 10⁵, n = 10⁷ (widget maxima): sparse release + trials (50 reps)."""
    from dpcore import histograms
    from dpcore.histograms.figures import trials_frame
    table = histograms.sparse_table(2**30, 100_000, 10_000_000, rng=0)
    histograms.release.threshold.release(table, histograms.ThresholdConfig(1.0, table.p), rng=0)
    trials_frame(table, 1.0, 50, rng=0)


def case_error_vs_n_lasso_p100():
    """What the cap leaves: the LASSO figure with p = 100 only, the page's x range and replicates."""
    from dpcore.experiments import registry, run_experiment
    from dpcore.limits import BUDGET_SECONDS
    exp = registry()["lasso"]
    run_experiment("lasso", xs=tuple(exp.axis.grid(exp.app_limits["max_x"])), reps=exp.app_limits["max_reps"],
                   epsilon=1.0, seed=0, jobs=1, methods=["p=100"], max_seconds=BUDGET_SECONDS)


def _lab(spec_code: str):
    from dpcore.query_release import _cost as cost
    from dpcore.query_release import _lab as lab
    from dpcore.query_release import _workloads as W  # noqa: F401  (used by eval)
    cfg = lab.LabConfig(eval(spec_code), dataset="two far points",
                        methods=("gaussian", "projection", "coarse", "chaining", "local-projection"),
                        ns=(10, 30, 100, 300, 1000), reps=4, alphas=(0.4, 0.2, 0.1, 0.05))
    print(f"estimate {cost.lab_seconds(cfg):.1f} s", file=sys.stderr)
    lab.run_lab(cfg, rng=0)


def case_query_release_d9_w2():
    """The page's defaults on 2-way marginals at d = 9 (estimate 26 s: the largest d the model lets run there)."""
    _lab("W.Marginals(9, 2)")


def case_query_release_d10_w2():
    """The page's defaults on 2-way marginals at d = 10 (refused by the time model: estimate 58 s)."""
    _lab("W.Marginals(10, 2)")


def case_query_release_d11_w2():
    _lab("W.Marginals(11, 2)")


def case_query_release_thresholds_512():
    _lab("W.Thresholds(512)")


def case_query_release_cone_k2000_r01():
    _lab("W.Cone(2000, r=0.1)")


def _audit_at_cap(aid: str):
    from dpcore.audit import explore as X
    from dpcore.registry import audits
    a = audits()[aid]
    X.run(a, n=X.sample_cap(a), rng=0, chunks=10, progress=lambda d, t: True)


def case_audit_kng_linreg_cap():
    _audit_at_cap("kng/linear_regression-kng")


def case_audit_lasso_eight_steps_cap():
    _audit_at_cap("lasso/eight-steps")


def case_audit_density_knorm_cap():
    _audit_at_cap("density/knorm")


def case_eigenvalues_study_at_cap():
    """The certified-bounds tab (reruns on every change of its widgets): d = 20, every n, 15 datasets per n (the
    largest reps under the study's cap reps × Σn × d ≤ 6·10⁷)."""
    from dpcore import single_parameter
    single_parameter.eigen_bounds_vs_n([500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000], 20, epsilon=1.0,
                                       delta=1e-5, share=0.5, reps=15, draws=200, rng=0)


def case_eigenvalues_release_n1e5_d20():
    """The release tab at its widgets' maxima: simulated n = 10⁵, d = 20, Algorithm 5."""
    from dpcore.single_parameter import FunctionalConfig, functional, prepare_xy, simulated_dataset
    ds = simulated_dataset(100_000, 20, rng=0)
    X, y = prepare_xy(ds, "y", list(ds.numeric_columns[:-1]), intercept=False)
    cfg = FunctionalConfig(epsilon=1.0, delta=1e-5, coordinate=0, loss="robust", radius=1.0, geometry="l2-ball")
    functional.release((X, y), cfg, rng=0)


def case_lasso_table_cap_max_steps():
    """The release tab at the simulated table's cap (n = 50 000, p = 100: 5·10⁶ cells) with T = MAX_STEPS."""
    from dpcore import lasso
    ds, _ = lasso.simulated_dataset(50_000, 100, 5, rng=0)
    design = lasso.prepare_design(ds, "y", list(ds.numeric_columns[:-1]))
    cfg = lasso.LassoConfig(epsilon=1.0, delta=1e-6, radius=1.0, steps=lasso.MAX_STEPS)
    lasso.release((design.X, design.y), cfg, rng=0)


def case_lasso_wide_table():
    """p ≫ n at the table's caps: n = 2500, p = 2000 (MAX_TABLE_P), T = MAX_STEPS."""
    from dpcore import lasso
    ds, _ = lasso.simulated_dataset(2500, 2000, 5, rng=0)
    design = lasso.prepare_design(ds, "y", list(ds.numeric_columns[:-1]))
    cfg = lasso.LassoConfig(epsilon=1.0, delta=1e-6, radius=1.0, steps=lasso.MAX_STEPS)
    lasso.release((design.X, design.y), cfg, rng=0)


def _csv_49mb() -> bytes:
    import numpy as np
    g = np.random.default_rng(0)
    n = 960_000
    cols = [np.arange(n), g.integers(18, 90, n), g.normal(5e4, 2e4, n), g.random(n), g.normal(70, 10, n),
            g.normal(170, 10, n)]
    body = "\n".join(f"{a},{b},{c:.6f},{d:.8f},{e:.5f},{f:.4f}" for a, b, c, d, e, f in zip(*cols))
    return ("id,age,income,score,weight,height\n" + body + "\n").encode()


def case_data_csv_49mb(raw: bytes):
    """A CSV near the 50 MB upload limit: 960 000 rows × 6 numbers (made before the clock starts)."""
    from dpcore.data import readers as R
    R.load_csv(raw, name="big.csv", progress=lambda d, t: True)


case_data_csv_49mb.setup = _csv_49mb  # type: ignore[attr-defined]


CASES = {
    "histograms": [("cross 10 000 × 10 000 bins (refused)", case_histograms_cross_10000x10000),
                   ("cross 4096 × 4096 = 2^24 cells, release + figure", case_histograms_cross_4096x4096_release),
                   ("synthetic p = 2^30, q = 10⁵, n = 10⁷, 50 trials", case_histograms_demo_p2e30)],
    "density": [("n = 10⁶, grid 512, 100 draws, d = 1, 3 methods", case_density_1e6_grid512_draws100_d1),
                ("n = 10⁶, grid 512², 100 draws, d = 2", case_density_1e6_grid512_draws100_d2),
                ("n = 10⁶, grid 512², 32 draws, d = 2, k = 34", case_density_d2_grid512_draws32),
                ("K-norm k = 4, 100 draws", case_density_knorm_k4_draws100),
                ("K-norm k = 4, 38 draws", case_density_knorm_k4_draws38)],
    "kng": [("mean, n = 10⁵, d = 10, 2000 draws × 10 000 sweeps", case_kng_mean_d10_draws2000_sweeps10000),
            ("linear regression, d = 12, 2000 draws (exponential)", case_kng_linreg_d12_draws2000)],
    "query_release": [("2-way marginals d = 9, page defaults", case_query_release_d9_w2),
                      ("2-way marginals d = 10, page defaults (refused)", case_query_release_d10_w2),
                      ("2-way marginals d = 11 (refused by the time model)", case_query_release_d11_w2),
                      ("thresholds N = 512, page defaults", case_query_release_thresholds_512),
                      ("cone k = 2000, r = 0.1, page defaults", case_query_release_cone_k2000_r01)],
    "audit": [("KNG linear regression at its cap", case_audit_kng_linreg_cap),
              ("LASSO eight steps at its cap", case_audit_lasso_eight_steps_cap),
              ("density K-norm at its cap", case_audit_density_knorm_cap)],
    "eigenvalues": [("certified-bounds study at its cap (d = 20, every n, 15 reps)", case_eigenvalues_study_at_cap),
                    ("release n = 10⁵, d = 20 (widget maxima)", case_eigenvalues_release_n1e5_d20)],
    "lasso": [("release n = 50 000, p = 100, T = 20 000", case_lasso_table_cap_max_steps),
              ("release n = 2500, p = 2000, T = 20 000", case_lasso_wide_table)],
    "data": [("CSV 49 MB, 960 000 × 6 (generated in the child)", case_data_csv_49mb)],
    "error_vs_n": [("LASSO figure at the page's limits", case_error_vs_n_lasso),
                   ("LASSO figure, p = 100 only, page's limits", case_error_vs_n_lasso_p100)],
}


# -- pages through AppTest: every widget at its extremes, the release / run buttons pressed -------------------
PAGE_CHILD = r'''
import json, resource, sys, time
sys.path.insert(0, {root!r})
from streamlit.runtime.pages_manager import PagesManager
_init = PagesManager.__init__
def _routed(self, *a, **k):           # as tests/app/conftest.py: routed by app.py's st.navigation
    _init(self, *a, **k)
    PagesManager.uses_pages_directory = False
PagesManager.__init__ = _routed
from tests.app import test_widget_extremes as T
page, dataset = {page!r}, {dataset!r}

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def emit(what, seconds, before, outcome, cpu=float("nan")):
    print(json.dumps({{"what": what, "seconds": seconds, "cpu": cpu, "rss_mb": rss(), "grew_mb": rss() - before,
                      "outcome": outcome}}), flush=True)

def start():
    return T._base(page, dataset)

t0, r0, c0 = time.perf_counter(), rss(), time.process_time()
at = start()
emit("defaults, buttons pressed (imports included)", time.perf_counter() - t0, r0, "error" if at.exception else "ok",
     time.process_time() - c0)
plan = [(w.type, w.key, w.value, T.trial_values(w)) for w in T.widgets(at, sidebar=False)]
for kind, key, default, values in plan:
    for value in values:
        found = [w for w in getattr(at, kind) if w.key == key]
        if not found:
            at = start()
            found = [w for w in getattr(at, kind) if w.key == key]
            if not found:
                break
        T._set(found[0], value)
        T._press(at)
        r0, t0, c0 = rss(), time.perf_counter(), time.process_time()
        try:
            at.run()
            out = ("exception: " + str(at.exception[0].value)[:80]) if at.exception else (
                "refused: " + at.error[0].value[:80].replace("\n", " ") if at.error else "ok")
        except RuntimeError as exc:
            out = f"timeout: {{exc}}"
        emit(f"{{key}} = {{value!r}}"[:60], time.perf_counter() - t0, r0, out, time.process_time() - c0)
        if out.startswith(("exception", "timeout")):
            at = start()
            continue
        back = [w for w in getattr(at, kind) if w.key == key]
        if back:
            T._set(back[0], default, raw=True)
        else:
            at = start()
'''


def run_page(page: str, dataset: str | None, timeout: float, log=None) -> list[dict]:
    """Drive ``page`` through AppTest in a child process; one record per run (seconds, CPU, peak RSS so far).
    ``log``: a text file that gets every record as it arrives (a long sweep's partial results survive)."""
    code = PAGE_CHILD.format(root=str(ROOT), page=page, dataset=dataset)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"), PYTHONPATH=str(ROOT))
    recs, deadline = [], time.monotonic() + timeout
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env=env, cwd=ROOT) as p:
        for ln in p.stdout:
            if ln.startswith("{"):
                recs.append(json.loads(ln))
                if log is not None:
                    print(page, dataset, ln.strip(), file=log, flush=True)
            if time.monotonic() > deadline:
                p.kill()
                recs.append({"what": "(the sweep)", "seconds": timeout, "rss_mb": float("nan"), "grew_mb": 0,
                             "outcome": f"killed after {timeout:g} s"})
                break
    return recs


def _over(r: dict) -> str:
    """The budget flag of one record: memory, CPU seconds (what one quiet core would take: the cases are single-
    threaded, OPENBLAS_NUM_THREADS=1) or only wall seconds (then the machine's load stretched it: quote the load)."""
    if r["rss_mb"] > BUDGET_MB:
        return " OVER BUDGET (memory)"
    if r.get("cpu", 0) > BUDGET_S:
        return " OVER BUDGET (CPU)"
    return " over budget in wall time only (load)" if r["seconds"] > BUDGET_S else ""


def pages_main(pages: list[str], timeout: float, log_path: str | None = None) -> None:
    """Per page: every run of its sweep with the buttons pressed; prints the slowest and largest interaction."""
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (figures scale with it)")
    summary = []
    for page in pages:
        for dataset in ((None, "diabetes") if page in DATA_PAGES else (None,)):
            with open(log_path, "a") if log_path else open(os.devnull, "w") as log:
                recs = run_page(page, dataset, timeout, log)
            tag = page + (f" [{dataset}]" if dataset else "")
            over = [r for r in recs if _over(r)]
            for r in over:
                print(f"  {_over(r).strip()} {tag}: {r['what']} {r['seconds']:.1f} s wall, {r.get('cpu', float('nan')):.1f} s "
                      f"CPU, {r['rss_mb']:.0f} MB: {r['outcome']}")
            bad = [r for r in recs if r["outcome"].startswith(("exception", "timeout", "killed"))]
            for r in bad:
                print(f"  FAILED {tag}: {r['what']}: {r['outcome']}")
            if recs:
                slow = max(recs, key=lambda r: r["seconds"])
                hot = max(recs, key=lambda r: r.get("cpu", 0) if r.get("cpu", 0) == r.get("cpu", 0) else 0)
                big = max(recs, key=lambda r: (r["grew_mb"], r["rss_mb"]))
                peak = max(r["rss_mb"] for r in recs if r["rss_mb"] == r["rss_mb"])
                summary.append((tag, len(recs), slow, hot, peak, big, os.getloadavg()[0]))
                print(_page_line(*summary[-1]), flush=True)
            else:
                print(f"{tag}: no runs", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    print(f"Per page (budget {BUDGET_S:g} s, {BUDGET_MB:g} MB per interaction; peak = the child's peak RSS, imports "
          "included; largest = the run that raised it most):")
    for row in summary:
        print(_page_line(*row))


def _page_line(tag, n, slow, hot, peak, big, load) -> str:
    """One page's summary: the slowest run (wall), the most CPU, the peak RSS and the run that raised it most."""
    return (f"{tag:<32} {n:>4} runs  slowest {slow['seconds']:6.1f} s wall ({slow['what']}); most CPU "
            f"{hot.get('cpu', float('nan')):5.1f} s ({hot['what']}); peak {peak:6.0f} MB, largest +{big['grew_mb']:.0f} "
            f"MB ({big['what']}); load average {load:.1f}")


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (a case that spawns workers counts their work too)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# -- running ------------------------------------------------------------------------------------------------
def _child(page: str, index: int, mem_mb: float) -> None:
    """Run one case (in the child process) and print a JSON line: seconds, peak RSS MB, outcome."""
    lim = int(mem_mb * 2**20)
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    name, fn = CASES[page][index]
    setup = getattr(fn, "setup", None)
    args = (setup(),) if setup else ()          # inputs made before the clock starts (e.g. the CSV's bytes)
    t0, c0 = time.perf_counter(), time.process_time() + _children_cpu()
    try:
        fn(*args)
        outcome = "done"
    except MemoryError:
        outcome = f"MemoryError (over the {mem_mb:.0f} MB address-space limit)"
    except ValueError as exc:                      # DPValueError / DataError: a refusal with a message
        outcome = f"refused: {str(exc)[:160]}"
    seconds, cpu = time.perf_counter() - t0, time.process_time() + _children_cpu() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_mb": rss, "outcome": outcome}))


def run_case(page: str, index: int, timeout: float, mem_mb: float) -> dict:
    cmd = [sys.executable, __file__, "--child", page, str(index), "--mem", str(mem_mb)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"),
               PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"seconds": time.perf_counter() - t0, "rss_mb": float("nan"), "outcome": f"killed after {timeout:g} s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode or not lines:
        err = (p.stderr.strip().splitlines() or ["?"])[-1]
        return {"seconds": time.perf_counter() - t0, "rss_mb": float("nan"), "outcome": f"crashed: {err[:160]}"}
    return json.loads(lines[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="pages to run (default: all)")
    ap.add_argument("--timeout", type=float, default=120.0, help="wall-clock limit per case (s)")
    ap.add_argument("--mem", type=float, default=4096.0, help="address-space limit per case (MB)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--pages", nargs="*", help="drive these pages (default: every page) through AppTest at their "
                                               "widgets' extremes instead of the dpcore cases")
    ap.add_argument("--log", help="with --pages: append every run's record (JSON) to this file as it arrives")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], int(args.child[1]), args.mem)
        return
    if args.pages is not None:
        sys.path.insert(0, str(ROOT))
        from ui import nav as _nav
        pages_main(args.pages or [e.path for e in _nav.discover()], max(args.timeout, 3600.0), args.log)
        return
    pages = args.only or list(CASES)
    if args.list:
        for p in pages:
            for name, _ in CASES[p]:
                print(f"{p}: {name}")
        return
    rows = []
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (figures scale with it)")
    print(f"{'page':<14} {'case':<52} {'seconds':>8} {'CPU s':>6} {'peak MB':>8} {'load':>5}  outcome")
    for page in pages:
        for i, (name, _) in enumerate(CASES[page]):
            r = run_case(page, i, args.timeout, args.mem)
            rows.append((page, name, r))
            flag = _over(r)
            print(f"{page:<14} {name:<52} {r['seconds']:8.1f} {r.get('cpu', float('nan')):6.1f} {r['rss_mb']:8.0f} "
                  f"{os.getloadavg()[0]:5.1f}  {r['outcome']}{flag}", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    print(f"Per page (budget {BUDGET_S:g} s, {BUDGET_MB:g} MB per interaction):")
    for page in pages:
        mine = [(n, r) for p, n, r in rows if p == page]
        slow = max(mine, key=lambda t: t[1]["seconds"])
        big = max(mine, key=lambda t: -1 if t[1]["rss_mb"] != t[1]["rss_mb"] else t[1]["rss_mb"])
        hot = max(mine, key=lambda t: t[1].get("cpu", 0))
        print(f"{page:<14} slowest {slow[1]['seconds']:6.1f} s wall ({slow[0]}); most CPU {hot[1].get('cpu', 0):5.1f} s "
              f"({hot[0]}); largest {big[1]['rss_mb']:6.0f} MB ({big[0]})")


if __name__ == "__main__":
    main()

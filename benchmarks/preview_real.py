"""Does the accuracy preview hold on real tables? Realised / predicted error on the built-in tables (issue 32 §1).

For each built-in table (scikit-learn's diabetes, wine and breast cancer, with their declared public bounds) and
each previewed family — KNG linear regression, KNG median regression, KNG's mean, the Laplace and the thresholded
histograms — the preview is computed from public inputs only (n, the declared bounds, ε; the regressions on the
default design, x uniform on the declared box, with its spread over the other public designs), then REPS releases
run on the real table and their errors are measured against the table's non-private answer in the preview's
measure. Printed: the preview's median error, the spread of the median over the public designs (regressions,
thresholded histogram), the realised median error and the ratios realised / preview and realised / (top of the
spread): a ratio near 1 is a preview that held; "in spread" says whether the realised median lies inside the
spread's [lowest, highest] median.

The regressions use the B the KNG page suggests from the public bounds (dpcore.kng.plots.scaled_units_note:
lines spanning the public ranges), so that θ̂ lies inside the B-ball and the error is the mechanism's, not the
ball's bias.

Usage::

    python benchmarks/preview_real.py            # ε = 1 and ε = 10⁴, about two minutes on the 2-core machine
    python benchmarks/preview_real.py --quick    # ε = 1, fewer releases
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcore import histograms as H  # noqa: E402
from dpcore import kng  # noqa: E402
from dpcore import preview as PV  # noqa: E402
from dpcore import preview_check as PC  # noqa: E402
from dpcore.data import builtin_dataset  # noqa: E402

#: (table, response, predictor, mean's column, histogram columns with their modes and bins)
TABLES = {
    "diabetes": ("target", "bmi", "bmi", ["sex", "bp"], {"sex": "integers", "bp": "bins"}, {"bp": 8}),
    "wine": ("alcohol", "proline", "alcohol", ["target", "alcohol"], {"target": "integers", "alcohol": "bins"},
             {"alcohol": 8}),
    "breast_cancer": ("mean perimeter", "mean radius", "mean radius", ["target", "mean radius"],
                      {"target": "integers", "mean radius": "bins"}, {"mean radius": 8}),
}


def suggested_B(bounds, xs, y) -> float:
    """The KNG page's public suggestion for B (lines spanning the public ranges), rounded up to a half."""
    yb, (ylo, yhi) = max(map(abs, bounds[y])), bounds[y]
    hint = 1 + sum((yhi - ylo) / yb * max(map(abs, bounds[c])) / np.ptp(bounds[c]) for c in xs)
    return math.ceil(2 * hint) / 2


def _ratio(a: float, b: float) -> str:
    return f"{a / b:7.2f}" if b > 0 else "    —  "


def row(table: str, what: str, eps: float, law: PV.ErrorLaw, errors: np.ndarray, withheld: int = 0) -> None:
    pred = float(law.quantile(0.5)) if law.available else float("nan")
    real = float(np.median(errors)) if len(errors) else float("nan")
    if len(law.spread) > 1:
        lo, hi = PC.spread_range(law)[:2]
        spread = (f"spread [{lo:10.4g}, {hi:10.4g}]  realised/top {_ratio(real, hi)}  in spread "
                  f"{'yes' if lo * (1 - 1e-9) <= real <= hi * (1 + 1e-9) else 'no ':<3}")
    else:
        spread = f"{'(exact or data-free law: no design)' if law.exact or 'data-free' in law.basis else '(one design)':<52}"
    print(f"{table:<14} {what:<44} ε = {eps:<7g} preview {pred:10.4g}  realised {real:10.4g}  realised/preview "
          f"{_ratio(real, pred)}  {spread}" + (f"  ⊥ {withheld}" if withheld else ""), flush=True)


def regressions(name: str, ds, eps: float, reps: int) -> None:
    y, x = TABLES[name][:2]
    for problem, label in (("linear_regression", "KNG linear regression"), ("quantile_regression",
                                                                            "KNG median regression")):
        pdata = kng.problem_data(ds, None, problem, [x], y_column=y)
        extra = {"tau": 0.5} if problem == "quantile_regression" else {}
        cfg = kng.make(problem, mechanism="kng", epsilon=eps, B=suggested_B(ds.bounds, [x], y), **pdata.params,
                       **extra)
        law = PV.preview(f"kng/{problem}-kng", cfg, n=pdata.n, d=2, box=(ds.bounds[x],), y_box=ds.bounds[y])
        m = reps if problem == "linear_regression" else max(10, reps // 2)
        big = dataclasses.replace(cfg, size=m)
        rel = kng.release_for(big)(pdata.data, big, rng=11)
        ok = np.isfinite(rel.value).all(axis=1)
        errs = np.abs(rel.value[ok] - kng.nonprivate_estimate(pdata.data, cfg)).max(axis=1)
        row(name, f"{label} ({y} ~ {x})", eps, law, errs, int((~ok).sum()))


def mean(name: str, ds, eps: float, reps: int) -> None:
    col = TABLES[name][2]
    pdata = kng.problem_data(ds, None, "mean", [col])
    cfg = kng.make("mean", mechanism="kng", epsilon=eps, size=reps, **pdata.params)
    law = PV.preview("kng/mean-kng", dataclasses.replace(cfg, size=1), n=pdata.n, d=1)
    rel = kng.release_for(cfg)(pdata.data, cfg, rng=12)
    row(name, f"KNG mean ({col})", eps, law, np.abs(rel.value[:, 0] - float(np.mean(pdata.data))))


def histograms(name: str, ds, eps: float, reps: int) -> None:
    cols, modes, bins = TABLES[name][3:]
    table = H.column_histogram(ds, cols, modes=modes, bins=bins).counts
    cfg = H.ThresholdConfig(eps, table.p, noise="geometric", sampler="dense")
    truth = table.to_dense()
    lap, thr = [], []
    for s in np.random.default_rng(13).spawn(reps * 4):
        r = H.laplace_and_threshold_release(table, cfg, rng=s)
        lap.append(np.abs(r.value.laplace - truth).sum())
        thr.append(np.abs(r.value.threshold.to_dense() - truth).sum())
    for label, key, errs in (("Laplace histogram", "histograms/laplace", lap),
                             ("thresholded histogram", "histograms/threshold", thr)):
        law = PV.preview(key, dataclasses.replace(cfg, sampler="sparse"), n=table.n)
        row(name, f"{label} ({' × '.join(cols)}, p = {table.p})", eps, law, np.asarray(errs, float))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="ε = 1 only, fewer releases")
    args = ap.parse_args()
    epsilons, reps = ((1.0,), 10) if args.quick else ((1.0, 1e4), 30)
    t0 = time.perf_counter()
    for name in TABLES:
        ds = builtin_dataset(name)
        for eps in epsilons:
            regressions(name, ds, eps, reps)
            mean(name, ds, eps, reps)
            histograms(name, ds, eps, reps)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()

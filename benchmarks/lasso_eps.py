"""Private LASSO on the built-in real tables: the error against ε and n, for each public step rule (issue 32, item 2).

For each table (scikit-learn's diabetes, wine, breast cancer, with the public bounds of dpcore/data/builtin.py,
each column mapped into [−1, 1] by its bounds), each n (the whole table and a seeded random half — the half is a
subsample drawn with a fixed public seed, only to show the n-dependence), each ε and each step rule, ``--reps``
private releases (no intercept: the paper's model) and, per row, the medians over the releases of
the distance ‖θ̂ − θ*‖₂ to the constrained optimum θ* and of the excess risk L(θ̂) − L(θ*), beside the excess risk
of θ = 0 (predicting 0), the worst-case bound the risk-bound rule minimises (dpcore.lasso.risk_bound) and the
preview's median distance on the public design (dpcore.lasso.outlook; its ratio realised/predicted is printed).
Not a test: it prints a table.

Usage::

    python benchmarks/lasso_eps.py [--reps 10] [--tables diabetes,wine,breast_cancer] [--eps 1,10,...]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from dpcore import lasso  # noqa: E402
from dpcore.data import builtin_dataset  # noqa: E402
from dpcore.lasso.release.private_fw import sample_run  # noqa: E402

#: The response regressed on every other bounded column of each table.
RESPONSES = {"diabetes": "target", "wine": "alcohol", "breast_cancer": "target"}
RULES = {"Theorem 2.5": {}, "risk-bound": {"step_rule": "risk-bound"}}


def design(table: str):
    ds = builtin_dataset(table)
    y = RESPONSES[table]
    return lasso.prepare_design(ds, y, [c for c in ds.numeric_columns if c in ds.bounds and c != y])


def rows(table: str, eps_list, reps: int, seed: int):
    d = design(table)
    full = (d.X, d.y)
    half_idx = np.sort(np.random.default_rng(seed).choice(len(d.y), len(d.y) // 2, replace=False))
    for X, y in (full, (d.X[half_idx], d.y[half_idx])):
        n, p = X.shape
        opt = lasso.constrained_optimum(X, y, 1.0, tol=1e-10)
        zero = float(np.mean(y * y)) - opt.loss
        for eps in eps_list:
            for rule, kw in RULES.items():
                cfg = lasso.LassoConfig(epsilon=eps, **kw)
                cal = lasso.calibrate(cfg, (n, p))
                th = sample_run((X, y), cfg, reps, rng=seed).theta
                ex = np.array([float(lasso.loss(X, y, t)) - opt.loss for t in th])
                dist = np.linalg.norm(th - opt.theta[None, :], axis=1)
                o = lasso.outlook(cfg, n, p, reps=20, rng=0)
                yield dict(table=table, n=n, p=p, eps=eps, rule=rule, T=cal.params["steps"], eps0=cal.params["eps0"],
                           dist=float(np.median(dist)), excess=float(np.median(ex)), zero=zero,
                           bound=o.bound, pred=o.distance[0])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables", default="diabetes,wine,breast_cancer")
    ap.add_argument("--eps", default="1,10,100,1000,10000,100000,1000000")
    a = ap.parse_args(argv)
    eps_list = [float(e) for e in a.eps.split(",")]
    print(f"{'table':<14}{'n':>5}{'p':>3}{'ε':>8} {'rule':<12}{'T':>6}{'ε₀':>9}{'‖θ̂−θ*‖₂':>10}{'excess':>10}"
          f"{'θ=0':>9}{'bound':>9}{'preview':>10}{'ratio':>9}")
    t0 = time.time()
    for table in a.tables.split(","):
        for r in rows(table, eps_list, a.reps, a.seed):
            print(f"{r['table']:<14}{r['n']:>5}{r['p']:>3}{r['eps']:>8.0e} {r['rule']:<12}{r['T']:>6}{r['eps0']:>9.3g}"
                  f"{r['dist']:>10.3g}{r['excess']:>10.3g}{r['zero']:>9.3g}{r['bound']:>9.3g}{r['pred']:>10.3g}"
                  f"{r['dist'] / r['pred']:>9.2g}", flush=True)
    print(f"({a.reps} releases per row, medians; {time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()

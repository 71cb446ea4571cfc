"""Figures of Hall (2012), Part 1, declared in :data:`EXPERIMENTS` (``python -m dpcore reproduce ID``).

* ``hall-histogram`` — "Thresholding dramatically improves utility": ℓ1 error over replicates of
  Laplace, Laplace + clip/round, the thresholded release (τ = (2/ε) log p) and the non-private
  oracle threshold (τ = (2/ε) log(p/q), NOT private) on the synthetic NLCS-shaped table
  (p = 2^16, q = 3 152, n = 21 574; a stand-in, the real table is unavailable), ε ∈ {0.1, 0.5, 1, 2};
  "all-zeros" is the all-zeros output (ℓ1 error exactly n).
* ``hall-histogram-p`` — error vs p (2^8 … 2^30) at fixed q, n: Laplace grows like p, thresholding
  like log p. For p > 2^20 the Laplace ℓ1 error Σ|L_i| is drawn from its exact law Gamma(p, b)
  (a sum of p iid Exp(b)), without materialising p noise values.

Every row also carries ``l2``, ``max_error`` and ``false_positives``; ``all-zeros`` rows carry the
exact all-zeros errors. The table of each unit is drawn from the unit's data stream (its own seed
for the NLCS-shaped table, so every replicate uses the same public table).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_int, check_positive
from ..experiments import Axis, Experiment, blocks_by_x, unit_rngs
from ._sampling import sample_histogram, sample_threshold
from ._tables import SparseCounts, all_zeros_errors, batch_errors, dense_errors
from .calibration import calibrate_histogram, calibrate_threshold, data_shape
from .configs import HistogramConfig, ThresholdConfig
from .designs import NLCS_N, NLCS_P, NLCS_Q, sparse_table
from .release import oracle_threshold

__all__ = ["EXPERIMENTS", "HALL_HISTOGRAM", "HALL_HISTOGRAM_P", "METHODS", "run_methods", "laplace_l1_exact", "trials_frame",
           "bound_shapes", "METHOD_LABELS"]

METHODS = ("laplace", "laplace-clip-round", "threshold", "oracle-threshold", "all-zeros")
METHOD_LABELS = {"laplace": "Laplace", "laplace-clip-round": "Laplace + clip/round",
                 "threshold": "Threshold τ = (2/ε) log p", "oracle-threshold": "Threshold, oracle q (NOT private)",
                 "all-zeros": "All-zeros output (ℓ1 = n)"}
#: Largest p at which the Laplace release is simulated cell by cell in the figures.
FIGURE_DENSE_P = 2**20


def laplace_l1_exact(p: int, b: float, size: int, rng) -> np.ndarray:
    """Draws of the raw Laplace release's ℓ1 error Σ_{i ≤ p} |L_i| ~ Gamma(p, b) (exact law)."""
    return rng.gamma(p, b, size)


def run_methods(table: SparseCounts, epsilon: float, rngs, methods=METHODS, *,
                dense_limit: int = FIGURE_DENSE_P) -> list[dict]:
    """One replicate of every method on ``table`` at ε: rows with ℓ1 ``error``, ``l2``, ``max_error``,
    ``false_positives``. ``rngs``: mapping method → Generator. Above ``dense_limit`` cells the Laplace
    ℓ1 error is drawn from its exact law Gamma(p, 2/ε) and Laplace + clip/round is skipped."""
    rows = []
    p = table.p
    for m in methods:
        g = rngs[m]
        if m in ("laplace", "laplace-clip-round"):
            post = "none" if m == "laplace" else "clip-round"
            if p <= dense_limit:
                cal = calibrate_histogram(HistogramConfig(epsilon, p, postprocess=post), data_shape(table))
                e = {k: float(v[0]) for k, v in dense_errors(sample_histogram(table, cal, 1, g), table).items()}
            elif m == "laplace":
                e = {"l1": float(laplace_l1_exact(p, 2.0 / epsilon, 1, g)[0]), "l2": np.nan, "max": np.nan,
                     "false_positives": np.nan}
            else:
                continue
        elif m == "threshold":
            cal = calibrate_threshold(ThresholdConfig(epsilon, p), data_shape(table))
            e = {k: float(v[0]) for k, v in batch_errors(sample_threshold(table, cal, 1, g), table).items()}
        elif m == "oracle-threshold":
            b = oracle_threshold(table, ThresholdConfig(epsilon, p), reps=1, rng=g)
            e = {k: float(v[0]) for k, v in batch_errors(b, table).items()}
        elif m == "all-zeros":
            e = all_zeros_errors(table)
        else:
            raise ValueError(f"method = {m!r} is unknown; choose among {METHODS}.")
        rows.append({"method": m, "error": e["l1"], "l2": e["l2"], "max_error": e["max"],
                     "false_positives": e["false_positives"]})
    return rows


def trials_frame(table: SparseCounts, epsilon: float, reps: int, rng=None, methods=METHODS) -> pd.DataFrame:
    """Errors of every method over ``reps`` independent replicates on one (public) table: a frame with
    columns method, rep, error (ℓ1), l2, max_error, false_positives. Simulation/teaching use only:
    the errors are computed from the true counts. Laplace is simulated cell by cell while
    reps × p ≤ 2^23 (interactive work cap); beyond, its ℓ1 error comes from its exact law."""
    from .._rng import spawn

    reps = check_int(reps, "replicates", lo=1, hi=200)
    rows = []
    for rep, g in enumerate(spawn(rng, reps)):
        gens = dict(zip(methods, spawn(g, len(methods))))
        rows += [{**r, "rep": rep} for r in run_methods(table, float(epsilon), gens, methods,
                                                           dense_limit=2**23 // reps)]
    return pd.DataFrame(rows)


def bound_shapes(p: int, q: int, epsilon: float) -> dict[str, float]:
    """The slides' minimax shapes with the unknown constant set to 1 (spec §1.3; "up to a constant")."""
    return {"p/ε (all histograms)": p / epsilon,
            "q·log(p/q)/ε (q-sparse histograms)": q * np.log(p / max(q, 1)) / epsilon}


def _validate_eps(p: dict) -> dict:
    p = dict(p)
    p["table_seed"] = check_int(p["table_seed"], "table_seed", lo=0)
    p["concentration"] = check_positive(p["concentration"], "concentration")
    return p


def run_eps_task(config, units) -> list[dict]:
    prm = config.params
    table = sparse_table(NLCS_P, NLCS_Q, NLCS_N, concentration=prm["concentration"], rng=prm["table_seed"])
    rows = []
    for eps, rep in units:
        g = unit_rngs(config, eps, rep)
        for r in run_methods(table, float(eps), g, config.methods):
            rows.append({**r, "epsilon": float(eps), "rep": rep})
    return rows


HALL_HISTOGRAM = Experiment(
    id="hall-histogram",
    title="Sparse histogram: ℓ1 error of Laplace vs hard thresholding (NLCS-shaped table)",
    description=("Hall (2012), Part 1: the synthetic NLCS-shaped table (p = 2^16 cells, q = 3 152 occupied, "
                 "n = 21 574; counts 1 + Multinomial(n − q, Dirichlet(a·1)), public seed), replace-one neighbours. "
                 "Laplace scale 2/ε in every cell; thresholding zeroes cells ≤ τ = (2/ε) log p (sparse sampler). The "
                 "oracle threshold uses the data's own q and is NOT private (comparison only)."),
    caption=("Expected: Laplace ℓ1 ≈ p·2/ε, an order of magnitude above n; thresholding ≤ n and about 10× better "
             "than Laplace at ε = 1; the all-zeros output has ℓ1 error exactly n."),
    methods=METHODS,
    axis=Axis("epsilon", "privacy parameter ε (the slides' α)", values=(0.1, 0.5, 1.0, 2.0), integer=False,
              lo=1e-3, hi=1e3),
    default_epsilon=None,
    default_reps=20,
    run_task=run_eps_task,
    plan=blocks_by_x(10),
    options={"table_seed": 20120516, "concentration": 0.3},
    option_help={"table_seed": "public seed of the synthetic NLCS-shaped table",
                 "concentration": "Dirichlet concentration a of the counts (small = skewed)"},
    quick={"x": (0.5, 1.0, 2.0), "reps": 3},
    reference_slope=-1.0,
    reference_label="ε⁻¹ (Laplace: p·2/ε)",
    error_label="ℓ1 error (counts)",
    validate=_validate_eps,
    method_labels=METHOD_LABELS,
    app_limits={"max_reps": 50},
)


def _validate_p(p: dict) -> dict:
    p = dict(p)
    p["q"] = check_int(p["q"], "q", lo=1, hi=10**6)
    p["n"] = check_int(p["n"], "n", lo=p["q"], hi=10**8)
    p["concentration"] = check_positive(p["concentration"], "concentration")
    return p


def run_p_task(config, units) -> list[dict]:
    prm = config.params
    eps = config.epsilon
    rows = []
    for p, rep in units:
        g = unit_rngs(config, p, rep)
        if prm["q"] > p:
            continue
        table = sparse_table(int(p), prm["q"], prm["n"], concentration=prm["concentration"], rng=g["data"])
        for r in run_methods(table, eps, g, config.methods):
            rows.append({**r, "p": int(p), "rep": rep})
    return rows


HALL_HISTOGRAM_P = Experiment(
    id="hall-histogram-p",
    title="Sparse histogram: ℓ1 error vs the number of cells p (fixed q, n)",
    description=("Hall (2012), Part 1: q occupied cells drawn uniformly among p, counts 1 + Multinomial(n − q, "
                 "Dirichlet(a·1)); replace-one, Laplace scale 2/ε; threshold τ = (2/ε) log p by the sparse sampler "
                 "(cost O(q + F)). For p > 2^20 the Laplace ℓ1 error is drawn from its exact law Gamma(p, 2/ε); "
                 "Laplace + clip/round is simulated only up to 2^20."),
    caption=("Expected: Laplace grows linearly in p (slope 1 on log–log axes); thresholding grows like q·log p "
             "(almost flat); the oracle (NOT private) is lower still."),
    methods=METHODS,
    axis=Axis("p", "number of cells p", values=tuple(2**k for k in range(8, 31, 2)), lo=2, hi=2**40),
    default_epsilon=1.0,
    default_reps=10,
    run_task=run_p_task,
    plan=blocks_by_x(10),
    options={"q": 100, "n": 10_000, "concentration": 0.3},
    option_help={"q": "occupied cells", "n": "records", "concentration": "Dirichlet concentration of the counts"},
    quick={"x": (2**8, 2**16, 2**30), "reps": 2},
    reference_slope=1.0,
    reference_label="p¹ (Laplace)",
    error_label="ℓ1 error (counts)",
    validate=_validate_p,
    method_labels=METHOD_LABELS,
    app_limits={"max_reps": 30, "max_x": 2**30},
)

EXPERIMENTS = (HALL_HISTOGRAM, HALL_HISTOGRAM_P)

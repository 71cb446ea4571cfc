"""Time model of the query-release lab (issue 18): its estimated seconds from public settings, checked before work.

:func:`dpcore.query_release.lab.run_lab` runs, on public synthetic data, (1) ``reps × |ns| × |methods|``
simulated releases (a projection costs Frank–Wolfe steps over the |X|·k universe; PMW ``T(n)`` rounds of
|X|·k each; a local protocol one randomised report per party), (2) the greedy nets of the packing profile and
the chaining decompositions (:func:`dpcore.query_release.geometry.greedy_net`: up to |X|² · (nonzeros of a
row) each; 13 profile scales plus, per α, the α/2 net and T(α) + 1 levels, T(α) = ⌈log₂(2/α)⌉) and (3) the
empirical sample complexity (a bisection of ≤ 19 steps of ``complexity_reps`` releases for each α and central
method). Each term is a product of public parameters times a unit cost fitted on timed runs, with room (at least
1.4× the CPU measured) so that the estimate covers a machine shared with other sessions.

Fit (``benchmarks/query_release_cost.py``, issue 18): the page's defaults on 2-way marginals, CPU seconds of the
run (one core; OPENBLAS_NUM_THREADS=1), measured twice at d = 8 and 9 under load averages 9–18:

====  =========  ======================  ==========================  ==============  ============
d     cells      releases phase (CPU s)  per-α phase: nets + n*(α)   whole run CPU   estimate
====  =========  ======================  ==========================  ==============  ============
6     3 840      1.3                     0.6                         1.9             8.3
7     10 752     3.0                     1.6                         4.6             9.9
8     28 672     1.3, 1.4                8.8, 7.6                    10.2, 9.1       14.3
9     73 728     2.3, 1.9                14.5, 13.9                  17.0, 16.0      26.0
====  =========  ======================  ==========================  ==============  ============

The first model (3e-8 s per cell and 0.002 s per sample-complexity release) estimated 10.2 s at d = 8 where
10.2 s of CPU were measured: no room for a machine shared with other sessions. A profile of the per-α phase
(d = 8) puts ~95 % of it in the pairwise Frank–Wolfe projections of the bisections' releases, whose number of
steps depends on the workload's geometry: on the marginals it grows with d faster than the cells (×5 from d = 7
to 8, ×1.7 from 8 to 9), while the cone at its page defaults (k = 500, r = 0.05; 160 500 cells) took 3.0 s of
CPU in all and thresholds N = 128 4.9 s (estimates 29.4 s and 9.0 s). So the per-cell cost of a
sample-complexity release is fitted per workload kind: 9e-8 s on the marginals (every timed run covered with at
least 1.4× its CPU: d = 8 14.3 s for 10.2 s, d = 9 26.0 s for 17.0 s), 3e-8 s on the others (unchanged).

Nothing here reads data: the lab's datasets are public and synthetic, and the estimate uses only the
declared workload (|X|, k, nonzeros per row), the methods, the sizes n, the replicates and ρ.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..limits import BUDGET_SECONDS, check_seconds, estimate_seconds
from ._central import pmw_rounds
from ._geometry import chaining_depth

__all__ = ["lab_terms", "lab_seconds", "check_lab", "RELEASE_S", "RELEASE_CELL_S", "NET_S", "COMPLEXITY_S",
           "COMPLEXITY_CELL_S", "COMPLEXITY_CELL_S_BY_KIND", "PMW_ROUND_S", "PMW_CELL_S", "PARTY_S", "PROFILE_SCALES", "BISECTION_STEPS"]

#: Seconds per simulated central release (calibration and its (ε, δ) conversion, histogram, bookkeeping).
RELEASE_S = 0.03
#: Seconds per simulated projection-type release per universe cell |X|·k (Frank–Wolfe steps).
RELEASE_CELL_S = 1.8e-7
#: Seconds per PMW round (per simulated release) and per round per universe cell.
PMW_ROUND_S = 1.5e-3
PMW_CELL_S = 4.5e-9
#: Seconds per party of a local protocol (one randomised report each) and per reported coordinate.
PARTY_S = 1.5e-5
PARTY_COORD_S = 1.5e-8
#: Seconds per |X|² · (nonzeros of a row) of one greedy net.
NET_S = 4e-9
#: Seconds per release of the sample-complexity bisection, and per release per universe cell.
COMPLEXITY_S = 0.002
COMPLEXITY_CELL_S = 3e-8
#: Per-cell cost of a sample-complexity release by workload kind where it differs (the Frank–Wolfe projections
#: take more steps on the marginals' hypercube as d grows; fitted on d = 6 … 9, see the module docstring).
COMPLEXITY_CELL_S_BY_KIND = {"Marginals": 9e-8}
#: Scales of the packing profile (bounds.geometry) and the most steps of one sample-complexity bisection
#: (quadrupling n from 1 to 10⁶: 11; then halving log n to 2 %: 8).
PROFILE_SCALES = 13
BISECTION_STEPS = 19
CENTRAL_EMPIRICAL = ("gaussian", "projection", "coarse", "chaining")


def lab_terms(config: Any) -> dict:
    """The time model's terms ``{name: (factors, seconds per unit)}`` of a :class:`~.lab.LabConfig`."""
    wl = config.workload.build()
    size, k = int(wl.size), int(wl.k)
    cells = size * k
    nnz = max(1, math.ceil(np.count_nonzero(wl.points) / max(size, 1)))
    methods = tuple(config.methods)
    reps, ns = int(config.reps), tuple(int(n) for n in config.ns)
    central = [m for m in methods if not m.startswith("local") and m != "pmw"]
    local = [m for m in methods if m.startswith("local")]
    terms: dict = {}
    if central:
        terms["simulated central releases"] = (
            {"replicates": reps, "sizes n": len(ns), "methods": len(central)}, RELEASE_S + RELEASE_CELL_S * cells)
    if "pmw" in methods:
        rounds = sum(pmw_rounds(n, config.rho, size, k) for n in ns)
        terms["PMW rounds"] = ({"replicates": reps, "Σ_n rounds T(n)": rounds},
                               PMW_ROUND_S + PMW_CELL_S * cells)
    if local:
        levels = sum(3 if m.endswith("chaining") else 1 for m in local)
        terms["local reports"] = ({"replicates": reps, "Σ n (parties)": sum(ns), "local methods": len(local)},
                                  PARTY_S + PARTY_COORD_S * k * levels / len(local))
    n_nets = PROFILE_SCALES + sum(chaining_depth(a) + 2 for a in config.alphas)
    terms["greedy nets"] = ({"nets": n_nets, "|X|²": size * size, "nonzeros per row": nnz}, NET_S)
    emp = [m for m in CENTRAL_EMPIRICAL if m in methods]
    if emp:
        terms["sample-complexity releases"] = (
            {"α values": len(config.alphas), "methods": len(emp), "replicates": int(config.complexity_reps),
             "bisection steps": BISECTION_STEPS},
            COMPLEXITY_S + COMPLEXITY_CELL_S_BY_KIND.get(type(config.workload).__name__, COMPLEXITY_CELL_S) * cells)
    return terms


def lab_seconds(config: Any) -> float:
    """Estimated seconds of :func:`~.lab.run_lab` on ``config`` (public settings only)."""
    return estimate_seconds(lab_terms(config))


def check_lab(config: Any, cap: float = BUDGET_SECONDS) -> float:
    """Refuse (DPValueError naming every term and the cap) a lab run estimated over ``cap`` seconds."""
    return check_seconds("the query-release lab run", lab_terms(config), cap=cap,
                         fix="use a smaller workload (fewer attributes d, a lower order w, a smaller N, k or |U|), "
                             "fewer methods, a smaller largest n or fewer replicates")

"""Time model of the query-release lab (issue 18): its estimated seconds from public settings, checked before work.

:func:`dpcore.query_release.lab.run_lab` runs, on public synthetic data, (1) ``reps × |ns| × |methods|``
simulated releases (a projection costs Frank–Wolfe steps over the |X|·k universe; PMW ``T(n)`` rounds of
|X|·k each; a local protocol one randomised report per party), (2) the greedy nets of the packing profile and
the chaining decompositions (:func:`dpcore.query_release.geometry.greedy_net`: up to |X|² · (nonzeros of a
row) each; 13 profile scales plus, per α, the α/2 net and T(α) + 1 levels, T(α) = ⌈log₂(2/α)⌉) and (3) the
empirical sample complexity (a bisection of ≤ 19 steps of ``complexity_reps`` releases for each α and central
method). Each term is a product of public parameters times a unit cost fitted on timed runs on the 2-core
reference machine under a load average of about 8, then multiplied by 1.5: the page's defaults at d = 10 measured 45.9 s
against a first estimate of 23.6 s while another session ran (``benchmarks/limits.py`` prints the estimate and
the measurement side by side), so the estimate covers a machine shared with other sessions. :func:`check_lab` refuses a run whose estimate exceeds the interaction
budget (:data:`dpcore.limits.BUDGET_SECONDS`), naming each term, before anything is computed.

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
           "COMPLEXITY_CELL_S", "PMW_ROUND_S", "PMW_CELL_S", "PARTY_S", "PROFILE_SCALES", "BISECTION_STEPS"]

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
             "bisection steps": BISECTION_STEPS}, COMPLEXITY_S + COMPLEXITY_CELL_S * cells)
    return terms


def lab_seconds(config: Any) -> float:
    """Estimated seconds of :func:`~.lab.run_lab` on ``config`` (public settings only)."""
    return estimate_seconds(lab_terms(config))


def check_lab(config: Any, cap: float = BUDGET_SECONDS) -> float:
    """Refuse (DPValueError naming every term and the cap) a lab run estimated over ``cap`` seconds."""
    return check_seconds("the query-release lab run", lab_terms(config), cap=cap,
                         fix="use a smaller workload (fewer attributes d, a lower order w, a smaller N, k or |U|), "
                             "fewer methods, a smaller largest n or fewer replicates")

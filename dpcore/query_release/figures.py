"""Figure ``query-release``: error vs n on the cone and on 2-way marginals, central (ρ-zCDP) and local (ε-LDP).

One *unit* = (scenario, n, rep): it builds the public workload, the scenario's dataset of size n, and
runs every requested method once with the unit's own generator, returning one row per method with
the normalised RMS error err₂ = (‖M(D) − x̄‖²/k)^{1/2} (and ‖·‖_∞). Expected shapes (BBNS §1, §5):
Gaussian ∝ 1/n; projection ∝ n^{−1/2} while the noise is outside the hull; coarse and chaining flatten
at their rounding floor (≤ α/2); local projection ∝ n^{−1/4}, local raw average ∝ n^{−1/2}.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._rng import RNGLike, as_generator, spawn
from ..errors import DPValueError
from . import _central as central
from . import _local as local
from . import configs
from . import release as releases
from ._workloads import mean_point
from .designs import SCENARIOS, scenario_data

__all__ = ["CENTRAL_METHODS", "LOCAL_METHODS", "fit_slope", "run_unit"]

CENTRAL_METHODS = ("gaussian", "projection", "coarse", "chaining")
LOCAL_METHODS = ("local-average", "local-projection", "local-coarse", "local-chaining")


def _local_average(data, spec, epsilon, rng) -> np.ndarray:
    """The raw average of the randomizer's reports, no projection (the local analogue of Gaussian-only)."""
    wl = spec.build()
    c = 0.5 * (wl.points.min(axis=0) + wl.points.max(axis=0))
    R = float(np.sqrt(((wl.points - c) ** 2).sum(axis=1).max()))
    tot = np.zeros(wl.k)
    gens = spawn(rng, (data.size + 8191) // 8192)
    for j, lo in enumerate(range(0, data.size, 8192)):
        tot += local.randomize((wl.points[data[lo:lo + 8192]] - c) / R, epsilon, gens[j]).sum(axis=0)
    return c + R * tot / data.size


def run_unit(scenario: str, n: int, rng: RNGLike | Mapping[str, np.random.Generator], *,
             methods=CENTRAL_METHODS + LOCAL_METHODS, rho: float = 0.5, epsilon: float = 1.0,
             alpha: float = 0.1) -> list[dict]:
    """One replicate at sample size n: a row per method with ``error`` (err₂) and ``max_error``.

    ``rng`` is one generator/seed (split per method) or a mapping method → generator (the
    experiments runner's :func:`~dpcore.experiments.unit_rngs`).
    """
    spec = SCENARIOS[scenario][0]()
    data = scenario_data(scenario, n)
    truth = mean_point(data, spec.build())
    if isinstance(rng, Mapping):
        gens = {m: rng[m] for m in methods}
    else:
        gens = dict(zip(methods, spawn(as_generator(rng), len(methods))))
    rows = []
    for m in methods:
        g = gens[m]
        if m == "gaussian":
            v = releases.gaussian.release(data, configs.GaussianConfig(spec, rho, sampler="float"), rng=g).value
        elif m == "projection":
            v = releases.projection.release(data, configs.ProjectionConfig(spec, rho), rng=g).value
        elif m == "coarse":
            v = releases.coarse.release(data, configs.CoarseConfig(spec, rho, alpha), rng=g).value
        elif m == "chaining":
            v = releases.chaining.release(data, configs.ChainingConfig(spec, rho, alpha), rng=g).value
        elif m == "local-average":
            v = _local_average(data, spec, epsilon, g)
        elif m == "local-projection":
            v = releases.local_projection.release(data, configs.LocalProjectionConfig(spec, epsilon),
                                                  rng=g).value
        elif m == "local-coarse":
            v = releases.local_coarse.release(data, configs.LocalCoarseConfig(spec, epsilon, alpha),
                                              rng=g).value
        elif m == "local-chaining":
            v = releases.local_chaining.release(data, configs.LocalChainingConfig(spec, epsilon, alpha),
                                                rng=g).value
        else:
            raise DPValueError(f"method = {m!r} is unknown; choose among {CENTRAL_METHODS + LOCAL_METHODS}.")
        rows.append({"scenario": scenario, "method": m, "n": int(n), "error": float(central.rms_error(v, truth)),
                     "max_error": float(central.max_error(v, truth))})
    return rows


def fit_slope(ns, errors) -> float:
    """Least-squares slope of log(error) on log(n)."""
    x, y = np.log(np.asarray(ns, dtype=float)), np.log(np.asarray(errors, dtype=float))
    return float(np.polyfit(x, y, 1)[0])


# -- the registered figure -------------------------------------------------------------------------------------
from dpcore.experiments import Axis, Experiment, blocks_by_x, unit_rngs  # noqa: E402

METHODS = CENTRAL_METHODS + LOCAL_METHODS


def _validate(p: dict) -> dict:
    from .._validation import check_choice, check_epsilon, check_int, check_rho
    from .configs import check_alpha

    p = dict(p)
    p["scenario"] = check_choice(p["scenario"], "scenario", tuple(SCENARIOS))
    p["rho"] = check_rho(p["rho"])
    p["epsilon_local"] = check_epsilon(p["epsilon_local"], "epsilon_local")
    p["alpha"] = check_alpha(p["alpha"])
    p["block"] = check_int(p["block"], "block", lo=1, hi=10_000)
    return p


def run_task(config, units) -> list[dict]:
    """Runner task: every unit (n, rep) draws only from ``unit_rngs(config, n, rep)``."""
    p = config.params
    rows = []
    for n, rep in units:
        g = unit_rngs(config, n, rep)
        for r in run_unit(p["scenario"], int(n), g, methods=config.methods, rho=p["rho"],
                          epsilon=p["epsilon_local"], alpha=p["alpha"]):
            rows.append({"method": r["method"], "n": int(n), "rep": rep, "error": r["error"],
                         "max_error": r["max_error"]})
    return rows


QUERY_RELEASE = Experiment(
    id="query-release",
    title="Query release: RMS error vs n (cone or 2-way marginals; central ρ-zCDP and local ε-LDP)",
    description=("Błasiok, Bun, Nikolov & Steinke (2019): mean point problem on a public universe. Scenario "
                 "'cone' (k = 1000, r = 0.05, 10 levels × 32 rim directions) or 'marginals' (2-way marginals over "
                 "{0,1}^8, k = 112). Data: two far points of X (half the records each). Central methods use ρ "
                 "(zCDP); local ones ε (LDP); coarse and chaining use the target α."),
    caption=("What theory predicts: Gaussian-only error ∝ n^−1; projection ∝ n^−1/2 while the noise leaves the "
             "hull, then it merges with Gaussian; coarse projection and chaining flatten at their rounding floor "
             "(≤ α/2) and, on the cone, reach a given error at much smaller n than projection. Local: raw average "
             "∝ n^−1/2, local projection's worst-case bound ∝ n^−1/4 (measured slopes are printed)."),
    methods=METHODS,
    axis=Axis("n", "sample size n (records)", values=(10, 30, 100, 300, 1000, 3000, 10_000), lo=2, hi=10**6),
    default_reps=10,
    default_epsilon=None,
    run_task=run_task,
    plan=blocks_by_x(5),
    options={"scenario": "cone", "rho": 0.5, "epsilon_local": 1.0, "alpha": 0.1, "block": 5},
    option_help={"scenario": "workload: 'cone' or 'marginals'", "rho": "zCDP ρ of the central methods",
                 "epsilon_local": "ε of the local (ε-LDP) methods", "alpha": "target α of coarse and chaining",
                 "block": "replicates per parallel task (grouping only: never changes the results)"},
    option_choices={"scenario": tuple(SCENARIOS)},
    quick={"x": (10, 100, 1000), "reps": 4},
    reference_slope=-1.0,
    reference_label="n^−1",
    error_label="RMS error (normalised, per query)",
    validate=_validate,
    grouping_params=("block",),
    app_limits={"max_x": 100_000, "max_reps": 50},
)

EXPERIMENTS = (QUERY_RELEASE,)

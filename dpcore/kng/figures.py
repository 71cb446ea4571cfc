"""Error-vs-n figures of Reimherr & Awan (2019), "KNG: The K-Norm Gradient Mechanism".

Why this module is long: four Experiments, each with its run function, its validation and its measured
time model (the fitted constants and how they were measured), kept next to the figure they cost.

Declared in :data:`EXPERIMENTS` (read by ``dpcore/kng/declare.py``; run them with
``python -m dpcore reproduce ID``):

* ``kng-linear`` — Figure 1 (§4.3): linear regression, d = 12, n = 1e2 … 1e7.
* ``kng-quantile-regression`` — Figure 2 (§4.5.1): median regression, d = 2, n = 10 … 1e5.
* ``kng-median``, ``kng-mean`` — small experiments with the exact (non-MCMC) samplers.

Protocol of the paper's Algorithm 1 (:mod:`dpcore.kng.designs`): X_{i1} = 1, X_{ij} ~ U(−1, 1), e ~ N(0, 1),
Y = Xθ* + e; R = max|Y_i|; fit every estimator on (X, Y/R); multiply the estimates by R;
error = ‖θ̂ − θ*‖₂. R is computed from the data and is *not* privatised — that is the paper's
simulation protocol; a real release must scale by a public bound instead. Figure 1's KNG and
exponential mechanism use the exact samplers (:mod:`dpcore.kng._exact_regression`); MCMC runs
only for replicates where rejection is hopeless, and for Figure 2. MCMC chains start at the
non-private estimate projected into Θ = {‖θ‖₁ ≤ B} (allowed in simulation only; the sampler
adapts its step sizes during burn-in), and only the last state of each chain is used.

Figure 1 never materialises a design matrix: each replicate's data are generated in chunks and
reduced to sufficient statistics (XᵀX, Xᵀy, max|y|) by
:func:`dpcore.kng.designs.regression_suffstats_chunked`; KNG, the exponential mechanism and objective
perturbation need only those. Figure 2 (quantile regression has no sufficient statistics) holds
the full data of one block of ≤ 25 replicates at one n.
"""
from __future__ import annotations

import numpy as np

from dpcore._validation import DPValueError, check_choice, check_int, check_probability_level
from dpcore.experiments import Axis, Experiment, RunConfig, blocks_across_x, blocks_by_x, unit_rngs
from dpcore.experiments.spec import Unit
from dpcore.kng.configs import check_B

R_PROTOCOL_NOTE = (
    "Paper protocol (Algorithm 1): the response is scaled by R = max|Y|, computed from the data and "
    "not privatised, and the MCMC chains start at the non-private estimate. Both are acceptable only "
    "in a simulation that studies error rates; a real release must scale by a public bound on |Y| "
    "fixed before seeing the data, and start its chains at a data-independent point."
)

CONSTANTS = ("paper", "calibrated")
N_LABEL = "sample size n (records)"
ERROR_LABEL = "mean error ‖θ̂ − θ*‖₂"
OPTION_HELP = {
    "sweeps": "MCMC sweeps per chain (one sweep updates every coordinate once)",
    "B": "radius of the parameter space Θ = {‖θ‖₁ ≤ B}",
    "constants": "'paper': the paper's printed constants (reproduces its figure); 'calibrated': exact sensitivities",
    "chunk": "rows generated at a time when reducing data to sufficient statistics (memory only)",
    "block": "replicates per parallel task (grouping only: never changes the results)",
    "tau": "quantile level τ",
}


def _help(*names: str) -> dict:
    return {k: OPTION_HELP[k] for k in names}


# ------------------------------------------------------------------------------------- helpers
def chain_starts(estimates: np.ndarray, B: float) -> np.ndarray:
    """Paper protocol: MCMC starts at the non-private estimates projected into {‖θ‖₁ ≤ B}.

    Shrunk by a relative 1e-9 so that projected rows lie strictly inside despite rounding (an MCMC
    start must satisfy the constraint). Data-dependent: allowed in simulations only.
    """
    from dpcore import kng

    return kng.project_l1_ball(np.atleast_2d(estimates), B) * (1.0 - 1e-9)


def _common_params(p: dict, *, sweeps_max: int = 1_000_000) -> dict:
    p = dict(p)
    p["sweeps"] = check_int(p["sweeps"], "sweeps", lo=10, hi=sweeps_max)
    p["B"] = check_B(p["B"])
    p["constants"] = check_choice(p["constants"], "constants", CONSTANTS)
    p["block"] = check_int(p["block"], "block", lo=1, hi=10_000)
    return p


def _diag_columns(res, m: int) -> dict[str, np.ndarray]:
    """Per-replicate MCMC diagnostics of a BatchResult (non-private; empty for exact methods).

    ``rhat``: the largest split R-hat over coordinates of the replicate's single chain; ``ess``:
    the smallest effective sample size; ``mixed``: 1 if the release rule (R-hat ≤ 1.05, ESS ≥ 100)
    holds. Simulations report every replicate (nothing is withheld), flagged by ``mixed``.
    """
    out: dict[str, np.ndarray] = {}
    rh = getattr(res, "replicate_rhat", None)
    es = getattr(res, "replicate_ess", None)
    mixed = getattr(res, "mixed", None)
    if rh is not None:
        out["rhat"] = np.asarray(rh, dtype=float).reshape(m, -1).max(axis=1)
    if es is not None:
        out["ess"] = np.asarray(es, dtype=float).reshape(m, -1).min(axis=1)
    if mixed is not None:
        out["mixed"] = np.asarray(mixed, dtype=float).reshape(m)
    return out


def _rows(method: str, units, errors, extra: dict | None = None) -> list[dict]:
    rows = []
    for i, (n, rep) in enumerate(units):
        row = {"method": method, "n": int(n), "rep": int(rep), "error": float(errors[i])}
        if extra:
            for k, v in extra.items():
                row[k] = float(v[i])
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------- time models
# Estimated seconds of ONE replicate at one x (``Experiment.unit_seconds``), so that the app refuses an over-budget
# run up front (``run_experiment(max_seconds=…)``). Shapes fitted on timed runs on the 2-core machine under a load
# of ≈ 6 (scripts: run_experiment(ID, xs=(n,), reps=4–25, jobs=1, methods=[m]) per method; each timing includes
# the replicate's data simulation, so summing over methods counts it once per method: an upper bound).
# Exact samplers (median, mean): a + b·n per method. n = 5 … 10⁵ (median), 5 … 10⁶ (mean).
_EXACT_COST = {
    "kng-median": {"kng": (2.5e-3, 1.9e-7), "exponential": (3e-3, 4.8e-7), "nonprivate": (1.8e-3, 4.2e-8)},
    "kng-mean": {"kng": (2e-3, 4.1e-8), "exponential": (3e-3, 3.1e-8), "nonprivate": (1.5e-3, 1.4e-8)},
}
# Figure 2 (quantile regression, d = 2): a block of replicates costs a + o·sweeps (data, non-private fit, the
# batched sweeps' fixed cost) and each replicate sweeps·(q + r₁·min(n, BOX_MIN_N) + r₂·n) (the exponential
# mechanism's banded target flattens in n beyond BOX_MIN_N). Non-negative least squares on relative error over 17
# runs of all methods: 8 replicates, n ∈ {10, 10³, 10⁴} × sweeps ∈ {200, 1 000} × block ∈ {2, 8} (0.07–4.1 s,
# load ≈ 6; fit within ±20 %) and five runs of 8–13 replicates, block 4–13, n ∈ {10², 10³, 10⁴} (1.2–11.3 s)
# timed while a second test process ran (load ≈ 8: the model under-predicts those by up to 40 %). Checked on
# the page's largest run (n = 10 … 10⁴, 50 replicates, 1 000 sweeps, block 13): 42.5 s measured, 39.6 s
# predicted, so it is refused. The MCMC terms scale with the share of {KNG, exponential} selected.
_QR_BLOCK, _QR_BLOCK_SWEEP, _QR_REP_SWEEP, _QR_ROW_SMALL, _QR_ROW = 4.7e-3, 1.4e-4, 2.9e-5, 1.33e-7, 1.94e-8
# Figure 1 (linear regression, d = 12): a block costs a, a replicate b + c·n (the chunked data reduction) + e when
# n ≤ 1 000 (the MCMC fallback where rejection is hopeless; measured at n = 100, absent at n = 10⁴). Least squares
# (non-negative) on 8 runs of all methods, 1 000 sweeps, n ∈ {10², 10⁴, 10⁵, 10⁶} × block ∈ {2, 8} (0.06–1.3 s).
_LIN_BLOCK, _LIN_REP, _LIN_ROW, _LIN_SMALL_N = 1.7e-2, 3.9e-3, 2.6e-7, 4.4e-2


def _exact_unit_seconds(exp_id: str):
    def unit_seconds(x, params, methods) -> float:
        cost = _EXACT_COST[exp_id]
        return sum(cost[m][0] + cost[m][1] * float(x) for m in methods)
    return unit_seconds


def _qr_unit_seconds(x, params, methods) -> float:
    from dpcore.kng._targets import BOX_MIN_N

    n, sweeps, block = float(x), float(params["sweeps"]), max(1, int(params.get("block", 1)))
    share = len({"kng", "exponential"} & set(methods)) / 2
    return ((_QR_BLOCK + _QR_BLOCK_SWEEP * sweeps * share) / block
            + sweeps * share * (_QR_REP_SWEEP + _QR_ROW_SMALL * min(n, BOX_MIN_N) + _QR_ROW * n))


def _linear_unit_seconds(x, params, methods) -> float:
    n, block = float(x), max(1, int(params.get("block", 1)))
    share = len({"kng", "exponential"} & set(methods)) / 2               # the fallback's MCMC methods
    return _LIN_BLOCK / block + _LIN_REP + _LIN_ROW * n + (_LIN_SMALL_N * share if n <= 1_000 else 0.0)


# ---------------------------------------------------------------------------- Figure 1
def _validate_linear(p: dict) -> dict:
    p = _common_params(p)
    p["chunk"] = check_int(p["chunk"], "chunk", lo=1_000, hi=10_000_000)
    return p


def run_linear_task(config: RunConfig, units: tuple[Unit, ...]) -> list[dict]:
    """Figure 1 task: sufficient statistics per unit, then every method batched over the units."""
    from dpcore.kng import designs
    from dpcore import kng

    theta_star = np.asarray(designs.figure1_theta(), dtype=float)
    B, sweeps, consts = config.params["B"], config.params["sweeps"], config.params["constants"]
    m = len(units)
    d = theta_star.size
    XtX = np.empty((m, d, d))
    Xty = np.empty((m, d))
    R = np.empty(m)
    rngs = []
    for i, (n, rep) in enumerate(units):
        g = unit_rngs(config, n, rep)
        rngs.append(g)
        st = designs.regression_suffstats_chunked(n, theta_star, rng=g["data"], chunk=config.params["chunk"])
        XtX[i], Xty[i], R[i] = st.XtX, st.Xty, st.max_abs_y
    Xty_s = Xty / R[:, None]                                   # paper protocol: Y' = Y / R
    ns = np.array([n for n, _ in units], dtype=np.int64)
    ols = np.linalg.solve(XtX, Xty_s[..., None])[..., 0]       # non-private OLS on the scaled data
    rows: list[dict] = []
    if "nonprivate" in config.methods:
        rows += _rows("nonprivate", units, np.linalg.norm(ols * R[:, None] - theta_star, axis=1))
    init = chain_starts(ols, B)
    for mech in ("kng", "exponential", "objective_perturbation"):
        if mech not in config.methods:
            continue
        kw = dict(mechanism=mech, epsilon=config.eps, B=B, norm="linf", constants=consts,
                  rng=[g[mech] for g in rngs])
        if mech == "objective_perturbation":
            res = kng.sample_linear_regression_suffstats(XtX, Xty_s, ns, n_sweeps=sweeps, init=init, **kw)
        else:  # exact sampler; MCMC (from the paper's start) only where rejection is hopeless (small n)
            res = kng.sample_linear_regression_exact_batch(XtX, Xty_s, ns, n_sweeps=sweeps, init=init, **kw)
        est = np.asarray(res.theta) * R[:, None]
        extra = _diag_columns(res, m)
        if res.exact is not None:
            extra["exact"] = res.exact.astype(float)
        rows += _rows(mech, units, np.linalg.norm(est - theta_star, axis=1), extra)
    return rows


def _linear_plan(config: RunConfig):
    return blocks_across_x(config.params["block"])(config)


KNG_LINEAR = Experiment(
    id="kng-linear",
    title="KNG Figure 1: linear regression, error vs n",
    description=("Reimherr & Awan (2019) Figure 1: d = 12, θ* = (0, −1, −1+2/11, …, 1−2/11), ε = 1, B = 1, "
                 "ℓ∞-norm KNG, exponential mechanism and objective perturbation vs non-private OLS. KNG and "
                 "the exponential mechanism use the exact sampler (K-norm law of the affine gradient mapped "
                 "back / restricted Gaussian, by rejection: exactly ε-DP); where its acceptance rate is too "
                 "low (small n: the law is much wider than Θ) the replicate falls back to one-at-a-time "
                 "Metropolis, 10 000 sweeps, only approximately ε-DP. The CSV's exact column says which ran; "
                 "rhat, ess and mixed are MCMC diagnostics computed from the (simulated) data: non-private."),
    caption=("What theory predicts (Reimherr & Awan 2019, §4.3): OLS error falls like n^−1/2; the exponential "
             "mechanism adds noise of order 1/√n, so for large n its curve runs parallel above OLS; KNG and "
             "objective perturbation add noise of order 1/n and approach the OLS line. At small n (MCMC "
             "fallback, few sweeps) the fitted slopes can differ from these rates."),
    paper_protocol_note=R_PROTOCOL_NOTE,
    methods=("nonprivate", "kng", "exponential", "objective_perturbation"),
    axis=Axis("n", N_LABEL, values=tuple(10**k for k in range(2, 8)), lo=20, hi=10**8),
    default_reps=100,
    default_epsilon=1.0,
    run_task=run_linear_task,
    plan=_linear_plan,
    options={"sweeps": 10_000, "B": 1.0, "constants": "paper", "chunk": 50_000, "block": 25},
    option_help=_help("sweeps", "B", "constants", "chunk", "block"),
    option_choices={"constants": CONSTANTS},
    quick={"x": (100, 1000, 10_000, 100_000), "reps": 12, "sweeps": 1_000},
    reference_label="n^−1/2",
    error_label=ERROR_LABEL,
    validate=_validate_linear,
    grouping_params=("block",),
    app_limits={"max_x": 1_000_000, "max_reps": 50, "max_sweeps": 2_000},
    app_options=("sweeps", "constants"),
    unit_seconds=_linear_unit_seconds,
)


# ---------------------------------------------------------------------------- Figure 2
def _validate_qr(p: dict) -> dict:
    p = _common_params(p)
    p["tau"] = check_probability_level(p["tau"], "tau")
    if p["constants"] == "paper" and p["tau"] > 0.5:
        raise DPValueError(f"tau = {p['tau']} > 1/2 with constants='paper': the paper's sensitivity 2(1−τ) is "
                           "not private there (it holds for τ ≤ 1/2 only); use constants='calibrated'.")
    p["block"] = min(p["block"], 25)
    return p


def run_quantile_regression_task(config: RunConfig, units: tuple[Unit, ...]) -> list[dict]:
    """Figure 2 task: full data of a block of replicates at one n; methods batched over them."""
    from dpcore.kng import designs
    from dpcore import kng

    theta_star = np.asarray(designs.figure2_theta(), dtype=float)
    p = config.params
    ns = {n for n, _ in units}
    if len(ns) != 1:
        raise RuntimeError("a quantile-regression task must hold a single n")
    n = ns.pop()
    m, d = len(units), theta_star.size
    X = np.empty((m, n, d))
    Y = np.empty((m, n))
    R = np.empty(m)
    rngs = []
    for i, (_, rep) in enumerate(units):
        g = unit_rngs(config, n, rep)
        rngs.append(g)
        Xi, yi = designs.simulate_regression(n, theta_star, rng=g["data"])
        X[i] = Xi
        Y[i], R[i] = designs.paper_rescale(yi)
    nonpriv = np.asarray(kng.nonprivate_quantile_regression(X, Y, p["tau"]), dtype=float).reshape(m, d)
    rows: list[dict] = []
    if "nonprivate" in config.methods:
        rows += _rows("nonprivate", units, np.linalg.norm(nonpriv * R[:, None] - theta_star, axis=1))
    init = chain_starts(nonpriv, p["B"])
    for mech in ("kng", "exponential"):
        if mech not in config.methods:
            continue
        res = kng.sample_quantile_regression_batch(
            X, Y, tau=p["tau"], mechanism=mech, epsilon=config.eps, B=p["B"], C_X=1.0, norm="linf",
            constants=p["constants"], n_sweeps=p["sweeps"], rng=[g[mech] for g in rngs], init=init,
            nonprivate=nonpriv)
        est = np.asarray(res.theta) * R[:, None]
        rows += _rows(mech, units, np.linalg.norm(est - theta_star, axis=1), _diag_columns(res, m))
    return rows


def _qr_plan(config: RunConfig):
    return blocks_by_x(config.params["block"])(config)


KNG_QUANTILE_REGRESSION = Experiment(
    id="kng-quantile-regression",
    title="KNG Figure 2: quantile (median) regression, error vs n",
    description=("Reimherr & Awan (2019) Figure 2: τ = 1/2, d = 2, θ* = (0, −1), ε = 1, B = 1, ℓ∞ norm, "
                 "C_X = 1; KNG and the exponential mechanism (1 000 MCMC sweeps) vs non-private "
                 "quantile regression. MCMC draws are only approximately ε-DP; the rhat, ess and mixed columns of "
                 "the CSV are MCMC "
                 "diagnostics computed from the (simulated) data: non-private."),
    caption=("What theory predicts (Reimherr & Awan 2019, §4.5.1): KNG's noise is of order 1/n, so it approaches "
             "the non-private line; the exponential mechanism's is of order 1/√n, so for large n it runs "
             "parallel above it."),
    paper_protocol_note=R_PROTOCOL_NOTE,
    methods=("nonprivate", "kng", "exponential"),
    axis=Axis("n", N_LABEL, values=tuple(10**k for k in range(1, 6)), lo=5, hi=1_000_000),
    default_reps=100,
    default_epsilon=1.0,
    run_task=run_quantile_regression_task,
    plan=_qr_plan,
    options={"sweeps": 1_000, "B": 1.0, "tau": 0.5, "constants": "paper", "block": 25},
    option_help=_help("sweeps", "B", "tau", "constants", "block"),
    option_choices={"constants": CONSTANTS},
    quick={"x": (10, 100, 1000), "reps": 20, "sweeps": 500},
    reference_label="n^−1/2",
    error_label=ERROR_LABEL,
    validate=_validate_qr,
    grouping_params=("block",),
    app_limits={"max_x": 10_000, "max_reps": 50, "max_sweeps": 1_000},
    app_options=("sweeps", "constants"),
    unit_seconds=_qr_unit_seconds,
)


# --------------------------------------------------------------- exact-sampler experiments
def _validate_exact(p: dict) -> dict:
    p = dict(p)
    p["block"] = check_int(p["block"], "block", lo=1, hi=10_000)
    return p


def _exact_rows(config: RunConfig, units, problem: str, simulate, truth: float, kng_params: dict) -> list[dict]:
    from dpcore import kng

    rows: list[dict] = []
    for n, rep in units:
        g = unit_rngs(config, n, rep)
        x = simulate(n, g["data"])
        for m in config.methods:
            if m == "nonprivate":
                est = float(np.median(x) if problem == "median" else np.mean(x))
            else:
                res = kng.sample(problem, x, mechanism=m, epsilon=config.eps, norm="linf", size=1,
                                 rng=g[m], **kng_params)
                est = float(np.asarray(res.samples).ravel()[0])
            rows.append({"method": m, "n": int(n), "rep": int(rep), "error": abs(est - truth)})
    return rows


def run_median_task(config: RunConfig, units: tuple[Unit, ...]) -> list[dict]:
    """kng-median task: N(0, 1) data, public bounds [−4, 4], exact samplers; error |θ̂ − 0|."""
    from dpcore import data as dpdata

    def simulate(n, g):
        return dpdata.simulate_univariate("normal", n, rng=g)
    return _exact_rows(config, units, "median", simulate, 0.0, {"bounds": (-4.0, 4.0)})


def run_mean_task(config: RunConfig, units: tuple[Unit, ...]) -> list[dict]:
    """kng-mean task: U(−1, 1) data (‖x‖ ≤ 1 public), exact samplers; error |θ̂ − 0|."""
    from dpcore import data as dpdata

    def simulate(n, g):
        return dpdata.simulate_univariate("uniform", n, rng=g, low=-1.0, high=1.0)
    return _exact_rows(config, units, "mean", simulate, 0.0, {"radius": 1.0, "center": 0.0})


def _exact_plan(config: RunConfig):
    return blocks_by_x(config.params["block"])(config)


KNG_MEDIAN = Experiment(
    id="kng-median",
    title="KNG vs exponential mechanism: median, error vs n (exact samplers)",
    description=("Median of n draws from N(0, 1) with public bounds [−4, 4] (values outside are clipped). "
                 "KNG: density ∝ exp(−(ε/4)|#{x<θ} − #{x>θ}|) (Δ = 2); exponential mechanism: "
                 "∝ exp(−ε Σ|xᵢ − θ| / (2·8)). Both sampled exactly (piecewise densities), no MCMC."),
    caption=("What theory predicts: KNG's noise is of order 1/n, so it merges with the sample median; the "
             "exponential mechanism's noise is of order 1/√n, so for large n it runs parallel above."),
    paper_protocol_note="",
    methods=("nonprivate", "kng", "exponential"),
    axis=Axis("n", N_LABEL, values=tuple(10**k for k in range(1, 6)), lo=5, hi=10**7),
    default_reps=100,
    default_epsilon=1.0,
    run_task=run_median_task,
    plan=_exact_plan,
    options={"block": 25},
    option_help=_help("block"),
    quick={"x": (10, 100, 1000, 10_000, 100_000), "reps": 30},
    reference_label="n^−1/2",
    error_label="mean error |θ̂ − median|",
    validate=_validate_exact,
    grouping_params=("block",),
    app_limits={"max_x": 100_000, "max_reps": 100},
    unit_seconds=_exact_unit_seconds("kng-median"),
)

KNG_MEAN = Experiment(
    id="kng-mean",
    title="KNG vs exponential mechanism: mean, error vs n (exact samplers)",
    description=("Mean of n draws from U(−1, 1), public radius |x| ≤ 1. KNG for the squared loss is the "
                 "Laplace/K-norm mechanism centred at x̄ (noise O(1/n)); the exponential mechanism on the "
                 "squared loss is a Gaussian around x̄ with variance ∝ 1/(εn) (noise O(1/√n))."),
    caption=("What theory predicts: KNG's noise is of order 1/n, so it merges with the sample mean; the "
             "exponential mechanism's is of order 1/√n, so for large n it runs parallel above."),
    paper_protocol_note="",
    methods=("nonprivate", "kng", "exponential"),
    axis=Axis("n", N_LABEL, values=tuple(10**k for k in range(1, 6)), lo=2, hi=10**7),
    default_reps=100,
    default_epsilon=1.0,
    run_task=run_mean_task,
    plan=_exact_plan,
    options={"block": 25},
    option_help=_help("block"),
    quick={"x": (10, 100, 1000, 10_000, 100_000), "reps": 30},
    reference_label="n^−1/2",
    error_label="mean error |θ̂ − 0|",
    validate=_validate_exact,
    grouping_params=("block",),
    app_limits={"max_x": 1_000_000, "max_reps": 100},
    unit_seconds=_exact_unit_seconds("kng-mean"),
)

#: The KNG topic's figures, in display order (declared in dpcore/kng/declare.py).
EXPERIMENTS = (KNG_LINEAR, KNG_QUANTILE_REGRESSION, KNG_MEDIAN, KNG_MEAN)

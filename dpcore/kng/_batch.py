"""Batched regression samplers for simulations: R independent replicates, one chain (or QP) each.

Used by the paper's figures (:mod:`dpcore.kng.figures`) and the audits: every
replicate is a different dataset (or, in an audit, a fresh draw on the same one), so
:attr:`BatchResult.cost` is the cost of ONE replicate's release ("per replicate"). Same
calibrations as the releases (:func:`dpcore.kng.calibration.mechanism_calibration`); ``override``
replaces the calibration (audit mutants).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast, Optional

import numpy as np

from .._rng import as_generator, generators_for, spawn
from .._validation import DPValueError, check_int
from ..mcmc import MCMCDiagnostics, metropolis_within_gibbs, per_chain_rhat_ess
from ..mechanism import Calibration
from ..norms import norm as knorm
from ..privacy import PrivacyCost
from ._estimators import nonprivate_quantile_regression, ols
from ._exact_regression import sample_linear_exact
from ._regression import LinearRegression, QuantileRegression, objective_perturbation
from .release._engine import EXACT_NOTE, ESS_MIN, MCMC_NOTE, RHAT_MAX, Override, initial_step_rule, thinning
from ._targets import LinearRegressionTarget, quantile_regression_target
from .calibration import mechanism_calibration
from .configs import MAX_SWEEPS, LinearRegressionConfig, QuantileRegressionConfig

PER_REPLICATE = "per replicate"


@dataclass(frozen=True)
class BatchResult:
    """Batched regression draws over R independent replicates (one chain each).

    ``theta`` (R, d) and ``nonprivate`` (R, d, NOT private: for the simulation's error curves) are
    in the caller's (scaled) units. ``cost`` is the cost of each replicate's release (each
    replicate is a different dataset), noted "per replicate"; ``calibration`` the constants used.
    ``diagnostics`` summarises the worst replicate per coordinate (max split R-hat, min ESS of each
    single chain); ``replicate_rhat``/``replicate_ess`` (R, d) hold them per replicate; ``mixed``
    (R,) applies the release rule per replicate.
    """

    theta: np.ndarray
    nonprivate: np.ndarray
    cost: PrivacyCost
    calibration: Calibration
    diagnostics: Optional[MCMCDiagnostics]
    mechanism: str = ""
    replicate_rhat: Optional[np.ndarray] = None
    replicate_ess: Optional[np.ndarray] = None
    mixed: Optional[np.ndarray] = None
    trace: Optional[np.ndarray] = None
    note: str = ""
    exact: Optional[np.ndarray] = None     # (R,) bool: replicates drawn by an exact sampler (exact batch only)

    @property
    def sensitivity(self) -> float:
        return self.calibration.sensitivity

    @property
    def density_constant(self) -> float:
        return self.calibration.constant


def _calibrate(problem, cfg, d: int, note: str, override: Override) -> Calibration:
    cal = mechanism_calibration(cfg, d).replace(note=f"{note}; {PER_REPLICATE}")
    return cal if override is None else override(cal)


def _batch_gens(rng, R: int):
    """A list of R generators (chain r uses only rng[r]) when one is given, else one Generator for all
    chains (much faster for tens of thousands of chains; chains are still independent)."""
    if isinstance(rng, (list, tuple)):
        return generators_for(rng, R)
    return as_generator(rng)


def _gen_list(gens, R: int) -> list:
    return gens if isinstance(gens, list) else spawn(gens, R)


def _per_replicate_diagnostics(trace: np.ndarray, base: MCMCDiagnostics):
    """Rank-normalised split R-hat (bulk and tail) and bulk ESS of each replicate's single chain
    (Vehtari et al. 2021, applied per chain), and the worst replicate per coordinate."""
    T, R, d = trace.shape
    if T >= 8:
        rh, es = per_chain_rhat_ess(trace)
    else:
        rh = es = np.full((R, d), np.nan)
    summary = MCMCDiagnostics(acceptance=base.acceptance, acceptance_per_coord=base.acceptance_per_coord,
                              rhat=np.max(rh, axis=0), ess=np.min(es, axis=0), n_chains=R,
                              n_sweeps=base.n_sweeps, burn_in=base.burn_in)
    mixed = np.all(rh <= RHAT_MAX, axis=1) & np.all(es >= ESS_MIN, axis=1)
    return summary, rh, es, mixed


def _run_batch_mcmc(inc, R, d, init, step, B, n_sweeps, burn_in, gens, keep_trace, replicate_diagnostics=True):
    if init is None:
        init = np.zeros((R, d))
        start_note = "chains start at the centre of Θ (θ = 0)"
    else:
        init = np.asarray(init, dtype=float)
        if init.shape != (R, d):
            raise DPValueError(f"init must have shape ({R}, {d}) (one start per replicate); got {init.shape}.")
        start_note = ("chains start at caller-supplied points (a data-dependent start such as the projected "
                      "non-private estimate is allowed in simulations only)")
    burn = n_sweeps // 2 if burn_in is None else check_int(burn_in, "burn_in", lo=0, hi=n_sweeps - 1)
    thin = thinning(n_sweeps - burn, R, d, 1000 if replicate_diagnostics else 10)
    res = metropolis_within_gibbs(None, init, n_sweeps=n_sweeps, rng=gens, step_size=step, burn_in=burn,
                                  l1_radius=B, incremental=inc, thin=thin, keep_trace=True)
    if replicate_diagnostics:
        summary, rh, es, mixed = _per_replicate_diagnostics(cast(np.ndarray, res.trace), res.diagnostics)
    else:
        summary, rh, es, mixed = None, None, None, None
    return res.final.copy(), summary, rh, es, mixed, (res.trace if keep_trace else None), start_note


def sample_linear_regression_suffstats(XtX, Xty, n, *, mechanism: str, epsilon: float, B: float = 1.0,
                                       norm: str = "linf", constants: str = "calibrated", n_sweeps: int = 10_000,
                                       rng=None, init=None, burn_in=None, keep_trace: bool = False,
                                       replicate_diagnostics: bool = True, override: Override = None) -> BatchResult:
    """Linear regression on sufficient statistics, batched over R independent replicates.

    Parameters
    ----------
    XtX : (R, d, d), Xty : (R, d)
        Sufficient statistics of R datasets already scaled to |y| ≤ 1, ‖x‖∞ ≤ 1 (the caller's
        responsibility: the sensitivities assume it).
    n : int or (R,) ints — sample sizes (public; set the initial proposal scales).
    mechanism : {"kng", "exponential", "objective_perturbation"}
        (the non-private estimate is :func:`dpcore.kng.ols`, not a mechanism)
    rng : list of R Generators (replicate r uses rng[r] only) or a seed/Generator (then one stream
        drives all chains: faster for very many replicates, and the chains are still independent).
    init : (R, d) start states inside {‖θ‖₁ < B}; None = centre of Θ (zeros).
    n_sweeps, burn_in : MCMC length (burn-in n_sweeps // 2 by default; adaptation only then).
    keep_trace : return the (thinned, ≤ 1000 draws per chain) post-burn-in trace.
    replicate_diagnostics : compute each replicate's split R-hat/ESS (False: diagnostics None; for
        audits with tens of thousands of chains).
    override : callable(Calibration) -> Calibration, optional
        Replaces the calibration (an audit's mutant).

    Returns
    -------
    BatchResult — one chain per replicate; KNG and the exponential mechanism cost O(d) per
    coordinate update (independent of n).
    """
    cfg = LinearRegressionConfig(mechanism=mechanism, epsilon=epsilon, norm=norm, B=B, constants=constants)
    A = np.asarray(XtX, dtype=float)
    b = np.asarray(Xty, dtype=float)
    if A.ndim != 3 or b.ndim != 2 or A.shape[0] != b.shape[0] or A.shape[1:] != (b.shape[1], b.shape[1]):
        raise DPValueError(f"XtX must be (R, d, d) and Xty (R, d); got {A.shape} and {b.shape}.")
    if not (np.isfinite(A).all() and np.isfinite(b).all()):
        raise DPValueError("XtX and Xty must be finite.")
    R, d = b.shape
    nn = np.broadcast_to(np.asarray(n, dtype=float), (R,))
    if not (np.all(nn >= 1) and np.all(nn == np.round(nn))):
        raise DPValueError(f"n must be whole numbers >= 1; got {n!r}.")
    nonpriv = ols(A, b)
    n_sweeps = check_int(n_sweeps, "n_sweeps", lo=2, hi=10 * MAX_SWEEPS)
    gens = _batch_gens(rng, R)
    if mechanism == "objective_perturbation":
        cal = _calibrate(LinearRegression(), cfg, d, f"{EXACT_NOTE} (exact constrained minimiser)", override)
        theta = objective_perturbation(A, b, cal, cfg.B, _gen_list(gens, R))
        return BatchResult(theta, nonpriv, cal.cost(1), cal, None, mechanism,
                           note="objective perturbation: exact QP, KKT residual checked")
    cal = _calibrate(LinearRegression(), cfg, d, MCMC_NOTE, override)
    inc = LinearRegressionTarget(A, b, mechanism, cal.constant, cfg.norm)
    eps = cfg.epsilon
    width = 2.0 * cal.sensitivity / (eps * nn) if mechanism == "kng" else np.sqrt(2.0 * cal.sensitivity / (eps * nn))
    step = initial_step_rule(width, cfg.B)[:, None] * np.ones((1, d))
    theta, summary, rh, es, mixed, trace, start = _run_batch_mcmc(inc, R, d, init, step, cfg.B, n_sweeps, burn_in,
                                                                  gens, keep_trace, replicate_diagnostics)
    return BatchResult(theta, nonpriv, cal.cost(1), cal, summary, mechanism, rh, es, mixed, trace, note=start)


def sample_linear_regression_exact_batch(XtX, Xty, n, *, mechanism: str, epsilon: float, B: float = 1.0,
                                         norm: str = "linf", constants: str = "calibrated", rng=None,
                                         max_trials: int = 50_000, n_sweeps: int = 10_000, init=None,
                                         burn_in=None, override: Override = None) -> BatchResult:
    """KNG / the exponential mechanism for R replicates with the exact sampler, one draw each.

    Each replicate r draws from its own generator ``rng[r]`` with
    :func:`dpcore.kng._exact_regression.sample_linear_exact` (exact ε-DP law, see its module); a replicate
    whose acceptance rate is too low for ``max_trials`` proposals (θ̂ far outside Θ, or a law much wider
    than Θ — small n) falls back to the batched coordinate-wise MCMC of
    :func:`sample_linear_regression_suffstats` (its chain continues the same generator, starting at
    ``init[r]``). ``mixed`` is 1 for exact replicates; ``replicate_rhat``/``replicate_ess`` are NaN
    there. ``exact`` (R,) says which replicates were exact (``note`` counts them).

    Parameters as in :func:`sample_linear_regression_suffstats`; ``rng`` must be a list of R generators
    (results then do not depend on how replicates are grouped into tasks).
    """
    cfg = LinearRegressionConfig(mechanism=mechanism, epsilon=epsilon, norm=norm, B=B, constants=constants)
    A = np.asarray(XtX, dtype=float)
    b = np.asarray(Xty, dtype=float)
    if A.ndim != 3 or b.ndim != 2 or A.shape[0] != b.shape[0] or A.shape[1:] != (b.shape[1], b.shape[1]):
        raise DPValueError(f"XtX must be (R, d, d) and Xty (R, d); got {A.shape} and {b.shape}.")
    if mechanism not in ("kng", "exponential"):
        raise DPValueError(f"the exact batch sampler covers mechanism='kng' and 'exponential'; got {mechanism!r}.")
    R, d = b.shape
    if not isinstance(rng, (list, tuple)) or len(rng) != R:
        raise DPValueError(f"rng must be a list of {R} generators (one per replicate).")
    gens = list(rng)
    cal = _calibrate(LinearRegression(), cfg, d, EXACT_NOTE, override)
    theta = np.empty((R, d))
    exact = np.zeros(R, dtype=bool)
    for r in range(R):
        out = sample_linear_exact(A[r], b[r], mechanism, cal.constant, cfg.norm, cfg.B, 1, gens[r],
                                  max_trials=max_trials)
        exact[r] = not out.missing.any()
        theta[r] = out.values[0]
    nonpriv = ols(A, b)
    rh = np.full((R, d), np.nan)
    es = np.full((R, d), np.nan)
    mixed = np.ones(R, dtype=bool)
    fb = np.flatnonzero(~exact)
    diag = None
    if fb.size:
        nn = np.broadcast_to(np.asarray(n, dtype=float), (R,))
        res = sample_linear_regression_suffstats(A[fb], b[fb], nn[fb], mechanism=mechanism, epsilon=epsilon, B=B,
                                                 norm=norm, constants=constants, n_sweeps=n_sweeps,
                                                 rng=[gens[i] for i in fb], burn_in=burn_in, override=override,
                                                 init=None if init is None else np.asarray(init, dtype=float)[fb])
        theta[fb] = res.theta
        rh[fb], es[fb], mixed[fb] = res.replicate_rhat, res.replicate_ess, res.mixed
        diag = res.diagnostics
        cal = res.calibration.replace(note=f"{EXACT_NOTE}; {fb.size} of {R} replicates by MCMC (fallback); "
                                           f"{PER_REPLICATE}")
    note = f"exact rejection sampler for {int(exact.sum())} of {R} replicates; MCMC fallback for the others"
    return BatchResult(theta, nonpriv, cal.cost(1), cal, diag, mechanism, rh, es, mixed, None, note=note, exact=exact)


def sample_quantile_regression_batch(X, y, *, tau: float, mechanism: str, epsilon: float, B: float = 1.0,
                                     C_X: float = 1.0, norm: str = "linf", constants: str = "calibrated",
                                     n_sweeps: int = 1_000, rng=None, init=None, burn_in=None,
                                     nonprivate=None, keep_trace: bool = False, replicate_diagnostics: bool = True,
                                     override: Override = None) -> BatchResult:
    """Quantile regression, batched over R replicates (one chain each); banded O(√n) moves for large n.

    The parameters not listed below are those of :func:`sample_linear_regression_suffstats`.

    Parameters
    ----------
    X : (R, n, d), y : (R, n)
        Data with ‖x_i‖_K ≤ C_X (KNG) or ‖x_i‖∞ ≤ 1 and |y_i| ≤ 1 (exponential); violations raise
        (the caller rescales; nothing is clipped silently).
    nonprivate : (R, d), optional
        Precomputed non-private estimates (else solved by linear programming here).
    """
    cfg = QuantileRegressionConfig(mechanism=mechanism, epsilon=epsilon, norm=norm, tau=tau, B=B, C_X=C_X,
                                   constants=constants)
    C_X, norm = cast(float, cfg.C_X), cfg.norm      # validated copy of the float C_X given
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 3 or y.shape != X.shape[:2]:
        raise DPValueError(f"X must be (R, n, d) and y (R, n); got {X.shape} and {y.shape}.")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise DPValueError("X and y must be finite.")
    R, n, d = X.shape
    if nonprivate is None:
        nonpriv = nonprivate_quantile_regression(X, y, cfg.tau)
    else:
        nonpriv = np.asarray(nonprivate, dtype=float)
        if nonpriv.shape != (R, d):
            raise DPValueError(f"nonprivate must have shape ({R}, {d}); got {nonpriv.shape}.")
    n_sweeps = check_int(n_sweeps, "n_sweeps", lo=2, hi=10 * MAX_SWEEPS)
    cal = _calibrate(QuantileRegression(), cfg, d, MCMC_NOTE, override)
    tol = 1e-12
    if mechanism == "kng":
        worst = float(np.max(knorm(X.reshape(-1, d), norm)))
        if worst > C_X * (1 + tol):
            raise DPValueError(f"X has a row with ‖x‖_{norm} = {worst:.6g} > C_X = {C_X:g}; rescale X (or raise C_X).")
    else:
        if np.max(np.abs(X)) > 1 + tol or np.max(np.abs(y)) > 1 + tol:
            raise DPValueError("the exponential mechanism assumes ‖x‖∞ ≤ 1 and |y| ≤ 1; rescale the data first.")
    gens = _batch_gens(rng, R)
    inc = quantile_regression_target(X, y, cfg.tau, mechanism, cal.constant, norm)
    eps = cfg.epsilon
    width = 2.0 * cal.sensitivity / (eps * n) if mechanism == "kng" else math.sqrt(2.0 * cal.sensitivity / (eps * n))
    step = np.full((R, d), float(initial_step_rule(width, cfg.B)))
    theta, summary, rh, es, mixed, trace, start = _run_batch_mcmc(inc, R, d, init, step, cfg.B, n_sweeps, burn_in,
                                                                  gens, keep_trace, replicate_diagnostics)
    return BatchResult(theta, nonpriv, cal.cost(1), cal, summary, mechanism, rh, es, mixed, trace, note=start)

"""The two public samplers: validate the arguments, build a move, run the driver, diagnose the trace.

:func:`metropolis_within_gibbs` runs :class:`~dpcore.mcmc.moves.CoordinateMove` (one coordinate at a
time; O(1)-record incremental targets), :func:`preconditioned_metropolis` runs
:class:`~dpcore.mcmc.moves.PreconditionedMove` (full-vector or whitened-direction moves, covariance
adaptation, parallel tempering).  Both run ``C`` independent chains in lock-step through
:func:`dpcore.mcmc.driver.run`.

Privacy note (spec kng.md §4): the sampler's output is only *approximately* distributed as
the target; the diagnostics are computed from private data and are non-private.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._validation import check_positive
from ..errors import DPValueError
from . import _checks
from .diagnostics import rhat_ess
from .driver import Progress, run
from .moves import CoordinateMove, IncrementalCoordinateMove, PreconditionedMove
from .results import IncrementalTarget, MCMCDiagnostics, MCMCResult

__all__ = ["metropolis_within_gibbs", "preconditioned_metropolis"]


def _finish(move: CoordinateMove | PreconditionedMove, trace: np.ndarray, *, keep_trace: bool, n_sweeps: int,
            burn_in: int, final: np.ndarray, swap_rates: np.ndarray | None = None) -> MCMCResult:
    """The result of a run: final states, trace (if kept), adapted steps and diagnostics."""
    rhat, ess = rhat_ess(trace)
    acceptance, per_coord = move.acceptance(n_sweeps - burn_in)
    diag = MCMCDiagnostics(acceptance=acceptance, acceptance_per_coord=per_coord, rhat=rhat, ess=ess,
                           n_chains=move.n_chains, n_sweeps=n_sweeps, burn_in=burn_in, swap_rates=swap_rates)
    return MCMCResult(final=final, trace=trace if keep_trace else None, step_size=move.step_sizes(),
                      diagnostics=diag)


def _constraints(lower: Any, upper: Any, l1_radius: Any, theta0: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, float | None]:
    """Validated box and ℓ1 radius, checked to contain every start state."""
    lo, hi = _checks.box(lower, upper, theta0.shape[1])
    radius = None if l1_radius is None else check_positive(l1_radius, "l1_radius")
    _checks.starts_inside(theta0, lo, hi, radius)
    return lo, hi, radius


def metropolis_within_gibbs(
    log_density: Callable[[np.ndarray], np.ndarray] | None,
    init: Any,
    *,
    n_sweeps: int,
    rng: Any,
    step_size: Any = 1.0,
    burn_in: int | None = None,
    adapt: bool = True,
    target_accept: float = 0.44,
    lower: Any = None,
    upper: Any = None,
    l1_radius: float | None = None,
    incremental: IncrementalTarget | None = None,
    thin: int = 1,
    keep_trace: bool = True,
    progress: Callable[[int, int], Any] | None = None,
) -> MCMCResult:
    """Run ``C`` one-at-a-time random-walk Metropolis chains in lock-step (:mod:`dpcore.mcmc.moves.coordinate`).

    Parameters
    ----------
    log_density : callable (C, d) -> (C,), or None when ``incremental`` is given
        Unnormalised log target, evaluated row-wise (may return -inf; NaN counts as -inf).
        It receives a reused buffer (possibly Fortran-ordered): it must not modify or keep it.
    init : array (C, d), or (d,) for a single chain — start states inside the constraints, finite log density.
    n_sweeps : int
        Sweeps (one sweep = one proposal for every coordinate of every chain).
    rng : Generator, seed, or list of C Generators
        With a list, every random number of chain ``c`` comes from ``rng[c]`` only (in blocks whose
        size depends on ``d`` only): a chain's path does not depend on which chains are batched with
        it (bitwise, if the target's row-wise arithmetic does not depend on the batch).
    step_size : float, (d,) or (C, d) — initial proposal standard deviations.
    burn_in : int, default ``n_sweeps // 2`` — sweeps discarded (and used for adaptation); < ``n_sweeps``.
    adapt : bool
        Adapt step sizes during burn-in, per chain and coordinate, after batches of
        ``clip(burn_in // 20, 1, 20)`` sweeps (Robbins–Monro with Kesten's gain,
        :mod:`dpcore.mcmc.driver`); steps wrong by a factor 1e6 are corrected in a few batches.
    target_accept : float in (0, 1)
        0.44 is optimal for one-dimensional random-walk updates (Roberts & Rosenthal 2001).
    lower, upper : float or (d,), optional
        Box constraints (proposals outside are rejected unevaluated).
    l1_radius : float, optional
        ℓ1-ball constraint ``sum_j |theta_j| <= l1_radius`` (O(1) per move, recomputed every block).
    incremental : IncrementalTarget, optional
        Used instead of ``log_density``; bitwise the same chains as the plain path for the same target.
    thin, keep_trace : int, bool
        Keep one post-burn-in state every ``thin`` sweeps; return that trace (recorded for the diagnostics anyway).
    progress : callable(done_sweeps, total_sweeps), optional
        Called after every block; returning ``False`` raises :class:`MCMCCancelled`.

    Returns
    -------
    MCMCResult (the first ``k`` sweeps do not depend on ``n_sweeps``: random numbers come in full blocks)

    References
    ----------
    Roberts & Rosenthal (2009), "Examples of adaptive MCMC", JCGS 18(2); Kesten (1958), Ann. Math. Stat. 29;
    Reimherr & Awan (2019), "KNG: the K-norm gradient mechanism", §4.
    """
    theta0 = _checks.start_states(init)
    C, d = theta0.shape
    n_sweeps, burn_in, thin = _checks.run_lengths(n_sweeps, burn_in, thin)
    target = _checks.target_accept(target_accept)
    if incremental is None and not callable(log_density):
        raise DPValueError("log_density must be a callable (C, d) -> (C,) unless an incremental target is given.")
    hooks = ("init", "propose", "commit")
    if incremental is not None and not all(callable(getattr(incremental, name, None)) for name in hooks):
        raise DPValueError("incremental must provide init(theta), propose(state, theta, j, delta) and "
                           "commit(state, j, delta, accept, pending).")
    step = _checks.step(step_size, C, d)
    gens = _checks.generators(rng, C)
    _checks.trace_size(n_sweeps, burn_in, thin, C, d)
    lo, hi, radius = _constraints(lower, upper, l1_radius, theta0)
    kw: dict[str, Any] = dict(lo=lo, hi=hi, radius=radius, burn_in=burn_in, adapt=adapt, target=target)
    move = (CoordinateMove(log_density, theta0, step, gens, **kw) if incremental is None
            else IncrementalCoordinateMove(incremental, theta0, step, gens, **kw))
    trace = run(move, n_sweeps=n_sweeps, burn_in=burn_in, thin=thin, progress=progress)
    return _finish(move, trace, keep_trace=keep_trace, n_sweeps=n_sweeps, burn_in=burn_in,
                   final=np.ascontiguousarray(move.theta))


def _preconditioner(precond: Any, step_size: Any, C: int, d: int) -> np.ndarray:
    """Initial Cholesky factors (C, d, d): chol(precond)·step_size, or diag(step_size) without precond."""
    if precond is None:
        L = np.zeros((C, d, d))
        idx = np.arange(d)
        L[:, idx, idx] = _checks.step(step_size, C, d)
        return L
    P = np.array(precond, dtype=float)
    if P.shape == (d, d):
        P = np.broadcast_to(P, (C, d, d))
    if P.shape != (C, d, d) or not np.isfinite(P).all():
        raise DPValueError(f"precond must be a finite ({d}, {d}) or ({C}, {d}, {d}) covariance; got {P.shape}.")
    try:
        L = np.linalg.cholesky(0.5 * (P + np.swapaxes(P, 1, 2)))
    except np.linalg.LinAlgError:
        raise DPValueError("precond must be symmetric positive definite.") from None
    s0 = np.asarray(step_size, dtype=float)
    if s0.ndim != 0 or not (np.isfinite(s0) and s0 > 0):
        raise DPValueError("with precond, step_size must be one positive number (a multiplier).")
    return L * float(s0)


def _temperatures(temperatures: Any) -> np.ndarray:
    betas = np.asarray(temperatures, dtype=float).ravel()
    if betas.size < 1 or betas[0] != 1.0 or not np.all(np.diff(betas) < 0) or betas[-1] <= 0:
        raise DPValueError(f"temperatures must start at 1 and decrease strictly, staying > 0; got {temperatures!r}.")
    return betas


def preconditioned_metropolis(
    log_density: Callable[[np.ndarray], np.ndarray],
    init: Any,
    *,
    n_sweeps: int,
    rng: Any,
    step_size: Any = 1.0,
    precond: Any = None,
    burn_in: int | None = None,
    adapt: bool = True,
    adapt_covariance: bool = True,
    target_accept: float | None = None,
    moves: str = "directions",
    temperatures: Any = (1.0,),
    lower: Any = None,
    upper: Any = None,
    l1_radius: float | None = None,
    thin: int = 1,
    keep_trace: bool = True,
    progress: Progress | None = None,
) -> MCMCResult:
    """Run ``C`` random-walk Metropolis chains with preconditioned Gaussian proposals.

    How the moves work, why they mix on tilted ridges, and what adapting the preconditioner means
    for privacy: :mod:`dpcore.mcmc.moves.preconditioned`.  Proposals are accepted with probability
    min(1, f(θ′)/f(θ)); proposals outside the box or the ℓ1 ball are rejected without evaluating the
    target.  One *sweep* is ``d`` proposals (the work of one sweep of :func:`metropolis_within_gibbs`).

    Parameters
    ----------
    log_density : callable (m, d) -> (m,)
        Unnormalised log target, row-wise; it may be called with fewer rows than chains (only
        the proposals that satisfy the constraints are evaluated).
    init : (C, d) or (d,) — start states inside the constraints, finite log density.
    n_sweeps, burn_in, thin, keep_trace, lower, upper, l1_radius, progress
        As in :func:`metropolis_within_gibbs` (a sweep is ``d`` proposals here).
    rng : Generator, seed, or list of C Generators (chain c then uses rng[c] only).
    step_size : float, (d,) or (C, d)
        Initial proposal standard deviations per coordinate (used when ``precond`` is None, else
        a scalar multiplier of ``chol(precond)``).
    precond : (d, d) or (C, d, d), optional
        Public initial proposal covariance shape.
    adapt, adapt_covariance : adapt the scale s_c (as :func:`metropolis_within_gibbs`); re-estimate L_c from
        the chain's own burn-in states.
    target_accept : default 0.44 for ``moves="directions"``, 0.3 for ``moves="vector"``.
    moves : "directions" (one whitened direction at a time) or "vector" (full-vector moves).
    temperatures : decreasing inverse temperatures 1 = β₀ > β₁ > … > 0, optional
        Parallel tempering: each chain c becomes a ladder of K chains targeting f^β_k on the same
        constraint set; neighbouring temperatures swap with probability
        min(1, exp((β_k − β_{k+1})(log f(θ_{k+1}) − log f(θ_k)))), which leaves the β = 1 chain's
        law f exactly; hot chains cross the barriers of multimodal targets (KNG on a discrete
        gradient). Only the β = 1 chains are returned and diagnosed; the swap acceptance rates are
        in ``diagnostics.swap_rates`` (when K > 1).

    Returns
    -------
    MCMCResult — ``step_size`` holds the final per-coordinate proposal sd, s_c·√diag(L_cL_cᵀ).
    """
    theta0 = _checks.start_states(init)
    C, d = theta0.shape
    n_sweeps, burn_in, thin = _checks.run_lengths(n_sweeps, burn_in, thin)
    if moves not in ("directions", "vector"):
        raise DPValueError(f"moves must be 'directions' or 'vector'; got {moves!r}.")
    per_dir = moves == "directions"
    target = _checks.target_accept((0.44 if per_dir else 0.3) if target_accept is None else target_accept)
    if not callable(log_density):
        raise DPValueError("log_density must be a callable (m, d) -> (m,).")
    gens = _checks.generators(rng, C)
    L = _preconditioner(precond, step_size, C, d)
    _checks.trace_size(n_sweeps, burn_in, thin, C, d)
    lo, hi, radius = _constraints(lower, upper, l1_radius, theta0)
    betas = _temperatures(temperatures)
    lp0 = _checks.log_density_values(log_density(theta0.copy()), C, "log_density")
    _checks.starts_positive(lp0, theta0)
    move = PreconditionedMove(log_density, theta0, lp0, L, gens, betas=betas, lo=lo, hi=hi, radius=radius,
                              per_direction=per_dir, burn_in=burn_in, adapt=adapt,
                              adapt_covariance=adapt_covariance, target=target)
    trace = run(move, n_sweeps=n_sweeps, burn_in=burn_in, thin=thin, progress=progress)
    return _finish(move, trace, keep_trace=keep_trace, n_sweeps=n_sweeps, burn_in=burn_in,
                   final=np.ascontiguousarray(move.current()), swap_rates=move.swap_rates())

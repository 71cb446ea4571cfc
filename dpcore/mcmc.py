"""Vectorised one-at-a-time Metropolis-within-Gibbs over many chains, and MCMC diagnostics.

The sampler runs ``C`` independent chains at once.  One *sweep* visits the coordinates
``j = 0 .. d-1`` in order; for every coordinate all chains propose
``theta[:, j] + step[:, j] * N(0, 1)`` together, proposals outside the box ``[lower, upper]``
or the ℓ1 ball of radius ``l1_radius`` are rejected without evaluating the target, and the
others are accepted with probability ``min(1, exp(logp' - logp))`` (Metropolis 1953;
one-at-a-time updates as in Reimherr & Awan 2019, §4 / spec kng.md §4).

Step sizes adapt per chain and per coordinate during burn-in only (adaptive
Metropolis-within-Gibbs, Roberts & Rosenthal 2009, target acceptance 0.44), so the
post-burn-in chain is an ordinary, valid Markov chain.  The adaptation is a Robbins–Monro
recursion on the log step with Kesten's (1958) gain rule, robust to initial steps that are
wrong by many orders of magnitude (see :func:`metropolis_within_gibbs`).

Diagnostics (:func:`split_rhat`, :func:`effective_sample_size`, and per chain
:func:`per_chain_rhat_ess`) are pure functions of a trace,
following Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), "Rank-normalization, folding,
and localization: an improved R-hat", Bayesian Analysis 16(2).

Privacy note (spec kng.md §4): the sampler's output is only *approximately* distributed as
the target; the diagnostics are computed from private data and are non-private.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np
from scipy import fft as _fft
from scipy import special as _special

from ._rng import as_generator
from ._validation import DPValueError, check_int, check_positive

__all__ = [
    "IncrementalTarget",
    "MCMCCancelled",
    "MCMCDiagnostics",
    "MCMCResult",
    "metropolis_within_gibbs",
    "preconditioned_metropolis",
    "split_rhat",
    "effective_sample_size",
    "per_chain_rhat_ess",
    "acceptance_rate",
]

#: Largest number of stored trace values (T * C * d); beyond this, ask for thinning.
_MAX_TRACE_VALUES = 50_000_000
#: Bounds on the log step size (keeps exp() finite).
_LOG_STEP_MIN, _LOG_STEP_MAX = -690.0, 690.0


from .errors import Cancelled as MCMCCancelled  # noqa: E402  (alias: one Cancelled type for dpcore)


@runtime_checkable
class IncrementalTarget(Protocol):
    """Optional hook for targets with sufficient statistics: O(d) work per coordinate move.

    ``init(theta)``: ``theta`` (C, d) -> ``(state, logp)`` with ``logp`` of shape (C,).
    ``propose(state, theta, j, delta)``: log density (C,) at ``theta`` with
    ``theta[:, j] += delta`` (``theta`` itself is NOT modified), plus any ``pending`` object
    (e.g. the proposed sufficient statistic) that ``commit`` may reuse.
    ``commit(state, j, delta, accept, pending)``: update ``state`` for the chains where
    ``accept`` (bool (C,)) is True and return the new state (in-place mutation allowed).

    ``delta`` is 0 for chains whose proposal violated a constraint (those are never accepted),
    so the target is never evaluated outside the constraint set.
    """

    def init(self, theta: np.ndarray) -> tuple[Any, np.ndarray]: ...

    def propose(self, state: Any, theta: np.ndarray, j: int, delta: np.ndarray) -> tuple[np.ndarray, Any]: ...

    def commit(self, state: Any, j: int, delta: np.ndarray, accept: np.ndarray, pending: Any) -> Any: ...


@dataclass(frozen=True)
class MCMCDiagnostics:
    """Post-burn-in diagnostics (computed from the data: non-private, never part of a release).

    ``rhat`` is the rank-normalised split R-hat (max of bulk and folded/tail versions,
    Vehtari et al. 2021); ``ess`` the rank-normalised bulk effective sample size over all
    chains (Geyer's initial monotone sequence on the multi-chain autocorrelation).
    """

    acceptance: float
    acceptance_per_coord: np.ndarray
    rhat: np.ndarray
    ess: np.ndarray
    n_chains: int
    n_sweeps: int
    burn_in: int
    #: Parallel tempering only: swap acceptance rate between neighbouring temperatures (K − 1,).
    swap_rates: np.ndarray | None = None

    @property
    def max_rhat(self) -> float:
        """Largest R-hat over coordinates (NaN if any coordinate's R-hat is not computable)."""
        r = np.asarray(self.rhat, dtype=float)
        return float(np.max(r)) if r.size else float("nan")

    @property
    def min_ess(self) -> float:
        """Smallest ESS over coordinates (NaN if any coordinate's ESS is not computable)."""
        e = np.asarray(self.ess, dtype=float)
        return float(np.min(e)) if e.size else float("nan")

    def mixed(self, max_rhat: float = 1.05, min_ess: float = 100.0) -> bool:
        """True iff every R-hat <= ``max_rhat`` and every ESS >= ``min_ess`` (NaN counts as failure)."""
        return bool(self.max_rhat <= max_rhat and self.min_ess >= min_ess)

    def summary(self) -> dict:
        """Plain-Python summary for display."""
        return {
            "acceptance": float(self.acceptance),
            "max_rhat": self.max_rhat,
            "min_ess": self.min_ess,
            "n_chains": int(self.n_chains),
            "n_sweeps": int(self.n_sweeps),
            "burn_in": int(self.burn_in),
            "mixed": self.mixed(),
        }


@dataclass(frozen=True)
class MCMCResult:
    """Output of :func:`metropolis_within_gibbs`.

    ``final`` (C, d): last state of every chain (the only thing a DP release may use, one
    state per chain).  ``trace`` (T, C, d): post-burn-in states every ``thin`` sweeps, or
    ``None`` when ``keep_trace=False``.  ``step_size`` (C, d): proposal scales after adaptation.
    """

    final: np.ndarray
    trace: np.ndarray | None
    step_size: np.ndarray
    diagnostics: MCMCDiagnostics


# ----------------------------------------------------------------------------- validation
def _check_run_lengths(n_sweeps: Any, burn_in: Any, thin: Any) -> tuple[int, int, int]:
    """Validated (n_sweeps, burn_in, thin); burn_in defaults to n_sweeps // 2 and must leave a sweep."""
    n_sweeps = check_int(n_sweeps, "n_sweeps", lo=1)
    burn_in = n_sweeps // 2 if burn_in is None else check_int(burn_in, "burn_in", lo=0)
    if burn_in >= n_sweeps:
        raise DPValueError(f"burn_in = {burn_in} must be smaller than n_sweeps = {n_sweeps}; "
                           f"leave at least one post-burn-in sweep (default burn_in = n_sweeps // 2).")
    return n_sweeps, burn_in, check_int(thin, "thin", lo=1)


def _check_init(init: Any) -> np.ndarray:
    try:
        arr = np.array(init, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError("init must be a numeric array of start states, shape (C, d) or (d,).") from None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise DPValueError(f"init must have shape (C, d) (chains x coordinates) or (d,); got shape {arr.shape}.")
    bad = ~np.isfinite(arr)
    if bad.any():
        c, j = (int(i) for i in np.argwhere(bad)[0])
        raise DPValueError(f"init[{c}, {j}] = {arr[c, j]} is not finite; start every chain at a finite point.")
    return arr


def _check_box(lower: Any, upper: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    def one(v: Any, name: str, default: float) -> np.ndarray:
        if v is None:
            return np.full(d, default)
        try:
            a = np.array(v, dtype=float)
        except (TypeError, ValueError):
            raise DPValueError(f"{name} must be a number or an array of {d} numbers; got {v!r}.") from None
        if a.ndim == 0:
            a = np.full(d, float(a))
        if a.shape != (d,):
            raise DPValueError(f"{name} must be a scalar or have shape ({d},); got shape {a.shape}.")
        if np.isnan(a).any():
            raise DPValueError(f"{name} contains NaN; use -inf/inf (or None) for an unbounded coordinate.")
        return a

    lo, hi = one(lower, "lower", -np.inf), one(upper, "upper", np.inf)
    bad = ~(lo < hi)
    if bad.any():
        j = int(np.argmax(bad))
        raise DPValueError(f"lower[{j}] = {lo[j]} must be smaller than upper[{j}] = {hi[j]}; fix the box bounds.")
    return lo, hi


def _check_step(step_size: Any, C: int, d: int) -> np.ndarray:
    try:
        s = np.array(step_size, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError(f"step_size must be a positive number or array; got {step_size!r}.") from None
    if s.ndim == 0 or s.shape == (d,) or s.shape == (C, d):
        s = np.broadcast_to(s, (C, d)).astype(float, copy=True)
    else:
        raise DPValueError(f"step_size must be a scalar or have shape ({d},) or ({C}, {d}); got shape {s.shape}.")
    if not (np.isfinite(s).all() and (s > 0).all()):
        raise DPValueError("step_size must be finite and > 0 everywhere (it is the random-walk proposal scale).")
    return s


def _check_rng(rng: Any, C: int) -> np.random.Generator | list[np.random.Generator]:
    if isinstance(rng, (list, tuple)):
        if len(rng) != C or not all(isinstance(g, np.random.Generator) for g in rng):
            raise DPValueError(
                f"rng: a list of generators must hold exactly one numpy Generator per chain ({C}); "
                f"got {len(rng)} items. Use dpcore._rng.spawn(seed, {C})."
            )
        return list(rng)
    try:
        return as_generator(rng)
    except (TypeError, ValueError) as exc:
        raise DPValueError(f"rng: {exc}") from None


def _check_logp(lp: Any, C: int, where: str) -> np.ndarray:
    a = np.asarray(lp, dtype=float)
    if a.shape != (C,):
        raise DPValueError(f"{where} must return a log density of shape ({C},) (one value per chain); got {a.shape}.")
    return a.copy()


def _block_size(d: int, C: int, per_chain: bool) -> int:
    """Sweeps per block of pre-drawn random numbers.

    With one generator per chain the block depends on ``d`` only, so that a chain's stream
    of normals and uniforms does not depend on how many chains are batched with it.
    """
    b = max(8, min(128, (1 << 15) // d))
    if not per_chain:
        b = max(1, min(b, (1 << 21) // (d * C)))
    return b


# ----------------------------------------------------------------------------- sampler
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
    """Run ``C`` one-at-a-time random-walk Metropolis chains in lock-step.

    Parameters
    ----------
    log_density : callable (C, d) -> (C,), or None when ``incremental`` is given
        Unnormalised log target, evaluated row-wise (may return -inf; NaN counts as -inf).
        It receives a reused buffer (possibly Fortran-ordered): it must not modify or keep it.
    init : array (C, d), or (d,) for a single chain
        Start states; each must satisfy the constraints and have a finite log density.
    n_sweeps : int
        Number of sweeps (one sweep = one proposal for every coordinate of every chain).
    rng : Generator, seed, or list of C Generators
        With a list, every random number of chain ``c`` comes from ``rng[c]`` only (drawn in
        blocks whose size depends on ``d`` only): a chain's path then depends only on its own
        generator and its own row of the target, not on which chains are batched with it
        (bitwise, provided the target's row-wise arithmetic does not depend on the batch —
        elementwise numpy does not; BLAS matrix products may).
    step_size : float, (d,) or (C, d)
        Initial proposal standard deviations.
    burn_in : int, default ``n_sweeps // 2``
        Sweeps discarded (and used for adaptation); must be < ``n_sweeps``.
    adapt : bool
        Adapt step sizes during burn-in (per chain and coordinate).  Batches of
        ``B = clip(burn_in // 20, 1, 20)`` sweeps; after each batch with acceptance rate ``r``,
        ``log s += g * u(r)`` with the smoothed logit score
        ``u(r) = log((r+a)/(t+a)) - log((1-r+a)/(1-t+a))``, ``a = 1/B``, ``t = target_accept``
        (≈ a Newton step for random-walk Metropolis; ×1/17 at r = 0, ×26 at r = 1 when B = 20),
        and Kesten's gain ``g = (1 + k)^(-0.6)``, ``k`` = number of sign changes of ``r - t`` so
        far, with ``g = 1`` when a batch of >= 16 sweeps accepted nothing or everything.  Steps
        wrong by a factor 1e6 are corrected in a few batches.  Frozen after burn-in.
    target_accept : float in (0, 1)
        0.44 is optimal for one-dimensional random-walk updates (Roberts & Rosenthal 2001).
    lower, upper : float or (d,), optional
        Box constraints (proposals outside are rejected).
    l1_radius : float, optional
        ℓ1-ball constraint ``sum_j |theta_j| <= l1_radius`` (each chain's norm is tracked in
        O(1) per move and recomputed exactly every block).
    incremental : IncrementalTarget, optional
        Used instead of ``log_density``; same random numbers and arithmetic on ``theta``, so the
        chains are bitwise identical to the plain path for the same target.
    thin : int
        Keep one post-burn-in state every ``thin`` sweeps.
    keep_trace : bool
        Return the trace; the (thinned) trace is recorded either way for the diagnostics.
    progress : callable(done_sweeps, total_sweeps), optional
        Called after every block; returning ``False`` raises :class:`MCMCCancelled`.

    Returns
    -------
    MCMCResult

    Notes
    -----
    Random numbers are drawn in full blocks whatever ``n_sweeps`` is, so the first ``k`` sweeps
    of a run do not depend on ``n_sweeps`` (only on ``burn_in``, which sets the adaptation
    schedule).  Floating-point warnings from the target (log 0, inf − inf) are silenced during
    the run: −inf and NaN log densities simply reject.

    References
    ----------
    Roberts & Rosenthal (2009), "Examples of adaptive MCMC", JCGS 18(2) — adaptive
    Metropolis-within-Gibbs.  Kesten (1958), Ann. Math. Stat. 29 — accelerated stochastic
    approximation.  Reimherr & Awan (2019), "KNG: the K-norm gradient mechanism", §4.
    """
    theta0 = _check_init(init)
    C, d = theta0.shape
    n_sweeps, burn_in, thin = _check_run_lengths(n_sweeps, burn_in, thin)
    try:
        target = float("nan") if isinstance(target_accept, (bool, np.bool_)) else float(target_accept)
    except (TypeError, ValueError):
        target = float("nan")
    if not 0.0 < target < 1.0:
        raise DPValueError(f"target_accept = {target_accept!r} must lie strictly between 0 and 1 "
                           "(0.44 is optimal for one-coordinate random-walk updates).")
    if incremental is None and not callable(log_density):
        raise DPValueError("log_density must be a callable (C, d) -> (C,) unless an incremental target is given.")
    if incremental is not None and not all(callable(getattr(incremental, m, None)) for m in ("init", "propose", "commit")):
        raise DPValueError("incremental must provide init(theta), propose(state, theta, j, delta) and "
                           "commit(state, j, delta, accept, pending).")
    lo, hi = _check_box(lower, upper, d)
    radius = None if l1_radius is None else check_positive(l1_radius, "l1_radius")
    stepT = np.ascontiguousarray(_check_step(step_size, C, d).T)  # (d, C)
    gens = _check_rng(rng, C)
    per_chain = isinstance(gens, list)
    n_keep = (n_sweeps - burn_in) // thin
    if n_keep * C * d > _MAX_TRACE_VALUES:
        raise DPValueError(
            f"thin = {thin} keeps {n_keep} states x {C} chains x {d} coordinates = {n_keep * C * d:,} values "
            f"(limit {_MAX_TRACE_VALUES:,}); increase thin to at least "
            f"{math.ceil((n_sweeps - burn_in) * C * d / _MAX_TRACE_VALUES)}."
        )

    # ---- constraints at the start
    outside = ((theta0 < lo) | (theta0 > hi)).any(axis=1)
    if outside.any():
        c = int(np.argmax(outside))
        raise DPValueError(
            f"init: chain {c} starts at {theta0[c].tolist()}, outside the box [lower, upper]; "
            f"{int(outside.sum())} chain(s) affected. Start inside the constraint set (e.g. its centre)."
        )
    if radius is not None:
        norms = np.abs(theta0).sum(axis=1)
        bad = norms > radius
        if bad.any():
            c = int(np.argmax(bad))
            raise DPValueError(
                f"init: chain {c} has l1 norm {norms[c]:.6g} > l1_radius = {radius:g}; "
                f"{int(bad.sum())} chain(s) affected. Start inside the l1 ball (e.g. at 0)."
            )

    # ---- internal layout: (d, C) so that one coordinate of all chains is contiguous
    thetaT = np.ascontiguousarray(theta0.T)
    theta = thetaT.T  # (C, d) Fortran-ordered view, updated in place
    if incremental is not None:
        state, lp = incremental.init(theta0.copy())
        lp = _check_logp(lp, C, "incremental.init")
        propT = None
        prop = None
    else:
        state = None
        propT = thetaT.copy()
        prop = propT.T
        lp = _check_logp(log_density(prop), C, "log_density")
    badlp = ~np.isfinite(lp)
    if badlp.any():
        c = int(np.argmax(badlp))
        raise DPValueError(
            f"init: the log density of chain {c} at its start {theta0[c].tolist()} is {lp[c]}; "
            f"{int(badlp.sum())} chain(s) affected. Start every chain where the target density is positive."
        )

    box_j = [bool(np.isfinite(lo[j]) or np.isfinite(hi[j])) for j in range(d)]
    lo_l, hi_l = lo.tolist(), hi.tolist()
    use_l1 = radius is not None
    l1n = np.zeros(C)

    # ---- adaptation state
    do_adapt = bool(adapt) and burn_in > 0
    batch = max(1, min(20, burn_in // 20))
    log_stepT = np.log(stepT)
    kesten = np.zeros((d, C))
    prev_sign = np.zeros((d, C), dtype=bool)
    first_batch = True
    last_boundary = 0
    cnt = np.zeros((d, C))  # acceptances in the current batch (burn-in) / post-burn-in

    trace = np.empty((n_keep, C, d))
    i_keep = 0
    block = _block_size(d, C, per_chain)
    zbuf = np.empty((block, d, C))
    ubuf = np.empty((block, d, C))

    done = 0
    # -inf/NaN arithmetic in the target and in logp' - logp is expected (it means: reject)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while done < n_sweeps:
            # Always draw full blocks: a shorter run is then an exact prefix of a longer one.
            if per_chain:
                for c, g in enumerate(gens):
                    zbuf[:, :, c] = g.standard_normal((block, d))
                    ubuf[:, :, c] = g.random((block, d))
            else:
                gens.standard_normal(out=zbuf)
                gens.random(out=ubuf)
            np.log(ubuf, out=ubuf)
            nb = min(block, n_sweeps - done)
            if use_l1:  # exact refresh of the tracked l1 norms (bounds rounding drift)
                np.abs(thetaT[0], out=l1n)
                for j in range(1, d):
                    l1n += np.abs(thetaT[j])

            for t in range(nb):
                Dt = stepT * zbuf[t]  # (d, C) increments of this sweep (steps change between sweeps only)
                LUt = ubuf[t]
                for j in range(d):
                    x = thetaT[j]
                    delta = Dt[j]
                    xn = x + delta
                    ok = None
                    if box_j[j]:
                        ok = (xn >= lo_l[j]) & (xn <= hi_l[j])
                    if use_l1:
                        nn = l1n - np.abs(x) + np.abs(xn)
                        ok1 = nn <= radius
                        ok = ok1 if ok is None else (ok & ok1)
                    if ok is not None:
                        delta = np.where(ok, delta, 0.0)  # infeasible: stay put, the target is only evaluated inside
                        xn = x + delta
                    if incremental is not None:
                        lpn, pending = incremental.propose(state, theta, j, delta)
                    else:
                        propT[j] = xn
                        lpn = log_density(prop)
                    acc = LUt[j] < (lpn - lp)  # NaN (from -inf - -inf or a NaN target) rejects
                    if ok is not None:
                        acc &= ok
                    if incremental is not None:
                        state = incremental.commit(state, j, delta, acc, pending)
                    np.copyto(x, xn, where=acc)
                    np.copyto(lp, lpn, where=acc)
                    if propT is not None:
                        propT[j] = x
                    if use_l1:
                        np.copyto(l1n, nn, where=acc)
                    cnt[j] += acc

                s1 = done + t + 1  # sweeps completed
                if s1 <= burn_in:
                    if do_adapt and (s1 % batch == 0 or s1 == burn_in):
                        nsw = s1 - last_boundary
                        last_boundary = s1
                        _adapt_step(log_stepT, cnt, nsw, target, kesten, prev_sign, first_batch)
                        first_batch = False
                        np.exp(log_stepT, out=stepT)
                    if s1 == burn_in or (do_adapt and last_boundary == s1):
                        cnt[...] = 0.0
                elif (s1 - burn_in) % thin == 0:
                    trace[i_keep] = theta
                    i_keep += 1
            done += nb
            if progress is not None and progress(done, n_sweeps) is False:
                raise MCMCCancelled(f"MCMC cancelled after {done} of {n_sweeps} sweeps.", done=done, total=n_sweeps)

    n_post = n_sweeps - burn_in
    rhat, ess = _rhat_ess(trace)
    acc_coord = cnt.sum(axis=1) / (C * n_post)
    diag = MCMCDiagnostics(
        acceptance=float(acc_coord.mean()),
        acceptance_per_coord=acc_coord,
        rhat=rhat,
        ess=ess,
        n_chains=C,
        n_sweeps=n_sweeps,
        burn_in=burn_in,
    )
    return MCMCResult(
        final=np.ascontiguousarray(theta),
        trace=trace if keep_trace else None,
        step_size=np.ascontiguousarray(stepT.T),
        diagnostics=diag,
    )


def _adapt_step(log_stepT: np.ndarray, cnt: np.ndarray, n: int, target: float, kesten: np.ndarray,
                prev_sign: np.ndarray, first: bool) -> None:
    """One Robbins–Monro/Kesten update of the log step sizes from a batch of ``n`` sweeps (in place)."""
    r = cnt / n
    a = 1.0 / n
    u = np.log((r + a) / (target + a)) - np.log((1.0 - r + a) / (1.0 - target + a))
    sign = r > target
    if not first:
        kesten += sign != prev_sign
    gain = (1.0 + kesten) ** -0.6
    if n >= 16:
        gain = np.where((cnt == 0) | (cnt == n), 1.0, gain)
    log_stepT += gain * u
    np.clip(log_stepT, _LOG_STEP_MIN, _LOG_STEP_MAX, out=log_stepT)
    prev_sign[...] = sign


# ----------------------------------------------------------------------------- diagnostics
def _as_tcd(trace: Any, name: str = "trace") -> tuple[np.ndarray, bool]:
    """Read-only view of ``trace`` as (T, C, d) floats; ``squeeze`` if the input was (T, C)."""
    try:
        a = np.asarray(trace, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError(f"{name} must be a numeric array of shape (T, C, d) or (T, C).") from None
    if a.ndim == 2:
        a, squeeze = a[:, :, None], True
    elif a.ndim == 3:
        squeeze = False
    else:
        raise DPValueError(f"{name} must have shape (T, C, d) or (T, C) (draws x chains [x coordinates]); "
                           f"got shape {a.shape}.")
    if a.shape[1] < 1 or a.shape[2] < 1:
        raise DPValueError(f"{name} has no chains or no coordinates (shape {a.shape}).")
    if not np.isfinite(a).all():
        raise DPValueError(f"{name} contains NaN or infinite values; diagnostics need finite draws.")
    return a, squeeze


def _split_chains(a: np.ndarray) -> np.ndarray:
    """(T, C, d) -> (T//2, 2C, d): first and second half of every chain (middle draw dropped if T odd)."""
    h = a.shape[0] // 2
    return np.concatenate([a[:h], a[a.shape[0] - h:]], axis=1)


def _average_ranks(flat: np.ndarray) -> np.ndarray:
    """Ranks 1..N along axis 0 of every column of ``flat`` (N, K), ties given their average rank.

    Fully vectorised over columns (tens of thousands of columns when ranking chains one by one):
    a tie group spanning sorted positions s..e gets rank (s + e)/2 + 1.
    """
    y = np.ascontiguousarray(flat.T)  # (K, N): work along the contiguous axis
    N = y.shape[1]
    order = np.argsort(y, axis=1, kind="stable")
    sv = np.take_along_axis(y, order, axis=1)
    idx = np.arange(N)[None, :]
    new = np.ones(y.shape, dtype=bool)
    new[:, 1:] = sv[:, 1:] != sv[:, :-1]                       # first of a tie group
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    last = np.ones(y.shape, dtype=bool)
    last[:, :-1] = new[:, 1:]                                   # last of a tie group
    end = np.minimum.accumulate(np.where(last, idx, N - 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty(y.shape, dtype=float)
    np.put_along_axis(ranks, order, (start + end) / 2.0 + 1.0, axis=1)
    return ranks.T


def _rank_normalise(x: np.ndarray) -> np.ndarray:
    """Pooled rank-normal scores per coordinate: Φ⁻¹((r − 3/8)/(N + 1/4)), average ranks for ties."""
    n, m, d = x.shape
    r = _average_ranks(x.reshape(n * m, d))
    return _special.ndtri((r - 0.375) / (n * m + 0.25)).reshape(n, m, d)


def _rhat_core(x: np.ndarray) -> np.ndarray:
    """Classic R-hat of chains x (n, m, d) (Gelman et al., BDA3 §11.4); inf if W = 0 < B, NaN if both 0."""
    n, m, _ = x.shape
    lo, hi = x.min(axis=0), x.max(axis=0)  # (m, d); exact tests avoid round-off "variances"
    W = np.where((lo == hi).all(axis=0), 0.0, x.var(axis=0, ddof=1).mean(axis=0))
    B = n * x.mean(axis=0).var(axis=0, ddof=1) if m > 1 else np.zeros(x.shape[2])
    B = np.where(lo.min(axis=0) == hi.max(axis=0), 0.0, B)
    var_plus = (n - 1) / n * W + B / n
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(var_plus / W)
    return np.where(W > 0, r, np.where(B > 0, np.inf, np.nan))


def _rhat_ess(a: np.ndarray, rhat: bool = True, ess: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Rank-normalised split R-hat and bulk ESS of a validated (T, C, d) trace (shared ranking)."""
    d = a.shape[2]
    if a.shape[0] < 4:
        return np.full(d, np.nan), np.full(d, np.nan)
    s = _split_chains(a)
    z = _rank_normalise(s)
    r = e = None
    if rhat:
        bulk = _rhat_core(z)
        folded = np.abs(s - np.median(s.reshape(-1, d), axis=0))
        tail = _rhat_core(_rank_normalise(folded))
        r = np.fmax(bulk, tail)  # NaN only if both are NaN
    if ess:
        const = np.ptp(s.reshape(-1, d), axis=0) == 0
        e = np.where(const, np.nan, _ess_core(z))
    return r, e


def split_rhat(trace: Any) -> np.ndarray | float:
    """Rank-normalised split R-hat (Vehtari et al. 2021), pure function of the trace.

    Each chain is split in two halves; R-hat is computed on the pooled rank-normal scores
    ("bulk") and on those of |x − median| ("tail"), and the larger is returned.  Works with
    a single chain (two halves).  NaN when fewer than 4 draws or when every draw is identical;
    inf when chains are constant at different values.

    Parameters
    ----------
    trace : array (T, C, d) or (T, C)

    Returns
    -------
    (d,) array, or a float for a (T, C) trace.
    """
    a, squeeze = _as_tcd(trace)
    out = _rhat_ess(a, ess=False)[0]
    return float(out[0]) if squeeze else out


def _ess_core(x: np.ndarray) -> np.ndarray:
    """Multi-chain ESS of x (n, m, d) with Geyer's initial monotone sequence (as in Stan)."""
    n, m, d = x.shape
    N = n * m
    xc = x - x.mean(axis=0)
    nfft = _fft.next_fast_len(2 * n)
    f = _fft.rfft(xc, n=nfft, axis=0)
    acov = _fft.irfft(f * np.conj(f), n=nfft, axis=0)[:n] / n  # biased autocovariance, (n, m, d)
    mean_var = acov[0].mean(axis=0) * n / (n - 1)  # mean within-chain variance (ddof=1)
    var_plus = mean_var * (n - 1) / n
    if m > 1:
        var_plus = var_plus + x.mean(axis=0).var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (mean_var - acov.mean(axis=1)) / var_plus  # (n, d)
    rho[0] = 1.0
    k = max(1, (n - 1) // 2)
    P = rho[0:2 * k:2] + rho[1:2 * k + 1:2]  # Γ_k = ρ_{2k} + ρ_{2k+1}
    valid = np.cumprod(P > 0, axis=0).astype(bool)  # initial positive sequence
    Pm = np.minimum.accumulate(P, axis=0)  # initial monotone sequence
    tau = -1.0 + 2.0 * np.where(valid, Pm, 0.0).sum(axis=0)
    tau = np.maximum(tau, 1.0 / math.log10(max(N, 10)))
    ess = N / tau
    return np.where(var_plus > 0, ess, np.nan)


def effective_sample_size(trace: Any) -> np.ndarray | float:
    """Rank-normalised bulk effective sample size over all chains, pure function of the trace.

    Split chains, pooled rank-normal scores (Vehtari et al. 2021, "bulk-ESS"), multi-chain
    autocorrelation ρ_t = 1 − (W − mean_c acov_c(t)) / var⁺, truncated with Geyer's (1992)
    initial positive and monotone sequence; ESS = N / τ with τ = −1 + 2 Σ_k Γ_k.

    Parameters
    ----------
    trace : array (T, C, d) or (T, C)

    Returns
    -------
    (d,) array, or a float for a (T, C) trace (NaN if T < 4 or the trace is constant).
    """
    a, squeeze = _as_tcd(trace)
    out = _rhat_ess(a, rhat=False)[1]
    return float(out[0]) if squeeze else out


def per_chain_rhat_ess(trace: Any) -> tuple[np.ndarray, np.ndarray]:
    """Split R-hat and bulk ESS of every chain on its own (its two halves as two chains), vectorised.

    Chain ``c``'s values equal ``split_rhat(trace[:, c:c+1])`` and
    ``effective_sample_size(trace[:, c:c+1])`` exactly (same ranks, split, folding and truncation;
    Vehtari et al. 2021), computed for all chains at once — for simulations with one chain per
    replicate (tens of thousands of chains), where each replicate must be judged separately.

    Parameters
    ----------
    trace : array (T, C, d) or (T, C)

    Returns
    -------
    rhat, ess : arrays (C, d), or (C,) for a (T, C) trace (NaN if T < 4 or a chain is constant).
    """
    a, squeeze = _as_tcd(trace)
    T, C, d = a.shape
    r, e = _rhat_ess(a.reshape(T, 1, C * d))  # every (chain, coordinate) column is its own one-chain trace
    r, e = r.reshape(C, d), e.reshape(C, d)
    return (r[:, 0], e[:, 0]) if squeeze else (r, e)


def acceptance_rate(accepted: Any) -> float:
    """Fraction of accepted proposals: the mean of a boolean (or 0/1) array of any shape."""
    try:
        a = np.asarray(accepted, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError("accepted must be an array of booleans (True = proposal accepted).") from None
    if a.size == 0:
        raise DPValueError("accepted is empty; run at least one proposal before computing the acceptance rate.")
    if not ((a == 0) | (a == 1)).all():
        raise DPValueError("accepted must contain only booleans or 0/1 values.")
    return float(a.mean())


# ----------------------------------------------------------------------------- preconditioned sampler
#: Sweeps per step-scale adaptation batch of :func:`preconditioned_metropolis` (at most).
_PRECOND_BATCH = 10


def _window_ends(burn_in: int) -> list[int]:
    """Sweeps (1-based, inclusive) at which the proposal covariance is re-estimated during burn-in.

    Stan-like schedule scaled to the burn-in: a first 15 % with step-scale adaptation only, then
    windows of doubling length (the first 5 % of the burn-in, at least 5 sweeps) up to 90 %, the last
    window stretched to end there; the final 10 % re-tune the scale to the last covariance.
    """
    start, stop = int(0.15 * burn_in), int(0.9 * burn_in)
    w = max(5, int(0.05 * burn_in))
    ends = []
    e = start + w
    while e <= stop:
        nxt = e + 2 * w
        if nxt > stop:
            e = stop
        ends.append(e)
        w *= 2
        e = nxt if nxt <= stop else stop + 1
    return ends


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
    progress: Callable[[int, int], Any] | None = None,
) -> MCMCResult:
    """Run ``C`` random-walk Metropolis chains with full-vector, preconditioned Gaussian proposals.

    ``moves="directions"`` (default): a sweep moves chain c along each column ℓ_k of its
    preconditioner L_c in turn, θ′ = θ + s_{c,k}·z·ℓ_k, z ~ N(0, 1) — Metropolis-within-Gibbs in the
    whitened coordinates (where L_cL_cᵀ matches the target's covariance they are nearly
    independent, and for a well-conditioned target this is the coordinate-wise sampler again;
    measured ESS ≈ 3× that of full-vector moves there), each scale adapted to acceptance 0.44.
    ``moves="vector"``: θ′ = θ + s_c·L_c·z, z ~ N(0, I_d) (adaptive Metropolis, target 0.3).
    Proposals are accepted with probability min(1, f(θ′)/f(θ)); proposals outside the box or the
    ℓ1 ball are rejected without evaluating the target. One *sweep* is ``d`` proposals (the work of
    one sweep of :func:`metropolis_within_gibbs`, so ``n_sweeps`` means the same in both).

    Why: one-at-a-time moves cannot travel along a thin tilted ridge — on a regression whose
    predictors are correlated (KNG's law θ = θ̂ + (2XᵀX)⁻¹g has axis ratio cond(XᵀX) ≈ 260 on the
    diabetes design with bmi scaled by its public bound) they need O(cond²) moves per independent
    draw. Proposals shaped like the target (L_cL_cᵀ ∝ its covariance) make every direction equally
    easy (Haario, Saksman & Tamminen 2001; Roberts & Rosenthal 2009, adaptive Metropolis).

    Where the preconditioner comes from, and what that means for privacy:

    * Initially ``precond`` (a public (d, d) covariance shape, or the diagonal ``step_size²``):
      in a release this is built from public quantities only — the data are divided by their
      public bounds (the data-independent scaling) and the scale is the public width 2Δw/(εn).
    * During burn-in, when ``adapt_covariance``, each chain re-estimates L_c from **its own**
      past states (windowed, Stan-like; see :func:`_window_ends`), shrunk towards its current
      proposal (:func:`_update_covariance`), then freezes it. The data enter the proposal only
      through the target's values along the chain's own path — the information every MCMC on this
      target uses, and the same as the existing step-size adaptation — and each chain adapts on
      its own, so chains (hence released draws) stay independent. After burn-in the chain is an
      ordinary time-homogeneous Metropolis chain whose stationary law is exactly the target.
    * Rejected alternatives: a preconditioner computed directly from the private XᵀX leaves the
      target (and its ε-DP) unchanged too, but adds a second function of the data to the finite
      chain's law, outside any accounting; a separately charged private estimate of XᵀX would be
      accountable but splits ε and makes the cost of a release depend on the sampler.

    Either way an MCMC draw is only approximately distributed as the ε-DP target: a sampler within
    total variation η of the target on every dataset gives (ε, (1 + e^ε)η)-DP, with η judged (not
    certified) by the R-hat/ESS release rule.

    Parameters
    ----------
    log_density : callable (m, d) -> (m,)
        Unnormalised log target, row-wise; it may be called with fewer rows than chains (only
        the proposals that satisfy the constraints are evaluated).
    init : (C, d) or (d,)
        Start states inside the constraints, finite log density.
    n_sweeps, burn_in, thin, keep_trace, lower, upper, l1_radius, progress
        As in :func:`metropolis_within_gibbs` (a sweep is ``d`` proposals here).
    rng : Generator, seed, or list of C Generators (chain c then uses rng[c] only).
    step_size : float, (d,) or (C, d)
        Initial proposal standard deviations per coordinate (used when ``precond`` is None, else
        a scalar multiplier of ``chol(precond)``).
    precond : (d, d) or (C, d, d), optional
        Public initial proposal covariance shape.
    adapt : adapt the proposal scale s_c during burn-in (Robbins–Monro with Kesten's gain, as in
        :func:`metropolis_within_gibbs`, target ``target_accept``).
    adapt_covariance : re-estimate L_c from the chain's own burn-in states.
    temperatures : decreasing inverse temperatures 1 = β₀ > β₁ > … > 0, optional
        Parallel tempering (Geyer 1991; Earl & Deem 2005): each chain c becomes a ladder of K
        chains targeting f^β_k on the same constraint set (each with its own adapted proposal),
        and after every sweep neighbouring temperatures propose to swap states, accepted with
        probability min(1, exp((β_k − β_{k+1})(log f(θ_{k+1}) − log f(θ_k)))). The swaps leave the
        product law invariant, so the β = 1 chain still targets f exactly; hot chains cross the
        barriers of multimodal targets (KNG on a discrete gradient: terraces of plateaus whose
        steps are e^{−c·|x_i|}). Only the β = 1 chains are returned and diagnosed; the swap
        acceptance rates are in ``diagnostics.swap_rates`` (when K > 1).

    Returns
    -------
    MCMCResult — ``step_size`` holds the final per-coordinate proposal sd, s_c·√diag(L_cL_cᵀ).
    """
    theta0 = _check_init(init)
    C, d = theta0.shape
    n_sweeps, burn_in, thin = _check_run_lengths(n_sweeps, burn_in, thin)
    if moves not in ("directions", "vector"):
        raise DPValueError(f"moves must be 'directions' or 'vector'; got {moves!r}.")
    per_dir = moves == "directions"
    target = (0.44 if per_dir else 0.3) if target_accept is None else float(target_accept)
    if not 0.0 < target < 1.0:
        raise DPValueError(f"target_accept = {target_accept!r} must lie strictly between 0 and 1.")
    if not callable(log_density):
        raise DPValueError("log_density must be a callable (m, d) -> (m,).")
    lo, hi = _check_box(lower, upper, d)
    radius = None if l1_radius is None else check_positive(l1_radius, "l1_radius")
    gens = _check_rng(rng, C)
    per_chain = isinstance(gens, list)
    if precond is None:
        L = np.zeros((C, d, d))
        idx = np.arange(d)
        L[:, idx, idx] = _check_step(step_size, C, d)
    else:
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
        L = L * float(s0)
    n_keep = (n_sweeps - burn_in) // thin
    if n_keep * C * d > _MAX_TRACE_VALUES:
        raise DPValueError(f"thin = {thin} keeps too many states ({n_keep * C * d:,} values); increase thin.")
    if ((theta0 < lo) | (theta0 > hi)).any():
        raise DPValueError("init: a chain starts outside the box [lower, upper]; start inside (e.g. its centre).")
    if radius is not None and (np.abs(theta0).sum(axis=1) > radius).any():
        raise DPValueError(f"init: a chain starts outside the l1 ball of radius {radius:g}; start inside (e.g. at 0).")

    betas = np.asarray(temperatures, dtype=float).ravel()
    if betas.size < 1 or betas[0] != 1.0 or not np.all(np.diff(betas) < 0) or betas[-1] <= 0:
        raise DPValueError(f"temperatures must start at 1 and decrease strictly, staying > 0; got {temperatures!r}.")
    K = betas.size
    M = C * K                                           # row c*K + k: ladder c at inverse temperature betas[k]
    beta = np.tile(betas, C)
    theta = np.repeat(theta0, K, axis=0)
    L = np.repeat(L, K, axis=0)
    lpb = _check_logp(log_density(theta0.copy()), C, "log_density")
    if not np.isfinite(lpb).all():
        c = int(np.argmax(~np.isfinite(lpb)))
        raise DPValueError(f"init: the log density of chain {c} at its start is {lpb[c]}; start where it is positive.")
    lpb = np.repeat(lpb, K)                             # the untempered log density of every row
    box = bool(np.isfinite(lo).any() or np.isfinite(hi).any())

    Rs = d if per_dir else 1                            # one proposal scale per direction (or one per chain)
    log_s = np.zeros((Rs, M))
    kesten = np.zeros((Rs, M))
    prev_sign = np.zeros((Rs, M), dtype=bool)
    first = True
    do_adapt = bool(adapt) and burn_in > 0
    batch = max(1, min(_PRECOND_BATCH, burn_in // 40))
    ends = set(_window_ends(burn_in)) if (adapt_covariance and do_adapt) else set()
    s_opt = math.log(2.4) if per_dir else math.log(2.38 / math.sqrt(d))
    w_n = 0
    w_s1 = np.zeros((M, d))
    w_s2 = np.zeros((M, d, d))
    cnt = np.zeros((Rs, M))
    acc_post = np.zeros(M)
    swaps = np.zeros(max(K - 1, 1))
    swap_tries = np.zeros(max(K - 1, 1))
    trace = np.empty((n_keep, C, d))
    i_keep = 0
    block = max(4, min(64, (1 << 14) // (d * d * K)))
    cold = np.arange(C) * K
    done = 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while done < n_sweeps:
            if per_chain:
                Z = np.empty((block * d, C, K, d))
                U = np.empty((block * d, C, K))
                S = np.empty((block, C, K))
                for c, g in enumerate(gens):
                    Z[:, c] = g.standard_normal((block * d, K, d))
                    U[:, c] = g.random((block * d, K))
                    S[:, c] = g.random((block, K))
            else:
                Z = gens.standard_normal((block * d, C, K, d))
                U = gens.random((block * d, C, K))
                S = gens.random((block, C, K))
            Z = Z.reshape(block * d, M, d)
            LU = np.log(U).reshape(block * d, M)
            LS = np.log(S)
            nb = min(block, n_sweeps - done)
            for t in range(nb):
                s = np.exp(log_s)
                for k in range(d):
                    i = t * d + k
                    if per_dir:
                        prop = theta + (s[k] * Z[i][:, k])[:, None] * L[:, :, k]
                    else:
                        prop = theta + s[0][:, None] * np.einsum("cij,cj->ci", L, Z[i])
                    ok = np.ones(M, dtype=bool)
                    if box:
                        ok &= np.all((prop >= lo) & (prop <= hi), axis=1)
                    if radius is not None:
                        ok &= np.abs(prop).sum(axis=1) <= radius
                    lpn = np.full(M, -np.inf)
                    if ok.any():
                        lpn[ok] = np.asarray(log_density(prop[ok]), dtype=float)
                    acc = ok & (LU[i] < beta * (lpn - lpb))
                    theta[acc] = prop[acc]
                    lpb[acc] = lpn[acc]
                    cnt[k if per_dir else 0] += acc
                s1 = done + t + 1
                if K > 1:  # swap states between neighbouring temperatures (even/odd pairs alternate)
                    for k in range((s1 % 2), K - 1, 2):
                        a, b = cold + k, cold + k + 1
                        la = (betas[k] - betas[k + 1]) * (lpb[b] - lpb[a])
                        sw = LS[t, :, k] < la
                        swap_tries[k] += C
                        swaps[k] += sw.sum()
                        ia, ib = a[sw], b[sw]
                        theta[ia], theta[ib] = theta[ib].copy(), theta[ia].copy()
                        lpb[ia], lpb[ib] = lpb[ib].copy(), lpb[ia].copy()
                if s1 <= burn_in:
                    if ends:
                        w_n += 1
                        w_s1 += theta
                        w_s2 += theta[:, :, None] * theta[:, None, :]
                    if do_adapt and (s1 % batch == 0 or s1 == burn_in):
                        _adapt_step(log_s, cnt, batch if per_dir else batch * d, target, kesten, prev_sign, first)
                        first = False
                        cnt[...] = 0.0
                    if s1 in ends:
                        L, log_s = _update_covariance(L, log_s, w_n, w_s1, w_s2, s_opt)
                        kesten[...] = 0.0
                        first = True
                        w_n = 0
                        w_s1[...] = 0.0
                        w_s2[...] = 0.0
                    if s1 == burn_in:
                        cnt[...] = 0.0
                else:
                    acc_post += cnt.sum(axis=0)
                    cnt[...] = 0.0
                    if (s1 - burn_in) % thin == 0:
                        trace[i_keep] = theta[cold]
                        i_keep += 1
            done += nb
            if progress is not None and progress(done, n_sweeps) is False:
                raise MCMCCancelled(f"MCMC cancelled after {done} of {n_sweeps} sweeps.", done=done, total=n_sweeps)

    n_post = n_sweeps - burn_in
    rhat, ess = _rhat_ess(trace)
    rate = float(acc_post[cold].sum() / (C * n_post * d))
    sc = np.broadcast_to(np.exp(log_s), (d, M)).T                                  # (M, d) scale per direction
    sd = np.sqrt(np.einsum("cjk,ck->cj", L * L, sc * sc))[cold]
    diag = MCMCDiagnostics(acceptance=rate, acceptance_per_coord=np.full(d, rate), rhat=rhat, ess=ess,
                           n_chains=C, n_sweeps=n_sweeps, burn_in=burn_in,
                           swap_rates=swaps / np.maximum(swap_tries, 1) if K > 1 else None)
    return MCMCResult(final=np.ascontiguousarray(theta[cold]), trace=trace if keep_trace else None, step_size=sd,
                      diagnostics=diag)


def _update_covariance(L, log_s, k, s1, s2, s_opt):
    """New Cholesky factors from each chain's window moments, shrunk towards its current proposal.

    Σ = w·S + (1 − w)·Σ₀ + 10⁻⁶·(tr S/d)·I with S the window's sample covariance (k states),
    Σ₀ = (s/s_opt)²·LLᵀ the covariance the current proposal is tuned for, and w = k/(k + 10d): a short
    or highly autocorrelated first window (a noisy S) cannot collapse the proposal. Chains whose
    window is degenerate keep theirs.
    """
    C, d, _ = L.shape
    m = s1 / k
    S = (s2 - k * m[:, :, None] * m[:, None, :]) / max(k - 1, 1)
    tr = np.einsum("cii->c", S) / d
    w = k / (k + 10.0 * d)
    D = np.broadcast_to(np.exp(log_s - s_opt), (d, C)).T                           # (C, d) column scales
    LD = L * D[:, None, :]
    S0 = np.einsum("cij,ckj->cik", LD, LD)
    Sig = w * S + (1.0 - w) * S0 + (1e-6 * tr)[:, None, None] * np.eye(d)
    L = L.copy()
    log_s = log_s.copy()
    for c in range(C):
        if not (np.isfinite(tr[c]) and tr[c] > 0 and np.isfinite(Sig[c]).all()):
            continue
        try:
            Lc = np.linalg.cholesky(0.5 * (Sig[c] + Sig[c].T))
        except np.linalg.LinAlgError:
            continue
        L[c] = Lc
        log_s[:, c] = s_opt
    return L, log_s

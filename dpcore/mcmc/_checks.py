"""Input validation shared by the samplers: every message names the argument, the value and the fix."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import as_generator
from .._validation import check_int
from ..errors import DPValueError

#: Largest number of stored trace values (T * C * d); beyond this, ask for thinning.
MAX_TRACE_VALUES = 50_000_000


def run_lengths(n_sweeps: Any, burn_in: Any, thin: Any) -> tuple[int, int, int]:
    """Validated (n_sweeps, burn_in, thin); burn_in defaults to n_sweeps // 2 and must leave a sweep."""
    n_sweeps = check_int(n_sweeps, "n_sweeps", lo=1)
    burn_in = n_sweeps // 2 if burn_in is None else check_int(burn_in, "burn_in", lo=0)
    if burn_in >= n_sweeps:
        raise DPValueError(f"burn_in = {burn_in} must be smaller than n_sweeps = {n_sweeps}; "
                           f"leave at least one post-burn-in sweep (default burn_in = n_sweeps // 2).")
    return n_sweeps, burn_in, check_int(thin, "thin", lo=1)


def trace_size(n_sweeps: int, burn_in: int, thin: int, C: int, d: int) -> None:
    """Refuse a trace of more than :data:`MAX_TRACE_VALUES` values before allocating it."""
    n_keep = (n_sweeps - burn_in) // thin
    if n_keep * C * d > MAX_TRACE_VALUES:
        raise DPValueError(
            f"thin = {thin} keeps {n_keep} states x {C} chains x {d} coordinates = {n_keep * C * d:,} values "
            f"(limit {MAX_TRACE_VALUES:,}); increase thin to at least "
            f"{math.ceil((n_sweeps - burn_in) * C * d / MAX_TRACE_VALUES)}."
        )


def target_accept(value: Any) -> float:
    """A target acceptance rate strictly between 0 and 1 (booleans refused)."""
    try:
        target = float("nan") if isinstance(value, (bool, np.bool_)) else float(value)
    except (TypeError, ValueError):
        target = float("nan")
    if not 0.0 < target < 1.0:
        raise DPValueError(f"target_accept = {value!r} must lie strictly between 0 and 1 "
                           "(0.44 is optimal for one-coordinate random-walk updates).")
    return target


def start_states(init: Any) -> np.ndarray:
    """``init`` as a finite (C, d) float array (a (d,) start is one chain)."""
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


def _bound(v: Any, name: str, default: float, d: int) -> np.ndarray:
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


def box(lower: Any, upper: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Validated box bounds (d,) each, ``lower < upper`` everywhere (None = unbounded)."""
    lo, hi = _bound(lower, "lower", -np.inf, d), _bound(upper, "upper", np.inf, d)
    bad = ~(lo < hi)
    if bad.any():
        j = int(np.argmax(bad))
        raise DPValueError(f"lower[{j}] = {lo[j]} must be smaller than upper[{j}] = {hi[j]}; fix the box bounds.")
    return lo, hi


def step(step_size: Any, C: int, d: int) -> np.ndarray:
    """Positive finite proposal scales broadcast to (C, d) (a fresh array)."""
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


def generators(rng: Any, C: int) -> np.random.Generator | list[np.random.Generator]:
    """One shared Generator, or a list of exactly ``C`` (one per chain)."""
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


def log_density_values(lp: Any, C: int, where: str) -> np.ndarray:
    """A copy of ``lp`` as (C,) floats, or an error naming the callable ``where`` that returned it."""
    a = np.asarray(lp, dtype=float)
    if a.shape != (C,):
        raise DPValueError(f"{where} must return a log density of shape ({C},) (one value per chain); got {a.shape}.")
    return a.copy()


def starts_inside(theta0: np.ndarray, lo: np.ndarray, hi: np.ndarray, radius: float | None) -> None:
    """Every chain starts inside the box and the ℓ1 ball."""
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


def starts_positive(lp: np.ndarray, theta0: np.ndarray) -> None:
    """Every chain starts where the target density is positive (finite log density)."""
    badlp = ~np.isfinite(lp)
    if badlp.any():
        c = int(np.argmax(badlp))
        raise DPValueError(
            f"init: the log density of chain {c} at its start {theta0[c].tolist()} is {lp[c]}; "
            f"{int(badlp.sum())} chain(s) affected. Start every chain where the target density is positive."
        )

"""Work caps, computed from public parameters and checked before anything is allocated (issue 18).

The budget of one interaction on the 2-core reference machine is :data:`BUDGET_SECONDS` and
:data:`BUDGET_BYTES`. Each topic states the work of a request as a product of public parameters — cells of
a table (k₁ · k₂), grid points × rows × draws, replicates × n, bytes of the largest array — and calls
:func:`check_work` (or :func:`check_bytes`) with its cap *before* building anything. A refusal is a
:class:`~dpcore.errors.DPValueError` that names the product, its factors, the cap and the fix, which the
pages show as an error. Where a cap would forbid a legitimate use, the topic chunks the work and reports
progress instead (``progress`` callbacks; :class:`~dpcore.errors.Cancelled`).

Caps are public (functions of parameters, bounds and n only), so refusing reveals nothing about the data.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

from .errors import DPValueError

__all__ = ["BUDGET_SECONDS", "BUDGET_BYTES", "FLOAT_BYTES", "work", "check_work", "check_bytes", "estimate_seconds",
           "check_seconds"]

#: The interaction budget the caps protect (seconds, bytes) on the 2-core reference machine.
BUDGET_SECONDS = 30
BUDGET_BYTES = 2**30
#: Bytes per float64 value (for memory products).
FLOAT_BYTES = 8


def work(factors: Mapping[str, float]) -> float:
    """The product of the factors (exact for whole numbers, never overflowing: huge products are floats)."""
    vals = list(factors.values())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return math.prod(vals)
    return math.prod(float(v) for v in vals)


def _fmt(x: float) -> str:
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    return f"{x:.3g}"


def check_work(what: str, factors: Mapping[str, float], cap: float, *, fix: str, unit: str = "") -> float:
    """Refuse a request whose work ``∏ factors`` exceeds ``cap``; returns the product.

    Parameters
    ----------
    what : str
        What is counted, e.g. ``"cells of the crossed table"``.
    factors : mapping name → value
        The public parameters whose product is the work, e.g. ``{"bins of a": 10_000, "bins of b": 10_000}``.
    cap : float
        The largest product allowed.
    fix : str
        What the user can change, e.g. ``"use fewer bins"``.
    unit : str
        Appended to the product and the cap (e.g. ``" bytes"``).

    Raises
    ------
    DPValueError
        ``"<what> = a × b = <product> exceeds the cap <cap> (...); <fix>."`` — before any allocation.
    """
    total = work(factors)
    if total > cap:
        prod = " × ".join(f"{k} {_fmt(v)}" for k, v in factors.items())
        raise DPValueError(f"{what} = {prod} = {_fmt(total)}{unit} exceeds the cap of {_fmt(cap)}{unit} (it keeps one "
                           f"interaction under {BUDGET_SECONDS} s and {BUDGET_BYTES // 2**30} GB); {fix}.")
    return total


def check_bytes(what: str, factors: Mapping[str, float], *, fix: str, cap: float = BUDGET_BYTES // 2) -> float:
    """:func:`check_work` for memory: the factors multiply to bytes (include :data:`FLOAT_BYTES`); the default
    cap is half the budget, leaving room for the copies a computation makes."""
    return check_work(f"memory of {what}", factors, cap, fix=fix, unit=" bytes")


def estimate_seconds(terms: Mapping[str, tuple[Mapping[str, float], float]]) -> float:
    """Σ over terms of (∏ factors) × seconds per unit: a time model's estimate (see :func:`check_seconds`)."""
    return sum(work(f) * float(unit) for f, unit in terms.values())


def check_seconds(what: str, terms: Mapping[str, tuple[Mapping[str, float], float]], *, fix: str,
                  cap: float = BUDGET_SECONDS) -> float:
    """Refuse a request whose estimated time exceeds ``cap`` seconds; returns the estimate.

    A time model is a sum of terms, each a product of public parameters times a unit cost in seconds fitted
    on timed runs on the reference machine: ``terms`` maps a term's name to ``(factors, seconds per unit)``.
    The refusal names every term with its factors, the total and the cap, e.g. ``"estimated time of the lab
    run = simulations (releases 750 × 0.02 s) 15 s + nets (...) 40 s = 55 s exceeds the cap of 30 s ...; fix"``.
    """
    total = estimate_seconds(terms)
    if total > cap:
        parts = []
        for name, (factors, unit) in terms.items():
            prod = " × ".join(f"{k} {_fmt(v)}" for k, v in factors.items())
            parts.append(f"{name} ({prod} × {float(unit):.3g} s) {work(factors) * float(unit):.3g} s")
        raise DPValueError(f"estimated time of {what} = {' + '.join(parts)} = {total:.3g} s exceeds the cap of "
                           f"{_fmt(cap)} s (it keeps one interaction under {BUDGET_SECONDS} s on the reference "
                           f"2-core machine); {fix}.")
    return total

"""Parameter validation with messages that name the parameter, the value and the fix.

Every check raises :class:`DPValueError` (a ``ValueError``), which the app shows
with ``st.error`` instead of a traceback.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Canonical norm names, and the spellings a user may type for them.
_NORM_ALIASES = {
    "l1": "l1", "ℓ1": "l1", "1": "l1", "one": "l1",
    "l2": "l2", "ℓ2": "l2", "2": "l2", "euclidean": "l2",
    "linf": "linf", "ℓ∞": "linf", "l∞": "linf", "inf": "linf", "max": "linf", "infinity": "linf",
}


from .errors import DPValueError  # noqa: E402  (re-exported: the public home is dpcore.errors)


def _as_float(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)):
        raise DPValueError(f"{name} must be a number; got the boolean {value!r}.")
    if value is Ellipsis:      # an exported script's placeholder (dpcore.export.sources: bounds read from the data)
        raise DPValueError(f"{name} is ..., a placeholder to fill in: type the public value, stated without looking "
                           "at the data (a codebook, domain knowledge).")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise DPValueError(f"{name} must be a number; got {value!r}.") from None
    if math.isnan(x):
        raise DPValueError(f"{name} is NaN; enter a finite number.")
    return x


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """ε must be finite and > 0. Values above 10 are allowed (the app warns: almost no privacy)."""
    x = _as_float(name, epsilon)
    if not math.isfinite(x):
        raise DPValueError(f"{name} = {x} is not finite; choose a finite {name} > 0 (e.g. 1.0).")
    if x <= 0:
        raise DPValueError(f"{name} = {x} must be > 0; a smaller {name} means more privacy (try 0.1 to 5).")
    return x


def epsilon_warning(epsilon: float) -> str | None:
    """A warning string for very large ε (allowed, but barely private), else None.

    e^ε is written exactly as a power of ten (never clamped: e^10000 is 10^4342.9, not the 1e+304 of e^700).

    >>> epsilon_warning(10000.0)[:63]
    'epsilon = 10000 > 10: the privacy guarantee e^epsilon > 10^4342'
    >>> epsilon_warning(20.0)[:55]
    'epsilon = 20 > 10: the privacy guarantee e^epsilon = 4.'
    """
    from .numbers import number

    if epsilon > 10:
        power = (f"= {math.exp(epsilon):.3g}" if epsilon <= 700 else
                 f"> 10^{math.floor(epsilon / math.log(10))}")
        return (f"epsilon = {number(epsilon, 6)} > 10: the privacy guarantee e^epsilon {power} "
                "is nearly meaningless; use it only to see the non-private limit.")
    return None


def check_delta(delta: Any, name: str = "delta", allow_zero: bool = False) -> float:
    """δ must lie in (0, 1) (or [0, 1) when ``allow_zero``)."""
    x = _as_float(name, delta)
    lo_ok = x >= 0 if allow_zero else x > 0
    if not (lo_ok and x < 1):
        rng = "[0, 1)" if allow_zero else "(0, 1)"
        raise DPValueError(f"{name} = {x} must lie in {rng}; typical values are 1e-5 to 1e-9 (well below 1/n).")
    return x


def delta_warning(delta: float, n: int) -> str | None:
    """Warn when δ ≥ 1/n: such a δ allows releasing a whole record."""
    if n > 0 and delta >= 1.0 / n:
        return (f"delta = {delta:g} is at least 1/n = {1.0 / n:.3g}: a mechanism may then publish one record "
                "outright; choose delta much smaller than 1/n.")
    return None


def check_rho(rho: Any, name: str = "rho") -> float:
    """ρ (zCDP) must be finite and > 0."""
    x = _as_float(name, rho)
    if not math.isfinite(x) or x <= 0:
        raise DPValueError(f"{name} = {x} must be a finite number > 0 (zCDP parameter; e.g. 0.5).")
    return x


def check_finite(value: Any, name: str) -> float:
    """A finite number (not NaN, not ±inf)."""
    x = _as_float(name, value)
    if not math.isfinite(x):
        raise DPValueError(f"{name} = {x} must be finite; enter a finite number.")
    return x


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A finite number > 0 (or ≥ 0)."""
    x = check_finite(value, name)
    ok = (x >= 0) if allow_zero else (x > 0)
    if not ok:
        cmp = ">= 0" if allow_zero else "> 0"
        raise DPValueError(f"{name} = {x} must be {cmp}.")
    return x


def check_probability_level(tau: Any, name: str = "tau") -> float:
    """A quantile level strictly inside (0, 1)."""
    x = _as_float(name, tau)
    if not (0 < x < 1):
        raise DPValueError(f"{name} = {x} must lie strictly between 0 and 1 (0.5 is the median).")
    return x


def check_bounds(lower: Any, upper: Any, name: str = "bounds") -> tuple[float, float]:
    """Finite public bounds with lower < upper."""
    lo = _as_float(f"{name} lower", lower)
    hi = _as_float(f"{name} upper", upper)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise DPValueError(f"{name} = ({lo}, {hi}) must be finite; declare a public range such as (0, 100).")
    if not lo < hi:
        raise DPValueError(f"{name}: lower = {lo} must be smaller than upper = {hi}; swap or widen them.")
    return lo, hi


def check_int(value: Any, name: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """An integer in [lo, hi] (caps protect the server from runaway work)."""
    if isinstance(value, (bool, np.bool_)):
        raise DPValueError(f"{name} must be a whole number; got {value!r}.")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise DPValueError(f"{name} must be a whole number; got {value!r}.") from None
    if not math.isfinite(x) or x != int(x):
        raise DPValueError(f"{name} must be a whole number; got {value!r}.")
    k = int(x)
    if lo is not None and k < lo:
        raise DPValueError(f"{name} = {k} is too small; use at least {lo}.")
    if hi is not None and k > hi:
        raise DPValueError(f"{name} = {k} is too large; the limit is {hi} (it protects the server).")
    return k


def check_norm(norm: Any, name: str = "norm") -> str:
    """Canonical norm name: 'l1', 'l2' or 'linf'."""
    key = str(norm).strip().lower() if norm is not None else ""
    if key not in _NORM_ALIASES:
        raise DPValueError(f"{name} = {norm!r} is not a supported norm; choose one of 'l1', 'l2', 'linf'.")
    return _NORM_ALIASES[key]


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """``value`` must be one of ``choices``."""
    if value not in choices:
        raise DPValueError(f"{name} = {value!r} is not supported; choose one of {', '.join(map(repr, choices))}.")
    return value


def check_finite_array(a: Any, name: str = "data", *, ndim: tuple[int, ...] | None = None,
                       min_rows: int = 1) -> np.ndarray:
    """A float array with no NaN/inf, of an allowed dimension and at least ``min_rows`` rows."""
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError(f"{name} must be numeric; it could not be converted to numbers.") from None
    if ndim is not None and arr.ndim not in ndim:
        raise DPValueError(f"{name} must have {' or '.join(map(str, ndim))} dimension(s); got shape {arr.shape}.")
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise DPValueError(f"{name} has {arr.shape[0]} rows; this needs at least {min_rows}.")
    with np.errstate(all="ignore"):     # a finite sum means every value is finite (one cheap pass, no temporary):
        total = np.add.reduce(arr, axis=None)   # NaN and ±inf propagate; an overflow falls through to the full check
    if np.isfinite(total):
        return arr
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.argwhere(bad)[0]
        raise DPValueError(
            f"{name} contains a non-finite value ({arr[tuple(idx)]}) at index {tuple(int(i) for i in idx)}; "
            "remove or fix missing/infinite values first."
        )
    return arr

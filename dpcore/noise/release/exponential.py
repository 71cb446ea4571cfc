"""The exponential mechanism over finite candidates: P(i) ∝ exp(ε u_i/(2Δ_u)), ε-DP per draw
(McSherry & Talwar 2007)."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from ..._rng import RNGLike, as_generator
from ..._validation import DPValueError
from ...mechanism import Release
from ..calibration import calibrate_exponential
from ..configs import ExponentialConfig
from ._common import Override, finish, overridden


def _utilities(utilities: Any) -> np.ndarray:
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise DPValueError(f"utilities must be a non-empty 1-D array; got shape {u.shape}.")
    if np.isnan(u).any() or np.isposinf(u).any():
        raise DPValueError("utilities contain NaN or +inf; every candidate needs a finite utility (−inf excludes it).")
    return u


def _logits(u: np.ndarray, factor: float) -> np.ndarray:
    logits = factor * u
    if not np.isfinite(logits).any():
        raise DPValueError("every candidate has utility −inf; at least one must be finite.")
    return logits - logsumexp(logits)


def exponential_mechanism_logits(utilities: ArrayLike, epsilon: float, sensitivity: float, monotone: bool = False) -> np.ndarray:
    """Normalised log-probabilities ε·u/(2Δ_u) − logsumexp (ε·u/Δ_u when ``monotone``)."""
    config = ExponentialConfig(epsilon, sensitivity, monotone)
    u = _utilities(utilities)
    cal = calibrate_exponential(config, u.shape)
    return _logits(u, cal.constant)


def release(data: Any, config: ExponentialConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """``size`` indices drawn with P(i) ∝ exp(c·u_i), ``data`` the utilities; each draw ε-DP.

    Sampling is Gumbel-max in log space: argmax_i(c·u_i + G_i), exact and free of overflow even for
    utilities ~ 1e6.
    """
    u = _utilities(data)
    cal = overridden(calibrate_exponential(config, u.shape), override)
    logits = _logits(u, cal.constant)
    gumbel = as_generator(rng).gumbel(size=(config.size, logits.size))
    return finish(cal, np.argmax(logits[None, :] + gumbel, axis=1), config, config.size)


def exponential_mechanism(utilities: ArrayLike, epsilon: float, sensitivity: float, size: int = 1, rng: RNGLike = None,
                          monotone: bool = False) -> Release:
    """Indices drawn with P(i) ∝ exp(ε u_i / (2Δ_u)) over finite candidates (McSherry & Talwar 2007).

    ε-DP (each draw) when Δ_u ≥ sup_i sup_{D~D'} |u_i(D) − u_i(D')|; with ``monotone`` utilities
    (all move in the same direction between neighbours) the factor 2 may be dropped. Returns a
    :class:`~dpcore.mechanism.Release` whose ``value`` holds the ``size`` indices and whose cost
    counts ``size`` draws.
    """
    return release(utilities, ExponentialConfig(epsilon, sensitivity, monotone, size), rng=rng)

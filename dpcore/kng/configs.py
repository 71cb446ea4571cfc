"""Frozen, self-validating configs of the KNG problems (one dataclass per problem).

A config holds only the public parameters that apply to its problem: an irrelevant one (e.g.
``radius`` for the median) is refused by :func:`dpcore.mechanism.make_config` with a message
naming it and the problem. ``mechanism`` chooses KNG, the exponential mechanism or (linear
regression only) objective perturbation; MCMC settings (``sampler``, ``n_sweeps``, ``burn_in``)
do not exist for objective perturbation, an optimisation. Array-like parameters are stored as
tuples of floats, so configs compare, hash and deep-copy like plain values.

>>> from dpcore.kng.configs import MedianConfig
>>> MedianConfig(mechanism="kng", epsilon=1.0, bounds=(0, 10)).size
1
>>> from dpcore.mechanism import make_config
>>> make_config(MedianConfig, "problem 'median'", mechanism="kng", epsilon=1.0, bounds=(0, 1), radius=5)
Traceback (most recent call last):
...
dpcore.errors.DPValueError: parameter 'radius' does not apply to problem 'median'; its parameters are: mechanism, epsilon, norm, size, sampler, n_sweeps, burn_in, bounds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional

import numpy as np

from .._validation import (DPValueError, check_bounds, check_choice, check_epsilon, check_int, check_norm,
                           check_positive, check_probability_level)

__all__ = ["MECHANISMS", "CONSTANTS", "SAMPLERS", "MEAN_NOISES", "MAX_SIZE", "MAX_SWEEPS", "MAX_B", "check_B", "MeanConfig", "MedianConfig",
           "QuantileConfig", "LinearRegressionConfig", "QuantileRegressionConfig"]

MECHANISMS = ("kng", "exponential", "objective_perturbation")
CONSTANTS = ("calibrated", "paper")
SAMPLERS = ("auto", "exact", "mcmc")
#: How KNG's mean draws its noise: "grid" rounds x̄ to a public power-of-two grid and adds exact discrete Laplace
#: noise in grid units (hardened; norm ℓ1 or d = 1, where the K-norm noise is coordinate-wise Laplace), "float"
#: the K-norm noise by numpy's floating-point Gamma and uniform-ball draws, "auto" (default) "grid" where it exists.
MEAN_NOISES = ("auto", "grid", "float")
#: Largest number of draws per call (exact samplers / MCMC chains / objective-perturbation QPs).
MAX_SIZE = 1_000_000
#: Largest number of MCMC sweeps per chain.
MAX_SWEEPS = 200_000
#: Largest radius B of the regressions' parameter space {‖θ‖₁ ≤ B} (scaled units). Far beyond any useful
#: ball (B ≈ 1 already spans the public box), and it keeps (1 + B)², the objective's sensitivity, finite.
MAX_B = 1e6


def check_B(value: Any) -> float:
    """The ℓ1 radius B: finite, > 0 and ≤ :data:`MAX_B`."""
    B = check_positive(value, "B")
    if B > MAX_B:
        raise DPValueError(f"B = {B:g} is larger than the cap {MAX_B:g}: B bounds ‖θ‖₁ in scaled units, where "
                           "B ≈ 1 already spans the public box; choose 0 < B ≤ 1e6.")
    return B


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _vector(value: Any, name: str) -> Any:
    """A number, or a tuple of finite floats (arrays are stored as tuples: configs stay plain values)."""
    a = np.asarray(value, dtype=float)
    if a.ndim > 1 or not np.isfinite(a).all():
        raise DPValueError(f"{name} must be a finite number or a 1-D list of finite numbers; got {value!r}.")
    return float(a) if a.ndim == 0 else tuple(float(v) for v in a)


def _bounds(bounds: Any, required: bool) -> Any:
    if bounds is None:
        if required:
            raise DPValueError("bounds is required: declare a public range (lo, hi) for the data and the estimate, "
                               "fixed before looking at the data (e.g. bounds=(0, 100)).")
        return None
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise DPValueError(f"bounds must be a pair (lo, hi); got {bounds!r}.") from None
    lo, hi = _vector(lo, "bounds lower"), _vector(hi, "bounds upper")
    if isinstance(lo, float) and isinstance(hi, float):
        check_bounds(lo, hi, "bounds")
    return (lo, hi)


@dataclass(frozen=True)
class _KNGConfig:
    """Fields shared by every KNG problem (see :func:`dpcore.kng.sample` for their meaning)."""

    mechanism: str
    epsilon: float
    norm: str = "linf"
    size: int = 1
    sampler: str = "auto"
    n_sweeps: Optional[int] = None
    burn_in: Optional[int] = None

    #: Registry name of the problem; mechanisms it supports; default MCMC sweeps.
    problem: ClassVar[str] = ""
    mechanisms: ClassVar[tuple[str, ...]] = ("kng", "exponential")
    default_sweeps: ClassVar[int] = 2_000

    def __post_init__(self):
        mech = check_choice(self.mechanism, "mechanism", MECHANISMS)
        if mech not in self.mechanisms:
            why = (" (its Hessian is 0 almost everywhere: the objective is not strongly convex)"
                   if self.problem == "quantile_regression" else "")
            raise DPValueError(f"mechanism='objective_perturbation' applies to linear regression only, not to "
                               f"problem={self.problem!r}{why}; choose 'kng' or 'exponential'.")
        _set(self, "norm", check_norm(self.norm))
        _set(self, "size", check_int(self.size, "size (number of draws)", lo=1, hi=MAX_SIZE))
        check_choice(self.sampler, "sampler", SAMPLERS)
        if mech == "objective_perturbation":
            if self.sampler == "mcmc":
                raise DPValueError("objective perturbation is an optimisation, not a sampler: use sampler='auto'.")
            for name in ("n_sweeps", "burn_in"):
                if getattr(self, name) is not None:
                    raise DPValueError(f"{name} does not apply to objective perturbation (an exact optimisation, "
                                       "not an MCMC sampler); leave it unset.")
        if self.n_sweeps is not None:
            _set(self, "n_sweeps", check_int(self.n_sweeps, "n_sweeps", lo=2, hi=MAX_SWEEPS))
        if self.burn_in is not None:
            _set(self, "burn_in", check_int(self.burn_in, "burn_in", lo=0, hi=self.sweeps - 1))
        self._check()
        _set(self, "epsilon", check_epsilon(self.epsilon))

    def _check(self) -> None:
        """Problem-specific validation (overridden)."""

    @property
    def sweeps(self) -> int:
        """MCMC sweeps per chain (``n_sweeps`` or the problem's default)."""
        return self.default_sweeps if self.n_sweeps is None else self.n_sweeps

    @property
    def burn(self) -> int:
        """MCMC burn-in sweeps (``burn_in`` or half the sweeps)."""
        return self.sweeps // 2 if self.burn_in is None else self.burn_in


def _tau_and_constants(cfg: Any) -> None:
    _set(cfg, "tau", check_probability_level(cfg.tau, "tau"))
    check_choice(cfg.constants, "constants", CONSTANTS)


@dataclass(frozen=True)
class MeanConfig(_KNGConfig):
    """The mean of records with ‖x_i − center‖_K ≤ radius (or inside the box ``bounds``); ``noise`` (KNG only):
    "auto" (default: "grid" for norm ℓ1 or d = 1, else "float"), "grid" or "float" (:data:`MEAN_NOISES`)."""

    radius: Optional[float] = None
    center: Any = None
    bounds: Any = None
    noise: str = "auto"

    problem: ClassVar[str] = "mean"

    def _check(self) -> None:
        if self.radius is None and self.bounds is None:
            raise DPValueError("the mean needs a public bound on the records: give radius (‖x_i − center‖ ≤ "
                               "radius in the chosen norm) or bounds=(lo, hi) for a box.")
        if self.radius is not None:
            _set(self, "radius", check_positive(self.radius, "radius"))
        if self.center is not None:
            try:
                _set(self, "center", _vector(self.center, "center"))
            except DPValueError:
                raise DPValueError("center must be finite.") from None
        _set(self, "bounds", _bounds(self.bounds, required=False))
        check_choice(self.noise, "noise", MEAN_NOISES)
        if self.mechanism != "kng" and self.noise == "grid":
            raise DPValueError("noise='grid' applies to mechanism='kng' only (the exponential mechanism's mean is a "
                               "truncated normal, drawn in floating point); use noise='auto' or 'float'.")


@dataclass(frozen=True)
class MedianConfig(_KNGConfig):
    """The median (1 column) or geometric median (d ≥ 2 columns) inside the public box ``bounds``."""

    bounds: Any = None

    problem: ClassVar[str] = "median"

    def _check(self) -> None:
        _set(self, "bounds", _bounds(self.bounds, required=True))


@dataclass(frozen=True)
class QuantileConfig(_KNGConfig):
    """The τ-quantile of one column inside the public interval ``bounds``."""

    bounds: Any = None
    tau: float = 0.5
    constants: str = "calibrated"

    problem: ClassVar[str] = "quantile"

    def _check(self) -> None:
        _tau_and_constants(self)
        _set(self, "bounds", _bounds(self.bounds, required=True))
        if self.constants == "paper" and self.mechanism == "kng" and self.tau > 0.5:
            refuse_paper_tau(self.tau, "eq. (3)")


@dataclass(frozen=True)
class _RegressionConfig(_KNGConfig):
    B: float = 1.0
    x_bound: Any = 1.0
    y_bound: float = 1.0
    constants: str = "calibrated"

    def _check_regression(self) -> None:
        _set(self, "B", check_B(self.B))
        xb = np.asarray(self.x_bound, dtype=float) if np.ndim(self.x_bound) <= 1 else None
        if xb is None or not (np.isfinite(xb).all() and (xb > 0).all()):
            raise DPValueError(f"x_bound must be > 0 and finite (public bound on |x_ij|); got {self.x_bound!r}.")
        _set(self, "x_bound", _vector(xb, "x_bound"))
        _set(self, "y_bound", check_positive(self.y_bound, "y_bound"))
        check_choice(self.constants, "constants", CONSTANTS)


@dataclass(frozen=True)
class LinearRegressionConfig(_RegressionConfig):
    """Least squares on ‖θ‖₁ ≤ B, data scaled by the public bounds x_bound, y_bound."""

    problem: ClassVar[str] = "linear_regression"
    mechanisms: ClassVar[tuple[str, ...]] = MECHANISMS
    default_sweeps: ClassVar[int] = 5_000

    def _check(self) -> None:
        self._check_regression()
        if self.constants == "paper" and self.mechanism == "kng" and self.norm != "linf":
            raise DPValueError(f"constants='paper' prints the linear-regression KNG density for the ℓ∞ norm only "
                               f"(eq. 1); got norm={self.norm!r}. Use norm='linf' or constants='calibrated'.")


@dataclass(frozen=True)
class QuantileRegressionConfig(_RegressionConfig):
    """τ-quantile regression on ‖θ‖₁ ≤ B; ``C_X`` bounds ‖x‖_K (default: implied by ‖x‖∞ ≤ 1)."""

    tau: float = 0.5
    C_X: Optional[float] = None

    problem: ClassVar[str] = "quantile_regression"

    def _check(self) -> None:
        _set(self, "tau", check_probability_level(self.tau, "tau"))
        self._check_regression()
        if self.C_X is not None:
            _set(self, "C_X", check_positive(self.C_X, "C_X"))
        if self.constants == "paper" and self.mechanism == "kng" and self.tau > 0.5:
            refuse_paper_tau(self.tau, "quantile-regression")


def refuse_paper_tau(tau: float, what: str) -> None:
    """The paper's 2(1−τ) sensitivity is too small for τ > 1/2: refuse it (spec kng.md §3)."""
    if tau > 0.5:
        raise DPValueError(
            f"constants='paper' with tau = {tau:g} > 1/2: the paper's {what} sensitivity 2(1−τ) is smaller "
            "than the true one, so that density is NOT ε-DP (Reimherr & Awan 2019, §4.5). Use "
            "constants='calibrated', or tau ≤ 0.5."
        )



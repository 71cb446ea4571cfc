"""The noise mechanisms' configs: frozen, self-validating dataclasses (one per family).

``data`` of a release is the exact answer f(D) of the caller's query (a number or a vector), or the
utilities u_i(D) of the candidates for the exponential mechanism; the caller states the sensitivity of
*their* query under *their* neighbouring relation (replace-one unless said). Calibrations are in
:mod:`dpcore.noise.calibration`, releases in :mod:`dpcore.noise.release`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import (DPValueError, check_choice, check_delta, check_epsilon, check_int, check_norm,
                           check_positive, check_rho)

#: How an additive mechanism draws: "grid" rounds f(D) to a public power-of-two grid and adds exact discrete noise in
#: grid units (hardened against floating-point attacks, the default); "float" adds numpy's continuous noise.
SAMPLERS = ("grid", "float")


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _common(cfg: Any) -> None:
    _set(cfg, "sensitivity", check_positive(cfg.sensitivity, "sensitivity"))
    if not isinstance(cfg.neighbours, str) or not cfg.neighbours:
        raise DPValueError(f"neighbours must name the neighbouring relation (e.g. 'replace-one'); got "
                           f"{cfg.neighbours!r}.")


# ----------------------------------------------------------------------------- Laplace
@dataclass(frozen=True)
class LaplaceConfig:
    """value + Laplace(Δ₁/ε) per coordinate; ``sampler="grid"`` (default): on a public grid with exact discrete
    Laplace noise, "float": numpy's continuous Laplace."""

    epsilon: float
    sensitivity: float = 1.0
    neighbours: str = "replace-one"
    sampler: str = "grid"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _common(self)
        check_choice(self.sampler, "sampler", SAMPLERS)


# ----------------------------------------------------------------------------- Gaussian
@dataclass(frozen=True)
class GaussianConfig:
    """value + N(0, σ²I), σ the analytic Gaussian calibration for (ε, δ)."""

    epsilon: float
    delta: float
    sensitivity: float = 1.0
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _set(self, "delta", check_delta(self.delta))
        _common(self)


@dataclass(frozen=True)
class GaussianZCDPConfig:
    """value + N(0, σ²I), σ = Δ₂/√(2ρ): ρ-zCDP; ``sampler="grid"`` (default): on a public grid with exact
    discrete Gaussian noise, "float": numpy's normal."""

    rho: float
    sensitivity: float = 1.0
    neighbours: str = "replace-one"
    sampler: str = "grid"

    def __post_init__(self) -> None:
        _set(self, "rho", check_rho(self.rho))
        _common(self)
        check_choice(self.sampler, "sampler", SAMPLERS)


# ----------------------------------------------------------------------------- K-norm
@dataclass(frozen=True)
class KNormConfig:
    """value + Z, Z ∝ exp(−(ε/Δ_K)‖z‖_K); ``size`` independent draws."""

    epsilon: float
    sensitivity: float = 1.0
    norm: str = "l2"
    size: int = 1
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _common(self)
        _set(self, "norm", check_norm(self.norm))
        _set(self, "size", check_int(self.size, "size", lo=1))


# ----------------------------------------------------------------------------- exponential mechanism
@dataclass(frozen=True)
class ExponentialConfig:
    """P(i) ∝ exp(ε u_i / (2Δ_u)) over finite candidates (ε u_i/Δ_u when ``monotone``)."""

    epsilon: float
    sensitivity: float = 1.0
    monotone: bool = False
    size: int = 1
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _common(self)
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise DPValueError(f"monotone must be True or False; got {self.monotone!r}.")
        _set(self, "size", check_int(self.size, "size", lo=1))

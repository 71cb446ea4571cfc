"""Configs of the single-parameter topic (Asi, Duchi & Talwar 2025; the §4 baselines): frozen, self-validating.

Every config carries the same GLM problem and public domain — the loss, the covariate domain (``geometry``,
``radius``), the ridge weight ρ and the self-bounding constants (c, s̄) — declared ONCE in :class:`_Problem`
and checked by one helper, :func:`_check_config`; the budget fields come from three small bases (ε; ε, δ;
ε, δ and the split ``share``). Field order is budget first, then the problem, then the mechanism's own knobs.

* Algorithms 2, 4, 3, 7 and 5: :class:`LambdaMinConfig`, :class:`EigenBoundsConfig`, :class:`ThetaConfig`,
  :class:`GenericConfig`, :class:`FunctionalConfig`;
* baselines: :class:`OutputPerturbationConfig`, :class:`ObjectivePerturbationConfig`, :class:`NoisyGDConfig`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .._validation import check_choice, check_delta, check_epsilon, check_int, check_positive
from ..errors import DPValueError

__all__ = ["LambdaMinConfig", "EigenBoundsConfig", "ThetaConfig", "GenericConfig", "FunctionalConfig",
           "OutputPerturbationConfig", "ObjectivePerturbationConfig", "NoisyGDConfig", "GEOMETRIES", "LOSS_NAMES"]

GEOMETRIES = ("l2-ball", "hypercube")
LOSS_NAMES = ("robust", "logistic")


def _check_problem(cfg) -> None:
    check_choice(cfg.loss, "loss", LOSS_NAMES)
    check_positive(cfg.radius, "radius")
    check_choice(cfg.geometry, "geometry", GEOMETRIES)
    check_positive(cfg.rho, "rho", allow_zero=True)
    check_positive(cfg.c, "c")
    check_positive(cfg.sbar, "sbar")
    if cfg.c < math.e - 1 - 1e-12:
        raise DPValueError(f"c = {cfg.c} is below e − 1 ≈ 1.718, the smallest slope for which ψ(s) ≤ c·s holds "
                           "for these losses; use c ≥ 1.719 (default 2).")
    if cfg.sbar > 1:
        raise DPValueError(f"sbar = {cfg.sbar} > 1: the linear bound ψ(s) ≤ c·s is only proven on [0, 1]; use ≤ 1.")


def _check_fraction(x: float, name: str) -> float:
    x = check_positive(x, name)
    if not x < 1:
        raise DPValueError(f"{name} = {x} must lie strictly between 0 and 1 (the share of the budget).")
    return x


def _check_config(cfg: Any) -> None:
    """The checks every config of the topic shares: ε, δ (when the config has one), the split ``share`` (when it
    has one), then the problem and domain (:func:`_check_problem`)."""
    check_epsilon(cfg.epsilon)
    if hasattr(cfg, "delta"):
        check_delta(cfg.delta)
    if hasattr(cfg, "share"):
        _check_fraction(cfg.share, "share")
    _check_problem(cfg)


@dataclass(frozen=True)
class _PureBudget:
    epsilon: float = 1.0


@dataclass(frozen=True)
class _Budget(_PureBudget):
    delta: float = 1e-5


@dataclass(frozen=True)
class _SplitBudget(_Budget):
    share: float = 0.5


@dataclass(frozen=True)
class _Problem:
    """The GLM problem and its public domain, shared by every config of the topic (listed after the budget)."""

    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    rho: float = 0.0
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self) -> None:
        _check_config(self)


@dataclass(frozen=True)
class LambdaMinConfig(_Problem, _Budget):
    """Algorithm 2: ε (the privacy of λ̂), δ (its coverage failure), the loss and the public domain."""


@dataclass(frozen=True)
class EigenBoundsConfig(_Problem, _SplitBudget):
    """Algorithms 2 + 4: total ε split as (share·ε, (1 − share)·ε); δ₁ = δ₂ = δ/2."""


@dataclass(frozen=True)
class ThetaConfig(_Problem, _SplitBudget):
    """Algorithm 3: ε₁ = share·ε, ε₂ = (1 − share)·ε, δ₁ = δ₂ = δ/2."""


@dataclass(frozen=True)
class GenericConfig(ThetaConfig):
    """Algorithm 7 (generic smooth losses): same budget split as Algorithm 3; ρ must be 0 (the
    analysis is for the unregularised estimator)."""

    def __post_init__(self):
        super().__post_init__()
        if self.rho != 0:
            raise DPValueError(f"rho = {self.rho}: Algorithm 7 is for the unregularised estimator; set rho = 0.")


@dataclass(frozen=True)
class FunctionalConfig(_Problem, _Budget):
    """Algorithm 5: the target v = e_coordinate (or a unit ``direction``), and the budget split.

    ``eps_split`` = shares of ε for (λ̂, Λ̂, Gaussian shift, variance change), summing to 1;
    ``delta_split`` likewise for δ, with δ₄ = share₄·δ/e^{ε₃} so the total is exactly (ε, δ).
    Default: quarters.
    """

    coordinate: int = 0
    direction: Optional[tuple] = None
    eps_split: tuple = (0.25, 0.25, 0.25, 0.25)
    delta_split: tuple = (0.25, 0.25, 0.25, 0.25)

    def __post_init__(self):
        super().__post_init__()
        check_int(self.coordinate, "coordinate", lo=0)
        for name in ("eps_split", "delta_split"):
            sp = tuple(float(x) for x in getattr(self, name))
            if len(sp) != 4 or any(not (math.isfinite(x) and x > 0) for x in sp) or abs(sum(sp) - 1) > 1e-9:
                raise DPValueError(f"{name} = {getattr(self, name)} must be 4 positive shares summing to 1 "
                                   "(for λ̂, Λ̂, the Gaussian shift and the variance change); e.g. (0.25,)*4.")
            object.__setattr__(self, name, sp)
        if self.direction is not None:
            v = np.asarray(self.direction, dtype=float)
            if v.ndim != 1 or not np.all(np.isfinite(v)) or abs(np.linalg.norm(v) - 1) > 1e-9:
                raise DPValueError(f"direction = {self.direction} must be a finite unit vector (‖v‖₂ = 1); "
                                   "divide it by its norm.")
            object.__setattr__(self, "direction", tuple(float(x) for x in v))

    def budgets(self):
        """((ε₁, δ₁), (ε₂, δ₂), (ε₃, δ₃), (ε₄, log δ₄))."""
        e = [s * self.epsilon for s in self.eps_split]
        d = [s * self.delta for s in self.delta_split]
        return (e[0], d[0]), (e[1], d[1]), (e[2], d[2]), (e[3], math.log(d[3]) - e[2])

    def vector(self, d: int) -> np.ndarray:
        if self.direction is not None:
            if len(self.direction) != d:
                raise DPValueError(f"direction has {len(self.direction)} entries but the data have d = {d} covariates.")
            return np.asarray(self.direction, dtype=float)
        if self.coordinate >= d:
            raise DPValueError(f"coordinate = {self.coordinate} but the data have d = {d} covariates "
                               f"(coordinates 0 to {d - 1}).")
        v = np.zeros(d)
        v[self.coordinate] = 1.0
        return v


@dataclass(frozen=True)
class _RidgeProblem(_Problem):
    """The problem of the ridge baselines: ρ > 0 (default 0.01) makes the objective strongly convex."""

    rho: float = 0.01

    def __post_init__(self):
        super().__post_init__()
        check_positive(self.rho, "rho")


@dataclass(frozen=True)
class OutputPerturbationConfig(_RidgeProblem, _Budget):
    """Naive output perturbation: ε, δ, the ridge weight ρ > 0 and the loss/domain."""


@dataclass(frozen=True)
class ObjectivePerturbationConfig(_RidgeProblem, _PureBudget):
    """Objective perturbation: ε (pure), the ridge weight ρ_op > 0 on the rescaled θ, loss/domain."""


@dataclass(frozen=True)
class NoisyGDConfig(_Problem, _Budget):
    """Full-batch noisy gradient descent: ε, δ, steps T, step size η (default 1/(M1 + ρ)), ridge ρ ≥ 0."""

    steps: int = 100
    step_size: Optional[float] = None

    def __post_init__(self):
        super().__post_init__()
        check_int(self.steps, "steps", lo=1, hi=100_000)
        if self.step_size is not None:
            check_positive(self.step_size, "step_size")

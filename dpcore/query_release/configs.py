"""Configs of the query-release mechanisms (Błasiok, Bun, Nikolov & Steinke, SODA 2019): frozen, self-validating.

Central, under ρ-zCDP: :class:`GaussianConfig`, :class:`ProjectionConfig`, :class:`CoarseConfig`,
:class:`ChainingConfig`, :class:`PMWConfig`; local, under ε-LDP: :class:`LocalProjectionConfig`,
:class:`LocalCoarseConfig`, :class:`LocalChainingConfig`. Every config names a declared public workload
(:class:`Marginals`, :class:`Thresholds`, :class:`RandomSigns`, :class:`Cone`).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

from .._validation import check_choice, check_epsilon, check_int, check_positive, check_rho
from ..errors import DPValueError
from ._workloads import WorkloadSpec

__all__ = ["BUDGET_SPLITS", "SAMPLERS", "check_workload", "check_tol", "check_alpha", "GaussianConfig", "ProjectionConfig",
           "CoarseConfig", "ChainingConfig", "PMWConfig", "LocalProjectionConfig", "LocalCoarseConfig",
           "LocalChainingConfig"]

BUDGET_SPLITS = ("uniform", "optimised (our addition)")
#: How the Gaussian baseline draws: "grid" rounds x̄ to a public power-of-two grid and adds exact discrete Gaussian
#: noise in grid units (hardened, the default), "float" numpy's normal.
SAMPLERS = ("grid", "float")


def check_workload(w: Any) -> None:
    if not isinstance(w, WorkloadSpec):
        raise DPValueError(f"workload must be a declared workload (Marginals, Thresholds, RandomSigns or Cone); "
                           f"got {type(w).__name__}.")


def check_tol(tol: float) -> float:
    tol = check_positive(tol, "tol (projection duality gap)")
    if tol > 1e-2:
        raise DPValueError(f"tol = {tol:g} is too loose for an exact projection; use at most 1e-2 (e.g. 1e-9).")
    return tol


def check_alpha(alpha: float) -> float:
    alpha = check_positive(alpha, "alpha (target RMS error, normalised scale)")
    if alpha < 1e-3 or alpha > 2.0:
        raise DPValueError(f"alpha = {alpha:g} must lie in [0.001, 2] (normalised RMS error; e.g. 0.1).")
    return alpha


def _checked_fields() -> dict[str, Callable[[Any], Any]]:
    """The check of each config field, by name: every config below validates each of its fields with it."""
    return {"workload": check_workload, "rho": check_rho, "epsilon": check_epsilon, "alpha": check_alpha,
            "tol": check_tol,
            "sampler": lambda v: check_choice(v, "sampler", SAMPLERS),
            "budget": lambda v: check_choice(v, "budget", BUDGET_SPLITS),
            "rounds": lambda v: check_int(v, "rounds (PMW rounds, 0 = automatic)", lo=0, hi=10_000)}


class _Checked:
    """Validates every dataclass field of a config by its name (:func:`_checked_fields`), in declaration order."""

    def __post_init__(self) -> None:
        checks = _checked_fields()
        for f in fields(self):  # type: ignore[arg-type]
            checks[f.name](getattr(self, f.name))


@dataclass(frozen=True)
class GaussianConfig(_Checked):
    """Gaussian baseline x̄ + N(0, σ²I), σ = diam₂(X)/(n√(2ρ)); ``sampler="grid"`` (default): x̄ on a public grid with
    exact discrete Gaussian noise (:func:`dpcore.query_release.calibrate_gaussian`), "float": numpy's normal."""

    workload: WorkloadSpec
    rho: float
    sampler: str = "grid"


@dataclass(frozen=True)
class ProjectionConfig(_Checked):
    """Projection mechanism: Gaussian noise, then the exact projection onto conv(X) to duality gap ``tol``."""

    workload: WorkloadSpec
    rho: float
    tol: float = 1e-9


@dataclass(frozen=True)
class CoarseConfig(_Checked):
    """Coarse projection: round to a greedy (α/2)-net Y, Gaussian noise scaled to diam₂(Y), project onto conv(Y)."""

    workload: WorkloadSpec
    rho: float
    alpha: float
    tol: float = 1e-9


@dataclass(frozen=True)
class ChainingConfig(_Checked):
    """Chaining: telescoping levels at scales 2^{−i}, i = 0..T, T = ⌈log₂(2/α)⌉, projection on each.

    ``budget`` = "uniform" (the paper: ρ/(number of non-constant levels) each) or
    "optimised (our addition)": ρ_i ∝ c_i^{4/5}, c_i = (diam₂(X_i) w(X_i)/k)^{1/2} (not from the paper).
    """

    workload: WorkloadSpec
    rho: float
    alpha: float
    budget: str = "uniform"
    tol: float = 1e-9


@dataclass(frozen=True)
class PMWConfig(_Checked):
    """Private multiplicative weights (MWEM form) for worst-case error; ``rounds`` = 0 picks T* (public rule)."""

    workload: WorkloadSpec
    rho: float
    rounds: int = 0


@dataclass(frozen=True)
class LocalProjectionConfig(_Checked):
    """Local projection: every party randomizes its point (ε-LDP); the server averages and projects onto conv X."""

    workload: WorkloadSpec
    epsilon: float
    tol: float = 1e-9


@dataclass(frozen=True)
class LocalCoarseConfig(_Checked):
    """Local coarse projection: each party rounds to the public (α/2)-net Y, randomizes; the server projects onto conv Y."""

    workload: WorkloadSpec
    epsilon: float
    alpha: float
    tol: float = 1e-9


@dataclass(frozen=True)
class LocalChainingConfig(_Checked):
    """Local chaining: one report per non-constant level with ε/(number of such levels) each; per-level projection."""

    workload: WorkloadSpec
    epsilon: float
    alpha: float
    tol: float = 1e-9

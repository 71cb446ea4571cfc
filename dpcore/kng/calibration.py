"""The public calibration of every KNG release, one function per family: ``calibrate_<family>(config, data_shape)``.

Families (as in :mod:`dpcore.kng.release`): ``location`` (mean, median / geometric median, quantile),
``linear_regression`` (KNG, exponential mechanism, objective perturbation), ``quantile_regression``
(KNG, exponential mechanism). Each returns a :class:`dpcore.mechanism.Calibration` computed from the
config and the data's public sizes only — ``data_shape`` is (n,) or (n, d) of the records, or of X for
the regressions (:func:`dpcore.mechanism.data_shape`); d = 1 for a vector — so a page shows it, and its
``cost(config.size)``, before any draw. The release of the same family builds its calibration by calling
the same function, so they agree by construction.

Privacy (Reimherr & Awan 2019): pure ε-DP per draw for the exact target law, replace-one neighbours,
n fixed. The sensitivities are derived next to each problem's ``calibrate_<mechanism>``
(:mod:`dpcore.kng._location` §4.1, §4.4, §4.5: mean Δ = 4r (KNG, Remark 4.1: c = ε/Δ), median Δ = 2,
quantile Δ = 1 (Smith 2011); :mod:`dpcore.kng._regression` §4.3, §4.5, §7: linear regression
Δ = 4(1 + B)·κ, Δ_ℓ = (1 + B)², quantile regression Δ = 2·max(τ, 1 − τ)·C_X); KNG's constant is
c = ε/(2Δ) (Thm 3.1), the exponential mechanism's c = ε/(2Δ_ℓ) (Prop. 2.2).

The note says which sampler the release uses, chosen from public inputs only (the problem, the
mechanism, ``sampler`` and d): :data:`EXACT_NOTE`, :data:`MCMC_NOTE` or, where an exact rejection
sampler may hand over to MCMC depending on the data, :data:`FALLBACK_NOTE`.

>>> from dpcore import kng
>>> cfg = kng.make("median", mechanism="kng", epsilon=1.0, bounds=(0, 1))
>>> cal = calibrate_location(cfg, (100,))
>>> cal.sensitivity, cal.constant, cal.note
(2.0, 0.25, 'exact sampler: ε-DP')
"""
from __future__ import annotations

from typing import Any, Callable

from .._validation import DPValueError
from ..mechanism import Calibration
from ._problem import Problem
from ._problems import problem_of
from .configs import LinearRegressionConfig, MeanConfig, MedianConfig, QuantileConfig, QuantileRegressionConfig
from .release._engine import EXACT_NOTE, FALLBACK_NOTE, MCMC_NOTE

__all__ = ["calibrate_location", "calibrate_linear_regression", "calibrate_quantile_regression", "calibrate_for",
           "LOCATION_CONFIGS", "EXACT_NOTE", "MCMC_NOTE", "FALLBACK_NOTE"]

#: The config types of the location family (one release and one calibration for the three problems).
LOCATION_CONFIGS = (MeanConfig, MedianConfig, QuantileConfig)


def _dimension(data_shape: tuple) -> int:
    """d of a data shape: (n,) → 1, (n, d) → d."""
    return int(data_shape[1]) if len(data_shape) > 1 else 1


def _calibrate(problem: Problem, config: Any, data_shape: tuple) -> Calibration:
    """The problem's calibration of ``config.mechanism`` in dimension d, with the note of the sampler the
    release will use (refusing ``sampler="exact"`` where there is none: decided from public inputs)."""
    d = _dimension(data_shape)
    draw = problem.exact_sampler(config, d)
    if config.sampler == "exact" and draw is None:
        raise DPValueError(f"no exact sampler for problem={problem.name!r} with mechanism={config.mechanism!r} "
                           f"(d = {d}); use sampler='auto' or 'mcmc'.")
    if config.sampler == "mcmc":
        draw = None
    note = EXACT_NOTE if draw is not None else MCMC_NOTE
    if draw is not None and config.sampler == "auto" and problem.exact_may_stop(config):
        note = FALLBACK_NOTE
    if config.mechanism == "objective_perturbation":
        note += " (exact constrained minimiser)"
    return problem.calibrate(config, d).replace(note=note)


def calibrate_location(config: Any, data_shape: tuple) -> Calibration:
    """Calibration of the mean (KNG: the K-norm mechanism, exact; exponential mechanism), the median or
    geometric median, and the τ-quantile (exact 1-D samplers; MCMC for the geometric median) — §4.1, §4.4,
    §4.5. ``config``: a :class:`~dpcore.kng.configs.MeanConfig`, ``MedianConfig`` or ``QuantileConfig``."""
    return _calibrate(problem_of(config, LOCATION_CONFIGS), config, data_shape)


def calibrate_linear_regression(config: LinearRegressionConfig, data_shape: tuple) -> Calibration:
    """Calibration of least squares on {‖θ‖₁ ≤ B}: KNG (Δ = 4(1 + B)·κ, §4.3), the exponential mechanism
    (Δ_ℓ = (1 + B)², §7.1) and objective perturbation (§7.2, γ = 2d/(e^(ε/2) − 1))."""
    return _calibrate(problem_of(config, (LinearRegressionConfig,)), config, data_shape)


def calibrate_quantile_regression(config: QuantileRegressionConfig, data_shape: tuple) -> Calibration:
    """Calibration of τ-quantile regression on {‖θ‖₁ ≤ B}: KNG (Δ = 2·max(τ, 1 − τ)·C_X, §4.5 eq. (2)) and the
    exponential mechanism (Δ_ℓ = max(τ, 1 − τ)(1 + B))."""
    return _calibrate(problem_of(config, (QuantileRegressionConfig,)), config, data_shape)


def calibrate_for(config: Any) -> Callable[[Any, tuple], Calibration]:
    """The ``calibrate_<family>`` function of a config (a TypeError naming the KNG configs otherwise)."""
    problem_of(config)
    if isinstance(config, LinearRegressionConfig):
        return calibrate_linear_regression
    if isinstance(config, QuantileRegressionConfig):
        return calibrate_quantile_regression
    return calibrate_location

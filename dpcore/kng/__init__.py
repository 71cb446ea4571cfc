"""KNG, the exponential mechanism and objective perturbation (Reimherr & Awan 2019) — the worked example
of the one-mechanism template (``docs/architecture.md``).

Public API
----------
release(data, config, *, rng) -> KNGRelease      the pure release (config from :mod:`dpcore.kng.configs`)
sample(problem, data, *, mechanism, epsilon, norm="linf", size=1, rng=None, **params) -> KNGRelease
nonprivate_estimate(data, config) -> (d,) array   NOT private, a plain value
calibrate(config, d) -> Calibration               public; its cost(config.size) is known before any draw
log_density(problem, data, thetas, *, mechanism, epsilon, norm="linf", **params) -> (m,) array
sample_linear_regression_suffstats(XtX, Xty, n, *, mechanism, epsilon, ...) -> BatchResult
sample_linear_regression_exact_batch(XtX, Xty, n, *, mechanism, epsilon, rng=[...], ...) -> BatchResult
sample_quantile_regression_batch(X, y, *, tau, mechanism, epsilon, ...) -> BatchResult
PROBLEMS                                          the problem objects (gradient, objective, calibrations, samplers)

Privacy: pure ε-DP per draw for the exact target law, replace-one neighbours (n fixed); MCMC draws
are approximately private. Linear regression's KNG and exponential mechanism sample exactly
(:mod:`dpcore.kng._exact_regression`), with an MCMC fallback (which sampler ran depends on the data, so
it is named only in the non-private diagnostics). See :mod:`dpcore.kng._release` and the problems' ``calibrate_*`` methods.
"""
from ._api import (PROBLEMS, calibrate, check_interaction, exact_pieces, log_density, make, nonprivate_estimate, prepared, problem, problem_of,
                   release, sample)
from ._batch import (BatchResult, sample_linear_regression_exact_batch, sample_linear_regression_suffstats,
                     sample_quantile_regression_batch)
from ._dataset import MAX_SIM_D, MAX_SIM_REGRESSION_D, ProblemData, max_simulated_d, problem_data, simulated_dataset
from ._estimators import geometric_median, nonprivate_quantile_regression, ols
from ._objpert import QPError, l1_constrained_qp, project_l1_ball
from ._release import EXACT_NOTE, FALLBACK_NOTE, MCMC_NOTE, KNGRelease
from .configs import (CONSTANTS, MECHANISMS, LinearRegressionConfig, MeanConfig, MedianConfig, QuantileConfig,
                      QuantileRegressionConfig)

__all__ = [
    "PROBLEMS", "calibrate", "check_interaction", "exact_pieces", "log_density", "make", "nonprivate_estimate", "prepared", "problem", "problem_of",
    "release", "sample", "BatchResult", "sample_linear_regression_exact_batch", "sample_linear_regression_suffstats", "sample_quantile_regression_batch",
    "MAX_SIM_D", "MAX_SIM_REGRESSION_D", "ProblemData", "max_simulated_d", "problem_data", "simulated_dataset",
    "geometric_median", "nonprivate_quantile_regression", "ols",
    "QPError", "l1_constrained_qp", "project_l1_ball", "EXACT_NOTE", "FALLBACK_NOTE", "MCMC_NOTE", "KNGRelease", "CONSTANTS",
    "MECHANISMS", "LinearRegressionConfig", "MeanConfig", "MedianConfig", "QuantileConfig",
    "QuantileRegressionConfig",
]

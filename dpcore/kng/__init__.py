"""KNG, the exponential mechanism and objective perturbation (Reimherr & Awan 2019), in the one layout of
``docs/architecture.md``.

Public API
----------
configs: MeanConfig, MedianConfig, QuantileConfig, LinearRegressionConfig, QuantileRegressionConfig
release.location.release, release.linear_regression.release, release.quantile_regression.release
    ``release(data, config, *, rng) -> KNGRelease``, one per mechanism family (:mod:`dpcore.kng.release`);
    :func:`release_for(config) <release_for>` gives a config's one
calibrate_location, calibrate_linear_regression, calibrate_quantile_regression
    ``(config, data_shape) -> Calibration``: public, known before any draw (:mod:`dpcore.kng.calibration`)
make(problem, **params) -> config; sample(problem, data, *, mechanism, epsilon, ...) -> KNGRelease
nonprivate_estimate(data, config) -> (d,) array   NOT private, a plain value
log_density(problem, data, thetas, *, mechanism, epsilon, norm="linf", **params) -> (m,) array
sample_linear_regression_suffstats / sample_linear_regression_exact_batch / sample_quantile_regression_batch
    batched replicates for the figures (-> BatchResult)
designs: simulate_regression, regression_suffstats_chunked, simulated_dataset, simulate_regression_dataset, ...
PROBLEMS                                          the problem objects (gradient, objective, calibrations, samplers)

Privacy: pure ε-DP per draw for the exact target law, replace-one neighbours (n fixed); MCMC draws
are approximately private. Linear regression's KNG and exponential mechanism sample exactly
(:mod:`dpcore.kng._exact_regression`), with an MCMC fallback (which sampler ran depends on the data, so
it is named only in the non-private diagnostics). See :mod:`dpcore.kng.release._engine` and the problems'
``calibrate_*`` methods. Plotly figures: :mod:`dpcore.kng.plots` (imported on its own).
"""
from . import release
from ._api import (PROBLEMS, check_interaction, exact_pieces, log_density, make, nonprivate_estimate, prepared,
                   problem, problem_of, release_for, sample)
from ._batch import (BatchResult, sample_linear_regression_exact_batch, sample_linear_regression_suffstats,
                     sample_quantile_regression_batch)
from ._dataset import ProblemData, problem_data
from ._estimators import geometric_median, nonprivate_quantile_regression, ols
from ._objpert import QPError, l1_constrained_qp, project_l1_ball
from ._preview import DESIGNS as PREVIEW_DESIGNS
from ._preview import MEDIAN_FLOOR_NOTE
from .calibration import (EXACT_NOTE, FALLBACK_NOTE, MCMC_NOTE, calibrate_for, calibrate_linear_regression,
                          calibrate_location, calibrate_quantile_regression)
from .configs import (CONSTANTS, MECHANISMS, LinearRegressionConfig, MeanConfig, MedianConfig, QuantileConfig,
                      QuantileRegressionConfig)
from .designs import (FIGURE1_D, MAX_REGRESSION_D, MAX_SIM_CELLS, MAX_SIM_D, MAX_SIM_REGRESSION_D, MAX_SUFFSTATS_N,
                      MAX_THETA_D, REGRESSION_SIMULATORS, RegressionSuffStats, algorithm1_theta, figure1_theta,
                      figure2_theta, max_simulated_d, paper_rescale, regression_suffstats_chunked, simulate_regression,
                      simulate_regression_dataset, simulated_dataset)
from .release._engine import KNGRelease

__all__ = [
    "MeanConfig", "MedianConfig", "QuantileConfig", "LinearRegressionConfig", "QuantileRegressionConfig",
    "CONSTANTS", "MECHANISMS",
    "release", "release_for", "calibrate_location", "calibrate_linear_regression", "calibrate_quantile_regression",
    "calibrate_for", "KNGRelease", "EXACT_NOTE", "FALLBACK_NOTE", "MCMC_NOTE",
    "PROBLEMS", "check_interaction", "exact_pieces", "log_density", "make", "nonprivate_estimate", "prepared",
    "problem", "problem_of", "sample",
    "BatchResult", "sample_linear_regression_exact_batch", "sample_linear_regression_suffstats",
    "sample_quantile_regression_batch",
    "ProblemData", "problem_data", "MAX_SIM_D", "MAX_SIM_REGRESSION_D", "max_simulated_d", "simulated_dataset",
    "REGRESSION_SIMULATORS", "simulate_regression_dataset", "simulate_regression", "regression_suffstats_chunked",
    "RegressionSuffStats", "algorithm1_theta", "figure1_theta", "figure2_theta", "paper_rescale", "FIGURE1_D",
    "MAX_REGRESSION_D", "MAX_SIM_CELLS", "MAX_SUFFSTATS_N", "MAX_THETA_D",
    "geometric_median", "nonprivate_quantile_regression", "ols",
    "QPError", "l1_constrained_qp", "project_l1_ball", "PREVIEW_DESIGNS", "MEDIAN_FLOOR_NOTE",
]

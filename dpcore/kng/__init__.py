"""KNG, the exponential mechanism and objective perturbation (Reimherr & Awan 2019, spec/kng.md).

Public API
----------
sample(problem, data, *, mechanism, epsilon, norm="linf", size=1, rng=None, **params) -> KNGResult
log_density(problem, data, thetas, *, mechanism, epsilon, norm="linf", **params) -> (m,) array
sample_linear_regression_suffstats(XtX, Xty, n, *, mechanism, epsilon, ...) -> BatchResult
sample_quantile_regression_batch(X, y, *, tau, mechanism, epsilon, ...) -> BatchResult
nonprivate_quantile_regression(X, y, tau) -> θ̂
calibrate(problem, mechanism, epsilon, *, d, ...) -> Calibration (sensitivity and density constant)

Privacy: pure ε-DP per draw for the exact target law, replace-one neighbours (n fixed); MCMC draws
are approximately private. See :mod:`dpcore.kng._api` and :mod:`dpcore.kng._calibration`.
"""
from ._api import (BatchResult, KNGResult, MCMC_NOTE, exact_pieces, log_density, sample,
                   sample_linear_regression_suffstats, sample_quantile_regression_batch)
from ._dataset import ProblemData, problem_data, simulated_dataset
from ._calibration import CONSTANTS, MECHANISMS, PROBLEMS, Calibration, calibrate
from ._objpert import QPError, l1_constrained_qp, project_l1_ball
from ._problems import geometric_median, nonprivate_quantile_regression

__all__ = [
    "BatchResult", "KNGResult", "MCMC_NOTE", "exact_pieces", "log_density", "sample",
    "sample_linear_regression_suffstats", "sample_quantile_regression_batch", "CONSTANTS", "MECHANISMS",
    "PROBLEMS", "Calibration", "calibrate", "QPError", "l1_constrained_qp", "project_l1_ball",
    "geometric_median", "nonprivate_quantile_regression", "ProblemData", "problem_data", "simulated_dataset",
]

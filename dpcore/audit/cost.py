"""Time model of the audit page (issue 18): seconds per sample of each registered audit, and the sample cap it
implies, so that one run of the page stays under the interaction budget at any sample size the page allows.

An audit's run draws n outputs on each of D and D′ with its declared sampler (some are MCMC chains of
hundreds of steps per output, e.g. KNG linear regression: about 2 ms per sample), then evaluates its events.
:data:`SECONDS_PER_SAMPLE` holds, per audit id, the measured seconds per sample per dataset of
:func:`dpcore.audit.explore.run` (10 000 samples, or 1/20 of the suite's size, or at the page's former cap of
4 × the suite's size), timed on the 2-core reference machine under a load average of 15–18 — conservative on
a quiet machine. :func:`time_cap` is the largest n whose estimate n × seconds per sample stays under
:data:`RUN_SECONDS` (the budget less room for the summary and figures). A new audit without a measured figure
gets the slowest one (:func:`seconds_per_sample`), so it is never uncapped; ``benchmarks/limits.py`` prints
the figures to refresh the table with.
"""
from __future__ import annotations

from ..limits import BUDGET_SECONDS

__all__ = ["SECONDS_PER_SAMPLE", "RUN_SECONDS", "seconds_per_sample", "time_cap"]

#: Seconds of the sampling and the events per sample per dataset, per audit id (measured; see the docstring).
SECONDS_PER_SAMPLE = {
    "density/gp-kde": 1.67e-05,
    "density/fourier-laplace": 1.10e-05,
    "density/knorm": 5.80e-05,
    "density/bandwidth": 1.01e-05,
    "density/svm": 2.69e-05,
    "histograms/laplace": 1.60e-05,
    "histograms/laplace-geometric": 2.05e-05,
    "histograms/threshold-dense": 1.51e-05,
    "histograms/threshold-sparse": 2.37e-05,
    "histograms/threshold-sparse-locations": 2.13e-05,
    "histograms/threshold-noisy-q": 2.61e-05,
    "kng/median-kng": 6.54e-06,
    "kng/quantile-kng": 1.19e-05,
    "kng/mean-kng-l2": 1.27e-05,
    "kng/mean-kng-linf": 1.64e-05,
    "kng/mean-exponential": 2.27e-05,
    "kng/median-exponential": 5.91e-06,
    "kng/quantile-exponential": 7.51e-06,
    "kng/linear_regression-kng": 2.17e-03,
    "kng/linear_regression-exponential": 2.19e-03,
    "kng/linear_regression-objective_perturbation": 1.59e-03,
    "kng/quantile_regression-kng": 8.36e-04,
    "kng/quantile_regression-exponential": 3.70e-04,
    "kng/linear_regression-kng-exact": 1.12e-05,
    "kng/linear_regression-exponential-exact": 6.64e-06,
    "lasso/one-step": 3.93e-05,
    "lasso/three-steps": 5.76e-05,
    "lasso/eight-steps": 1.35e-04,
    "lasso/one-step-laplace": 2.34e-05,
    "lasso/one-step-12-vertices": 4.39e-05,
    "lasso/intercept-means": 3.91e-05,
    "lasso/noisy-gradient-one-step": 4.40e-05,
    "noise/laplace": 8.32e-06,
    "noise/gaussian": 6.79e-06,
    "noise/gaussian-zcdp": 6.41e-06,
    "noise/knorm-l1": 9.92e-06,
    "noise/knorm-l2": 1.14e-05,
    "noise/knorm-linf": 1.13e-05,
    "noise/exponential": 1.72e-04,
    "query_release/gaussian": 2.38e-05,
    "query_release/projection": 2.81e-04,
    "query_release/coarse": 1.81e-05,
    "query_release/chaining": 2.75e-05,
    "query_release/pmw": 1.30e-04,
    "query_release/local-projection": 1.21e-05,
    "query_release/local-coarse": 1.05e-05,
    "query_release/local-chaining": 1.73e-05,
    "single_parameter/lambda-min": 1.31e-05,
    "single_parameter/eigen-bounds": 2.04e-05,
    "single_parameter/theta": 5.55e-05,
    "single_parameter/theta-generic": 4.38e-05,
    "single_parameter/functional-gaussian": 7.39e-05,
    "single_parameter/functional-ptr": 2.92e-05,
    "single_parameter/output-perturbation": 3.82e-05,
    "single_parameter/objective-perturbation": 2.75e-04,
    "single_parameter/noisy-gd": 2.64e-05,
}
#: Seconds of one run the cap aims at: the budget less room for the summary, figures and a loaded machine.
RUN_SECONDS = 0.8 * BUDGET_SECONDS


def seconds_per_sample(audit_id: str) -> float:
    """The measured seconds per sample of ``audit_id`` (the slowest measured figure when it has none)."""
    return SECONDS_PER_SAMPLE.get(audit_id, max(SECONDS_PER_SAMPLE.values()))


def time_cap(audit_id: str) -> int:
    """Largest samples per dataset whose estimated time n × :func:`seconds_per_sample` is ≤ :data:`RUN_SECONDS`."""
    return int(RUN_SECONDS / seconds_per_sample(audit_id))

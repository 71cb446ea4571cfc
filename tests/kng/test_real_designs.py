"""Issue 9 §1 acceptance: KNG linear and median regression on real, ill-conditioned designs are released
(never withheld) at ε = 1 for every seed, and at ε = 1000 the released slopes are within 10 % of the
non-private ones — on scikit-learn's diabetes data (target ~ bmi, public bounds bmi [10, 60], target
[0, 400]: cond(XᵀX) ≈ 260 after scaling) and on a simulated design with predictor correlation 0.98.

Linear regression uses the exact sampler (no MCMC); median regression the preconditioned MCMC with
parallel tempering. B holds the fit in scaled units (diabetes: ‖θ̂‖₁ = 1.83 for OLS, 2.21 for the
median regression). ``benchmarks/kng_real_data.py`` prints the time per release.
"""
import numpy as np
import pytest

from dpcore import kng
from dpcore.data import builtin_dataset
from dpcore.kng import designs

pytestmark = pytest.mark.stat
SEEDS = range(5)
#: The large ε: 1000 for KNG (the issue's criterion); the exponential mechanism's noise is O(1/√(εn)), not
#: O(1/(εn)) — at ε = 1000 its slope on diabetes is measured up to 10.2 % off (an exact draw, not a sampler
#: failure) — so it is held to the same 10 % at ε = 1e5.
HUGE = {"kng": 1000.0, "exponential": 1e5}


def _diabetes(problem):
    ds = builtin_dataset("diabetes")
    pdata = kng.problem_data(ds.frame, ds.bounds, problem, ["bmi"], y_column="target")
    B = 2.0 if problem == "linear_regression" else 3.0
    return pdata.data, {**pdata.params, "B": B}, [1]          # slope = coefficient 1 (after the intercept)


def _correlated(problem):
    X, y = designs.correlated_design(400, rng=1)
    return (X, y), {"x_bound": 1.0, "y_bound": 1.5, "B": 1.0}, [1, 2]


DESIGNS = {"diabetes": _diabetes, "correlated-0.98": _correlated}
CASES = [(d, p, m) for d in DESIGNS for p, m in [("linear_regression", "kng"), ("linear_regression", "exponential"),
                                                 ("median_regression", "kng")]]


def _sample(problem, data, params, eps, seed, mech):
    extra = {"tau": 0.5} if problem == "median_regression" else {}
    name = "quantile_regression" if problem == "median_regression" else problem
    return kng.sample(name, data, mechanism=mech, epsilon=eps, size=1, rng=seed, **params, **extra)


def _check(design, problem, mech, seeds):
    data, params, slopes = DESIGNS[design]("linear_regression" if problem == "linear_regression" else
                                           "quantile_regression")
    for seed in seeds:
        r = _sample(problem, data, params, 1.0, seed, mech)
        assert r.released and np.isfinite(r.value).all(), (seed, r.notes)
        h = _sample(problem, data, params, HUGE[mech], seed, mech)
        assert h.released, (seed, h.notes)
        theta_hat = h.diagnostics.values["non-private estimate"]
        rel = np.abs(h.value[0, slopes] - theta_hat[slopes]) / np.abs(theta_hat[slopes])
        assert np.all(rel < 0.10), (seed, rel)
        if problem == "linear_regression":  # exact: no MCMC, no withholding possible
            assert h.diagnostics.mcmc is None and h.diagnostics.values["sampler"] == "exact rejection sampler"
        else:
            assert h.diagnostics.values["sampler"] == "MCMC (preconditioned Metropolis)"


@pytest.mark.parametrize("design,problem,mech", CASES)
def test_released_at_epsilon_1_and_close_at_1000(design, problem, mech):
    """Every seed of the acceptance for the exact samplers; the first two for median regression (≈ 1 s per
    MCMC release: the five seeds run in the slow test below and in benchmarks/kng_real_data.py)."""
    _check(design, problem, mech, SEEDS if problem == "linear_regression" else SEEDS[:2])


@pytest.mark.slow
@pytest.mark.parametrize("design", list(DESIGNS))
def test_median_regression_every_seed(design):
    _check(design, "median_regression", "kng", SEEDS)

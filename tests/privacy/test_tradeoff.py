"""The hypothesis-testing reading of a guarantee (dpcore.privacy.tradeoff) and the audit's points on it."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from dpcore.audit import run_audit
from dpcore.audit.explore import summarize
from dpcore.errors import DPValueError
from dpcore.privacy import PrivacyCost, analytic_gaussian_sigma
from dpcore.privacy.tradeoff import (
    ALPHA_GRID,
    max_power,
    max_power_dp,
    max_power_gdp,
    max_power_zcdp,
    reading,
)
from dpcore.registry import audits

A = ALPHA_GRID


def test_pure_dp_curve_values_and_symmetry():
    eps = 1.0
    np.testing.assert_allclose(max_power_dp([0.0, 0.05, 0.5, 1.0], eps),
                               [0.0, np.e * 0.05, 1 - 0.5 / np.e, 1.0])
    # a trade-off function f(α) = 1 − power(α) of a symmetric guarantee is its own inverse: f(f(α)) = α
    f = 1 - max_power_dp(A, eps, 0.01)
    back = 1 - max_power_dp(f, eps, 0.01)
    ok = (f > 1e-12) & (f < 1 - 0.01 - 1e-9)   # where f is strictly decreasing
    np.testing.assert_allclose(back[ok], A[ok], atol=1e-12)


def test_gaussian_curve_is_the_power_of_the_likelihood_ratio_test():
    mu, rng = 0.8, np.random.default_rng(0)
    d0, d1 = rng.normal(0, 1, 400_000), rng.normal(mu, 1, 400_000)
    for alpha in (0.01, 0.05, 0.3):
        t = norm.ppf(1 - alpha)                     # reject "D′" when the output exceeds t
        assert abs(np.mean(d0 > t) - alpha) < 0.003
        assert abs(np.mean(d1 > t) - max_power_gdp(alpha, mu)) < 0.003


def test_analytic_gaussian_curve_touches_but_never_crosses_its_eps_delta_bound():
    eps, delta = 1.0, 0.05
    mu = 1.0 / analytic_gaussian_sigma(eps, delta)
    gap = max_power_dp(A, eps, delta) - max_power_gdp(A, mu)
    assert gap.min() > -1e-6          # inside the (ε, δ) region ...
    assert gap.min() < 2e-3           # ... and tight somewhere (the analytic calibration is exact)
    assert (max_power_dp(A, eps, delta) - max_power_gdp(A, 1.5 * mu)).min() < -0.01  # a larger μ crosses


def test_zcdp_curve_contains_the_gaussian_mechanism_and_is_tighter_than_one_conversion():
    rho = 0.5
    z = max_power_zcdp(A, rho)
    assert (z - max_power_gdp(A, np.sqrt(2 * rho))).min() > -1e-9   # the Gaussian mechanism is ρ-zCDP
    from dpcore.privacy import zcdp_to_approx
    assert np.all(z <= max_power_dp(A, zcdp_to_approx(rho, 1e-6), 1e-6) + 1e-12)


def test_cost_curves_compose_the_draws():
    np.testing.assert_allclose(max_power(A, PrivacyCost.pure(0.5)), max_power_dp(A, 0.5))
    np.testing.assert_allclose(max_power(A, PrivacyCost.zcdp(0.1, count=5)), max_power_zcdp(A, 0.5))
    ten = max_power(A, PrivacyCost.pure(0.1, count=10))
    assert np.all(ten <= max_power_dp(A, 1.0) + 1e-12) and np.all(ten <= max_power_zcdp(A, 0.05) + 1e-12)
    np.testing.assert_allclose(max_power(A, PrivacyCost.approx(1.0, 0.01, count=2)), max_power_dp(A, 2.0, 0.02))


def test_reading_and_bad_input():
    assert reading(PrivacyCost.pure(1.0)) == ("an adversary who wrongly accuses at most 5 % of the time is right at "
                                              "most 13.6 % of the time (random guessing: 5 %)")
    assert "right at most 100 %" in reading(PrivacyCost.pure(100.0))
    with pytest.raises(DPValueError, match="α"):
        max_power_dp(1.5, 1.0)
    with pytest.raises(DPValueError, match="μ"):
        max_power_gdp(0.1, float("nan"))


@pytest.mark.stat
@pytest.mark.parametrize("aid", ["noise/laplace", "noise/gaussian", "histograms/laplace"])
def test_audit_points_stay_inside_for_the_mechanism_and_cross_for_its_mutant(aid):
    a = audits()[aid]
    for mutant in (False, True):
        run = run_audit(a, mutant=mutant, rng=a.seed)
        t = summarize(run).tradeoff
        assert bool(t["outside"].any()) == mutant == run.result.rejected
        if a.gdp_mu is not None and not mutant:   # and under the exact Gaussian curve too
            mu = a.gdp_mu(a.epsilon, a.delta)
            assert np.all(t["tpr_lower"] <= max_power_gdp(t["fpr_upper"], mu) + 1e-9)

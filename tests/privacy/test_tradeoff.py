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
    max_power_composed,
    max_power_costs,
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
    # k draws of (ε, δ): the exact optimal composition (KOV), never looser than basic composition (kε, kδ)
    two = max_power(A, PrivacyCost.approx(1.0, 0.01, count=2))
    np.testing.assert_allclose(two, max_power_composed(A, 1.0, 2, 0.01))
    assert np.all(two <= max_power_dp(A, 2.0, 0.02) + 1e-12) and (max_power_dp(A, 2.0, 0.02) - two).max() > 0.05


def _brute_force_power(alpha: float, eps: float, k: int, delta: float) -> float:
    """Neyman–Pearson on the 4^k outcomes of k copies of the canonical (ε, δ) randomized response, enumerated."""
    import itertools
    e = np.exp(eps)
    p = np.array([delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), 0.0])   # under D
    q = p[::-1]                                                                       # under D'
    out = []
    for w in itertools.product(range(4), repeat=k):
        out.append((np.prod(p[list(w)]), np.prod(q[list(w)])))
    out.sort(key=lambda t: -np.inf if t[1] == 0 and t[0] > 0 else (np.inf if t[0] == 0 else -t[0] / t[1]))
    power = fp = 0.0
    for pd, pq in out:
        if fp + pq <= alpha:
            power, fp = power + pd, fp + pq
        else:
            return power + (alpha - fp) / pq * pd
    return power


@pytest.mark.parametrize("eps,k,delta", [(1.0, 3, 0.0), (0.3, 4, 0.0), (2.0, 2, 0.0), (1.0, 3, 0.02), (0.1, 5, 0.0)])
def test_optimal_composition_equals_neyman_pearson_on_the_enumerated_outcomes(eps, k, delta):
    for alpha in (0.0, 0.01, 0.05, 0.2, 0.5, 0.9):
        assert abs(float(max_power_composed(alpha, eps, k, delta)) - _brute_force_power(alpha, eps, k, delta)) < 1e-9


def test_optimal_composition_matches_dp_accounting_and_the_issue_figures():
    """Google's dp-accounting (PLD of the worst-case (ε, δ) mechanism, composed k times) bounds the power from
    above by the envelope of δ(ε') + e^ε' α and 1 − e^−ε' (1 − δ(ε') − α) (the composed
    randomized response is symmetric); the exact KOV curve lies under it and within 0.5 percentage points."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    assert round(float(max_power_composed(0.05, 1.0, 3)), 3) == 0.474      # 77.4 % was said by basic composition
    assert round(float(max_power_composed(0.05, 0.3, 10)), 3) == 0.233     # 32.5 % was said
    grid = np.linspace(0.0, 25.0, 2501)
    for eps in (0.1, 0.3, 1.0, 2.0):
        base = pld.from_privacy_parameters(DifferentialPrivacyParameters(eps, 0.0), value_discretization_interval=1e-4)
        for k in (1, 2, 3, 5, 10):
            deltas = np.asarray(base.self_compose(k).get_delta_for_epsilon(grid))
            ours = float(max_power_composed(0.05, eps, k))
            theirs = float(min(np.min(deltas + np.exp(grid) * 0.05), np.min(1 - np.exp(-grid) * (1 - deltas - 0.05))))
            assert ours <= theirs + 1e-6 and theirs - ours < 0.005, (eps, k, ours, theirs)


def test_composite_sentences_follow_kov_and_round_upper_bounds_up():
    import re
    for eps in (0.1, 0.3, 1.0, 2.0):
        for k in range(1, 11):
            text = reading(PrivacyCost.pure(eps, count=k))
            said = float(re.search(r"right at most ([0-9.]+) %", text).group(1))
            true = 100 * float(max_power_composed(0.05, eps, k))
            assert true <= said <= true + 0.5, (eps, k, said, true)
    said = float(re.search(r"right at most ([0-9.]+) %", reading(PrivacyCost.zcdp(0.01))).group(1))
    assert said >= 100 * float(max_power_zcdp(0.05, 0.01))


def test_several_costs_of_one_kind_compose_optimally_and_mixed_ones_stay_valid():
    costs = [PrivacyCost.pure(1.0, count=2), PrivacyCost.pure(1.0)]
    np.testing.assert_allclose(max_power_costs(A, costs), max_power_composed(A, 1.0, 3))
    mixed = [PrivacyCost.pure(1.0), PrivacyCost.zcdp(0.05)]
    m = max_power_costs(A, mixed)
    # valid: above the curve of any mechanism with these guarantees, e.g. Laplace (ε = 1) then Gaussian (ρ = 0.05)
    assert np.all(m >= max_power_composed(A, 1.0, 1) - 1e-12) and np.all(m >= max_power_gdp(A, np.sqrt(0.1)) - 1e-12)
    assert np.all(m <= max_power_dp(A, 1.0 + 1.45, 1e-3) + 1e-12)


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

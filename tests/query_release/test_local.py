"""The local point randomizer: unbiasedness, E‖Z‖² = C_ε² k, the density-ratio bound, goodness of fit."""
import math

import numpy as np
import pytest
from scipy import stats

from dpcore.query_release._local import c_epsilon, randomize, report_density_ratio


@pytest.mark.stat
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_randomizer_unbiased_and_second_moment(eps):
    k, m = 5, 200_000
    x = np.array([0.3, -0.4, 0.1, 0.0, 0.2])
    Z = randomize(np.broadcast_to(x, (m, k)), eps, rng=int(eps * 10))
    se = Z.std(axis=0) / math.sqrt(m)
    assert np.all(np.abs(Z.mean(axis=0) - x) < 4.5 * se)                    # E Z = x
    assert np.mean(np.sum(Z ** 2, axis=1)) == pytest.approx(c_epsilon(eps) ** 2 * k, rel=0.01)


def test_density_ratio_bounded_by_e_eps_and_attained():
    g = np.random.default_rng(0)
    eps, k = 0.8, 6
    for _ in range(50):
        x, x2 = g.normal(size=k), g.normal(size=k)
        x *= g.random() / np.linalg.norm(x)
        x2 *= g.random() / np.linalg.norm(x2)
        r = report_density_ratio(g.normal(size=(500, k)), x, x2, eps)
        assert r.max() <= math.exp(eps) * (1 + 1e-12) and r.min() >= math.exp(-eps) * (1 - 1e-12)
    u = np.eye(1, k, 0)[0]
    z = np.vstack([u, -u])
    np.testing.assert_allclose(report_density_ratio(z, u, -u, eps), [math.exp(eps), math.exp(-eps)])


@pytest.mark.stat
def test_randomizer_law_gof_with_power_check():
    """For a unit x: P(⟨Z, x⟩ > 0) = p = e^ε/(e^ε + 1) exactly and ‖Z‖/C_ε ~ χ_k; a wrong C_ε fails."""
    eps, k, m = 1.0, 4, 5_000
    x = np.array([0.6, 0.8, 0.0, 0.0])
    Z = randomize(np.broadcast_to(x, (m, k)), eps, rng=11)
    p = math.exp(eps) / (1 + math.exp(eps))
    assert stats.binomtest(int(np.sum(Z @ x > 0)), m, p).pvalue > 1e-6
    r = np.linalg.norm(Z, axis=1)
    assert stats.kstest(r / c_epsilon(eps), stats.chi(k).cdf).pvalue > 1e-6
    assert stats.kstest(r / (1.3 * c_epsilon(eps)), stats.chi(k).cdf).pvalue < 1e-6     # power: ×1.3 scale
    assert stats.kstest(r / (0.7 * c_epsilon(eps)), stats.chi(k).cdf).pvalue < 1e-6     # power: ×0.7 scale
    Zbad = randomize(np.broadcast_to(x, (m, k)), eps, rng=12, flip_epsilon=2 * eps)
    assert stats.binomtest(int(np.sum(Zbad @ x > 0)), m, p).pvalue < 1e-6                  # power: wrong bias


def test_randomizer_refuses_inputs_outside_the_unit_ball():
    with pytest.raises(ValueError, match="norm"):
        randomize(np.array([[1.5, 0.0]]), 1.0, rng=0)


def test_c_epsilon_small_eps_asymptotics():
    assert c_epsilon(0.01) == pytest.approx(math.sqrt(2 * math.pi) / 0.01, rel=1e-4)

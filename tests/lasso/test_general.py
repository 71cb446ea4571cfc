"""Noisy-gradient Frank–Wolfe for general C (Theorem 2.6): sensitivity, Gaussian width, C respected,
ε → ∞, and the sampler's law."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpcore.lasso._solver import gradient, noisy_gradient_fw
from dpcore.lasso.calibration import calibrate_noisy_gradient, gaussian_width, gradient_sensitivity, l1_radius_of
from dpcore.lasso.configs import GENERAL_CONSTRAINTS, NoisyGradientConfig
from dpcore.lasso.designs import sparse_regression
from dpcore.lasso.release import noisy_gradient


@pytest.mark.parametrize("constraint", GENERAL_CONSTRAINTS)
def test_gradient_sensitivity_brute_force(constraint):
    n, p, r = 5, 2, 0.7
    vals = np.linspace(-1, 1, 5)
    recs = [(np.array(x), y) for x in itertools.product(vals, repeat=p) for y in (-1.0, 0.0, 1.0)]
    if constraint == "linf":
        thetas = [np.array(t) for t in itertools.product(np.linspace(-r, r, 5), repeat=p)]
    elif constraint == "l1":
        thetas = [np.array(t) for t in itertools.product(np.linspace(-r, r, 5), repeat=p) if np.abs(t).sum() <= r]
    else:
        thetas = [np.array([a, r - a]) for a in np.linspace(0, r, 5)]
    T = np.array([(2 / n) * (x @ th - y) * x for th in thetas for x, y in recs]).reshape(len(thetas), len(recs), p)
    worst = max(float(np.max(np.linalg.norm(t[:, None, :] - t[None, :, :], axis=2))) for t in T)
    bound = gradient_sensitivity(n, p, r, constraint)
    assert worst <= bound * (1 + 1e-12)
    # not attained in general; at θ = 0 the flip of y at x = (±1, …) gives 4√p/n = bound/(R₁ + 1)
    assert worst >= bound / (l1_radius_of(constraint, p, r) + 1) * (1 - 1e-12)


def test_gaussian_widths():
    assert gaussian_width("linf", 100) == pytest.approx(100 * math.sqrt(2 / math.pi))
    g = np.random.default_rng(0).standard_normal((200_000, 20))
    assert gaussian_width("l1", 20) == pytest.approx(np.abs(g).max(axis=1).mean(), rel=0.01)
    assert gaussian_width("simplex", 20) == pytest.approx(g.max(axis=1).mean(), rel=0.01)
    # log p for the polytopes, p for the ℓ∞ ball
    assert gaussian_width("l1", 10_000) / gaussian_width("l1", 100) < 2
    assert gaussian_width("linf", 10_000) / gaussian_width("linf", 100) == pytest.approx(100)


@pytest.mark.parametrize("constraint", GENERAL_CONSTRAINTS)
def test_output_stays_in_C(constraint):
    X, y, _ = sparse_regression(300, 10, 2, rng=0)
    th = noisy_gradient.release((X, y), NoisyGradientConfig(constraint=constraint, radius=0.5), rng=1).value
    if constraint == "l1":
        assert np.abs(th).sum() <= 0.5 + 1e-12
    elif constraint == "simplex":
        assert th.min() >= 0 and th.sum() == pytest.approx(0.5)
    else:
        assert np.abs(th).max() <= 0.5 + 1e-12


def test_huge_epsilon_is_nonprivate_fw():
    X, y, _ = sparse_regression(300, 10, 2, rng=0)
    cfg = NoisyGradientConfig(epsilon=1e9, steps=50, constraint="linf", radius=0.1)
    np.testing.assert_array_equal(noisy_gradient.release((X, y), cfg, rng=1).value, noisy_gradient.nonprivate((X, y), cfg))


@pytest.mark.stat
def test_one_step_law_is_the_gaussian_sign():
    X, y, _ = sparse_regression(50, 1, 0, rng=3)
    cfg = NoisyGradientConfig(epsilon=2.0, steps=1, radius=1.0)
    cal = calibrate_noisy_gradient(cfg, (50, 1))
    g = gradient(X, y, np.zeros(1))[0]
    _, s = noisy_gradient_fw(X, y, radius=1.0, steps=1, constraint="l1", sigma=cal.constant, reps=50_000, rng=4)
    p_plus = stats.norm.cdf(-g / cal.constant)                        # s = +r iff g + z < 0
    assert 0.05 < p_plus < 0.95
    assert stats.binomtest(int((s[:, 0] > 0).sum()), 50_000, p_plus).pvalue > 1e-4

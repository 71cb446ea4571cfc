"""Losses, constants and the Newton fit (Asi, Duchi & Talwar 2025, Examples 1–2)."""
import math

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.single_parameter.designs import census_like, robust_regression
from dpcore.single_parameter._fit import fit, gradient, hessian, is_separable, objective
from dpcore.single_parameter._losses import LOGISTIC, ROBUST, get_loss

T = np.linspace(-30, 30, 600_001)


@pytest.mark.parametrize("loss", [ROBUST, LOGISTIC], ids=["robust", "logistic"])
def test_suprema_are_exact(loss):
    assert np.max(np.abs(loss.h1(T))) == pytest.approx(loss.sup_h1, abs=1e-6)
    assert np.max(loss.h2(T)) == pytest.approx(loss.sup_h2, rel=1e-9)
    assert np.max(np.abs(loss.h3(T))) == pytest.approx(loss.sup_h3, rel=1e-7)


def test_closed_form_suprema_values():
    assert ROBUST.sup_h3 == pytest.approx(1 / (3 * math.sqrt(3))) and ROBUST.sup_h2 == 0.5
    assert LOGISTIC.sup_h3 == pytest.approx(1 / (6 * math.sqrt(3))) and LOGISTIC.sup_h2 == 0.25


@pytest.mark.parametrize("loss", [ROBUST, LOGISTIC], ids=["robust", "logistic"])
def test_derivatives_match_finite_differences_and_qsc(loss):
    t = np.linspace(-12, 12, 2001)
    e = 1e-5
    np.testing.assert_allclose((loss.h(t + e) - loss.h(t - e)) / (2 * e), loss.h1(t), atol=1e-8)
    np.testing.assert_allclose((loss.h1(t + e) - loss.h1(t - e)) / (2 * e), loss.h2(t), atol=1e-8)
    np.testing.assert_allclose((loss.h2(t + e) - loss.h2(t - e)) / (2 * e), loss.h3(t), atol=1e-8)
    assert np.all(np.abs(loss.h3(T)) <= loss.h2(T) * (1 + 1e-12) + 1e-300)       # |h'''| ≤ h''


@pytest.mark.parametrize("loss", [ROBUST, LOGISTIC], ids=["robust", "logistic"])
def test_linear_self_bounding_condition_with_c_e_minus_1(loss):
    g = np.random.default_rng(0)
    t = g.uniform(-15, 15, 200_000)
    s = g.uniform(-1, 1, 200_000)
    ratio = np.abs(loss.h2(t + s) - loss.h2(t)) / (loss.h2(t) * np.abs(s))
    assert ratio.max() <= math.e - 1 + 1e-9
    assert ratio.max() > 1.6      # the slope e − 1 is nearly attained, so c = 2 is only slightly conservative
    assert np.all(loss.h2(t + s) >= (1 - np.abs(s)) * loss.h2(t) - 1e-300)   # lower q.s.c. with ψ(s) = s


def test_robust_h_is_the_stated_formula():
    t = np.linspace(-20, 20, 101)
    np.testing.assert_allclose(ROBUST.h(t), np.log1p(np.exp(t)) + np.log1p(np.exp(-t)), rtol=1e-12)


@pytest.mark.parametrize("loss,rho", [("robust", 0.0), ("robust", 0.1), ("logistic", 0.01)])
def test_newton_reaches_the_minimiser(loss, rho):
    if loss == "robust":
        X, y, _ = robust_regression(3000, 4, rng=1)
    else:
        X, y = census_like(3000, rng=1)
    L = get_loss(loss)
    F = fit(loss, X, y, rho=rho)
    assert np.linalg.norm(gradient(L, X, y, F.theta, rho)) < 1e-9
    f0 = objective(L, X, y, F.theta, rho)
    g = np.random.default_rng(2)
    for _ in range(20):
        assert objective(L, X, y, F.theta + 1e-3 * g.standard_normal(X.shape[1]), rho) >= f0
    H = hessian(L, X, y, F.theta, rho)
    e = 1e-6
    num = np.column_stack([(gradient(L, X, y, F.theta + e * u, rho) - gradient(L, X, y, F.theta - e * u, rho)) / (2 * e)
                           for u in np.eye(X.shape[1])])
    np.testing.assert_allclose(H, num, atol=1e-7)
    w = np.linalg.eigvalsh(H)
    assert F.lam_min == pytest.approx(w[0]) and F.lam_max == pytest.approx(w[-1])
    assert rho <= F.lam_min <= F.lam_max <= L.sup_h2 * np.max(np.sum(X * X, 1)) + rho


def test_singular_design_is_a_clear_error():
    X, y, _ = robust_regression(200, 3, rng=0)
    X = np.column_stack([X, X[:, 0] * 2.0])          # exactly collinear column
    with pytest.raises(DPValueError, match="singular|collinear|converge"):
        fit("robust", X, y)


def test_separable_logistic_data_are_detected_exactly():
    X = np.array([[1.0, -2], [1, -1], [1, 1], [1, 2]])
    assert is_separable(X, np.array([-1.0, -1, 1, 1]))
    assert not is_separable(X, np.array([-1.0, 1, -1, 1]))

"""Constants and sensitivities of the KNG problems: the calibrations against the derivations, and
the sensitivities by brute force over neighbouring tiny datasets."""
import itertools
import math

import numpy as np
import pytest

from dpcore import kng
from dpcore._validation import DPValueError
from dpcore.kng._problem import ball_to_l2, cube_to_norm, sphere_to_norm
from dpcore.mechanism import Calibration
from dpcore.norms import norm as knorm
from tests.kng._helpers import NORMS, calibrate, grad, loss


def test_calibrated_constants_match_the_derivations():
    eps = 1.3
    c = calibrate("quantile", "kng", eps, d=1, tau=0.9)
    assert c.sensitivity == 1.0 and c.constant == pytest.approx(eps / 2)
    c = calibrate("median", "kng", eps, d=1)
    assert c.sensitivity == 2.0 and c.constant == pytest.approx(eps / 4)
    c = calibrate("linear_regression", "kng", eps, d=12, norm="linf", B=1.0)
    assert c.sensitivity == pytest.approx(8.0) and c.constant == pytest.approx(eps / 16)
    # in front of ‖Σ(y − xᵀθ)x‖∞ = ‖∇ℓ‖∞/2 the calibrated constant is ε/(4(1+B)); the paper prints half
    assert 2 * c.constant == pytest.approx(eps / (4 * 2.0))
    p = calibrate("linear_regression", "kng", eps, d=12, norm="linf", B=1.0, constants="paper")
    assert 2 * p.constant == pytest.approx(eps / (8 * 2.0)) and p.params["loose"]
    e = calibrate("linear_regression", "exponential", eps, d=3, B=0.5)
    assert e.sensitivity == pytest.approx(1.5 ** 2) and e.constant == pytest.approx(eps / (2 * 2.25))
    o = calibrate("linear_regression", "objective_perturbation", eps, d=4, B=1.0)
    assert o.params["gamma"] == pytest.approx(8 / math.expm1(eps / 2)) and o.constant == pytest.approx(eps / 16)
    q = calibrate("quantile_regression", "kng", eps, d=2, tau=0.3, C_X=1.0)
    assert q.sensitivity == pytest.approx(2 * 0.7)
    qe = calibrate("quantile_regression", "exponential", eps, d=2, tau=0.5, B=1.0)
    qp = calibrate("quantile_regression", "exponential", eps, d=2, tau=0.5, B=1.0, constants="paper")
    assert qe.sensitivity == pytest.approx(1.0) and qp.sensitivity == pytest.approx(2.0)
    # Figure 2's paper KNG constant ε/(2·2(1−τ)C_X) equals the calibrated one at τ = 1/2
    assert calibrate("quantile_regression", "kng", eps, d=2, tau=0.5, constants="paper").constant == \
        pytest.approx(calibrate("quantile_regression", "kng", eps, d=2, tau=0.5).constant)
    m = calibrate("mean", "kng", eps, d=3, radius=2.0)
    assert m.sensitivity == 8.0 and m.constant == pytest.approx(eps / 8.0)  # Remark 4.1 on R^d


@pytest.mark.parametrize("problem", ["mean", "median", "quantile", "linear_regression", "quantile_regression"])
def test_every_calibration_is_a_pure_calibration_with_derivation_and_reference(problem):
    prob = kng.problem(problem)
    for mech in prob.config.mechanisms:
        for d in ((1,) if problem == "quantile" else (1, 3)):
            cal = calibrate(problem, mech, 0.7, d=d)
            assert isinstance(cal, Calibration) and cal.notion == "pure" and cal.epsilon == 0.7
            assert cal.mechanism == f"kng/{problem}-{mech}"
            assert cal.derivation and "Reimherr & Awan (2019)" in cal.reference
            assert cal.cost(5).total_epsilon == pytest.approx(3.5) and cal.cost(5).count == 5


@pytest.mark.parametrize("problem", ["quantile", "quantile_regression"])
def test_paper_constants_refused_above_half(problem):
    with pytest.raises(DPValueError, match="NOT ε-DP"):
        calibrate(problem, "kng", 1.0, d=2, tau=0.75, constants="paper")
    calibrate(problem, "kng", 1.0, d=1 if problem == "quantile" else 2, tau=0.25, constants="paper")  # allowed


def test_paper_quantile_is_looser_below_half():
    p = calibrate("quantile", "kng", 1.0, d=1, tau=0.2, constants="paper")
    assert p.sensitivity == pytest.approx(1.6) and p.params["loose"] and "eq. (3)" in p.reference


def test_norm_ratios():
    d = 5
    rng = np.random.default_rng(0)
    corners = rng.choice([-1.0, 1.0], size=(2000, d))
    for nm in NORMS:
        assert knorm(corners, nm).max() == pytest.approx(cube_to_norm(d, nm))
        u = rng.normal(size=(20000, d))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        assert knorm(u, nm).max() <= sphere_to_norm(d, nm) + 1e-12
        v = u / knorm(u, nm)[:, None]
        assert np.linalg.norm(v, axis=1).max() <= ball_to_l2(d, nm) + 1e-12
    assert ball_to_l2(4, "linf") == 2.0 and sphere_to_norm(4, "l1") == 2.0


# ----------------------------------------------------------------------------- sensitivities by brute force
def test_quantile_and_median_gradient_sensitivity_brute_force():
    vals = [0.0, 0.3, 0.5, 1.0]
    thetas = np.linspace(0.01, 0.99, 23)[:, None]
    worst_q, worst_m = 0.0, 0.0
    for data in itertools.product(vals, repeat=3):
        base = np.array(data)
        for i, v in itertools.product(range(3), vals):
            nb = base.copy()
            nb[i] = v
            for tau in (0.2, 0.5, 0.9):
                gq = grad("quantile", base, thetas, bounds=(0, 1), tau=tau) - \
                    grad("quantile", nb, thetas, bounds=(0, 1), tau=tau)
                worst_q = max(worst_q, np.abs(gq).max())
            gm = grad("median", base, thetas, bounds=(0, 1)) - grad("median", nb, thetas, bounds=(0, 1))
            worst_m = max(worst_m, np.abs(gm).max())
    assert worst_q == pytest.approx(calibrate("quantile", "kng", 1.0, d=1).sensitivity)   # 1, attained
    assert worst_m == pytest.approx(calibrate("median", "kng", 1.0, d=1).sensitivity)     # 2, attained


@pytest.mark.parametrize("norm", NORMS)
def test_linear_regression_gradient_sensitivity_bound(norm):
    rng = np.random.default_rng(1)
    d, B = 3, 1.0
    X = rng.uniform(-1, 1, (6, d))
    y = rng.uniform(-1, 1, 6)
    delta = calibrate("linear_regression", "kng", 1.0, d=d, norm=norm, B=B).sensitivity
    dl = calibrate("linear_regression", "exponential", 1.0, d=d, norm=norm, B=B).sensitivity
    ths = kng.project_l1_ball(rng.uniform(-1, 1, (400, d)), B)
    worst, worst_l = 0.0, 0.0
    for _ in range(300):
        X2, y2 = X.copy(), y.copy()
        X2[0] = rng.choice([-1.0, 1.0], d) if rng.random() < 0.5 else rng.uniform(-1, 1, d)
        y2[0] = rng.choice([-1.0, 1.0])
        g1 = grad("linear_regression", (X, y), ths, norm=norm, B=B)
        g2 = grad("linear_regression", (X2, y2), ths, norm=norm, B=B)
        worst = max(worst, knorm(g1 - g2, norm).max())
        l1 = loss("linear_regression", (X, y), ths, norm=norm, B=B) + float(y @ y)
        l2 = loss("linear_regression", (X2, y2), ths, norm=norm, B=B) + float(y2 @ y2)
        worst_l = max(worst_l, np.abs(l1 - l2).max())
    assert worst <= delta + 1e-9 and worst > 0.5 * delta
    assert worst_l <= dl + 1e-9 and worst_l > 0.5 * dl


@pytest.mark.parametrize("norm", NORMS)
def test_quantile_regression_gradient_sensitivity_bound(norm):
    rng = np.random.default_rng(2)
    d = 2
    CX = cube_to_norm(d, norm)
    X = rng.uniform(-1, 1, (5, d))
    y = rng.uniform(-1, 1, 5)
    ths = rng.uniform(-0.5, 0.5, (300, d))
    for tau in (0.3, 0.5, 0.8):
        delta = calibrate("quantile_regression", "kng", 1.0, d=d, norm=norm, tau=tau, C_X=CX).sensitivity
        dl = calibrate("quantile_regression", "exponential", 1.0, d=d, tau=tau, B=1.0).sensitivity
        worst, worst_l = 0.0, 0.0
        for _ in range(60):
            X2, y2 = X.copy(), y.copy()
            X2[0] = rng.choice([-1.0, 1.0], d)
            y2[0] = rng.choice([-1.0, 1.0])
            g = grad("quantile_regression", (X, y), ths, norm=norm, tau=tau) - \
                grad("quantile_regression", (X2, y2), ths, norm=norm, tau=tau)
            worst = max(worst, knorm(g, norm).max())
            lo = loss("quantile_regression", (X, y), ths, tau=tau) - loss("quantile_regression", (X2, y2), ths, tau=tau)
            worst_l = max(worst_l, np.abs(lo).max())
        assert worst <= delta + 1e-9 and worst >= 0.6 * delta
        assert worst_l <= dl + 1e-9


@pytest.mark.parametrize("norm", NORMS)
def test_geometric_median_and_mean_sensitivity_bounds(norm):
    rng = np.random.default_rng(3)
    d = 3
    x = rng.uniform(-1, 1, (4, d))
    ths = rng.uniform(-1, 1, (300, d))
    delta = calibrate("median", "kng", 1.0, d=d, norm=norm).sensitivity
    worst = 0.0
    for _ in range(200):
        x2 = x.copy()
        x2[0] = rng.uniform(-1, 1, d)
        g = grad("median", x, ths, norm=norm, bounds=(-1, 1)) - grad("median", x2, ths, norm=norm, bounds=(-1, 1))
        worst = max(worst, knorm(g, norm).max())
    assert worst <= delta + 1e-9
    # mean: ∇ℓ(D) − ∇ℓ(D′) = −2(x₁ − x₁′): at most 4r in the record norm
    r = 1.5
    dm = calibrate("mean", "kng", 1.0, d=d, norm=norm, radius=r).sensitivity
    e = np.eye(d)[0] * r / knorm(np.eye(d)[0], norm)
    g = grad("mean", np.vstack([e, x * 0]), ths, norm=norm, radius=r) - \
        grad("mean", np.vstack([-e, x * 0]), ths, norm=norm, radius=r)
    assert knorm(g, norm).max() == pytest.approx(dm)


def test_gradients_match_finite_differences_of_objectives():
    rng = np.random.default_rng(4)
    X = np.c_[np.ones(30), rng.uniform(-1, 1, (30, 2))]
    y = np.clip(X @ [0.1, 0.3, -0.2] + 0.3 * rng.normal(size=30), -1, 1)
    th = rng.uniform(-0.3, 0.3, (5, 3))
    h = 1e-6
    for problem, data, kw in [("linear_regression", (X, y), {}), ("quantile_regression", (X, y), {"tau": 0.3}),
                              ("mean", X[:, 1:], {"radius": 2.0}), ("median", X[:, 1:], {"bounds": (-1, 1)})]:
        t = th[:, :2] if problem in ("mean", "median") else th
        g = grad(problem, data, t, **kw)
        fd = np.stack([(loss(problem, data, t + h * e, **kw) - loss(problem, data, t - h * e, **kw)) / (2 * h)
                       for e in np.eye(t.shape[1])], axis=1)
        np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-4)

"""Calibration of private Frank–Wolfe: the score sensitivity by brute force, the composition routes, T of
Theorem 2.5, the paper's scale (≈ 2ε), config validation."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.lasso import calibration
from dpcore.lasso.configs import MAX_P, MAX_STEPS, LassoConfig
from dpcore.privacy import zcdp_to_approx


def _brute_force_sensitivity(n: int, p: int, radius: float) -> float:
    """max |⟨s, ∇L(θ; D) − ∇L(θ; D′)⟩| over a grid of records (x, y), (x′, y′) in the domain, θ on a grid of
    the ℓ1 ball (vertices, edges, interior) and the 2p vertices s. Other records cancel in the difference."""
    vals = np.linspace(-1, 1, 5)
    xs = np.array(list(itertools.product(vals, repeat=p)))                   # (m, p)
    ys = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    recs = [(x, y) for x in xs for y in ys]
    X = np.array([r[0] for r in recs])
    Y = np.array([r[1] for r in recs])
    grid = np.array([t for t in itertools.product(np.linspace(-radius, radius, 9), repeat=p)
                     if np.abs(t).sum() <= radius + 1e-12])
    verts = np.concatenate([radius * np.eye(p), -radius * np.eye(p)])
    best = 0.0
    for th in grid:
        contrib = (2.0 / n) * ((X @ th - Y)[:, None] * X) @ verts.T         # (records, 2p): ⟨s, per-record term⟩
        best = max(best, float((contrib.max(axis=0) - contrib.min(axis=0)).max()))
    return best


@pytest.mark.parametrize("p,radius", [(1, 1.0), (2, 1.0), (2, 0.5), (3, 2.0)])
def test_score_sensitivity_matches_brute_force(p, radius):
    n = 7
    bf = _brute_force_sensitivity(n, p, radius)
    formula = calibration.score_sensitivity(n, radius)
    assert bf <= formula * (1 + 1e-12)
    if p >= 2:                       # attained (θ = r e_k, x = e_k ± e_j, y = −1)
        assert bf == pytest.approx(formula, rel=1e-12)
    else:                            # p = 1: θ and s share the coordinate, the bound is not attained
        assert bf < formula


def test_score_sensitivity_is_4r_r_plus_1_over_n():
    assert calibration.score_sensitivity(100, 1.0) == pytest.approx(0.08)
    assert calibration.score_sensitivity(10, 0.1) == pytest.approx(4 * 0.1 * 1.1 / 10)


@pytest.mark.parametrize("eps,delta,T", [(1.0, 1e-6, 737), (0.5, 1e-8, 50), (4.0, 1e-5, 2000)])
def test_advanced_route_composes_back_to_epsilon(eps, delta, T):
    e0, route = calibration.per_step_epsilon(eps, delta, T, "exponential", "advanced")
    if route.startswith("basic"):
        assert e0 == pytest.approx(eps / T)
    else:
        total = math.sqrt(2 * T * math.log(1 / delta)) * e0 + T * e0 * math.expm1(e0)
        assert total <= eps and total == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("sel,factor", [("exponential", 8.0), ("laplace", 2.0)])
def test_zcdp_route_composes_back_to_epsilon(sel, factor):
    eps, delta, T = 1.0, 1e-6, 500
    e0, route = calibration.per_step_epsilon(eps, delta, T, sel, "zcdp")
    assert "zCDP" in route
    rho = T * e0 ** 2 / factor
    assert zcdp_to_approx(rho, delta) <= eps + 1e-9
    assert zcdp_to_approx(rho * 1.01, delta) > eps          # not loose
    # the exponential mechanism (ε₀²/8-zCDP) gets twice the ε₀ of Laplace (ε₀²/2)
    other = calibration.per_step_epsilon(eps, delta, T, "laplace" if sel == "exponential" else "exponential", "zcdp")[0]
    assert e0 / other == pytest.approx(0.5 if sel == "laplace" else 2.0, rel=1e-6)


def test_small_T_uses_basic_composition_when_better():
    e0, route = calibration.per_step_epsilon(1.0, 1e-6, 1, "exponential", "zcdp")
    assert e0 == 1.0 and route.startswith("basic")


def test_paper_noise_scale_gives_about_two_epsilon():
    n, eps, delta = 10_000, 1.0, 1e-6
    T = calibration.theorem25_steps(n, eps, 1.0)
    assert 2.0 < calibration.paper_total_epsilon(n, eps, delta, T, 1.0) < 2.2


def test_theorem25_steps_depends_on_public_values_only():
    assert calibration.theorem25_steps(10_000, 1.0, 1.0) == round((8 / 4) ** (2 / 3) * 1e4 ** (2 / 3))
    assert calibration.theorem25_steps(1000, 1.0, 1.0) < calibration.theorem25_steps(10_000, 1.0, 1.0)
    assert calibration.theorem25_steps(10 ** 9, 1e3, 1.0) == MAX_STEPS


def test_calibration_states_everything():
    cal = calibration.calibrate(LassoConfig(), (10_000, 100))
    assert cal.notion == "approx" and cal.epsilon == 1.0 and cal.delta == 1e-6
    assert cal.sensitivity == pytest.approx(8e-4)
    assert cal.constant == pytest.approx(2 * cal.sensitivity / cal.params["eps0"])
    assert cal.params["steps"] == 737 and cal.params["steps_source"] == "Theorem 2.5"
    assert "4r(r + 1)/n" in cal.derivation and "zCDP" in cal.derivation
    assert cal.cost(1).epsilon == 1.0


@pytest.mark.parametrize("kw,name", [({"epsilon": 0}, "epsilon"), ({"delta": 1.5}, "delta"),
                                     ({"radius": -1}, "radius"), ({"steps": 0}, "steps"),
                                     ({"steps": MAX_STEPS + 1}, "steps"), ({"selection": "gauss"}, "selection"),
                                     ({"composition": "rdp"}, "composition"), ({"path": "x"}, "path")])
def test_bad_config_names_the_parameter(kw, name):
    with pytest.raises(DPValueError, match=name):
        LassoConfig(**kw)


def test_p_above_the_cap_is_refused():
    with pytest.raises(DPValueError, match="p"):
        calibration.calibrate(LassoConfig(), (100, MAX_P + 1))


def test_corollary27_rate():
    assert calibration.corollary27_rate(1000, 10, 1.0, 1e-6) == pytest.approx(math.log(1e10) / 100)
    assert calibration.corollary27_rate(8000, 10, 1.0, 1e-6) < calibration.corollary27_rate(1000, 10, 1.0, 1e-6) / 3.5

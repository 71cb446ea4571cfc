import math

import numpy as np
import pytest
from scipy import stats

from dpcore import norms
from dpcore._validation import DPValueError


def test_norm_values_and_aliases():
    x = np.array([3.0, -4.0])
    assert norms.norm(x, "l1") == 7
    assert norms.norm(x, "l2") == 5
    assert norms.norm(x, "linf") == 4
    assert norms.norm(x, "inf") == 4
    np.testing.assert_allclose(norms.norm(np.array([[1, 1], [0, 2]]), "l2"), [math.sqrt(2), 2])
    with pytest.raises(DPValueError, match="'l3'"):
        norms.norm(x, "l3")


def test_dual_norm_is_sup_over_ball():
    rng = np.random.default_rng(0)
    x = rng.normal(size=4)
    for name in norms.NORMS:
        u = norms.sample_unit_ball(name, 4, 20000, rng)
        sup = (u @ x).max()
        d = norms.dual_norm(x, name)
        assert sup <= d + 1e-12
        assert sup > 0.8 * d
    assert norms.dual_name("l1") == "linf" and norms.dual_name("linf") == "l1" and norms.dual_name("l2") == "l2"


def test_unit_ball_volumes():
    assert math.exp(norms.log_unit_ball_volume("l2", 2)) == pytest.approx(math.pi)
    assert math.exp(norms.log_unit_ball_volume("l2", 3)) == pytest.approx(4 / 3 * math.pi)
    assert math.exp(norms.log_unit_ball_volume("l1", 2)) == pytest.approx(2.0)
    assert math.exp(norms.log_unit_ball_volume("linf", 3)) == pytest.approx(8.0)


@pytest.mark.parametrize("name", norms.NORMS)
def test_sample_unit_ball_shape_and_inside(name):
    u = norms.sample_unit_ball(name, 3, 1000, 1)
    assert u.shape == (1000, 3)
    assert np.all(norms.norm(u, name) <= 1 + 1e-12)


@pytest.mark.stat
@pytest.mark.parametrize("name", norms.NORMS)
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_ball_uniformity_radial_law(name, d):
    # uniform in K  <=>  P(||U||_K <= s) = s^d, and U/||U|| direction symmetric
    u = norms.sample_unit_ball(name, d, 5000, 100 + d)
    s = norms.norm(u, name) ** d
    assert stats.kstest(s, "uniform").pvalue > 1e-6
    # power: a non-uniform radial law (radius^(d) squared) must fail
    assert stats.kstest(s ** 2, "uniform").pvalue < 1e-6
    # each coordinate symmetric about 0
    for j in range(d):
        assert stats.kstest(u[:, j], -u[:, j]).pvalue > 1e-6 or abs(np.mean(u[:, j])) < 0.05


@pytest.mark.stat
def test_ball_uniformity_cells_l1_2d():
    # the l1 ball in 2-D: the inner diamond of half radius has 1/4 of the area
    u = norms.sample_unit_ball("l1", 2, 20000, 3)
    inner = np.mean(norms.norm(u, "l1") <= 0.5)
    assert abs(inner - 0.25) < 0.02
    # quadrants equally likely (chi-square)
    q = (u[:, 0] > 0).astype(int) * 2 + (u[:, 1] > 0)
    counts = np.bincount(q, minlength=4)
    assert stats.chisquare(counts).pvalue > 1e-6

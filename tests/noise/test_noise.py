import numpy as np
import pytest
from scipy import stats

from dpcore import noise, norms
from dpcore._validation import DPValueError


def test_laplace_mechanism_scale_and_cost():
    r = noise.laplace_mechanism(np.zeros(3), sensitivity=2.0, epsilon=0.5, rng=0, sampler="float")
    assert r.calibration.constant == 4.0 and r.cost.epsilon == 0.5 and r.cost.notion == "pure"
    g = noise.laplace_mechanism(np.zeros(3), sensitivity=2.0, epsilon=0.5, rng=0)     # hardened default: grid
    assert 4.0 < g.calibration.constant <= 4.0 * (1 + 2 / 64) and g.cost == r.cost
    assert np.all(g.value / g.calibration.params["grid"] == np.round(g.value / g.calibration.params["grid"]))
    assert r.cost == r.calibration.cost(1) and r.mechanism == "noise/laplace"
    assert r.value.shape == (3,)


def test_gaussian_mechanism_calibrations():
    r = noise.gaussian_mechanism(0.0, 1.0, epsilon=1.0, delta=1e-5, rng=0)
    assert r.calibration.constant == pytest.approx(3.7306, abs=1e-4) and r.cost.notion == "approx"
    z = noise.gaussian_mechanism(0.0, 2.0, rho=0.5, rng=0, sampler="float")
    assert noise.gaussian_mechanism(0.0, 2.0, rho=0.5, rng=0).calibration.constant == pytest.approx(2.0, rel=0.02)
    assert z.calibration.constant == pytest.approx(2.0) and z.cost.rho == 0.5 and z.mechanism == "noise/gaussian-zcdp"
    with pytest.raises(DPValueError, match="delta"):
        noise.gaussian_mechanism(0.0, 1.0, epsilon=1.0, rng=0)
    with pytest.raises(DPValueError, match="not both"):
        noise.gaussian_mechanism(0.0, 1.0, epsilon=1.0, delta=1e-5, rho=1.0, rng=0)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "x"])
def test_mechanisms_reject_bad_epsilon(bad):
    with pytest.raises(DPValueError, match="epsilon"):
        noise.laplace_mechanism(0.0, 1.0, bad, rng=0)


def test_huge_epsilon_gives_nonprivate_answer():
    v = np.array([1.5, -2.0])
    assert np.allclose(noise.laplace_mechanism(v, 1.0, 1e9, rng=0).value, v, atol=1e-6)
    assert np.allclose(noise.knorm_mechanism(v, 1.0, 1e9, "l2", rng=0).value[0], v, atol=1e-6)
    assert np.allclose(noise.gaussian_mechanism(v, 1.0, epsilon=1e4, delta=1e-5, rng=0).value, v, atol=1e-2)
    u = np.array([0.0, 3.0, 1.0])
    assert set(noise.exponential_mechanism(u, 1e9, 1.0, size=50, rng=0).value) == {1}


@pytest.mark.stat
@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_noise_ks_with_power(kind):
    rng = np.random.default_rng(11)
    if kind == "laplace":
        x = noise.laplace_noise(2.0, size=5000, rng=rng)
        cdf = lambda s: stats.laplace(scale=2.0 * s).cdf
    else:
        x = noise.gaussian_noise(2.0, size=5000, rng=rng)
        cdf = lambda s: stats.norm(scale=2.0 * s).cdf
    assert stats.kstest(x, cdf(1.0)).pvalue > 1e-6
    assert stats.kstest(x, cdf(0.7)).pvalue < 1e-6
    assert stats.kstest(x, cdf(1.3)).pvalue < 1e-6


@pytest.mark.stat
@pytest.mark.parametrize("name", norms.NORMS)
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_knorm_radius_gamma_and_direction_uniform(name, d):
    c = 1.7
    z = noise.knorm_noise(d, c, name, 5000, rng=1000 + d)
    # Z = R*U with R ~ Gamma(d+1, 1/c) and ||U|| ~ Beta(d, 1) independent, so ||Z||_K ~ Gamma(d, 1/c)
    # (the density of ||Z|| is proportional to r^(d-1) exp(-c r)).
    r = norms.norm(z, name)
    assert stats.kstest(r, stats.gamma(d, scale=1 / c).cdf).pvalue > 1e-6
    assert stats.kstest(r, stats.gamma(d, scale=0.7 / c).cdf).pvalue < 1e-6
    assert stats.kstest(r, stats.gamma(d, scale=1.3 / c).cdf).pvalue < 1e-6
    # the construction's radius itself: R = ||Z|| / ||U|| ~ Gamma(d+1) can be checked via the same seed
    g = np.random.default_rng(1000 + d)
    R = g.gamma(shape=d + 1.0, scale=1.0 / c, size=(5000, 1))[:, 0]
    assert stats.kstest(R, stats.gamma(d + 1, scale=1 / c).cdf).pvalue > 1e-6
    u_part = norms.sample_unit_ball(name, d, 5000, g)
    np.testing.assert_allclose(R[:, None] * u_part, z)
    # the normalised point is uniform in the ball: ||Z/R'||^d uniform for an independent radius R'
    u = z / r[:, None] * np.random.default_rng(d).random((5000, 1)) ** (1 / d)
    assert stats.kstest(norms.norm(u, name) ** d, "uniform").pvalue > 1e-6


@pytest.mark.stat
def test_knorm_1d_is_laplace():
    z = noise.knorm_noise(1, 2.0, "l2", 5000, rng=5)[:, 0]
    assert stats.kstest(z, stats.laplace(scale=0.5).cdf).pvalue > 1e-6


@pytest.mark.stat
def test_exponential_mechanism_chisquare_against_softmax():
    u = np.array([0.0, 1.0, 2.0, 3.5, -1.0])
    eps, sens = 1.3, 0.8
    idx = noise.exponential_mechanism(u, eps, sens, size=40000, rng=3).value
    p = np.exp(noise.exponential_mechanism_logits(u, eps, sens))
    counts = np.bincount(idx, minlength=u.size)
    assert stats.chisquare(counts, 40000 * p).pvalue > 1e-6
    # power: the law without the factor 2 is rejected
    p_wrong = np.exp(noise.exponential_mechanism_logits(u, eps, sens, monotone=True))
    assert stats.chisquare(counts, 40000 * p_wrong).pvalue < 1e-6


def test_exponential_mechanism_no_overflow_and_validation():
    u = np.array([1e6, 1e6 - 2, -1e6, -np.inf])
    idx = noise.exponential_mechanism(u, 1.0, 1.0, size=1000, rng=0).value
    assert set(idx) <= {0, 1} and np.mean(idx == 0) > 0.6
    lp = noise.exponential_mechanism_logits(u, 1.0, 1.0)
    assert np.isfinite(lp[:3]).all() and lp[3] == -np.inf
    with pytest.raises(DPValueError, match="utilities"):
        noise.exponential_mechanism([np.nan, 1.0], 1.0, 1.0, rng=0)
    with pytest.raises(DPValueError):
        noise.exponential_mechanism([-np.inf, -np.inf], 1.0, 1.0, rng=0)


def test_knorm_mechanism_cost_composes_over_draws():
    r = noise.knorm_mechanism([0.0, 0.0], 1.0, 0.5, "linf", size=4, rng=0)
    assert r.value.shape == (4, 2) and r.cost.epsilon == pytest.approx(0.5) and r.cost.count == 4
    assert r.cost.total_epsilon == pytest.approx(2.0) and r.cost == r.calibration.cost(4)


def test_exponential_mechanism_carries_its_cost_per_draw():
    r = noise.exponential_mechanism([0.0, 1.0, 2.0], 0.5, 1.0, size=6, rng=1)
    assert r.mechanism == "noise/exponential" and r.value.shape == (6,)
    assert r.cost.epsilon == 0.5 and r.cost.count == 6 and r.cost == r.calibration.cost(6)
    assert r.calibration.constant == pytest.approx(0.25)  # ε/(2Δ_u)
    assert noise.exponential_mechanism([0.0, 1.0], 0.5, 1.0, monotone=True, rng=1).calibration.constant == 0.5

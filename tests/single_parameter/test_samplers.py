"""Goodness of fit of the samplers against their exact laws, with power checks (wrong scale fails)."""
import math

import numpy as np
import pytest
from scipy import stats

from dpcore.privacy import analytic_gaussian_sigma, zcdp_to_approx
from dpcore.single_parameter.designs import robust_regression
from dpcore.single_parameter._losses import get_loss
from dpcore.single_parameter._recursion import alg6l, lower_ladder
from dpcore.single_parameter._stability import constants_for
from dpcore.single_parameter import (FunctionalConfig, NoisyGDConfig, ObjectivePerturbationConfig,
                                     OutputPerturbationConfig, ThetaConfig, calibrate_functional, calibrate_theta,
                                     noisy_gd, output_perturbation)
from dpcore.single_parameter._analysis import analyse, local_sensitivity
from dpcore.single_parameter.release.functional import sample_functional
from dpcore.single_parameter.release.noisy_gd import sample_noisy_gd
from dpcore.single_parameter.release.objective_perturbation import sample_objective_perturbation
from dpcore.single_parameter.release.output_perturbation import sample_output_perturbation
from dpcore.single_parameter.release.theta import sample_theta
from dpcore.exact import discrete_laplace_pmf
from dpcore.single_parameter._recursion import count_shift

pytestmark = pytest.mark.stat


def _count_law(eps, delta, ks):
    """Exact P(k̂ − K = j) for k̂ = K + Z − t, Z exact discrete Laplace(1/ε), t the integer count_shift (the
    counts' noise is discrete since the exact samplers; the paper's ⌈K + Lap(1/ε) − log(1/(2δ))/ε⌉ before)."""
    return discrete_laplace_pmf(ks + count_shift(eps, delta), 1 / eps)


@pytest.mark.parametrize("scale,ok", [(1.0, True), (1.3, False), (0.7, False)])
def test_algorithm_6l_count_law(scale, ok):
    k = constants_for("robust", 20_000, 1.0)
    L = lower_ladder(k)
    K, eps, delta, N = 1000, 1.0, 0.05, 20_000
    lam, _ = alg6l(K, L, eps, delta, N, np.random.default_rng(1), noise_scale=scale)
    khat = L.count(lam)                              # λ̂ = B_k̂ exactly, so K(λ̂) = k̂
    js = np.arange(-12, 3)
    p = _count_law(eps, delta, js)
    obs = np.array([np.sum(khat - K == j) for j in js])
    p_rest = 1 - p.sum()
    chi = stats.chisquare(np.append(obs, N - obs.sum()), N * np.append(p, p_rest))
    assert (chi.pvalue > 1e-6) == ok


@pytest.mark.parametrize("scale,ok", [(1.0, True), (1.3, False), (0.7, False)])
def test_algorithm_3_gaussian_given_lambda_hat(scale, ok):
    X, y, _ = robust_regression(5000, 3, rng=2)
    cfg = ThetaConfig(epsilon=2.0, delta=1e-4)
    an = analyse((X, y), cfg)
    cal = calibrate_theta(cfg, X.shape).replace(params={"gauss_scale": scale})
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    lam = alg6l(an.K, an.ladder, 1.0, 5e-5, 5000, g)[0]
    g.bit_generator.state = state
    th = sample_theta(an, 1.0, 5e-5, 1.0, 5e-5, 5000, g)
    sd = analytic_gaussian_sigma(1.0, 5e-5) * an.consts.Delta_n(lam)
    z = ((th - an.fit.theta) / sd[:, None])[:, 0]
    assert stats.kstest(z, "norm").pvalue > 1e-6
    th_bad = sample_theta(an, 1.0, 5e-5, 1.0, 5e-5, 5000, np.random.default_rng(3), cal)
    zb = ((th_bad - an.fit.theta) / sd[:, None])[:, 0]
    assert (stats.kstest(zb, "norm").pvalue > 1e-6) == ok


@pytest.mark.parametrize("scale,ok", [(1.0, True), (1.3, False), (0.7, False)])
def test_algorithm_5_gaussian_given_the_test(scale, ok):
    X, y, _ = robust_regression(50_000, 3, rng=2)
    cfg = FunctionalConfig()
    an = analyse((X, y), cfg)
    cal = calibrate_functional(cfg, X.shape).replace(params={"gauss_scale": scale})
    out = sample_functional(an, cfg, 5000, 4, cal)
    assert out["passed"].all()
    S = local_sensitivity(an, np.eye(3)[0])
    sd = analytic_gaussian_sigma(0.25, 2.5e-6) * (1 + out["taub"]) * S
    z = (out["value"] - an.fit.theta[0]) / sd
    assert (stats.kstest(z, "norm").pvalue > 1e-6) == ok


@pytest.mark.parametrize("scale,ok", [(1.0, True), (1.3, False), (0.7, False)])
def test_output_perturbation_and_noisy_gd_laws(scale, ok):
    X, y, _ = robust_regression(2000, 2, rng=5)
    cfg = OutputPerturbationConfig(rho=0.1)
    over = lambda cal: cal.replace(params={"gauss_scale": scale})
    out, cal, _ = sample_output_perturbation((X, y), cfg, 5000, 1, over)
    sd = analytic_gaussian_sigma(1.0, 1e-5, 2.0 / (2000 * 0.1))
    z = (out[:, 0] - output_perturbation.nonprivate((X, y), cfg)[0]) / sd
    assert (stats.kstest(z, "norm").pvalue > 1e-6) == ok
    gcfg = NoisyGDConfig(steps=1)
    out, cal, _ = sample_noisy_gd((X, y), gcfg, 5000, 2, over)
    rho = cal.rho
    assert zcdp_to_approx(rho, 1e-5) == pytest.approx(1.0, abs=1e-6)
    s = (2.0 / 2000) * math.sqrt(1 / (2 * rho))
    z = (out[:, 0] - noisy_gd.nonprivate((X, y), gcfg)[0]) / (2.0 * s)      # η = 1/M1 = 2
    assert (stats.kstest(z, "norm").pvalue > 1e-6) == ok


@pytest.mark.parametrize("scale,ok", [(1.0, True), (1.3, False), (0.7, False)])
def test_objective_perturbation_noise_law(scale, ok):
    """d = 1: b is recovered exactly from the first-order condition; b ~ Laplace(2/ε′)."""
    X, y, _ = robust_regression(300, 1, rng=6)
    cfg = ObjectivePerturbationConfig(rho=0.2)
    over = lambda cal: cal.replace(params={"noise_scale": scale})
    th, cal, _ = sample_objective_perturbation((X, y), cfg, 3000, 7, over)
    loss = get_loss("robust")
    t = th @ X.T - y                     # r₂ = 1
    b = -300 * ((loss.h1(t) @ X)[:, 0] / 300 + (0.2 + cal.params["extra_ridge"]) * th[:, 0])
    assert (stats.kstest(b, stats.laplace(scale=cal.constant).cdf).pvalue > 1e-6) == ok

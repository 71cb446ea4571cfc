"""Privacy audits (tests/audit.py) of the basic noise mechanisms, each with a mutant that must be rejected."""
import math

import numpy as np
import pytest

from dpcore import noise, norms
from dpcore.privacy import analytic_gaussian_sigma
from tests.audit import (assert_passes, assert_rejected, audit, halfline_events, llr_events,
                         singleton_events)

N = 200_000
pytestmark = pytest.mark.stat


def _laplace_pair(scale_factor, seed):
    # counting query, sensitivity 1: f(D) = 0, f(D') = 1 (a record moved to the boundary)
    eps = 1.0
    rng = np.random.default_rng(seed)
    b = scale_factor * 1.0 / eps
    return rng.laplace(0.0, b, N), 1.0 + rng.laplace(0.0, b, N), eps


@pytest.mark.parametrize("factor,ok", [(1.0, True), (0.5, False)])
def test_laplace_audit(factor, ok):
    a, b, eps = _laplace_pair(factor, 1)
    res = audit(a, b, halfline_events(np.linspace(-2, 3, 11)), epsilon=eps)
    (assert_passes if ok else assert_rejected)(res)


def test_laplace_via_mechanism_function():
    rng = np.random.default_rng(2)
    a = np.array([noise.laplace_mechanism(0.0, 1.0, 1.0, rng=rng).value for _ in range(2000)])
    # the function path gives the same law as the vectorised one (smoke, tiny N)
    assert abs(np.std(a) - math.sqrt(2)) < 0.15


@pytest.mark.parametrize("factor,ok", [(1.0, True), (0.5, False)])
def test_gaussian_audit_at_delta_005(factor, ok):
    eps, delta = 1.0, 0.05
    sigma = analytic_gaussian_sigma(eps, delta) * factor
    rng = np.random.default_rng(3)
    a = rng.normal(0.0, sigma, N)
    b = 1.0 + rng.normal(0.0, sigma, N)
    s0 = analytic_gaussian_sigma(eps, delta)  # events use the CLAIMED law
    la = lambda x: -(x ** 2) / (2 * s0 ** 2)
    lb = lambda x: -((x - 1.0) ** 2) / (2 * s0 ** 2)
    res = audit(a, b, llr_events(la, lb, np.linspace(-2, 2, 9) * eps), epsilon=eps, delta=delta)
    (assert_passes if ok else assert_rejected)(res)


@pytest.mark.parametrize("name", norms.NORMS)
@pytest.mark.parametrize("factor,ok", [(1.0, True), (0.5, False)])
def test_knorm_audit(name, factor, ok):
    eps, d = 1.0, 2
    shift = np.array([1.0, 0.0])  # ||shift||_K = 1 = sensitivity in all three norms
    c_true = eps / (factor * 1.0)
    rng = np.random.default_rng(4)
    a = noise.knorm_noise(d, c_true, name, N, rng)
    b = shift + noise.knorm_noise(d, c_true, name, N, rng)
    g = lambda x: norms.norm(x - shift, name) - norms.norm(x, name)  # in [-1, 1]; llr = eps * g
    ev = llr_events(lambda x: eps * g(x), lambda x: np.zeros(len(x)), np.array([0.0, 0.5, 0.8, 0.95]) * eps)
    res = audit(a, b, ev, epsilon=eps)
    (assert_passes if ok else assert_rejected)(res)


@pytest.mark.parametrize("monotone_mutant,ok", [(False, True), (True, False)])
def test_exponential_mechanism_audit(monotone_mutant, ok):
    # worst case: u(D) = (0, Δ, ..., Δ), u(D') = (Δ, 0, ..., 0): privacy loss on candidate 0 -> ε
    eps, sens, k = 1.0, 1.0, 200
    ua = np.full(k, sens)
    ua[0] = 0.0
    ub = np.zeros(k)
    ub[0] = sens
    rng = np.random.default_rng(5)
    # the mutant drops the factor 2 (treats non-monotone utilities as monotone)
    a = noise.exponential_mechanism(ua, eps, sens, size=N, rng=rng, monotone=monotone_mutant)
    b = noise.exponential_mechanism(ub, eps, sens, size=N, rng=rng, monotone=monotone_mutant)
    res = audit(a, b, singleton_events([0, 1]), epsilon=eps)
    (assert_passes if ok else assert_rejected)(res)

"""Goodness of fit of the noisy vertex selection against its exact law (fixed seeds)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.lasso import LassoConfig, calibrate
from dpcore.lasso._solver import gradient, vertex_scores
from dpcore.lasso.release.private_fw import sample_run

pytestmark = pytest.mark.stat


def _data(p=4, n=40, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, (n, p))
    y = np.clip(X[:, 0] * 0.5 + 0.3 * g.standard_normal(n), -1, 1)
    return X, y


def test_exponential_mechanism_matches_the_softmax():
    X, y = _data()
    cfg = LassoConfig(epsilon=2.0, steps=1, radius=1.0)
    cal = calibrate(cfg, X.shape)
    scores = vertex_scores(gradient(X, y, np.zeros(X.shape[1])), 1.0, "l1")
    w = np.exp(-(scores - scores.min()) / cal.constant)       # P(s) ∝ exp(−ε₀α_s/(2Δ_s)), b = 2Δ_s/ε₀
    prob = w / w.sum()
    N = 200_000
    k = sample_run((X, y), cfg, N, 11, cal).vertices[:, 0]
    counts = np.bincount(k, minlength=prob.size)
    assert stats.chisquare(counts, N * prob).pvalue > 1e-4
    assert prob.max() < 0.9 and prob.min() > 0.01               # the test has something to detect


def test_wrong_gumbel_sign_is_not_the_softmax():
    X, y = _data()
    cfg = LassoConfig(epsilon=2.0, steps=1)
    cal = calibrate(cfg, X.shape)
    scores = vertex_scores(gradient(X, y, np.zeros(X.shape[1])), 1.0, "l1")
    w = np.exp(-(scores - scores.min()) / cal.constant)
    k = sample_run((X, y), cfg, 200_000, 12, cal.replace(params={"gumbel_sign": 1.0})).vertices[:, 0]
    assert stats.chisquare(np.bincount(k, minlength=w.size), 200_000 * w / w.sum()).pvalue < 1e-10


def _laplace_difference_cdf(z, b):
    """CDF of L₁ − L₂, L₁, L₂ iid Laplace(b)."""
    a = abs(z) / b
    tail = 0.5 * math.exp(-a) * (1 + a / 2)
    return 1 - tail if z >= 0 else tail


def test_laplace_report_noisy_min_matches_quadrature():
    X, y = _data(p=1)
    cfg = LassoConfig(epsilon=0.5, steps=1, selection="laplace")
    cal = calibrate(cfg, X.shape)
    a_plus, a_minus = vertex_scores(gradient(X, y, np.zeros(1)), 1.0, "l1")
    p_plus = _laplace_difference_cdf(a_minus - a_plus, cal.constant)   # P(α₊ + L₁ < α₋ + L₂)
    N = 200_000
    k = sample_run((X, y), cfg, N, 13, cal).vertices[:, 0]
    assert 0.05 < p_plus < 0.95
    assert stats.binomtest(int((k == 0).sum()), N, p_plus).pvalue > 1e-4

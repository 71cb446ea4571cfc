"""Kernel SVM (§2.5): solver gap, RKHS stability 1/(λn) by brute force on tiny data, huge ε; the page's
comparison call (composed cost, real data rescaled by public bounds)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import density
from dpcore.density import designs as D
from dpcore.density import _svm as S
from dpcore.errors import DPValueError


def _rkhs_dist(c1, X1, c2, X2, h):
    X = np.vstack([X1, X2])
    c = np.concatenate([c1, -c2])
    return math.sqrt(max(c @ S._gram(X, X, h) @ c, 0.0))


def test_solver_reaches_the_gap_and_matches_the_dual_optimum():
    X, y = D.two_class(150, 0)
    c, gap = S.fit_svm(X, y, 0.05, 0.2, 1e-7)
    assert 0 <= gap <= 1e-7
    a = c * y
    assert a.min() >= 0 and a.max() <= 1 / (2 * 0.05 * 150) + 1e-12


@pytest.mark.parametrize("lam", [0.05, 0.5])
def test_bruteforce_stability_of_the_exact_minimiser(lam):
    """Over random replace-one neighbours, ‖f_D − f_D′‖_H ≤ 1/(λn) (+ 2√(g/λ) for the solver's gap)."""
    g = np.random.default_rng(1)
    n, h, gap = 8, 0.3, 1e-10
    worst = 0.0
    for _ in range(60):
        X, y = g.random((n, 2)), np.where(g.random(n) < 0.5, 1.0, -1.0)
        X2, y2 = X.copy(), y.copy()
        X2[0], y2[0] = g.random(2), -y[0]
        c1, _ = S.fit_svm(X, y, lam, h, gap)
        c2, _ = S.fit_svm(X2, y2, lam, h, gap)
        worst = max(worst, _rkhs_dist(c1, X, c2, X2, h))
    assert worst <= S.svm_sensitivity(n, lam, gap) * (1 + 1e-9)


def test_bound_attained_at_n1_label_flip():
    X = np.array([[0.5, 0.5]])
    c1, _ = S.fit_svm(X, np.array([1.0]), 1.0, 0.2, 1e-12)
    c2, _ = S.fit_svm(X, np.array([-1.0]), 1.0, 0.2, 1e-12)
    assert _rkhs_dist(c1, X, c2, X, 0.2) == pytest.approx(1.0)        # = 1/(λn)


def test_huge_epsilon_svm_and_accuracy():
    data = D.two_class(200, 3)
    cfg = density.SVMConfig(epsilon=1e9, lam=0.02, grid=10)
    np.testing.assert_allclose(density.release.svm.release(data, cfg, rng=0).value[0], S.nonprivate_svm(data, cfg), atol=1e-4)
    acc = density.accuracy_vs_epsilon(300, lam=0.01, bandwidth=0.15, delta=1e-3, reps=1, rng=2, epsilons=(0.05, 1e6),
                                n_test=200)
    hi = acc[acc.epsilon == 1e6]
    assert float(hi.accuracy.iloc[0]) == pytest.approx(float(hi.nonprivate_accuracy.iloc[0]))
    with pytest.raises(DPValueError, match="lam"):
        density.SVMConfig(lam=0.0)
    with pytest.raises(DPValueError, match="labels"):
        density.release.svm.release((np.zeros((3, 2)), np.array([0.0, 1.0, 2.0])), density.SVMConfig(), rng=0)


def test_comparison_costs_compose_and_real_data_release():
    x = D.real_column("wine", "alcohol")
    assert x.shape == (178, 1) and 0 <= x.min() and x.max() <= 1
    cfg = density.CompareConfig(epsilon=0.5, delta=1e-4, bandwidth=0.08, grid=64, k=5, knorm_k=1, draws=3)
    comp = density.compare_release(x, cfg, rng=0)
    assert comp.cost.epsilon == pytest.approx(3 * 3 * 0.5) and comp.cost.delta == pytest.approx(3 * 1e-4)
    assert [c.count for c in density.comparison_costs(cfg, len(x))] == [3, 3, 3]
    big = density.compare_release(x, density.CompareConfig(epsilon=1e9, bandwidth=0.08, grid=64, methods=("gp",)), rng=0)
    np.testing.assert_allclose(big.releases["gp"].value[0], density.nonprivate_reference(x, cfg), atol=1e-4)
    assert set(comp.frame().method) == set(density.METHODS)
    with pytest.raises(DPValueError, match="K-norm"):
        density.CompareConfig(d=2)


def test_to_unit_cube_uses_public_bounds_and_counts_clipping():
    u, clipped = D.to_unit_cube(np.array([[-1.0], [5.0], [12.0]]), 0.0, 10.0)
    np.testing.assert_allclose(u[:, 0], [0.0, 0.5, 1.0])
    assert clipped == 2
    with pytest.raises(DPValueError, match="upper"):
        D.to_unit_cube(np.zeros(3), 1.0, 1.0)


def test_real_data_two_columns_diabetes():
    """bmi and bp of scikit-learn's diabetes data, rescaled by their declared public bounds: the 2-D GP and
    Fourier releases run at moderate ε and reach the non-private answer at a huge ε."""
    from dpcore.data import builtin_dataset
    x, clipped, bounds = density.unit_cube_columns(builtin_dataset("diabetes"), ["bmi", "bp"])
    assert x.shape == (442, 2) and bounds == [(10.0, 60.0), (40.0, 160.0)]
    cfg = density.CompareConfig(epsilon=1.0, bandwidth=0.1, grid=24, d=2, k=3, draws=2, methods=("gp", "fourier-laplace"))
    comp = density.compare_release(x, cfg, rng=1)
    assert all(np.isfinite(r.value).all() for r in comp.releases.values())
    huge = density.compare_release(x, density.CompareConfig(epsilon=1e9, bandwidth=0.1, grid=24, d=2, methods=("gp",)), rng=1)
    np.testing.assert_allclose(huge.releases["gp"].value[0], density.nonprivate_reference(x, cfg), atol=1e-4)


@pytest.mark.stat
def test_svm_release_noise_is_the_calibrated_gp():
    """KS of a fixed projection of the private decision function against N(⟨p, f_D⟩, σ² pᵀMp)."""
    from scipy import stats

    from dpcore.density import _kde as K
    data = D.two_class(80, 5)
    cfg = density.SVMConfig(epsilon=2.0, delta=1e-3, lam=0.05, bandwidth=0.2, grid=4)
    out = density.release.svm.svm_sample(data, cfg, 4000, 6).reshape(4000, -1)
    L = K.gp_factors(4, 0.2, 2)
    M = np.kron(L @ L.T, L @ L.T)
    p = np.cos(np.arange(16.0))
    mu = p @ S.nonprivate_svm(data, cfg).ravel()
    sd = density.calibrate_svm(cfg, (80,)).constant * math.sqrt(p @ M @ p)
    assert stats.kstest(out @ p, "norm", args=(mu, sd)).pvalue > 1e-6
    assert stats.kstest(out @ p, "norm", args=(mu, 0.7 * sd)).pvalue < 1e-6


def test_private_bandwidth_in_the_comparison_is_charged_and_used():
    from dpcore.density import _bandwidth as Bw
    x = D.real_column("wine", "alcohol")
    cfg = density.CompareConfig(epsilon=1.0, bandwidth=0.3, grid=32, draws=1, methods=("gp",), bandwidth_epsilon=0.5)
    comp = density.compare_release(x, cfg, rng=0)
    assert comp.h is not None and comp.h != 0.3
    assert comp.releases["gp"].config.bandwidth == comp.h
    assert comp.cost.epsilon == pytest.approx(1.5)
    assert [c.epsilon for c in density.comparison_costs(cfg, len(x))] == [0.5, 1.0]
    huge = density.release.bandwidth.bandwidth_sample(x, density.BandwidthConfig(epsilon=1e9), 5, 1)
    np.testing.assert_allclose(huge, Bw.nonprivate_bandwidth(x, density.BandwidthConfig()), atol=3e-3)


@pytest.mark.stat
def test_private_quantile_sampler_matches_its_exact_density():
    from scipy import stats

    from dpcore.density import _bandwidth as Bw
    x = np.array([0.1, 0.15, 0.3, 0.5, 0.55, 0.9])
    t = Bw.private_quantiles(x, 0.25, 2.0, 20_000, 3)
    grid = np.linspace(0, 1, 20_001)
    cdf = np.cumsum(np.exp(Bw.quantile_logpdf(x, 0.25, 2.0, grid))) * (grid[1] - grid[0])
    assert cdf[-1] == pytest.approx(1.0, abs=1e-3)
    assert stats.kstest(t, lambda s: np.interp(s, grid, cdf / cdf[-1])).pvalue > 1e-6

"""GP-KDE (HRW 2013 §4.1): sensitivity by brute force, the calibration, Kronecker sampling, huge ε, bad input."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpcore import density
from dpcore.density import _kde as K
from dpcore.errors import DPValueError
from dpcore.privacy.accounting import analytic_gaussian_sigma


def _mahalanobis(v, M):
    return float(np.sqrt(v @ np.linalg.solve(M, v)))


@pytest.mark.parametrize("binning", [False, True])
def test_bruteforce_sensitivity_of_the_grid_vector(binning):
    """Over all replace-one pairs of tiny datasets (records on a candidate set), the Mahalanobis norm of
    f_D − f_D′ on the grid w.r.t. K(grid) never exceeds Δ = √2/(n(2πh²)^{1/2}) and comes close to it."""
    h, grid, n = 0.15, 7, 3
    g = K.grid_axis(grid)
    M = K.gram(g, g, h) + 1e-9 * np.eye(grid)
    cand = np.linspace(0, 1, 9)
    delta = K.kde_sensitivity(n, h, 1)
    worst = 0.0
    for rest in itertools.combinations_with_replacement(cand, n - 1):
        for a, b in itertools.combinations(cand, 2):
            fa = K.kde_on_grid(np.array([*rest, a])[:, None], h, grid, binning=binning, bins=33)
            fb = K.kde_on_grid(np.array([*rest, b])[:, None], h, grid, binning=binning, bins=33)
            worst = max(worst, _mahalanobis(fa - fb, M))
    assert worst <= delta * (1 + 1e-6)
    assert worst >= 0.95 * delta            # attained (0 and 1 are grid points, K(0, 1) ≈ 0)


def test_rkhs_inequality_for_random_kernel_expansions():
    g = np.random.default_rng(0)
    h = 0.2
    for _ in range(20):
        c, a = g.normal(size=6), g.random(6)
        norm_h = math.sqrt(c @ K.gram(a, a, h) @ c)
        pts = g.random(10)
        f = K.gram(pts, a, h) @ c
        assert _mahalanobis(f, K.gram(pts, pts, h) + 1e-10 * np.eye(10)) <= norm_h * (1 + 1e-6)


def test_constants_and_calibration_switch():
    assert K.hall_c(1e-3) == pytest.approx(math.sqrt(2 * math.log(2000)))
    assert K.kde_sensitivity(100, 0.1, 2) == pytest.approx(math.sqrt(2) / (100 * 2 * math.pi * 0.01))
    cal = density.calibrate_gp(density.GPKDEConfig(epsilon=1.0, delta=1e-3, bandwidth=0.1), (100,))
    assert cal.params["calibration"] == "hall"
    assert cal.constant == pytest.approx(K.hall_c(1e-3) * K.kde_sensitivity(100, 0.1, 1))
    cal = density.calibrate_gp(density.GPKDEConfig(epsilon=5.0, delta=1e-3, bandwidth=0.1), (100,))
    assert cal.params["calibration"] == "analytic"
    assert cal.constant == pytest.approx(analytic_gaussian_sigma(5.0, 1e-3, K.kde_sensitivity(100, 0.1, 1)))
    with pytest.raises(DPValueError, match="calibration"):
        density.GPKDEConfig(epsilon=3.0, calibration="hall")
    assert cal.cost(4).total_epsilon == pytest.approx(20.0)


def test_factor_covers_the_gram_matrix():
    L = K.gp_factors(64, 0.2, 1)
    g = K.grid_axis(64)
    assert np.linalg.eigvalsh(L @ L.T - K.gram(g, g, 0.2)).min() >= -1e-12


@pytest.mark.stat
def test_kronecker_sampling_covariance():
    grid, h, n = 4, 0.4, 200_000
    z = K.sample_gp(grid, h, 2, n, 5).reshape(n, -1)
    L = K.gp_factors(grid, h, 2)
    want = np.kron(L @ L.T, L @ L.T)
    emp = z.T @ z / n
    g = K.grid_axis(grid)
    assert np.abs(emp - want).max() < 5 * math.sqrt(2 / n) + 1e-3
    assert np.abs(want - np.kron(K.gram(g, g, h), K.gram(g, g, h))).max() < 1e-6   # ≈ K(grid)


@pytest.mark.stat
def test_gp_release_projection_is_gaussian_with_the_calibrated_scale():
    """KS of a fixed projection of many draws against N(⟨p, f_D⟩, σ² pᵀMp); σ×0.7 and ×1.3 fail."""
    x = np.random.default_rng(1).beta(2, 5, 300)
    cfg = density.GPKDEConfig(epsilon=1.0, delta=1e-3, bandwidth=0.1, grid=16)
    out = density.release.kde.gp_sample(x, cfg, 5000, 2)
    L = K.gp_factors(16, 0.1, 1)
    p = np.sin(np.arange(16))
    mu = p @ K.nonprivate_kde(x, cfg)
    sd = density.calibrate_gp(cfg, (300,)).constant * math.sqrt(p @ L @ L.T @ p)
    proj = out @ p
    assert stats.kstest(proj, "norm", args=(mu, sd)).pvalue > 1e-6
    for f in (0.7, 1.3):
        assert stats.kstest(proj, "norm", args=(mu, f * sd)).pvalue < 1e-6


@pytest.mark.parametrize("d", [1, 2])
def test_huge_epsilon_gives_the_nonprivate_kde(d):
    x = np.random.default_rng(3).random((500, d))
    cfg = density.GPKDEConfig(epsilon=1e9, delta=1e-3, bandwidth=0.1, grid=32, d=d)
    rel = density.release.kde.release(x, cfg, rng=0)
    np.testing.assert_allclose(rel.value[0], K.nonprivate_kde(x, cfg), atol=1e-4)


def test_binned_kde_is_close_to_exact_and_integrates_to_about_one():
    x = np.random.default_rng(4).beta(3, 3, (5000, 2))
    e = K.kde_on_grid(x, 0.05, 64)
    b = K.kde_on_grid(x, 0.05, 64, binning=True, bins=512)
    assert np.abs(e - b).max() < 1e-3 * e.max()
    g = K.grid_axis(64)
    assert np.trapezoid(np.trapezoid(e, g, axis=1), g) == pytest.approx(1.0, abs=0.02)


def test_bad_input_names_the_parameter():
    with pytest.raises(DPValueError, match="bandwidth"):
        density.GPKDEConfig(bandwidth=0.0)
    with pytest.raises(DPValueError, match="bandwidth"):
        density.GPKDEConfig(bandwidth=-1.0)
    with pytest.raises(DPValueError, match="grid"):
        density.GPKDEConfig(grid=1000, d=2)
    with pytest.raises(DPValueError, match="grid"):
        density.GPKDEConfig(grid=100_000)
    with pytest.raises(DPValueError, match="shape"):
        density.release.kde.release(np.zeros((5, 3)), density.GPKDEConfig(), rng=0)

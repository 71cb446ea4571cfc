"""Issue 18: a public bandwidth below MIN_BANDWIDTH is refused (it made kde_sensitivity divide by zero)."""
from __future__ import annotations

import math

import pytest

from dpcore import density
from dpcore.density import _fourier as F
from dpcore.density import _kde as K
from dpcore.errors import DPValueError


@pytest.mark.parametrize("h", [1e-300, 1e-200, 0.99e-4])
def test_tiny_bandwidths_are_refused_with_the_minimum(h):
    for make in (lambda: density.GPKDEConfig(bandwidth=h), lambda: density.FourierConfig(bandwidth=h),
                 lambda: density.KNormConfig(bandwidth=h), lambda: density.CompareConfig(bandwidth=h),
                 lambda: K.kde_sensitivity(100, h, 1)):
        with pytest.raises(DPValueError, match=r"bandwidth = .* outside \[0.0001, 10\]"):
            make()


def test_sensitivity_at_the_minimum_is_finite_and_exact():
    for d in (1, 2):
        h = K.MIN_BANDWIDTH
        assert K.kde_sensitivity(1, h, d) == pytest.approx(math.sqrt(2) / (2 * math.pi * h * h) ** (d / 2), rel=1e-12)
    cfg = density.CompareConfig(bandwidth=K.MIN_BANDWIDTH, d=2, methods=("gp",))
    assert all(math.isfinite(c.epsilon) for c in density.comparison_costs(cfg, 1))


# -- issue 18: work caps on public sizes, before any allocation ------------------------------------------------
def test_draws_times_grid_points_is_capped_naming_the_product():
    """n = 10⁶, a 512² grid and 100 draws took 6.45 GB; the draws alone are 100 × 262 144 values per method."""
    with pytest.raises(DPValueError, match=r"values of the released draws = draws 100 × grid\^2 262,144 = "
                                           r"26,214,400 exceeds the cap of 8,388,608.*≤ 32 at this grid"):
        density.CompareConfig(grid=512, d=2, draws=100, methods=("gp", "fourier-laplace"))
    density.CompareConfig(grid=512, d=2, draws=32, methods=("gp", "fourier-laplace"))          # at the cap: allowed


def test_knorm_proposals_are_capped_by_k_and_draws():
    """K-norm k = 4 with 100 draws took 60–70 s (≈ 2 600 proposals, many LPs)."""
    with pytest.raises(DPValueError, match=r"expected proposals .*k = 4 .* = 2,630 exceeds the cap of 1,000.*at "
                                           r"most 38 draws at k = 4"):
        density.CompareConfig(knorm_k=4, draws=100, methods=("knorm",))
    density.CompareConfig(knorm_k=4, draws=38, methods=("knorm",))
    density.CompareConfig(knorm_k=3, draws=100, methods=("knorm",))                                # k ≤ 3: the page's 100


def test_fourier_coefficient_work_is_refused_before_the_button():
    cfg = density.CompareConfig(grid=128, d=2, k=200, draws=1, methods=("fourier-laplace",))
    with pytest.raises(DPValueError, match=r"work of the Fourier coefficients = n 1,000,000 × \(2k\+1\)\^2 160,801"):
        density.comparison_costs(cfg, 1_000_000)
    assert density.comparison_costs(cfg, 10_000)


def test_coefficients_in_blocks_equal_the_direct_sums():
    import numpy as np

    x = np.random.default_rng(3).random((3000, 2))
    direct = F.basis(x[:, 0], 40).T @ F.basis(x[:, 1], 40) / 3000
    assert np.abs(F.coefficients(x, 40) - direct).max() < 1e-12
    assert np.abs(F.coefficients(x[:, :1], 40) - F.basis(x[:, 0], 40).mean(axis=0)).max() < 1e-12


def test_compare_release_reports_progress_and_stops_when_told():
    import numpy as np

    from dpcore.errors import Cancelled

    x = np.random.default_rng(4).random((200, 1))
    cfg = density.CompareConfig(grid=32, draws=2, methods=("gp", "fourier-laplace"))
    seen = []
    density.compare_release(x, cfg, rng=0, progress=lambda done, total: seen.append((done, total)) or True)
    assert seen == [(0, 2), (1, 2), (2, 2)]
    with pytest.raises(Cancelled):
        density.compare_release(x, cfg, rng=0, progress=lambda done, total: done == 0)

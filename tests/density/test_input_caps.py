"""Issue 18: a public bandwidth below MIN_BANDWIDTH is refused (it made kde_sensitivity divide by zero)."""
from __future__ import annotations

import math

import pytest

from dpcore.density import compare as C
from dpcore.density import fourier as F
from dpcore.density import kde as K
from dpcore.density import knorm as Kn
from dpcore.errors import DPValueError


@pytest.mark.parametrize("h", [1e-300, 1e-200, 0.99e-4])
def test_tiny_bandwidths_are_refused_with_the_minimum(h):
    for make in (lambda: K.GPKDEConfig(bandwidth=h), lambda: F.FourierConfig(bandwidth=h),
                 lambda: Kn.KNormConfig(bandwidth=h), lambda: C.CompareConfig(bandwidth=h),
                 lambda: K.kde_sensitivity(100, h, 1)):
        with pytest.raises(DPValueError, match=r"bandwidth = .* outside \[0.0001, 10\]"):
            make()


def test_sensitivity_at_the_minimum_is_finite_and_exact():
    for d in (1, 2):
        h = K.MIN_BANDWIDTH
        assert K.kde_sensitivity(1, h, d) == pytest.approx(math.sqrt(2) / (2 * math.pi * h * h) ** (d / 2), rel=1e-12)
    cfg = C.CompareConfig(bandwidth=K.MIN_BANDWIDTH, d=2, methods=("gp",))
    assert all(math.isfinite(c.epsilon) for c in C.comparison_costs(cfg, 1))

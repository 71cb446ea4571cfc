"""Issue 18: the regressions' radius B is capped (public MAX_B) before (1 + B)² can overflow."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import kng
from dpcore.errors import DPValueError
from dpcore.kng.configs import MAX_B


@pytest.mark.parametrize("problem", ["linear_regression", "quantile_regression"])
@pytest.mark.parametrize("B", [1.3e154, 1e300, MAX_B * 1.001])
def test_B_over_the_cap_is_refused_naming_B_and_the_cap(problem, B):
    with pytest.raises(DPValueError, match=r"B = .* larger than the cap 1e\+06"):
        kng.make(problem, mechanism="exponential", epsilon=1.0, B=B)


@pytest.mark.parametrize("mechanism", ["kng", "exponential", "objective_perturbation"])
def test_B_at_the_cap_calibrates_to_finite_constants(mechanism):
    cfg = kng.make("linear_regression", mechanism=mechanism, epsilon=1.0, B=MAX_B)
    cal = kng.calibrate_linear_regression(cfg, (10, 2))
    assert math.isfinite(cal.sensitivity) and math.isfinite(cal.constant)


def test_simulated_dataset_limits_are_public_and_enforced():
    assert kng.max_simulated_d("mean") == kng.MAX_SIM_D
    assert kng.max_simulated_d("linear_regression") == kng.MAX_SIM_REGRESSION_D
    ds = kng.simulated_dataset("mean", 20, kng.MAX_SIM_D, rng=np.random.default_rng(0))
    assert len(ds.numeric_columns) == kng.MAX_SIM_D
    with pytest.raises(DPValueError, match="d = 11 is too large; the limit is 10"):
        kng.simulated_dataset("mean", 20, kng.MAX_SIM_D + 1, rng=np.random.default_rng(0))

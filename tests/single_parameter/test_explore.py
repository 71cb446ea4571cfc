"""prepare_xy on real tables (issue 20 item 2): columns mapped onto [−1, 1] by their public bounds, the
robust loss's response too, so the Hessian does not vanish."""
import numpy as np
import pytest

from dpcore.single_parameter import _explore as explore
from dpcore.single_parameter import FunctionalConfig, theta
from dpcore.single_parameter._analysis import analyse


def test_response_scaling_puts_diabetes_residuals_in_the_curved_region():
    ds = explore.diabetes_dataset()
    X, y = explore.prepare_xy(ds, "target", ["sex"], intercept=True, scale_response=True)
    assert np.all(np.abs(X) <= 1) and np.all(np.abs(y) <= 1)
    np.testing.assert_allclose(y, (ds.frame["target"].to_numpy() - 200) / 200)
    an = analyse((X, y), FunctionalConfig(loss="robust", geometry="hypercube"))
    # before (y in raw units, sex/2): the fit failed (Hessian singular) at ρ = 0; λ_min = 0.0106 ≈ ρ at ρ = 0.01
    assert an.lam_min == pytest.approx(0.4513, abs=1e-3) and an.lam_max == pytest.approx(0.5135, abs=1e-3)
    assert an.lam_min > an.consts.lam_c                         # in the certified region (C1) at n = 442


def test_coefficients_read_back_in_the_columns_units():
    ds = explore.diabetes_dataset()
    units = explore.coefficient_units(ds, "target", ["sex", "bmi"], intercept=True, scale_response=True)
    assert units[0][:2] == (200.0, 200.0)                       # intercept: 200 + 200·θ₀
    assert units[1][:2] == (0.0, 200.0 / 0.5) and units[2][:2] == (0.0, 200.0 / 25.0)
    X, y = explore.prepare_xy(ds, "target", ["sex", "bmi"], scale_response=True)
    theta_hat = theta.nonprivate((X, y), FunctionalConfig(loss="robust", geometry="hypercube"))
    slope_bmi = units[2][0] + units[2][1] * theta_hat[2]
    assert 5 < slope_bmi < 15                                   # ≈ 10 target points per kg/m² (OLS gives 10.2)

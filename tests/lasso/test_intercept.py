"""Private LASSO with an intercept (issue 20, item 1): the private centring means (calibration, law),
coefficients in the user's units, the sign the no-intercept fit gets wrong, and the diabetes data at a huge ε
against scikit-learn's Lasso with an intercept; the public step-scale option T = c·(nε)^(2/3)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.linear_model import Lasso

from dpcore import data as dpdata
from dpcore import lasso
from dpcore.errors import DPValueError
from dpcore.lasso import designs
from dpcore.lasso._solver import constrained_optimum, sklearn_equivalent
from dpcore.lasso.calibration import mean_scale, scaled_steps, theorem25_steps
from dpcore.lasso.release.private_fw import centre, noisy_means


def _offset_table(n=2000, seed=0):
    """Codebook bounds much wider than the data (x in [0, 10] but observed in [0, 2]; y in [0, 100]) and a
    negative slope: y = 50 − 2x + noise. Without an intercept the fit must pass through the bounds' centres."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 2, n)
    frame = pd.DataFrame({"x": x, "y": 50 - 2 * x + rng.normal(0, 1, n)})
    return dpdata.Dataset(frame, ("x", "y"), {"x": (0.0, 10.0), "y": (0.0, 100.0)}, "offset table", name="t.csv")


def test_calibration_splits_epsilon_and_states_the_means_stage():
    cal = lasso.calibrate(lasso.LassoConfig(epsilon=2.0, intercept=True, intercept_share=0.25), (1000, 9))
    q = cal.params
    assert cal.mechanism == "lasso/private-fw-intercept" and cal.epsilon == 2.0
    assert q["mean_epsilon"] == pytest.approx(0.5) and q["fw_epsilon"] == pytest.approx(1.5)
    assert q["mean_scale"] == pytest.approx(2 * 10 / (1000 * 0.5)) == mean_scale(1000, 9, 0.5)
    assert q["steps"] == theorem25_steps(1000, 1.5, 1.0)                 # T from the Frank–Wolfe share
    assert "2(p + 1)/(nε_m)" in cal.derivation and "Basic composition" in cal.derivation
    assert cal.cost(1).total_epsilon == 2.0
    assert any("centring means" in row[0] for row in lasso.accounting(cal))
    assert lasso.calibrate(lasso.LassoConfig(intercept=True), (100, 3)).params["mean_epsilon"] == pytest.approx(0.1)


def test_bad_intercept_and_step_settings_are_refused_by_name():
    with pytest.raises(DPValueError, match="intercept_share applies only with intercept=True"):
        lasso.LassoConfig(intercept_share=0.2)
    with pytest.raises(DPValueError, match=r"intercept_share = 1 must lie in \(0, 1\)"):
        lasso.LassoConfig(intercept=True, intercept_share=1.0)
    with pytest.raises(DPValueError, match="either steps"):
        lasso.LassoConfig(steps=10, step_scale=0.05)
    with pytest.raises(DPValueError, match="step_scale"):
        lasso.LassoConfig(step_scale=-1.0)


def test_noisy_means_are_laplace_around_the_means_with_the_calibrated_scale():
    X = np.zeros((50, 2))
    y = np.full(50, 0.2)
    cal = lasso.calibrate(lasso.LassoConfig(epsilon=10.0, intercept=True, intercept_share=0.5), (50, 2))
    draws = noisy_means(X, y, cal, 0, size=5000)
    b = cal.params["mean_scale"]
    assert stats.kstest(draws[:, 2] - 0.2, stats.laplace(scale=b).cdf).pvalue > 1e-6
    assert stats.kstest(draws[:, 0], stats.laplace(scale=0.7 * b).cdf).pvalue < 1e-6   # power: a wrong scale fails
    assert np.all(np.abs(draws) <= 1)


def test_centring_keeps_the_public_domain_and_leaves_inputs_alone():
    rng = np.random.default_rng(1)
    X, y = rng.uniform(-1, 1, (30, 3)), rng.uniform(-1, 1, 30)
    X0, y0 = X.copy(), y.copy()
    Xc, yc = centre(X, y, np.array([1.0, -1.0, 0.3, -1.0]))
    assert np.abs(Xc).max() <= 1 and np.abs(yc).max() <= 1
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_user_units_invert_the_public_maps_exactly():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.uniform(0, 10, 200), "b": rng.uniform(100, 300, 200)})
    frame["y"] = 3.0 + 2.0 * frame["a"] - 0.5 * frame["b"]
    ds = dpdata.Dataset(frame, ("a", "b", "y"), {"a": (0, 10), "b": (100, 300), "y": (-200, 100)}, "exact")
    d = designs.prepare_design(ds, "y", ["a", "b"])
    coef, *_ = np.linalg.lstsq(np.c_[np.ones(200), d.X], d.y, rcond=None)   # a + ⟨x′, θ⟩ in scaled units
    table = d.user_units(coef, intercept=True)
    np.testing.assert_allclose(table.iloc[:, 2], [3.0, 2.0, -0.5], atol=1e-9)


def test_intercept_gets_the_sign_the_no_intercept_fit_gets_wrong():
    ds = _offset_table()
    d = designs.prepare_design(ds, "y", ["x"])
    slope = {}
    for intercept in (False, True):
        cfg = lasso.LassoConfig(epsilon=1e6, intercept=intercept)
        slope[intercept] = d.user_units(lasso.release((d.X, d.y), cfg, rng=0).value, intercept).iloc[1, 2]
    assert slope[False] > 0                       # forced through the bounds' centres: the wrong sign
    assert slope[True] == pytest.approx(-2.0, abs=0.15)


def test_intercept_release_at_epsilon_one_is_released_and_costs_epsilon():
    d = designs.prepare_design(_offset_table(), "y", ["x"])
    r = lasso.release((d.X, d.y), lasso.LassoConfig(epsilon=1.0, intercept=True), rng=3)
    assert r.value.shape == (2,) and np.all(np.isfinite(r.value))
    assert r.cost.total_epsilon == 1.0 and r.cost.delta == 1e-6
    assert any("Intercept" in t for t in r.notes_of("info"))


@pytest.mark.parametrize("radius", [0.5, 1.0])
def test_diabetes_at_a_huge_epsilon_has_the_signs_of_scikit_learns_intercept_lasso(radius):
    ds = designs.diabetes_dataset()
    cols = list(ds.numeric_columns)
    d = designs.prepare_design(ds, cols[-1], cols[:-1])
    r = lasso.release((d.X, d.y), lasso.LassoConfig(epsilon=1e6, radius=radius, intercept=True), rng=5)
    # scikit-learn: Lasso with an intercept on the same public scaling (halved, as the release), at the penalty
    # equivalent to the ℓ1 radius (from the constrained optimum's KKT conditions)
    Xh, yh = d.X / 2, d.y / 2
    opt = constrained_optimum(Xh - Xh.mean(0), yh - yh.mean(), radius, "l1", tol=1e-10)
    alpha, _ = sklearn_equivalent(Xh - Xh.mean(0), yh - yh.mean(), opt, radius)
    sk = Lasso(alpha=alpha, fit_intercept=True, tol=1e-12, max_iter=200_000).fit(Xh, yh)
    big = np.abs(sk.coef_) > 0.02
    assert big.sum() >= 2
    np.testing.assert_array_equal(np.sign(r.value[1:][big]), np.sign(sk.coef_[big]))
    assert np.abs(r.value[1:] - sk.coef_).max() < 0.1              # Frank–Wolfe's T = 20 000 steps, not exact
    pred = (r.value[0] + d.X @ r.value[1:]) / 2          # y′ = a + ⟨x′, θ⟩, halved like sklearn's data
    assert np.sqrt(np.mean((pred - sk.predict(Xh)) ** 2)) < 0.1 * np.std(yh)


def test_step_scale_gives_the_public_step_count():
    assert scaled_steps(10_000, 1.0, 0.05) == round(0.05 * 1e4 ** (2 / 3))
    cal = lasso.calibrate(lasso.LassoConfig(step_scale=0.05), (10_000, 100))
    assert cal.params["steps"] == 23 and cal.params["steps_source"] == "T = 0.05·(nε)^(2/3)"
    assert theorem25_steps(10_000, 1.0, 1.0) > 10 * cal.params["steps"]

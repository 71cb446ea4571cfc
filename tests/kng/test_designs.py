"""Tests for dpcore.kng.designs (the KNG paper's Algorithm 1, §5), formerly in dpcore.data (still re-exported there)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore import data as dpdata
from dpcore.errors import DataError, DPValueError
from dpcore.kng import designs as D


def test_designs_are_the_kng_public_api_and_not_dpcore_data():
    from dpcore import kng
    for name in D.__all__:
        assert getattr(kng, name) is getattr(D, name), name
        assert not hasattr(dpdata, name), f"dpcore.data (shared) re-exports the KNG design {name}"


def test_regression_simulators_catalogue_and_datasets():
    assert set(D.REGRESSION_SIMULATORS) == {"linear_regression", "quantile_regression"}
    assert D.REGRESSION_SIMULATORS["linear_regression"].defaults["d"] == D.FIGURE1_D
    assert D.REGRESSION_SIMULATORS["quantile_regression"].defaults["d"] == len(D.figure2_theta())
    for kind in D.REGRESSION_SIMULATORS:
        a = D.simulate_regression_dataset(kind, 300, rng=1)
        b = D.simulate_regression_dataset(kind, 300, rng=2)
        assert dict(a.bounds) == dict(b.bounds) and not a.frame.equals(b.frame)   # bounds from the design
        assert set(a.bounds) == set(a.numeric_columns) == set(a.frame.columns)
        assert "seed = 1" in a.provenance and a.n_rows == 300 and a.frame.index[0] == 1
    lin = D.simulate_regression_dataset("linear_regression", 400, rng=4)
    assert list(lin.frame.columns) == [f"x{j}" for j in range(1, 12)] + ["y"]
    X, y = D.simulate_regression(400, D.figure1_theta(), rng=4)
    np.testing.assert_array_equal(lin.frame[[f"x{j}" for j in range(1, 12)]].to_numpy(), X[:, 1:])
    np.testing.assert_array_equal(lin.frame["y"].to_numpy(), y)
    assert lin.bounds["x5"] == (-1.0, 1.0)
    assert lin.bounds["y"][1] == pytest.approx(np.abs(D.figure1_theta()).sum() + 4)
    q = D.simulate_regression_dataset("quantile_regression", 100, rng=4)
    assert list(q.frame.columns) == ["x1", "y"] and "theta* = (0, -1)" in q.provenance
    q3 = D.simulate_regression_dataset("quantile_regression", 100, rng=4, d=3, theta=[1.0, 2.0, 3.0])
    assert list(q3.frame.columns) == ["x1", "x2", "y"] and q3.bounds["y"] == (-10.0, 10.0)
    with pytest.raises(DataError, match="theta has 2 entries but d = 3"):
        D.simulate_regression_dataset("linear_regression", 10, rng=0, d=3, theta=[0, 1])
    with pytest.raises(DataError, match="has no parameter"):
        D.simulate_regression_dataset("linear_regression", 10, rng=0, loc=1)
    with pytest.raises(DataError, match="not a regression simulator"):
        D.simulate_regression_dataset("normal", 10, rng=0)


# ------------------------------------------------------------------------------------------------
# Algorithm 1 (KNG paper §5)
# ------------------------------------------------------------------------------------------------
def test_figure_thetas_exact():
    t1 = D.figure1_theta()
    expected = [0.0, -1.0] + [-1.0 + 2.0 * k / 11 for k in range(1, 11)]
    assert t1.shape == (12,) and D.FIGURE1_D == 12
    np.testing.assert_allclose(t1, expected, rtol=0, atol=1e-15)
    assert t1[2] == pytest.approx(-1 + 2 / 11) and t1[-1] == pytest.approx(1 - 2 / 11)
    np.testing.assert_array_equal(D.figure2_theta(), [0.0, -1.0])
    t1[0] = 99.0                                     # callers get fresh arrays
    assert D.figure1_theta()[0] == 0.0


def test_simulate_regression_law():
    theta = D.figure1_theta()
    n = 20_000
    X, y = D.simulate_regression(n, theta, rng=2024)
    assert X.shape == (n, 12) and y.shape == (n,)
    assert np.all(X[:, 0] == 1.0)
    assert np.all(np.abs(X[:, 1:]) < 1.0)
    assert X[:, 1:].min() < -0.99 and X[:, 1:].max() > 0.99
    resid = y - X @ theta
    assert abs(resid.var() - 1.0) < 5 * np.sqrt(2 / n)
    ols = np.linalg.lstsq(X, y, rcond=None)[0]
    se = np.sqrt(np.diag(np.linalg.inv(X.T @ X)))      # sigma = 1
    assert np.all(np.abs(ols - theta) < 5 * se)
    wrong = theta.copy()
    wrong[3] += 0.1
    assert not np.all(np.abs(ols - wrong) < 5 * se)     # the check has power


def test_simulate_regression_reproducible_and_chunk_invariant():
    theta = D.figure2_theta()
    X1, y1 = D.simulate_regression(1001, theta, rng=7)
    X2, y2 = D.simulate_regression(1001, theta, rng=7, chunk=13)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    _, y3 = D.simulate_regression(1001, theta, rng=8)
    assert not np.array_equal(y1, y3)
    Xf, yf = D.simulate_regression(1001, theta, rng=7, dtype=np.float32)
    assert Xf.dtype == np.float32 and yf.dtype == np.float32
    np.testing.assert_allclose(yf, y1, rtol=1e-6, atol=1e-6)


def test_chunked_suffstats_equal_direct_computation():
    theta = D.figure1_theta()
    n = 3001
    X, y = D.simulate_regression(n, theta, rng=99)
    for chunk in (1, 17, 250_000):
        ss = D.regression_suffstats_chunked(n, theta, rng=99, chunk=chunk)
        assert ss.n == n and ss.d == 12
        np.testing.assert_allclose(ss.XtX, X.T @ X, rtol=1e-10)
        np.testing.assert_allclose(ss.Xty, X.T @ y, rtol=1e-10, atol=1e-9)
        assert ss.yty == pytest.approx(float(y @ y), rel=1e-10)
        assert ss.max_abs_y == np.max(np.abs(y))          # same draws: exact
    np.testing.assert_allclose(ss.ols(), np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError):
        ss.XtX[0, 0] = 1.0                                  # read-only


def test_paper_rescale_and_rescaled_suffstats():
    theta = D.figure2_theta()
    X, y = D.simulate_regression(500, theta, rng=5)
    y2, R = D.paper_rescale(y)
    assert R == np.max(np.abs(y)) and np.max(np.abs(y2)) == 1.0
    np.testing.assert_allclose(y2 * R, y, rtol=1e-15)
    ss, R2 = D.regression_suffstats_chunked(500, theta, rng=5).rescaled()
    assert R2 == R and ss.max_abs_y == 1.0
    np.testing.assert_allclose(ss.Xty, X.T @ y2, rtol=1e-10, atol=1e-12)
    assert ss.yty == pytest.approx(float(y2 @ y2), rel=1e-10)
    with pytest.raises(DataError, match="all zeros"):
        D.paper_rescale(np.zeros(3))
    with pytest.raises(DPValueError, match="non-finite"):
        D.paper_rescale([1.0, np.nan])
    assert "not private" in D.paper_rescale.__doc__.lower()


def test_regression_validation():
    with pytest.raises(DataError, match="regression_suffstats_chunked"):
        D.simulate_regression(10_000_000, D.figure1_theta(), rng=0)
    with pytest.raises(DPValueError, match="theta_star"):
        D.simulate_regression(10, [0.0, np.nan], rng=0)
    with pytest.raises(DataError, match="floating"):
        D.simulate_regression(10, [0.0, 1.0], rng=0, dtype=int)
    with pytest.raises(DPValueError, match="n = 0"):
        D.regression_suffstats_chunked(0, [0.0, 1.0], rng=0)


@pytest.mark.stat
def test_regression_design_and_noise_laws_ks():
    theta = D.figure1_theta()
    X, y = D.simulate_regression(5000, theta, rng=31)
    ux = X[:, 1:].ravel()[::11][:5000]                       # 5 000 draws spread over columns
    e = y - X @ theta
    assert stats.kstest(ux, stats.uniform(-1, 2).cdf).pvalue > 1e-6
    assert stats.kstest(e, stats.norm().cdf).pvalue > 1e-6
    # power: a wrong law is rejected on the same draws
    assert stats.kstest(ux, stats.uniform(-1.3, 2.6).cdf).pvalue < 1e-6
    assert stats.kstest(e, stats.norm(scale=1.3).cdf).pvalue < 1e-6

"""Data for private LASSO: simulator, public-bounds map into [−1, 1], bad input named with the fix."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.data import Dataset
from dpcore.errors import DataError, DPValueError
from dpcore.lasso import designs


def test_simulator_respects_the_domain_and_sparsity():
    X, y, th = designs.sparse_regression(300, 50, 4, radius=2.0, rng=0)
    assert X.shape == (300, 50) and np.abs(X).max() <= 1 and np.abs(y).max() <= 1
    assert np.count_nonzero(th) == 4 and np.abs(th).sum() == pytest.approx(0.8 * 2.0)
    np.testing.assert_array_equal(designs.sparse_regression(300, 50, 4, radius=2.0, rng=0)[0], X)


def test_p_much_larger_than_n_is_allowed_but_capped():
    X, _, _ = designs.sparse_regression(20, 5000, 3, rng=1)
    assert X.shape == (20, 5000)
    with pytest.raises(DPValueError, match="n·p"):
        designs.sparse_regression(100_000, 10_000, rng=1)


def test_diabetes_is_mapped_by_its_public_bounds():
    ds = designs.diabetes_dataset()
    cov = [c for c in ds.numeric_columns if c != "target"]
    d = designs.prepare_design(ds, "target", cov)
    assert d.X.shape == (442, 10) and np.abs(d.X).max() <= 1 and np.abs(d.y).max() <= 1
    lo, hi = ds.bounds["bmi"]
    j = cov.index("bmi")
    np.testing.assert_allclose(d.X[:, j], (ds.frame["bmi"] - (lo + hi) / 2) / ((hi - lo) / 2))
    assert d.clip_warning is None


def _ds(frame, bounds):
    return Dataset(frame, tuple(frame.columns), bounds, "test")


def test_constant_covariate_is_not_refused_because_that_would_publish_a_fact_about_the_data():
    f = pd.DataFrame({"a": np.linspace(0, 1, 20), "c": np.ones(20), "y": np.linspace(-1, 1, 20)})
    d = designs.prepare_design(_ds(f, {"a": (0, 1), "c": (0, 2), "y": (-1, 1)}), "y", ["a", "c"])
    assert d.X.shape == (20, 2) and np.all(d.X[:, 1] == 0)


def test_non_numeric_covariate_is_named():
    f = pd.DataFrame({"a": ["x", "y"] * 10, "y": np.linspace(-1, 1, 20)})
    with pytest.raises(DataError, match="a"):
        designs.prepare_design(_ds(f, {"a": (0, 1), "y": (-1, 1)}), "y", ["a"])


def test_bounds_that_clip_most_rows_warn_with_the_fraction():
    f = pd.DataFrame({"a": np.linspace(0, 10, 20), "y": np.linspace(-1, 1, 20)})
    d = designs.prepare_design(_ds(f, {"a": (0, 1), "y": (-1, 1)}), "y", ["a"])
    assert d.clipped_fraction == pytest.approx(18 / 20)
    assert "90%" in d.clip_warning and "Widen" in d.clip_warning


def test_response_among_covariates_and_no_bounds():
    f = pd.DataFrame({"a": np.linspace(0, 1, 20), "y": np.linspace(-1, 1, 20)})
    with pytest.raises(DataError, match="response"):
        designs.prepare_design(_ds(f, {"a": (0, 1), "y": (-1, 1)}), "y", ["a", "y"])
    with pytest.raises(DataError, match="bounds"):
        designs.prepare_design(_ds(f, {"y": (-1, 1)}), "y", ["a"])


def test_simulated_table_cap_names_p_and_n():
    with pytest.raises(DPValueError, match="p \\(covariates\\) or n"):
        designs.simulated_dataset(20_000, 1000)
    ds, th = designs.simulated_dataset(200, 30, 4, rng=0)
    assert ds.kind == "simulated" and ds.frame.shape == (200, 31) and np.count_nonzero(th) == 4


def test_simulated_table_p_cap():
    with pytest.raises(DPValueError, match="p \\(covariates\\) = 2,001"):
        designs.simulated_dataset(100, 2001)

"""Tests for dpcore.data.simulate: univariate laws, the simulator catalogue, simulated datasets."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore import data as D
from dpcore.errors import DataError, DPValueError

# ------------------------------------------------------------------------------------------------
# Univariate simulators and simulate_dataset
# ------------------------------------------------------------------------------------------------
UNIVARIATE_LAWS = [
    ("normal", {"loc": 1.0, "scale": 2.0}, stats.norm(1, 2), stats.norm(1, 2.6)),
    ("uniform", {"low": -3.0, "high": 5.0}, stats.uniform(-3, 8), stats.uniform(-3, 8 * 1.3)),
    ("skewed", {"mu": 0.5, "sigma": 0.8}, stats.lognorm(s=0.8, scale=np.exp(0.5)),
     stats.lognorm(s=0.8 * 1.3, scale=np.exp(0.5))),
    ("heavy_tailed", {"df": 2.0}, stats.t(2), stats.t(3)),
]


@pytest.mark.stat
@pytest.mark.parametrize("kind, params, law, wrong", UNIVARIATE_LAWS, ids=[u[0] for u in UNIVARIATE_LAWS])
def test_univariate_simulators_ks(kind, params, law, wrong):
    x = D.simulate_univariate(kind, 50_000, rng=11, **params)      # enough to tell t(2) from t(3)
    assert stats.kstest(x, law.cdf).pvalue > 1e-6
    assert stats.kstest(x, wrong.cdf).pvalue < 1e-6


def test_univariate_defaults_and_validation():
    assert set(D.UNIVARIATE_KINDS) == {"normal", "uniform", "skewed", "heavy_tailed"}
    np.testing.assert_array_equal(D.simulate_univariate("normal", 5, rng=1), D.simulate_univariate("normal", 5, rng=1))
    with pytest.raises(DataError, match="'gamma' is not a simulator"):
        D.simulate_univariate("gamma", 5, rng=1)
    with pytest.raises(DataError, match="no parameter.*'sd'.*'loc', 'scale'"):
        D.simulate_univariate("normal", 5, rng=1, sd=2)
    with pytest.raises(DPValueError, match="scale = -1.0 must be > 0"):
        D.simulate_univariate("normal", 5, rng=1, scale=-1)
    with pytest.raises(DPValueError, match="swap"):
        D.simulate_univariate("uniform", 5, rng=1, low=2, high=1)
    with pytest.raises(DPValueError, match="df = 0.0"):
        D.simulate_univariate("heavy_tailed", 5, rng=1, df=0)


def test_simulators_catalogue():
    assert set(D.SIMULATORS) == set(D.UNIVARIATE_KINDS)   # the KNG regression designs: dpcore.kng.designs
    for name, info in D.SIMULATORS.items():
        assert info.name == name and info.label and info.description


@pytest.mark.parametrize("kind", list(D.SIMULATORS))
def test_simulate_dataset_bounds_come_from_design(kind):
    a = D.simulate_dataset(kind, 300, rng=1)
    b = D.simulate_dataset(kind, 300, rng=2)
    assert dict(a.bounds) == dict(b.bounds)                  # not computed from the sample
    assert not a.frame.equals(b.frame)
    assert set(a.bounds) == set(a.numeric_columns) == set(a.frame.columns)
    assert "seed = 1" in a.provenance and a.n_rows == 300
    assert a.frame.index.name == "row" and a.frame.index[0] == 1


def test_simulate_dataset_columns_and_values():
    u = D.simulate_dataset("uniform", 200, rng=3, low=-2, high=7)
    assert list(u.frame.columns) == ["x"] and u.bounds["x"] == (-2.0, 7.0)
    assert "low=-2" in u.provenance and "high=7" in u.provenance
    nrm = D.simulate_dataset("normal", 50, rng=3, loc=10, scale=2)
    assert nrm.bounds["x"] == (2.0, 18.0)
    with pytest.raises(DataError, match="is not a simulator"):
        D.simulate_dataset("linear_regression", 10, rng=0)   # a KNG design: dpcore.kng.simulate_regression_dataset
    g = np.random.default_rng(123)
    assert "entropy 123" in D.simulate_dataset("normal", 10, rng=g).provenance

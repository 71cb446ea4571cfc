"""Tests for dpcore.data.builtin: scikit-learn's bundled datasets with public bounds from domain knowledge."""
from __future__ import annotations

import socket

import numpy as np
import pytest

from dpcore import data as D
from dpcore.errors import DataError


@pytest.fixture
def offline(monkeypatch):
    """Any attempt to open a network connection fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("built-in datasets must load without the network")
    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("name, n, n_cols", [("diabetes", 442, 11), ("breast_cancer", 569, 6), ("wine", 178, 6)])
def test_builtin_datasets_load_offline_with_declared_bounds(offline, name, n, n_cols):
    ds = D.builtin_dataset(name)
    info = D.BUILTIN_DATASETS[name]
    assert ds.n_rows == n and ds.frame.shape[1] == n_cols
    assert ds.kind == "built-in" and ds.is_demo
    assert ds.numeric_columns == tuple(ds.frame.columns)
    assert all(str(t) == "float64" for t in ds.frame.dtypes)
    assert set(ds.bounds) == {b.column for b in info.bounds} and "target" in ds.bounds
    for b in info.bounds:
        assert ds.bounds[b.column] == (b.lower, b.upper)
        assert ds.bound_source(b.column) == "declared"
        assert ds.impute_value(b.column) == (b.lower + b.upper) / 2
        # the rationale of every bound travels with the dataset
        assert any(note.startswith(f"{b.column} in [") and b.rationale in note for note in ds.notes)
        assert b.rationale and b.units
    assert "scikit-learn" in ds.provenance and info.loader in ds.provenance
    # the bounds hold the data (domain knowledge that is right): nothing is clipped or imputed
    pc = D.public_columns(ds, list(ds.bounds))
    assert pc.n == n and all(d.n_clipped == 0 and d.n_imputed == 0 for d in pc.diagnostics)
    assert D.builtin_dataset(name).fingerprint() == ds.fingerprint()          # deterministic


def test_builtin_bounds_are_not_the_data_min_max():
    for name in D.BUILTIN_DATASETS:
        ds = D.builtin_dataset(name)
        for col, (lo, hi) in ds.bounds.items():
            x = ds.frame[col].to_numpy()
            # a data-derived bound would equal the min or the max; binary/class codes are the exception
            if col not in ("sex", "target"):
                assert lo != x.min() and hi != x.max(), (name, col)


def test_diabetes_is_in_raw_units_with_the_stated_bounds():
    ds = D.builtin_dataset("diabetes")
    assert ds.bounds["age"] == (18.0, 80.0) and ds.bounds["bmi"] == (10.0, 60.0)
    assert ds.bounds["bp"] == (40.0, 160.0) and ds.bounds["target"] == (0.0, 400.0)
    assert 18 < np.median(ds.frame["age"]) < 80 and 15 < np.median(ds.frame["bmi"]) < 40   # raw, not scaled
    assert set(np.unique(ds.frame["sex"])) == {1.0, 2.0}


def test_unknown_builtin_name():
    with pytest.raises(DataError, match="'iris' not known.*'diabetes', 'breast_cancer', 'wine'"):
        D.builtin_dataset("iris")

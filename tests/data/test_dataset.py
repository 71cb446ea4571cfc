"""Tests for dpcore.data.dataset: public bounds, imputation values, bound sources, origin, fingerprint."""
from __future__ import annotations

import pytest

from dpcore import data as D
from dpcore.errors import DataError, DPValueError


# ------------------------------------------------------------------------------------------------
# Dataset
# ------------------------------------------------------------------------------------------------
def test_dataset_bounds_and_fingerprint():
    ds = D.load_csv(b"x,y\n1,2\n3,4\n")
    assert dict(ds.bounds) == {}
    ds2 = ds.with_bounds("x", 0, 10)
    assert ds2.bounds["x"] == (0.0, 10.0) and dict(ds.bounds) == {}
    assert ds.fingerprint() == D.load_csv(b"x,y\n1,2\n3,4\n").fingerprint()
    assert ds.fingerprint() != ds2.fingerprint()
    assert ds.fingerprint(include_bounds=False) == ds2.fingerprint(include_bounds=False)
    assert ds.fingerprint() != D.load_csv(b"x,y\n1,2\n3,5\n").fingerprint()
    with pytest.raises(DPValueError, match="swap"):
        ds.with_bounds("x", 5, 1)
    with pytest.raises(DPValueError, match="finite"):
        ds.with_bounds("x", 0, float("inf"))
    with pytest.raises(DataError, match="'q' not found"):
        ds.with_bounds("q", 0, 1)
    with pytest.raises(TypeError):
        ds.bounds["x"] = (0, 1)                      # read-only mapping

"""Tests for dpcore.data.dataset: public bounds, imputation values, bound sources, kind, fingerprint."""
from __future__ import annotations

import numpy as np
import pandas as pd
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


# ------------------------------------------------------------------------------------------------
# Imputation values and bound sources (issue: n is public, data-derived bounds are not DP)
# ------------------------------------------------------------------------------------------------
def _people():
    return D.load_csv(b"age,income\n34,52000\n51,\n29,48000\n62,75000\n")


def test_with_bounds_stores_midpoint_imputation_and_declared_source():
    ds = _people().with_bounds("age", 18, 90)
    assert ds.bounds["age"] == (18.0, 90.0)
    assert ds.impute_value("age") == 54.0 and ds.bound_source("age") == "declared"
    assert ds.bound_source("income") is None and ds.impute_value("income") is None
    assert ds.bounded_columns == ("age",)
    ds2 = ds.with_bounds("income", 0, 200_000, impute=30_000)
    assert ds2.bounded_columns == ("age", "income")
    assert ds2.impute_value("income") == 30_000.0 and ds2.impute_value("age") == 54.0
    # new bounds without an impute value: back to the new midpoint
    assert ds2.with_bounds("income", 0, 100).impute_value("income") == 50.0
    with pytest.raises(TypeError):
        ds2.imputes["age"] = 1.0                                # read-only mapping


def test_imputation_value_must_lie_within_the_bounds():
    with pytest.raises(DataError, match=r"imputation value for column 'age' = 200 lies outside its bounds \[18, 90\]"):
        _people().with_bounds("age", 18, 90, impute=200)
    with pytest.raises(DPValueError, match="imputation value for column 'age'"):
        _people().with_bounds("age", 18, 90, impute=float("nan"))


def test_unknown_source_and_orphan_entries_are_refused():
    with pytest.raises(DataError, match="source = 'guessed'.*'declared'"):
        _people().with_bounds("age", 0, 1, source="guessed")
    frame = pd.DataFrame({"x": [1.0, 2.0]})
    with pytest.raises(DataError, match="imputation value given for column.*'x'.*no bounds"):
        D.Dataset(frame, ("x",), {}, "t", imputes={"x": 1.0})
    with pytest.raises(DataError, match="kind = 'web'"):
        D.Dataset(frame, ("x",), {}, "t", kind="web")


def test_bounds_from_data_are_marked_from_data_in_the_dataset():
    ds = _people().with_bounds_from_data("age")
    assert ds.bounds["age"] == (29.0, 62.0)
    assert ds.bound_source("age") == "from data"
    assert "NOT differentially private" in D.bounds_warning(ds, "age")
    # the mark travels with the dataset (copies keep it) ...
    ds2 = ds.with_bounds("income", 0, 1e6)
    assert ds2.bound_source("age") == "from data" and ds2.bound_source("income") == "declared"
    assert D.bounds_warning(ds2, "income") is None
    # ... and declaring bounds again replaces it
    assert ds2.with_bounds("age", 0, 120).bound_source("age") == "declared"
    with pytest.raises(DataError, match="constant"):
        D.load_csv(b"c\n3\n3\n").with_bounds_from_data("c")


def test_without_bounds_drops_bounds_imputation_and_source():
    ds = _people().with_bounds("age", 0, 100).with_bounds_from_data("income").without_bounds("income")
    assert dict(ds.bounds) == {"age": (0.0, 100.0)}
    assert set(ds.imputes) == set(ds.bound_sources) == {"age"}


def test_fingerprint_tracks_imputation_and_source_but_not_their_defaults():
    base = _people()
    a = base.with_bounds("age", 0, 100)
    assert a.fingerprint() == base.with_bounds("age", 0, 100, impute=50).fingerprint()   # default midpoint
    assert a.fingerprint() != base.with_bounds("age", 0, 100, impute=40).fingerprint()
    assert a.fingerprint() != base.with_bounds("age", 0, 100, source="from data").fingerprint()
    assert a.fingerprint(include_bounds=False) == base.fingerprint(include_bounds=False)
    # a dataset declared with explicit default imputes/sources digests like one without them
    frame = pd.DataFrame({"x": [1.0, 2.0]})
    plain = D.Dataset(frame, ("x",), {"x": (0, 4)}, "t")
    explicit = D.Dataset(frame, ("x",), {"x": (0, 4)}, "t", imputes={"x": 2.0}, bound_sources={"x": "declared"})
    assert plain.fingerprint() == explicit.fingerprint()


def test_fingerprint_kept_on_the_instance_is_that_instances_digest():
    base = _people()
    first = (base.fingerprint(), base.fingerprint(include_bounds=False))
    assert (base.fingerprint(), base.fingerprint(include_bounds=False)) == first      # memoised, same values
    bounded = base.with_bounds("age", 0, 100)                                        # a new instance: its own digest
    assert bounded.fingerprint() != base.fingerprint()
    assert bounded.fingerprint() == _people().with_bounds("age", 0, 100).fingerprint()
    assert bounded.fingerprint(include_bounds=False) == first[1]
    assert bounded.fingerprint() == bounded._digest(True) and base.fingerprint() == base._digest(True)


def test_kind_marks_demo_data():
    assert _people().kind == "user" and not _people().is_demo
    assert D.simulate_dataset("normal", 5, rng=0).is_demo
    frame = pd.DataFrame({"x": np.arange(3.0)})
    assert D.Dataset(frame, ("x",), {}, "t", kind="built-in").is_demo


def test_edit_bounds_is_what_the_bounds_form_means():
    ds = _people()
    assert ds.edit_bounds("age", None, 10) is ds                       # incomplete: nothing to do
    a = ds.edit_bounds("age", 0, 100)
    assert a.bounds["age"] == (0.0, 100.0) and a.bound_source("age") == "declared" and a.impute_value("age") == 50
    assert a.edit_bounds("age", 0.0, 100.0) is a                       # unchanged: same object
    assert a.edit_bounds("age", 0, 100, impute=50) is a                # the midpoint spelled out
    b = a.edit_bounds("age", 0, 100, impute=30)
    assert b.impute_value("age") == 30 and b.edit_bounds("age", 0, 100, 30) is b
    assert "age" not in b.edit_bounds("age", None, None).bounds          # cleared: no bounds
    leaky = ds.with_bounds_from_data("age")
    assert leaky.edit_bounds("age", 29, 62) is leaky                     # untouched: still "from data"
    assert leaky.edit_bounds("age", 29, 62, impute=40).bound_source("age") == "from data"
    assert leaky.edit_bounds("age", 0, 62).bound_source("age") == "declared"
    with pytest.raises(DPValueError, match="swap"):
        ds.edit_bounds("age", 5, 1)


def test_dataset_kinds_are_the_release_rules_kinds():
    from dpcore import privacy as P
    assert D.DATA_KINDS == P.DATA_KINDS
    assert P.data_kind(_people()) == P.USER
    assert P.data_kind(D.simulate_dataset("normal", 5, rng=0)) == P.SIMULATED
    assert P.data_kind(D.builtin_dataset("wine")) == P.BUILTIN

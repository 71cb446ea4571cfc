"""Codebooks and classroom scenarios (issue 32 item 6 and its teacher items): bounds filled from a codebook are
declarations (source "codebook") with exactly the codebook's values — never the data's min/max unless the codebook
says so — and every layer that asks "was this read from the data?" answers no for them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore.data import codebook as cbk
from dpcore.data import scenarios
from dpcore.errors import DataError


def _minmax(ds, col):
    v = ds.frame[col].dropna()
    return float(v.min()), float(v.max())


@pytest.mark.parametrize("name", list(dpdata.BUILTIN_DATASETS))
def test_issue32_6_builtin_codebook_fills_exactly_the_documented_ranges(name):
    base = dpdata.builtin_dataset(name)
    bare = base.without_bounds(base.numeric_columns[0])
    for c in list(bare.bounds):
        bare = bare.without_bounds(c)
    book = cbk.builtin_codebook(name)
    ds, filled, unknown = cbk.apply_codebook(bare, book)
    assert not unknown and set(filled) == set(book.ranges)
    for col in filled:
        assert ds.bounds[col] == book.ranges[col] and ds.bound_source(col) == "codebook"
        if ds.bounds[col] == _minmax(ds, col):       # equal to the data's min/max only where the codebook says so
            assert book.ranges[col] == _minmax(ds, col)
    assert sum(ds.bounds[c] != _minmax(ds, c) for c in filled) >= len(filled) - 1   # (diabetes' sex: coded 1 or 2)


def test_issue32_6_filled_values_never_equal_the_data_min_max_unless_the_codebook_says_so():
    g = np.random.default_rng(6)
    for _ in range(40):
        k = int(g.integers(1, 6))
        frame = pd.DataFrame({f"c{j}": g.normal(g.uniform(-50, 50), g.uniform(0.1, 9), 30) for j in range(k)})
        ds = dpdata.Dataset(frame, tuple(frame.columns), {}, "t")
        named = [c for c in frame.columns if g.random() < 0.7]
        ranges = {}
        for c in named:
            lo, hi = _minmax(ds, c)
            ranges[c] = (lo, hi) if g.random() < 0.3 else (lo - float(g.uniform(0.5, 5)), hi + float(g.uniform(0, 5)))
        out, filled, _ = cbk.apply_codebook(ds, cbk.Codebook(ranges, "test"))
        assert list(filled) == named
        for c in frame.columns:
            if c in ranges:
                assert out.bounds[c] == ranges[c] and out.bound_source(c) == "codebook"
                assert (out.bounds[c] == _minmax(ds, c)) == (ranges[c] == _minmax(ds, c))
            else:
                assert c not in out.bounds           # never filled from the data


@pytest.mark.parametrize("text, words", [
    (b"name,lower,upper\nage,1,2\n", ["no column 'column'", "column, lower, upper"]),
    (b"column,lower,upper\nage,5,5\n", ["line 2", "'age'", "lower = 5", "upper = 5", "swap or widen"]),
    (b"column,lower,upper\nage,1,2\nbmi,ten,60\n", ["line 3", "lower of 'bmi'", "'ten'", "plain number"]),
    (b"column,lower,upper\nage,1,inf\n", ["line 2", "upper of 'age'", "not finite"]),
    (b"column,lower,upper\nage,1,2\nage,0,3\n", ["line 3", "named twice"]),
    (b"column,lower,upper\n,1,2\n", ["line 2", "column name is empty"]),
])
def test_issue32_6_a_bad_codebook_is_refused_naming_the_line_the_value_and_the_fix(text, words):
    with pytest.raises(DataError) as exc:
        cbk.read_codebook(text, name="cb.csv")
    assert all(w in str(exc.value) for w in words), str(exc.value)


def test_issue32_6_codebook_bounds_are_declarations_for_every_layer():
    frame = pd.DataFrame({"a": [1.0, 3.0, 5.0], "b": [0.0, 2.0, 4.0]})
    ds = dpdata.Dataset(frame, ("a", "b"), {}, "t.csv")
    ds, _, _ = cbk.apply_codebook(ds, cbk.Codebook({"a": (0, 10)}, "mine"))
    ds = ds.with_bounds_from_data("b")
    assert P.read_from_data(ds) == ("b",)                              # issue 29's one rule: only "from data"
    assert P.check_bounds(P.bound_sources(ds, ["a"])).dp and not P.check_bounds(P.bound_sources(ds, ["b"])).dp
    assert dpdata.public_column(ds, "a").declared and not dpdata.public_column(ds, "b").declared
    assert dpdata.bounds_warning(ds, "a") is None and dpdata.bounds_warning(ds, "b")
    edited = ds.edit_bounds("a", 0.0, 10.0)
    assert edited is ds                                                # unchanged values keep their source
    assert ds.edit_bounds("a", 0.0, 12.0).bound_source("a") == "declared"   # a typed change is the user's
    from dpcore import export
    steps = repr(export.from_dataset(ds, ["a", "b"]).steps)
    assert "'source': 'codebook'" in steps and "'a', 0.0, 10.0" in steps   # exported as declared ...
    assert "FILL IN the public bounds of 'b'" in steps                  # ... the data's min/max never


def test_issue32_teacher_scenarios_are_public_tables_with_codebook_bounds_and_a_budget():
    assert 2 <= len(scenarios.SCENARIOS) <= 4
    for key, sc in scenarios.SCENARIOS.items():
        ds = scenarios.scenario_dataset(key)
        book = cbk.builtin_codebook(sc.table)
        assert ds.kind == "user" and P.data_kind(ds) == P.USER          # charged: a budget runs out in class
        assert dict(ds.bounds) == dict(book.ranges) and set(ds.bound_sources.values()) == {"codebook"}
        assert all(c in ds.bounds for c in sc.columns) and sc.releases >= 1
        assert cbk.builtin_name(ds) == sc.table
    with pytest.raises(DataError, match="must be documented columns"):
        scenarios.Scenario("x", "X", "wine", ("nope",), 1.0, 2.0, "pages/kng.py", "t")
    with pytest.raises(DataError, match="within its budget"):
        scenarios.Scenario("x", "X", "wine", ("alcohol",), 3.0, 2.0, "pages/kng.py", "t")

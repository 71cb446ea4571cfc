"""Tests for dpcore.data.columns: column validation, clipping, data-derived bounds, and the release
path's public columns (n kept, missing imputed, counts only in non-private diagnostics)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore import data as D
from dpcore.errors import DataError, DPValueError
from tests.data.helpers import assert_words

# ------------------------------------------------------------------------------------------------
# Bad input, part 2: files that load but whose chosen column is unusable
# ------------------------------------------------------------------------------------------------
COLUMN_ERRORS = [
    ("unknown_column", b"x,age\n1,2\n3,4\n", "z", {}, ["'z' not found", "'x'", "'age'"]),
    ("text_column", b"name,age\nAlice,30\nBob,40\n", "name",
     {}, ["'name' is text", "'Alice' at line 2", "numeric columns: 'age'"]),
    ("mixed_types", b"x\n1\nabc\n2\n?\nfoo\n", "x",
     {}, ["mixed types", "2 of 4", "'abc' at line 3", "'foo' at line 6", "mark them missing"]),
    ("all_missing", b"x,y\n1,NA\n2,\n3,null\n", "y", {}, ["'y' has no values", "all 3 cells are missing"]),
    ("non_finite", b"x\n1\ninf\n2\n1e309\n-inf\n", "x", {}, ["non-finite", "lines 3, 5, 6", "finite numbers"]),
    ("too_few_rows", b"x\n1\nNA\n", "x", {"min_rows": 2},
     ["only 1 usable", "after dropping 1 missing", "at least 2"]),
    ("quoted_decimal_comma", b'x\n"1,5"\n"2,5"\n', "x", {}, ["'1,5'", "decimal comma", "';'"]),
    ("percentages", b"x\n12%\n13%\n", "x", {}, ["'12%'", "percentage"]),
    ("currency", b"x\n$12\n$13\n", "x", {}, ["'$12'", "currency"]),
    ("space_thousands", b"x\n1 234\n2 345\n", "x", {}, ["'1 234'", "thousands separators"]),
    ("mixed_decimal_separators", b"x;y\n1.5;1\n2,5;2\n", "x", {}, ["mixed types", "'2,5' at line 3", "decimal comma"]),
]


@pytest.mark.parametrize("content, column, kwargs, words", [c[1:] for c in COLUMN_ERRORS],
                         ids=[c[0] for c in COLUMN_ERRORS])
def test_column_values_refuses_bad_columns(content, column, kwargs, words):
    ds = D.load_csv(content)
    with pytest.raises(DataError) as info:
        D.column_values(ds, column, **kwargs)
    assert_words(str(info.value), words)


def test_mixed_decimal_separators_noted_at_load():
    ds = D.load_csv(b"x;y\n1.5;1\n2,5;2\n")
    assert ds.numeric_columns == ("y",)
    assert any("mixed decimal separators" in n for n in ds.notes)


def test_data_error_is_a_value_error():
    assert issubclass(DataError, DPValueError) and issubclass(DataError, ValueError)



def test_column_values_constant_and_extreme_are_messages_not_errors():
    ds = D.load_csv(b"c,e\n3,1\n3,2e20\n3,5\n")
    vals, msgs = D.column_values(ds, "c")
    np.testing.assert_array_equal(vals, [3.0, 3.0, 3.0])
    assert_words(" ".join(msgs), ["constant", "every value is 3"])
    vals, msgs = D.column_values(ds, "e")
    assert vals.size == 3
    assert_words(" ".join(msgs), ["1e15", "largest 2e+20 at line 3", "precision", "rescale"])


def test_column_values_on_object_column_and_simulated_rows():
    frame = pd.DataFrame({"x": pd.Series([1.0, None, 3.0], dtype=object)})
    ds = D.Dataset(frame, (), {}, "test")
    vals, msgs = D.column_values(ds, "x", min_rows=1)
    np.testing.assert_array_equal(vals, [1.0, 3.0])
    assert "row 2" in " ".join(msgs)                  # positional rows, 1-based


# ------------------------------------------------------------------------------------------------
# Clipping and data-derived bounds
# ------------------------------------------------------------------------------------------------
def test_clip_to_bounds_reports_counts():
    vals = np.array([-2.0, 0.0, 0.5, 3.0, 10.0, 7.0])
    clipped, rep = D.clip_to_bounds(vals, 0, 5, column="income")
    np.testing.assert_array_equal(clipped, [0.0, 0.0, 0.5, 3.0, 5.0, 5.0])
    assert (rep.n_total, rep.n_below, rep.n_above, rep.n_clipped) == (6, 1, 2, 3)
    assert rep.fraction == pytest.approx(0.5)
    assert_words(rep.message(), ["'income'", "3 of 6", "50.0%", "clipped", "1 below 0", "2 above 5"])
    _, rep2 = D.clip_to_bounds([1.0, 2.0], 0, 5)
    assert rep2.n_clipped == 0 and "nothing was clipped" in rep2.message()
    np.testing.assert_array_equal(vals, [-2.0, 0.0, 0.5, 3.0, 10.0, 7.0])   # input untouched
    with pytest.raises(DPValueError, match="swap"):
        D.clip_to_bounds(vals, 5, 0)
    with pytest.raises(DPValueError, match="non-finite"):
        D.clip_to_bounds([1.0, np.inf], 0, 5)


def test_bounds_from_data_warns():
    lo, hi, warning = D.bounds_from_data([3.0, -1.0, 7.5], column="age")
    assert (lo, hi) == (-1.0, 7.5)
    assert_words(warning, ["WARNING", "'age'", "taken from the data", "leaks", "voids the privacy guarantee",
                            "declare public bounds"])
    assert "constant" in D.bounds_from_data([2.0, 2.0])[2]


# ------------------------------------------------------------------------------------------------
# The release path: public_column / public_columns
# ------------------------------------------------------------------------------------------------
def _neighbours(n: int = 80):
    """D and D' differ in one row (replace-one): in D' that person's age is missing."""
    ages = np.linspace(20.0, 70.0, n)
    d = D.Dataset(pd.DataFrame({"age": ages}), ("age",), {"age": (0.0, 100.0)}, "D")
    ages2 = ages.copy()
    ages2[7] = np.nan
    d2 = D.Dataset(pd.DataFrame({"age": ages2}), ("age",), {"age": (0.0, 100.0)}, "D'")
    return d, d2


def test_imputation_keeps_n_equal_to_the_number_of_rows():
    d, d2 = _neighbours()
    a, b = D.public_column(d, "age"), D.public_column(d2, "age")
    assert a.n == b.n == 80 == d.n_rows                      # column_values would give 80 vs 79
    assert len(D.column_values(d2, "age", min_rows=1)[0]) == 79
    assert b.values[7] == 50.0 == b.impute_value             # the declared midpoint
    np.testing.assert_array_equal(np.delete(a.values, 7), np.delete(b.values, 7))
    assert (a.diagnostics.n_imputed, b.diagnostics.n_imputed) == (0, 1)


def test_declared_imputation_value_and_clipping():
    frame = pd.DataFrame({"x": [-5.0, np.nan, 3.0, 12.0, np.nan]})
    ds = D.Dataset(frame, ("x",), {}, "t").with_bounds("x", 0, 10, impute=2.5)
    col = D.public_column(ds, "x")
    np.testing.assert_array_equal(col.values, [0.0, 2.5, 3.0, 10.0, 2.5])
    assert (col.lower, col.upper, col.impute_value, col.source) == (0.0, 10.0, 2.5, "declared")
    diag = col.diagnostics
    assert (diag.n, diag.n_imputed, diag.n_clipped_low, diag.n_clipped_high, diag.n_clipped) == (5, 2, 1, 1, 2)
    np.testing.assert_array_equal(frame["x"].to_numpy()[[0, 2, 3]], [-5.0, 3.0, 12.0])   # input untouched
    with pytest.raises(ValueError):
        col.values[0] = 1.0                                   # read-only


def test_counts_of_imputed_and_clipped_cells_live_only_in_non_private_diagnostics():
    _, d2 = _neighbours()
    col = D.public_column(d2, "age")
    released_fields = {f for f in vars(col) if f != "diagnostics"}
    assert not any("imput" in f and f != "impute_value" or "clip" in f for f in released_fields)
    diag = col.diagnostics
    assert isinstance(diag, D.ColumnDiagnostics) and not isinstance(diag, D.PublicColumn)
    assert diag.private is False and diag.label == D.NON_PRIVATE_LABEL == "Non-private diagnostics"
    assert diag.as_row() == {"column": "age", "rows (n)": 80, "missing → imputed": 1, "clipped below": 0,
                             "clipped above": 0}


def test_public_column_refuses_unbounded_text_and_non_finite_columns():
    ds = D.load_csv(b"x,name,z\n1,a,inf\n2,b,3\n")
    with pytest.raises(DataError, match="'x' has no declared public bounds"):
        D.public_column(ds, "x")
    with pytest.raises(DataError, match="'name' is text"):
        D.public_column(ds, "name")
    with pytest.raises(DataError, match="non-finite"):
        D.public_column(ds.with_bounds("z", 0, 5), "z")
    with pytest.raises(DataError, match="has 2 row.*at least 3"):
        D.public_column(ds.with_bounds("x", 0, 5), "x", min_rows=3)


def test_all_missing_column_is_imputed_with_a_message():
    frame = pd.DataFrame({"x": [np.nan, np.nan]})
    col = D.public_column(D.Dataset(frame, (), {"x": (0, 1)}, "t"), "x")
    np.testing.assert_array_equal(col.values, [0.5, 0.5])
    assert "every cell is missing" in col.diagnostics.messages[0]


def test_public_columns_matrix_keeps_every_row():
    ds = (D.load_csv(b"x1,x2,y\n1,NA,10\n2,5,\n30,6,7\n")
          .with_bounds("x1", 0, 10).with_bounds("x2", 0, 8, impute=1).with_bounds_from_data("y"))
    pc = D.public_columns(ds, ["x1", "x2", "y"])
    assert pc.values.shape == (3, 3) and pc.n == 3 and pc.columns == ("x1", "x2", "y")
    np.testing.assert_array_equal(pc.values, [[1, 1, 10], [2, 5, 8.5], [10, 6, 7]])
    np.testing.assert_array_equal(pc.lower, [0, 0, 7])
    np.testing.assert_array_equal(pc.upper, [10, 8, 10])
    np.testing.assert_array_equal(pc.impute_values, [5, 1, 8.5])
    assert pc.sources == ("declared", "declared", "from data")
    assert pc.from_data == ("y",) and not pc.declared
    assert [d.n_imputed for d in pc.diagnostics] == [0, 1, 1]
    assert pc["x1"].diagnostics.n_clipped_high == 1
    assert D.public_columns(ds, "x1").values.shape == (3, 1)
    with pytest.raises(DataError, match="'x1' chosen more than once"):
        D.public_columns(ds, ["x1", "x1"])
    with pytest.raises(DataError, match="at least one column"):
        D.public_columns(ds, [])


def test_diagnostics_frame_is_one_labelled_table_of_counts():
    ds = D.load_csv(b"x,y,z\n1,NA,5\n20,2,6\n3,4,\n").with_bounds("x", 0, 10).with_bounds("y", 0, 10)
    frame, messages = D.diagnostics_frame(ds, ["x", "y", "z"])            # z has no bounds: not listed
    assert list(frame["column"]) == ["x", "y"]
    assert list(frame.columns) == ["column", "rows (n)", "missing → imputed", "clipped below", "clipped above"]
    assert frame.set_index("column").loc["x", "clipped above"] == 1
    assert frame.set_index("column").loc["y", "missing → imputed"] == 1
    assert messages == []
    empty, _ = D.diagnostics_frame(ds, ["z"])
    assert len(empty) == 0 and list(empty.columns) == list(frame.columns)

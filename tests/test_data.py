"""Tests for dpcore.data: Algorithm-1 simulators, CSV loading (bad input), validation, clipping, output hygiene."""
from __future__ import annotations

import csv
import gzip
import io
import re
import zipfile

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import data as D
from dpcore._validation import DPValueError
from dpcore.data import DataError


# ------------------------------------------------------------------------------------------------
# fixtures built in code
# ------------------------------------------------------------------------------------------------
def _xlsx_bytes() -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    wb.active.append(["x", "y"])
    wb.active.append([1, 2])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("data.csv", "x\n1\n2\n")
    return buf.getvalue()


class _Upload(io.BytesIO):
    """Mimics Streamlit's UploadedFile (a BytesIO with .name and .size)."""

    def __init__(self, data: bytes, name: str = "mydata.csv", size: int | None = None):
        super().__init__(data)
        self.name = name
        self.size = len(data) if size is None else size


def _load_error(source, **kw) -> str:
    with pytest.raises(DataError) as info:
        D.load_csv(source, **kw)
    return str(info.value)


def _assert_words(msg: str, words) -> None:
    for w in words:
        assert w.lower() in msg.lower(), f"{w!r} not in message: {msg}"


# ------------------------------------------------------------------------------------------------
# Bad input, part 1: files load_csv must refuse (message names line/column/value and the fix)
# ------------------------------------------------------------------------------------------------
LOAD_ERRORS = [
    ("empty", lambda: b"", {}, ["empty", "0 bytes", "header line"]),
    ("blank_lines_only", lambda: b"\n  \n\t\n", {}, ["blank", "no header"]),
    ("header_only", lambda: b"age,income\n", {}, ["no data rows", "'age'", "'income'", "add at least one data row"]),
    ("header_only_bom_crlf", lambda: b"\xef\xbb\xbfage\r\n", {}, ["no data rows", "'age'"]),
    ("xlsx_renamed", _xlsx_bytes, {}, ["Excel workbook", ".xlsx", "Save As", "CSV UTF-8"]),
    ("xls_renamed", lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(200), {}, ["legacy Excel", ".xls", "CSV UTF-8"]),
    ("gzip", lambda: gzip.compress(b"x\n1\n2\n"), {}, ["gzip", "decompress"]),
    ("pdf", lambda: b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", {}, ["PDF document", "CSV UTF-8"]),
    ("png", lambda: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(20), {}, ["PNG image"]),
    ("zip_archive", _zip_bytes, {}, ["ZIP archive", "extract"]),
    ("nul_bytes", lambda: b"x,y\n1,2\n3,\x004\n", {}, ["NUL", "line 3", "CSV UTF-8"]),
    ("binary_garbage", lambda: bytes(range(1, 32)) * 50, {}, ["binary", "control characters"]),
    ("ragged_long", lambda: b"x,y\n1,2\n3,4,5\n", {}, ["line 3", "3 fields", "header has 2", "'3,4,5'"]),
    ("ragged_short", lambda: b"x,y,z\n1,2,3\n4,5,6\n7,8\n", {}, ["line 4", "2 fields", "exactly 3"]),
    ("ragged_after_multiline_and_blank", lambda: b'id,note\n1,"a\nb"\n\n2\n', {}, ["line 5", "1 field", "header has 2"]),
    ("unbalanced_quote", lambda: b'x,y\n1,2\n"3,4\n5,6\n', {}, ["line 3", "double quote", "close the quote"]),
    ("decimal_comma_in_comma_file", lambda: b"x\n1,5\n2,5\n", {}, ["line 2", "decimal comma", "';'"]),
    ("duplicate_headers", lambda: b"x,y,x\n1,2,3\n", {}, ["duplicate", "'x'", "columns 1, 3", "unique"]),
    ("duplicate_after_strip", lambda: b"x , x\n1,2\n", {}, ["duplicate", "'x'", "columns 1, 2"]),
    ("no_header_row", lambda: b"1.5,2\n3,4\n", {}, ["first line", "'1.5,2'", "looks like a data row", "add a header"]),
    ("too_many_rows", lambda: b"x\n1\n2\n3\n4\n", {"max_rows": 3}, ["more than 3 data rows", "limit is 3", "sample"]),
    ("too_many_cols", lambda: b"a,b,c\n1,2,3\n", {"max_cols": 2}, ["3 columns", "limit is 2", "remove"]),
    ("over_max_bytes", lambda: b"x\n" + b"1\n" * 20, {"max_bytes": 10}, ["larger than the upload limit", "10 bytes"]),
    ("upload_size_over_limit", lambda: _Upload(b"x\n1\n", size=10 ** 9), {}, ["'mydata.csv'", "953.7 MB", "50.0 MB"]),
    ("csv_text_as_str", lambda: "x,y\n1,2\n", {}, ["looks like CSV text", "bytes"]),
    ("unsupported_type", lambda: 3.14, {}, ["bytes", "path", "float"]),
    ("missing_path", lambda: "/nonexistent/dir/file.csv", {}, ["not found", "file.csv"]),
    ("text_mode_file", lambda: io.StringIO("x\n1\n"), {}, ["text mode", "binary"]),
    ("bad_utf16", lambda: b"\xff\xfex", {}, ["UTF-16", "cannot be decoded"]),
]


@pytest.mark.parametrize("make, kwargs, words", [c[1:] for c in LOAD_ERRORS], ids=[c[0] for c in LOAD_ERRORS])
def test_load_csv_refuses_bad_files(make, kwargs, words):
    msg = _load_error(make(), **kwargs)
    _assert_words(msg, words)
    assert "Traceback" not in msg and "ParserError" not in msg


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
    _assert_words(str(info.value), words)


def test_mixed_decimal_separators_noted_at_load():
    ds = D.load_csv(b"x;y\n1.5;1\n2,5;2\n")
    assert ds.numeric_columns == ("y",)
    assert any("mixed decimal separators" in n for n in ds.notes)


def test_data_error_is_a_value_error():
    assert issubclass(DataError, DPValueError) and issubclass(DataError, ValueError)


# ------------------------------------------------------------------------------------------------
# Files that must load correctly, with what was done recorded in notes
# ------------------------------------------------------------------------------------------------
def _notes(ds) -> str:
    return " | ".join(ds.notes)


def test_utf8_bom_is_stripped():
    ds = D.load_csv(b"\xef\xbb\xbfx,y\n1,2\n3,4\n")
    assert list(ds.frame.columns) == ["x", "y"]
    assert "byte-order mark" in _notes(ds)
    np.testing.assert_array_equal(ds.frame["x"].to_numpy(), [1.0, 3.0])


def test_utf16_excel_unicode_text():
    raw = "x\ty\n1\t2\n3\t4,5\n".encode("utf-16")          # BOM + UTF-16LE, tab-separated like Excel
    ds = D.load_csv(raw)
    assert ds.numeric_columns == ("x", "y")
    np.testing.assert_array_equal(ds.frame["y"].to_numpy(), [2.0, 4.5])
    _assert_words(_notes(ds), ["UTF-16", "separator: tab", "decimal separator"])


def test_utf16_without_bom():
    ds = D.load_csv("x,y\n1,2\n".encode("utf-16-le"))
    assert ds.numeric_columns == ("x", "y")
    assert "no byte-order mark" in _notes(ds)


def test_cp1252_accents():
    ds = D.load_csv("city,v\nSão Paulo,1\nZürich,2\n".encode("cp1252"))
    assert ds.frame["city"].tolist() == ["São Paulo", "Zürich"]
    assert ds.numeric_columns == ("v",)
    _assert_words(_notes(ds), ["Windows-1252", "line 2", "0xE3"])


def test_semicolon_with_decimal_comma_parsed_correctly():
    ds = D.load_csv(b"x;y\n1,5;2\n-0,25;1.000,5\n")
    np.testing.assert_array_equal(ds.frame["x"].to_numpy(), [1.5, -0.25])
    np.testing.assert_array_equal(ds.frame["y"].to_numpy(), [2.0, 1000.5])
    _assert_words(_notes(ds), ["';' (semicolon)", "decimal separator", "'1,5' -> 1.5"])


def test_single_column():
    ds = D.load_csv(b"x\n1\n2\n3\n")
    assert ds.numeric_columns == ("x",) and ds.n_rows == 3
    assert "single column" in _notes(ds)


@pytest.mark.parametrize("sep, label", [("\t", "tab"), ("|", "pipe"), (";", "semicolon")])
def test_separator_sniffed(sep, label):
    ds = D.load_csv(f"a{sep}b{sep}c\n1{sep}2{sep}3\n4{sep}5{sep}6\n".encode())
    assert ds.numeric_columns == ("a", "b", "c")
    np.testing.assert_array_equal(ds.frame["c"].to_numpy(), [3.0, 6.0])
    assert label in _notes(ds)


def test_mixed_na_tokens_reported_per_column():
    ds = D.load_csv(b"a,b\n1,NA\n2,\n3,null\n4,N/A\n5,-\n6,?\n7,8\n")
    assert ds.numeric_columns == ("a", "b")
    assert int(ds.frame["b"].isna().sum()) == 6
    _assert_words(_notes(ds), ["column 'b': 6 missing", "'NA' x1", "'null' x1", "'N/A' x1", "'?' x1"])
    vals, msgs = D.column_values(ds, "b", min_rows=1)
    np.testing.assert_array_equal(vals, [8.0])
    _assert_words(" ".join(msgs), ["dropped 6 row(s)", "lines 2, 3, 4, 5, 6, 7", "1 row(s) remain"])


def test_thousands_separators_parsed_with_note():
    ds = D.load_csv(b'x,y\n"1,234,567",2\n12,3\n"-1,000.5",4\n')
    np.testing.assert_array_equal(ds.frame["x"].to_numpy(), [1234567.0, 12.0, -1000.5])
    _assert_words(_notes(ds), ["thousands separators", "'1,234,567' -> 1234567"])


def test_blank_lines_crlf_and_line_numbers():
    ds = D.load_csv(b"x,y\r\n1,2\r\n\r\n3,4\r\n\r\n")
    assert ds.frame.index.name == "line"
    assert ds.frame.index.tolist() == [2, 4]
    assert "skipped 2 blank line(s)" in _notes(ds)


def test_multiline_quoted_field_keeps_line_numbers():
    ds = D.load_csv(b'id,note,v\n1,"a\nb",3\n2,c,NA\n')
    assert ds.frame.index.tolist() == [2, 4]
    _, msgs = D.column_values(ds, "v", min_rows=1)
    assert "line 4" in " ".join(msgs)


def test_empty_header_name_renamed_with_note():
    ds = D.load_csv(b",x\n0,1\n1,2\n")
    assert list(ds.frame.columns) == ["column_1", "x"]
    assert "named 'column_1'" in _notes(ds)


def test_non_finite_noted_at_load():
    ds = D.load_csv(b"a,b\n1,inf\n2,1e309\n3,nan\n")
    _assert_words(_notes(ds), ["column 'b': 2 non-finite", "line 3: '1e309'", "'nan' x1"])


def test_html_markdown_column_names_are_kept_as_data():
    ds = D.load_csv(b"<script>alert(1)</script>,**y**\n1,2\n3,4\n")
    assert list(ds.frame.columns) == ["<script>alert(1)</script>", "**y**"]
    for name in ds.frame.columns:
        _assert_inert_markdown(D.escape_markdown(name), name)


def test_sources_path_and_uploaded_file(tmp_path):
    p = tmp_path / "survey.csv"
    p.write_bytes(b"x\n1\n2\n")
    for src in (p, str(p)):
        ds = D.load_csv(src)
        assert ds.name == "survey.csv" and ds.n_rows == 2
        assert "survey.csv" in ds.provenance
    up = _Upload(b"x\n1\n2\n3\n")
    up.read()                                   # already consumed once: the loader rewinds
    ds = D.load_csv(up)
    assert ds.name == "mydata.csv" and ds.n_rows == 3
    assert D.load_csv(memoryview(b"x\n5\n6\n")).n_rows == 2


def test_path_over_limit(tmp_path):
    p = tmp_path / "big.csv"
    p.write_bytes(b"x\n" + b"1\n" * 100)
    _assert_words(_load_error(p, max_bytes=50), ["'big.csv'", "202 bytes", "limit is 50 bytes"])


def test_column_values_constant_and_extreme_are_messages_not_errors():
    ds = D.load_csv(b"c,e\n3,1\n3,2e20\n3,5\n")
    vals, msgs = D.column_values(ds, "c")
    np.testing.assert_array_equal(vals, [3.0, 3.0, 3.0])
    _assert_words(" ".join(msgs), ["constant", "every value is 3"])
    vals, msgs = D.column_values(ds, "e")
    assert vals.size == 3
    _assert_words(" ".join(msgs), ["1e15", "largest 2e+20 at line 3", "precision", "rescale"])


def test_column_values_on_object_column_and_simulated_rows():
    frame = pd.DataFrame({"x": pd.Series([1.0, None, 3.0], dtype=object)})
    ds = D.Dataset(frame, (), {}, "test")
    vals, msgs = D.column_values(ds, "x", min_rows=1)
    np.testing.assert_array_equal(vals, [1.0, 3.0])
    assert "row 2" in " ".join(msgs)                  # positional rows, 1-based


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
    with pytest.raises(DataError, match="swap"):
        ds.with_bounds("x", 5, 1)
    with pytest.raises(DataError, match="finite"):
        ds.with_bounds("x", 0, float("inf"))
    with pytest.raises(DataError, match="'q' not found"):
        ds.with_bounds("q", 0, 1)
    with pytest.raises(TypeError):
        ds.bounds["x"] = (0, 1)                      # read-only mapping


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
    with pytest.raises(DataError, match="non-finite"):
        D.paper_rescale([1.0, np.nan])
    assert "not private" in D.paper_rescale.__doc__.lower()


def test_regression_validation():
    with pytest.raises(DataError, match="regression_suffstats_chunked"):
        D.simulate_regression(10_000_000, D.figure1_theta(), rng=0)
    with pytest.raises(DataError, match="theta_star"):
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
    with pytest.raises(DataError, match="scale = -1.0 must be > 0"):
        D.simulate_univariate("normal", 5, rng=1, scale=-1)
    with pytest.raises(DataError, match="swap"):
        D.simulate_univariate("uniform", 5, rng=1, low=2, high=1)
    with pytest.raises(DataError, match="df = 0.0"):
        D.simulate_univariate("heavy_tailed", 5, rng=1, df=0)


def test_simulators_catalogue():
    assert set(D.SIMULATORS) == set(D.UNIVARIATE_KINDS) | {"linear_regression", "quantile_regression"}
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
    lin = D.simulate_dataset("linear_regression", 400, rng=4)
    assert list(lin.frame.columns) == [f"x{j}" for j in range(1, 12)] + ["y"]
    X, y = D.simulate_regression(400, D.figure1_theta(), rng=4)
    np.testing.assert_array_equal(lin.frame[[f"x{j}" for j in range(1, 12)]].to_numpy(), X[:, 1:])
    np.testing.assert_array_equal(lin.frame["y"].to_numpy(), y)
    assert lin.bounds["x5"] == (-1.0, 1.0)
    assert lin.bounds["y"][1] == pytest.approx(np.abs(D.figure1_theta()).sum() + 4)
    q = D.simulate_dataset("quantile_regression", 100, rng=4)
    assert list(q.frame.columns) == ["x1", "y"] and "theta* = (0, -1)" in q.provenance
    q3 = D.simulate_dataset("quantile_regression", 100, rng=4, d=3, theta=[1.0, 2.0, 3.0])
    assert list(q3.frame.columns) == ["x1", "x2", "y"] and q3.bounds["y"] == (-10.0, 10.0)
    with pytest.raises(DataError, match="theta has 2 entries but d = 3"):
        D.simulate_dataset("linear_regression", 10, rng=0, d=3, theta=[0, 1])
    g = np.random.default_rng(123)
    assert "entropy 123" in D.simulate_dataset("normal", 10, rng=g).provenance


# ------------------------------------------------------------------------------------------------
# Clipping and data-derived bounds
# ------------------------------------------------------------------------------------------------
def test_clip_to_bounds_reports_counts():
    vals = np.array([-2.0, 0.0, 0.5, 3.0, 10.0, 7.0])
    clipped, rep = D.clip_to_bounds(vals, 0, 5, column="income")
    np.testing.assert_array_equal(clipped, [0.0, 0.0, 0.5, 3.0, 5.0, 5.0])
    assert (rep.n_total, rep.n_below, rep.n_above, rep.n_clipped) == (6, 1, 2, 3)
    assert rep.fraction == pytest.approx(0.5)
    _assert_words(rep.message(), ["'income'", "3 of 6", "50.0%", "clipped", "1 below 0", "2 above 5"])
    _, rep2 = D.clip_to_bounds([1.0, 2.0], 0, 5)
    assert rep2.n_clipped == 0 and "nothing was clipped" in rep2.message()
    np.testing.assert_array_equal(vals, [-2.0, 0.0, 0.5, 3.0, 10.0, 7.0])   # input untouched
    with pytest.raises(DataError, match="swap"):
        D.clip_to_bounds(vals, 5, 0)
    with pytest.raises(DataError, match="non-finite"):
        D.clip_to_bounds([1.0, np.inf], 0, 5)


def test_bounds_from_data_warns():
    lo, hi, warning = D.bounds_from_data([3.0, -1.0, 7.5], column="age")
    assert (lo, hi) == (-1.0, 7.5)
    _assert_words(warning, ["WARNING", "'age'", "taken from the data", "leaks", "voids the privacy guarantee",
                            "declare public bounds"])
    assert "constant" in D.bounds_from_data([2.0, 2.0])[2]


# ------------------------------------------------------------------------------------------------
# Output hygiene
# ------------------------------------------------------------------------------------------------
def test_to_safe_csv_neutralises_formulas():
    frame = pd.DataFrame({
        "=SUM(A1:A2)": ["=cmd()", "+1", "-2+3", "@x", "plain"],
        "n": [-2, 1, 2, 3, 4],
        "f": [-2.5, 0.0, 1.0, 2.0, 3.0],
        "t": ["\tx", "\ry", " =z", "a=b", None],
    })
    text = D.to_safe_csv(frame)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["'=SUM(A1:A2)", "n", "f", "t"]
    assert [r[0] for r in rows[1:]] == ["'=cmd()", "'+1", "'-2+3", "'@x", "plain"]
    assert [r[1] for r in rows[1:]] == ["-2", "1", "2", "3", "4"]          # numbers untouched
    assert rows[1][2] == "-2.5"
    assert [r[3] for r in rows[1:]] == ["'\tx", "'\ry", "' =z", "a=b", ""]
    assert frame.iloc[0, 0] == "=cmd()"                                      # input untouched
    ds = D.load_csv(text.encode())                                           # numeric columns survive
    assert "n" in ds.numeric_columns and "f" in ds.numeric_columns


def _assert_inert_markdown(escaped: str, original: str) -> None:
    assert "\n" not in escaped
    # every ASCII punctuation character is backslash-escaped ...
    assert re.search(r"(?<!\\)[<>*_\[\]()`#!|~$]", escaped.replace("\\\\", "")) is None
    # ... and CommonMark's backslash-unescape gives back exactly what the user typed
    assert re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escaped) == original.replace("\n", " ")


def test_escape_markdown():
    for s in ["<script>alert(1)</script>", "**bold**", "[x](javascript:alert(1))", "$x^2$ :red[hi] # h",
              "a\\b_c", "line1\nline2"]:
        _assert_inert_markdown(D.escape_markdown(s), s)
    assert D.escape_markdown("**bold**") == r"\*\*bold\*\*"
    assert D.escape_markdown("<script>alert(1)</script>") == r"\<script\>alert\(1\)\<\/script\>"
    assert D.escape_markdown("plain text 42") == "plain text 42"

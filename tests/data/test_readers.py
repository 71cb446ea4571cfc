"""Tests for dpcore.data.readers: CSV loading (bad input and the files that must load) and Excel workbooks."""
from __future__ import annotations

import gzip
import io
import time

import numpy as np
import pytest

from dpcore import data as D
from dpcore.errors import DataError
from tests.data import xlsx_build as X
from tests.data.helpers import Upload, assert_words, load_error, xlsx_bytes, zip_bytes

# ------------------------------------------------------------------------------------------------
# Bad input, part 1: files load_csv must refuse (message names line/column/value and the fix)
# ------------------------------------------------------------------------------------------------
LOAD_ERRORS = [
    ("empty", lambda: b"", {}, ["empty", "0 bytes", "header line"]),
    ("blank_lines_only", lambda: b"\n  \n\t\n", {}, ["blank", "no header"]),
    ("header_only", lambda: b"age,income\n", {}, ["no data rows", "'age'", "'income'", "add at least one data row"]),
    ("header_only_bom_crlf", lambda: b"\xef\xbb\xbfage\r\n", {}, ["no data rows", "'age'"]),
    ("xlsx_renamed", xlsx_bytes, {}, ["Excel workbook", ".xlsx", "Save As", "CSV UTF-8"]),
    ("xls_renamed", lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(200), {}, ["legacy Excel", ".xls", "CSV UTF-8"]),
    ("gzip", lambda: gzip.compress(b"x\n1\n2\n"), {}, ["gzip", "decompress"]),
    ("pdf", lambda: b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", {}, ["PDF document", "CSV UTF-8"]),
    ("png", lambda: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(20), {}, ["PNG image"]),
    ("zip_archive", zip_bytes, {}, ["ZIP archive", "extract"]),
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
    ("upload_size_over_limit", lambda: Upload(b"x\n1\n", size=10 ** 9), {}, ["'mydata.csv'", "953.7 MB", "50.0 MB"]),
    ("csv_text_as_str", lambda: "x,y\n1,2\n", {}, ["looks like CSV text", "bytes"]),
    ("unsupported_type", lambda: 3.14, {}, ["bytes", "path", "float"]),
    ("missing_path", lambda: "/nonexistent/dir/file.csv", {}, ["not found", "file.csv"]),
    ("text_mode_file", lambda: io.StringIO("x\n1\n"), {}, ["text mode", "binary"]),
    ("bad_utf16", lambda: b"\xff\xfex", {}, ["UTF-16", "cannot be decoded"]),
]


@pytest.mark.parametrize("make, kwargs, words", [c[1:] for c in LOAD_ERRORS], ids=[c[0] for c in LOAD_ERRORS])
def test_load_csv_refuses_bad_files(make, kwargs, words):
    msg = load_error(make(), **kwargs)
    assert_words(msg, words)
    assert "Traceback" not in msg and "ParserError" not in msg


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
    assert_words(_notes(ds), ["UTF-16", "separator: tab", "decimal separator"])


def test_utf16_without_bom():
    ds = D.load_csv("x,y\n1,2\n".encode("utf-16-le"))
    assert ds.numeric_columns == ("x", "y")
    assert "no byte-order mark" in _notes(ds)


def test_cp1252_accents():
    ds = D.load_csv("city,v\nSão Paulo,1\nZürich,2\n".encode("cp1252"))
    assert ds.frame["city"].tolist() == ["São Paulo", "Zürich"]
    assert ds.numeric_columns == ("v",)
    assert_words(_notes(ds), ["Windows-1252", "line 2", "0xE3"])


def test_semicolon_with_decimal_comma_parsed_correctly():
    ds = D.load_csv(b"x;y\n1,5;2\n-0,25;1.000,5\n")
    np.testing.assert_array_equal(ds.frame["x"].to_numpy(), [1.5, -0.25])
    np.testing.assert_array_equal(ds.frame["y"].to_numpy(), [2.0, 1000.5])
    assert_words(_notes(ds), ["';' (semicolon)", "decimal separator", "'1,5' -> 1.5"])


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
    assert_words(_notes(ds), ["column 'b': 6 missing", "'NA' x1", "'null' x1", "'N/A' x1", "'?' x1"])
    vals, msgs = D.column_values(ds, "b", min_rows=1)
    np.testing.assert_array_equal(vals, [8.0])
    assert_words(" ".join(msgs), ["dropped 6 row(s)", "lines 2, 3, 4, 5, 6, 7", "1 row(s) remain"])


def test_thousands_separators_parsed_with_note():
    ds = D.load_csv(b'x,y\n"1,234,567",2\n12,3\n"-1,000.5",4\n')
    np.testing.assert_array_equal(ds.frame["x"].to_numpy(), [1234567.0, 12.0, -1000.5])
    assert_words(_notes(ds), ["thousands separators", "'1,234,567' -> 1234567"])


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
    assert_words(_notes(ds), ["column 'b': 2 non-finite", "line 3: '1e309'", "'nan' x1"])


def test_sources_path_and_uploaded_file(tmp_path):
    p = tmp_path / "survey.csv"
    p.write_bytes(b"x\n1\n2\n")
    for src in (p, str(p)):
        ds = D.load_csv(src)
        assert ds.name == "survey.csv" and ds.n_rows == 2
        assert "survey.csv" in ds.provenance
    up = Upload(b"x\n1\n2\n3\n")
    up.read()                                   # already consumed once: the loader rewinds
    ds = D.load_csv(up)
    assert ds.name == "mydata.csv" and ds.n_rows == 3
    assert D.load_csv(memoryview(b"x\n5\n6\n")).n_rows == 2


def test_path_over_limit(tmp_path):
    p = tmp_path / "big.csv"
    p.write_bytes(b"x\n" + b"1\n" * 100)
    assert_words(load_error(p, max_bytes=50), ["'big.csv'", "202 bytes", "limit is 50 bytes"])


# ------------------------------------------------------------------------------------------------
# Excel workbooks (.xlsx, read with openpyxl)
# ------------------------------------------------------------------------------------------------
def _workbook(*sheets: tuple[str, list], cells: dict | None = None) -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets:
        ws = wb.create_sheet(title)
        for r in rows:
            ws.append(r)
        for ref, v in (cells or {}).items():
            ws[ref] = v
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_xlsx_is_read_with_numbers_text_missing_and_row_numbers():
    import datetime
    raw = _workbook(("survey", [[" age", "income", "city", "when"], [34, 52000.5, "Paris", datetime.date(2024, 1, 2)],
                                [], [51, None, "Lyon", None], [29, "NA", "Nice", None]]),
                    ("notes", [["ignored"]]))
    ds = D.load_excel(raw, name="survey.xlsx")
    assert list(ds.frame.columns) == ["age", "income", "city", "when"]
    assert ds.numeric_columns == ("age", "income")
    assert ds.frame.index.name == "row" and ds.frame.index.tolist() == [2, 4, 5]     # sheet row numbers
    np.testing.assert_array_equal(ds.frame["age"].to_numpy(), [34.0, 51.0, 29.0])
    assert ds.frame["income"].iloc[0] == 52000.5 and ds.frame["income"].isna().sum() == 2
    assert ds.frame["city"].tolist() == ["Paris", "Lyon", "Nice"]
    assert ds.frame["when"].iloc[0] == "2024-01-02"
    notes = " | ".join(ds.notes)
    assert_words(notes, ["read sheet 'survey'", "of 2", "'notes'", "skipped 1 empty row", "spaces around column names",
                         "column 'income': 2 missing"])
    assert "workbook 'survey.xlsx'" in ds.provenance and ds.kind == "user"
    _, msgs = D.column_values(ds, "income", min_rows=1)
    assert "rows 4, 5" in " ".join(msgs)
    with pytest.raises(DataError, match="no data rows"):
        D.load_excel(raw, sheet="notes")


def test_xlsx_same_columns_as_the_csv_of_the_same_table():
    rows = [["x", "y"], [1, 2.5], [3, -4.25], [5, 1e-3]]
    from_xlsx = D.load_excel(_workbook(("Sheet1", rows)))
    from_csv = D.load_csv(b"x,y\n1,2.5\n3,-4.25\n5,0.001\n")
    np.testing.assert_array_equal(from_xlsx.frame.to_numpy(), from_csv.frame.to_numpy())
    assert from_xlsx.numeric_columns == from_csv.numeric_columns


def test_load_file_dispatches_on_content_not_name():
    raw = _workbook(("Sheet1", [["x"], [1], [2]]))
    ds = D.load_file(raw, name="data.csv")                     # an .xlsx named .csv is read as Excel
    assert ds.n_rows == 2 and "workbook" in ds.provenance
    up = Upload(raw, name="book.xlsx")
    assert D.load_file(up).name == "book.xlsx"
    assert D.load_file(b"x\n1\n", name="t.csv").frame["x"].tolist() == [1.0]
    assert D.load_file(xlsx_bytes()).numeric_columns == ("x", "y")
    with pytest.raises(DataError, match="legacy Excel"):
        D.load_file(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(200), name="old.xls")


def _corrupt_xlsx() -> bytes:
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<not-a-workbook")
    return buf.getvalue()


def _truncated(raw: bytes) -> bytes:
    return raw[: len(raw) // 2]            # the ZIP's central directory (at the end) is gone


XLSX_ERRORS = [
    ("corrupt", _corrupt_xlsx, {}, ["could not be read as an Excel workbook", "damaged", "save it again"]),
    ("truncated", lambda: _truncated(_workbook(("S", [["x"], [1]]))), {}, ["could not be read as an Excel workbook"]),
    ("legacy_xls", lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(200), {}, ["legacy Excel", ".xls", "save it as .xlsx"]),
    ("csv_text", lambda: b"x,y\n1,2\n", {}, ["not an Excel workbook", ".csv name"]),
    ("empty_file", lambda: b"", {}, ["empty", "0 bytes"]),
    ("empty_sheet", lambda: _workbook(("Blank", [])), {}, ["sheet 'Blank' is empty"]),
    ("header_only", lambda: _workbook(("S", [["a", "b"]])), {}, ["header row", "row 1", "no data rows"]),
    ("stray_cell", lambda: _workbook(("S", [["a", "b"], [1, 2]]), cells={"E3": 9}), {},
     ["row 3", "column E", "right of the header's last column B"]),
    ("numbers_as_header", lambda: _workbook(("S", [[1, 2], [3, 4]])), {}, ["looks like a data row"]),
    ("duplicate_names", lambda: _workbook(("S", [["x", "x"], [3, 4]])), {}, ["duplicate", "'x'"]),
    ("unknown_sheet", lambda: _workbook(("S", [["x"], [1]])), {"sheet": "Data"}, ["sheet 'Data' not found", "'S'"]),
    ("too_many_cols", lambda: _workbook(("S", [["a", "b", "c"], [1, 2, 3]])), {"max_cols": 2}, ["3 columns", "2 columns"]),
    ("too_many_rows", lambda: _workbook(("S", [["a"], [1], [2], [3]])), {"max_rows": 2}, ["more than 2 data rows"]),
]


@pytest.mark.parametrize("make, kwargs, words", [c[1:] for c in XLSX_ERRORS], ids=[c[0] for c in XLSX_ERRORS])
def test_bad_xlsx_gets_a_message_naming_the_problem(make, kwargs, words):
    with pytest.raises(DataError) as info:
        D.load_excel(make(), name="book.xlsx", **kwargs)
    msg = str(info.value)
    assert_words(msg, words)
    assert "Traceback" not in msg


# ------------------------------------------------------------------------------------------------
# Hostile workbooks (issue 18, findings 1 and 2): refused from the ZIP directory, the shared-strings
# count or the declared dimension, before openpyxl materialises anything. Built in code (xlsx_build).
# The time caps are generous guards (before the fix: ~46 min and ~11 min), not speed targets.
# ------------------------------------------------------------------------------------------------
def _refused(raw: bytes, words, seconds: float = 5.0, **kw) -> str:
    t = time.perf_counter()
    with pytest.raises(DataError) as info:
        D.load_file(raw, name="bomb.xlsx", **kw)
    assert time.perf_counter() - t < seconds
    assert_words(str(info.value), words)
    return str(info.value)


def test_dimension_bomb_refused_before_streaming():
    raw = X.bomb_dimension()
    assert len(raw) < 2_000                                  # the issue's 1.5 KB file
    _refused(raw, ["'bomb.xlsx'", "A1:XFD1048576", "1,048,576 rows", "16,384 columns", "delete the empty rows",
                   "CSV UTF-8"])


def test_far_row_without_dimension_stops_at_the_row_cap():
    rows = ('<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row>'
            '<row r="1048576"><c r="A1048576"><v>2</v></c></row>')
    _refused(X.workbook(X.sheet_xml(rows)), ["past row", "empty rows", "delete the rows after the table"])


def test_wrong_dimension_neither_truncates_nor_pads():
    rows = [["x", "y"]] + [[i, i + 0.5] for i in range(1, 6)]
    ds = D.load_excel(X.table(rows, dimension="A1:A2"))       # openpyxl alone would stop at row 2
    assert ds.n_rows == 5 and ds.numeric_columns == ("x", "y")
    ds = D.load_excel(X.table(rows, dimension="A1:J9"))       # too wide but within the caps: blank columns dropped
    assert list(ds.frame.columns) == ["x", "y"]


def test_stray_cell_far_right_is_named():
    rows = ('<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>'
            '<row r="2"><c r="A2"><v>1</v></c><c r="XFD2"><v>7</v></c></row>')
    _refused(X.workbook(X.sheet_xml(rows)), ["row 2", "column XFD", "'7'", "right of the header's last column A"])


def test_shared_strings_bomb_refused_by_expansion_ratio():
    raw = X.bomb_shared_strings(1_000_000)                   # 16 MB of XML in 41 KB
    _refused(raw, ["xl/sharedStrings.xml", "411-fold", "compression bomb", "CSV UTF-8"])


def test_shared_strings_declared_count_refused():
    raw = X.bomb_shared_strings(D.MAX_SHARED_STRINGS + 1, text="s{i}")
    _refused(raw, [f"{D.MAX_SHARED_STRINGS + 1:,} declared shared strings", f"limit is {D.MAX_SHARED_STRINGS:,}"])


def test_shared_strings_counted_when_not_declared():
    raw = X.bomb_shared_strings(D.MAX_SHARED_STRINGS + 1, declare=False, text="s{i}")
    _refused(raw, [f"{D.MAX_SHARED_STRINGS + 1:,} shared strings", f"limit is {D.MAX_SHARED_STRINGS:,}", "CSV UTF-8"])


@pytest.mark.stat
def test_issue_shared_strings_bomb_826kb_refused():
    raw = X.bomb_shared_strings()                            # 20 M strings: the issue's 826 KB file
    assert 800_000 < len(raw) < 850_000
    _refused(raw, ["shared-strings part", "expands to", "limit is 32.0 MB"])


def test_zip_with_too_many_parts_or_bytes_refused():
    extra = {f"xl/media/f{i}.bin": b"" for i in range(D._excel.MAX_XLSX_PARTS)}
    _refused(X.table([["x"], [1]], extra=extra), ["files in its ZIP archive", f"at most {D._excel.MAX_XLSX_PARTS:,}"])
    big = {"docProps/custom.xml": b"x" * (D._excel.MAX_XLSX_OTHER_BYTES + 1)}
    _refused(X.table([["x"], [1]], extra=big), ["docProps/custom.xml", "expands to", "limit is 16.0 MB"])


def test_many_cells_refused_at_the_cell_cap(monkeypatch):
    monkeypatch.setattr(D._excel, "MAX_EXCEL_CELLS", 1_000)  # the full cap's time: benchmarks/loaders.py
    n = 1_000 // 50 + 1                                       # 50 columns
    row = "".join(f'<c r="{_letters(j)}{{i}}"><v>1</v></c>' for j in range(50))
    head = "".join(f'<c r="{_letters(j)}1" t="inlineStr"><is><t>c{j}</t></is></c>' for j in range(50))
    sheet = f'<row r="1">{head}</row>' + "".join(f'<row r="{i}">' + row.format(i=i) + "</row>" for i in range(2, n + 2))
    _refused(X.workbook(X.sheet_xml(sheet)), ["more than 20 data rows", "1,000 cells", "sample of rows"])
    _refused(X.workbook(X.sheet_xml(sheet, f"A1:AX{n + 1}")), ["A1:AX22", "1,050 cells", "sample of rows"])


def _letters(j: int) -> str:
    return D._excel._col_letter(j)


# ------------------------------------------------------------------------------------------------
# Unclear messages (issue 18, finding 6)
# ------------------------------------------------------------------------------------------------
def test_binary_file_renamed_csv_is_not_called_a_header():
    rng = np.random.default_rng(7)
    raw = rng.integers(0x80, 0x100, 4096, dtype=np.uint8).tobytes()   # no NUL, no newline: was "header, no data"
    msg = load_error(raw, name="photo.csv")
    assert_words(msg, ["'photo.csv'", "does not look like a text CSV", "not valid UTF-8", "binary file",
                       "export the table as 'CSV UTF-8"])
    assert "header" not in msg


def test_cp1252_text_is_still_read():
    ds = D.load_csv(("name,note\n" + "Zoë,café crème brûlée\n" * 20).encode("cp1252"))
    assert ds.frame["note"].iloc[0] == "café crème brûlée"


def test_one_word_in_a_numeric_column_is_named_and_read_as_missing():
    raw = b"age,city\n" + b"".join(b"%d,Paris\n" % (20 + i) for i in range(40)) + b"unknown,Lyon\n"
    ds = D.load_csv(raw)
    assert ds.numeric_columns == ("age",)
    assert ds.frame["age"].isna().sum() == 1 and np.isnan(ds.frame["age"].loc[42])
    assert_words(" | ".join(ds.notes), ["column 'age' is numeric except 1 cell", "line 42: 'unknown'",
                                        "read as missing", "imputation value", "fix these cells"])


def test_mostly_numeric_column_kept_as_text_is_reported():
    ds = D.load_csv(b"x,y\n1,a\n2,b\n3%,c\n")
    assert ds.numeric_columns == ()
    assert_words(" | ".join(ds.notes), ["column 'x' is kept as text", "2 cells are numbers", "line 4: '3%'",
                                        "percentage", "fix these cells"])


def test_huge_column_name_refused_with_the_cap():
    msg = load_error(b"a," + b"q" * 100_000 + b"\n1,2\n")
    assert_words(msg, ["column 2's name", "100,000 characters", f"limit is {D.readers.MAX_NAME_CHARS}", "shorten"])


def test_loading_reports_progress_and_can_be_stopped():
    from dpcore.errors import Cancelled
    calls = []
    ds = D.load_file(b"a,b\n" + b"1,2\n" * 10, progress=lambda d, t: calls.append((d, t)) or True)
    assert ds.n_rows == 10 and calls[-1][0] == calls[-1][1] and all(d <= t for d, t in calls)
    rows = [["x"]] + [[i] for i in range(12_000)]
    calls.clear()
    raw = X.table(rows, dimension="A1:A12001")
    assert D.load_file(raw, progress=lambda d, t: calls.append((d, t)) or True).n_rows == 12_000
    assert len(calls) >= 2 and calls[0] == (5_000, 12_001)        # sheet rows read / the declared rows
    with pytest.raises(Cancelled):
        D.load_file(b"a\n1\n", progress=lambda d, t: d < 2)

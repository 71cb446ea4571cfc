"""Hypothesis fuzz of the loaders (issue 18): random bytes, random CSV dialects and crafted .xlsx files
(the dimension and shared-strings bombs among them) each end in a clear DataError or a loaded Dataset,
within a time and memory cap, never another exception."""
from __future__ import annotations

import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcore import data as D
from dpcore.errors import DataError
from tests.data import xlsx_build as X

SECONDS, PEAK_BYTES = 20.0, 200 * 2 ** 20    # per input, under tracemalloc on a loaded 2-core machine: guards
#                                            against minutes and gigabytes (the bombs), not speed targets
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def _outcome(raw: bytes, name: str):
    """load_file's result or its DataError, checked against the time and memory caps."""
    tracemalloc.start()
    t = time.perf_counter()
    try:
        out = D.load_file(raw, name=name, max_rows=50_000)
    except DataError as exc:
        out = exc
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - t < SECONDS
    assert peak < PEAK_BYTES, peak
    if isinstance(out, DataError):
        msg = str(out)
        assert msg and "Traceback" not in msg and len(msg) < 2_000
        assert name[:20] in msg or "column" in msg or "line" in msg or "row" in msg, msg
    else:
        assert isinstance(out, D.Dataset) and out.n_rows >= 1
        assert all(len(c) <= 200 for c in out.frame.columns)
    return out


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes(raw):
    _outcome(raw, "fuzz.csv")


_cell = st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.sampled_from(["", "NA", "n/a", "?", "-", "1,5", "1.234,5", "12%", "$3", "abc", '"q"', "x y"]),
                  st.text(max_size=12))


@st.composite
def csv_files(draw):
    sep = draw(st.sampled_from([",", ";", "\t", "|"]))
    m = draw(st.integers(1, 6))
    names = draw(st.lists(st.text(min_size=0, max_size=15), min_size=m, max_size=m))
    rows = draw(st.lists(st.lists(_cell, min_size=m, max_size=m + draw(st.integers(0, 1))), max_size=30))
    quote = draw(st.booleans())
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))

    def fmt(v: str) -> str:
        return '"' + v.replace('"', '""') + '"' if quote or sep in v or '"' in v or "\n" in v else v
    lines = [sep.join(map(fmt, names))] + [sep.join(map(fmt, r)) for r in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "")
    text = eol.join(lines) + draw(st.sampled_from(["", eol]))
    enc = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252", "latin-1"]))
    return text.encode(enc, errors="replace")


@FUZZ
@given(csv_files())
def test_random_csv_dialects(raw):
    _outcome(raw, "dialect.csv")


_refs = st.tuples(st.integers(1, 16384), st.integers(1, 1_048_576))


@st.composite
def workbooks(draw):
    """Sheets with random declared dimensions, far cells, odd cell types and shared-string tables."""
    col_letter = D._excel._col_letter
    dim = None
    if draw(st.booleans()):
        (c1, r1), (c2, r2) = draw(_refs), draw(_refs)
        dim = f"{col_letter(min(c1, c2) - 1)}{min(r1, r2)}:{col_letter(max(c1, c2) - 1)}{max(r1, r2)}"
    n_shared = draw(st.integers(0, 50))
    declared = draw(st.one_of(st.none(), st.integers(0, 10**9)))
    rows = ['<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c><c r="B1" t="inlineStr"><is><t>y</t></is></c></row>']
    row_numbers = sorted(set(draw(st.lists(st.one_of(st.integers(2, 60), st.integers(2, 1_048_576)), max_size=12))))
    for r in row_numbers:
        cells = []
        for c in sorted(set(draw(st.lists(st.one_of(st.integers(1, 3), st.integers(1, 16384)), max_size=3)))):
            kind = draw(st.sampled_from(["n", "s", "b", "e", "str", "inline", "blank", "bad"]))
            ref = f"{col_letter(c - 1)}{r}"
            cells.append({"n": f'<c r="{ref}"><v>{draw(st.floats(allow_nan=False, width=32))}</v></c>',
                          "s": f'<c r="{ref}" t="s"><v>{draw(st.integers(-1, n_shared + 2))}</v></c>',
                          "b": f'<c r="{ref}" t="b"><v>{draw(st.integers(0, 2))}</v></c>',
                          "e": f'<c r="{ref}" t="e"><v>#DIV/0!</v></c>',
                          "str": f'<c r="{ref}" t="str"><v>abc</v></c>',
                          "inline": f'<c r="{ref}" t="inlineStr"><is><t>w{r}</t></is></c>',
                          "blank": f'<c r="{ref}" s="0"/>',
                          "bad": f'<c r="{ref}"><v>not-a-number</v></c>'}[kind])
        rows.append(f'<row r="{r}">{"".join(cells)}</row>')
    counts = "" if declared is None else f' count="{declared}" uniqueCount="{declared}"'
    shared = (f'<sst xmlns="{X.NS}"{counts}>' + "".join(f"<si><t>s{i}</t></si>" for i in range(n_shared)) + "</sst>"
              if n_shared or declared is not None else None)
    raw = X.workbook(X.sheet_xml("".join(rows), dim), shared)
    if draw(st.integers(0, 9)) == 0:                          # a damaged archive
        cut = draw(st.integers(0, len(raw)))
        raw = raw[:cut] + draw(st.binary(max_size=20)) + raw[cut + 20:]
    return raw


@FUZZ
@given(workbooks())
def test_crafted_workbooks(raw):
    _outcome(raw, "crafted.xlsx")


@pytest.mark.parametrize("make", [X.bomb_dimension, lambda: X.bomb_shared_strings(1_000_000)],
                         ids=["dimension_bomb", "shared_strings_bomb"])
def test_the_two_bombs_end_in_a_data_error_within_the_caps(make):
    assert isinstance(_outcome(make(), "bomb.xlsx"), DataError)

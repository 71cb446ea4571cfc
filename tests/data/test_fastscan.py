"""The CSV reader's fast first pass and its progress in the cell pass (issue 18: a 49 MB CSV took 19–50 s with
no progress shown between the decoding and the columns)."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore.data import readers as R
from dpcore.data._fastscan import scan_simple
from dpcore.errors import DataError

FIELDS = ("header", "header_record", "data_records", "data_lines", "n_records", "n_blank")


@pytest.mark.parametrize("text", ["a,b\n1,2\n\n3,4\n", "a,b\r\n1,2\r\n  \r\n3,4", "\n\n a , b\n1,2\n", "x\n1\n\n2\n",
                                  "a;b\n1;2\n;\n", "a\tb\n1\t2\n", "a,b,c\n1,,3\n,,\n"])
def test_the_fast_scan_matches_the_csv_scan(text):
    sep = R._sniff_separator(text)
    fast = scan_simple(text, sep, 100, 100, R._Scan)
    full = R._scan_records(text, sep, "f.csv", 100, 100)
    assert fast is not None
    for f in FIELDS:
        assert getattr(fast, f) == getattr(full, f), f


@pytest.mark.parametrize("text", ['a,b\n"1,5",2\n', "a,b\r1,2\r", "a,b\n1,2,3\n", "a,b\n" + "1,2\n" * 11,
                                  " \n\n", ",".join("c%d" % i for i in range(11)) + "\n" + "1," * 10 + "1\n"])
def test_anything_else_goes_to_the_csv_scan(text):
    """Quotes, lone carriage returns, ragged rows, too many rows or columns: None, so the messages stay the same."""
    assert scan_simple(text, ",", 10, 10, R._Scan) is None


def test_a_ragged_row_keeps_its_message():
    with pytest.raises(DataError, match="line 3 has 3 fields but the header has 2"):
        R.load_csv(b"a,b\n1,2\n1,2,3\n")


def test_a_large_csv_reports_progress_during_the_cell_pass():
    """Before: one tick for the whole cell pass (pandas read it at once). Now a tick per CELL_CHUNK records."""
    n = 3 * R.CELL_CHUNK + 7
    body = "\n".join(f"{i},{v:.3f}" for i, v in enumerate(np.linspace(0, 1, n)))
    seen = []
    ds = R.load_csv(("id,x\n" + body + "\n").encode(), progress=lambda d, t: seen.append((d, t)) or True)
    assert len(ds.frame) == n and ds.frame.index[0] == 2 and ds.frame.index[-1] == n + 1
    total = seen[-1][1]
    assert seen[-1] == (total, total) and total == 3 + 4 + 2          # decode, scan, 4 chunks, 2 columns
    assert sorted(d for d, _ in seen) == [d for d, _ in seen]       # never backwards
    assert len(seen) >= 4 + 4 + 2

"""A fast first pass of the CSV reader for the common file: no double quote anywhere (issue 18).

:func:`dpcore.data.readers.load_csv` scans a file's records with the ``csv`` module to find the header, check
every row's field count and remember each data row's line number (its pass 1), then reads the cells with
pandas' C parser. Without any ``"`` in the text a record is exactly one line and its fields are the line split
at the separator, so the same structure comes from string methods in a fraction of the time (a 49 MB,
960 000-row file: see ``benchmarks/loaders.py``). Whenever the file is not this simple case or anything needs
a message (a ragged row, too many rows or columns, a lone carriage return), :func:`scan_simple` returns None
and the reader's own scan runs, so every error message stays the same.
"""
from __future__ import annotations

from array import array
from typing import Any


def scan_simple(text: str, sep: str, max_rows: int, max_cols: int, make: Any) -> Any:
    """Pass 1 for a quote-free text: ``make(header, header_record, data_records, data_lines, n_records,
    n_blank)`` (the reader's ``_Scan``), or None when the reader's full scan must decide."""
    if '"' in text:
        return None
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None                       # a lone carriage return ends a line for csv: leave it to the scan
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()                           # the text's final line ending, not an empty record
    counts = [ln.count(sep) for ln in lines]
    blank = [c == 0 and not ln.strip() for c, ln in zip(counts, lines)]
    first = next((i for i, b in enumerate(blank) if not b), None)
    if first is None:
        return None
    m = counts[first] + 1
    if m > max_cols:
        return None
    data = [i for i in range(first + 1, len(lines)) if not blank[i]]
    if len(data) > max_rows or any(counts[i] != m - 1 for i in data):
        return None
    header = lines[first].split(sep)
    recs = array("q", data)
    line_nos = array("q", [i + 1 for i in data])
    return make(header, first, recs, line_nos, len(lines), sum(blank))

"""Reading user files into a :class:`~dpcore.data.Dataset`: CSV text (:func:`load_csv`), Excel
workbooks (:func:`load_excel`, via openpyxl) and either by content (:func:`load_file`).

CSV: bytes, a path or an uploaded file; encodings (UTF-8 with or without BOM, UTF-16 from Excel,
Windows-1252), separators (``,`` ``;`` tab ``|``), decimal commas, thousands separators,
missing-value tokens, ragged rows, binary files renamed ``.csv``. Every problem raises
:class:`~dpcore.errors.DataError` naming the line/column/value and the fix; everything loading *did*
is recorded in :attr:`Dataset.notes`. No raw pandas/csv/openpyxl traceback escapes.

Why this module is long: CSV and Excel share one path from bytes to a Dataset (read with a byte cap,
decode, scan records under the row/column caps, name columns, parse cells, assemble with notes), and each
cap and message is checked in that order in one place; the workbook's own guards are in :mod:`._excel`.
"""
from __future__ import annotations

import csv
import hashlib
import io
import re
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_int
from ..errors import Cancelled, DataError
from ._fastscan import scan_simple
from ._cells import NA_TOKENS, ColumnParse, hints, is_number_text, parse_cells
from ._format import list_names, mb, short
from ._excel import MAX_EXCEL_CELLS, MAX_SHARED_STRINGS, _XLSX_FIX, _check_dimension, _check_workbook_zip, _sheet_rows
from .dataset import Dataset

__all__ = ["MAX_EXCEL_CELLS", "MAX_SHARED_STRINGS", "NA_TOKENS", "is_excel_workbook", "load_csv", "load_excel", "load_file"]

_DEFAULT_NAMES = ("upload.csv", "upload.xlsx")
_SEPARATORS = (",", "\t", ";", "|")
_SEP_NAMES = {",": "',' (comma)", "\t": "tab", ";": "';' (semicolon)", "|": "'|' (pipe)"}
_SAVE_AS = "re-save it as 'CSV UTF-8 (comma delimited)' and upload that file"


def _read_source(source: Any, name: str, max_bytes: int) -> tuple[bytes, str]:
    """Bytes of ``source`` (never more than max_bytes + 1 read) and a display name."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
    elif isinstance(source, (str, Path)):
        if isinstance(source, str) and ("\n" in source or len(source) > 4096):
            raise DataError("source is a str that looks like CSV text, not a file path; pass bytes instead "
                            "(e.g. text.encode('utf-8')) or a path to the file.")
        path = Path(source)
        if name in _DEFAULT_NAMES:
            name = path.name
        if not path.is_file():
            raise DataError(f"file {short(str(path), 80)} was not found (or is not a regular file); check the path.")
        size = path.stat().st_size
        if size > max_bytes:
            raise DataError(f"{short(name)} is {mb(size)}; the upload limit is {mb(max_bytes)}. "
                            "Upload a smaller file, e.g. a random sample of rows or only the columns you need.")
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise DataError(f"could not read {short(name)}: {exc.strerror or exc}.") from None
    elif hasattr(source, "read"):
        fname = getattr(source, "name", None)
        if name in _DEFAULT_NAMES and isinstance(fname, str) and fname:
            name = Path(fname).name
        declared = getattr(source, "size", None)
        if isinstance(declared, (int, np.integer)) and declared > max_bytes:
            raise DataError(f"{short(name)} is {mb(int(declared))}; the upload limit is "
                            f"{mb(max_bytes)}. Upload a smaller file, e.g. a random sample of rows.")
        if hasattr(source, "seek"):
            try:
                source.seek(0)
            except (OSError, ValueError):
                pass
        try:
            raw = source.read(max_bytes + 1)
        except (OSError, ValueError) as exc:
            raise DataError(f"could not read {short(name)}: {exc}.") from None
        if isinstance(raw, str):
            raise DataError(f"{short(name)} was opened in text mode; open it in binary mode ('rb') or pass bytes.")
        if not isinstance(raw, (bytes, bytearray)):
            raise DataError(f"reading {short(name)} returned {type(raw).__name__}, not bytes.")
        raw = bytes(raw)
    else:
        raise DataError(f"source must be bytes, a file path (str or Path) or an uploaded file; "
                        f"got {type(source).__name__}.")
    if len(raw) > max_bytes:
        raise DataError(f"{short(name)} is larger than the upload limit of {mb(max_bytes)} "
                        f"({len(raw):,}+ bytes read); upload a smaller file, e.g. a random sample of rows.")
    return raw, name


def _binary_kind(raw: bytes) -> str | None:
    """Name of a known binary format from its magic number, or None."""
    head = raw[:16]
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        window = raw[:1 << 16]
        if b"xl/" in window or (b"[Content_Types].xml" in window and b"word/" not in window):
            return ("an Excel workbook (.xlsx, a ZIP archive) renamed to .csv; open it in Excel or LibreOffice "
                    "and use File > Save As > 'CSV UTF-8 (Comma delimited) (*.csv)'")
        if b"word/" in window:
            return "a Word document (.docx); export the table as 'CSV UTF-8' from a spreadsheet program"
        return "a ZIP archive, not a CSV; extract the .csv file from it first and upload that"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return ("a legacy Excel workbook (.xls, or another old Microsoft Office file) renamed to .csv; open it "
                "in Excel or LibreOffice and use File > Save As > 'CSV UTF-8 (Comma delimited) (*.csv)'")
    if head.startswith(b"\x1f\x8b"):
        return "a gzip-compressed file (.gz), not a CSV; decompress it first (e.g. gunzip) and upload the .csv"
    if head.startswith(b"BZh") and len(head) >= 10 and head[3:4].isdigit() and head[4:10] == b"1AY&SY":
        return "a bzip2-compressed file (.bz2), not a CSV; decompress it first and upload the .csv"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "an xz-compressed file (.xz), not a CSV; decompress it first and upload the .csv"
    if head.startswith(b"(\xb5/\xfd"):
        return "a zstd-compressed file (.zst), not a CSV; decompress it first and upload the .csv"
    if head.startswith(b"7z\xbc\xaf'\x1c"):
        return "a 7-Zip archive, not a CSV; extract the .csv file from it first"
    if head.startswith(b"%PDF"):
        return "a PDF document, not a CSV; export the table from its source program as 'CSV UTF-8'"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "a PNG image, not a CSV; upload the data table itself as 'CSV UTF-8'"
    if head.startswith(b"\xff\xd8\xff"):
        return "a JPEG image, not a CSV; upload the data table itself as 'CSV UTF-8'"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "a GIF image, not a CSV; upload the data table itself as 'CSV UTF-8'"
    if head.startswith(b"PAR1"):
        return "a Parquet file, not a CSV; convert it (e.g. pandas.read_parquet(...).to_csv(...)) and upload the .csv"
    if head.startswith(b"SQLite format 3\x00"):
        return "an SQLite database, not a CSV; export the table as CSV first"
    if head.startswith((b"\x7fELF", b"MZ")):
        return "an executable program, not a CSV"
    return None


def _line_of(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def _decode(raw: bytes, name: str, notes: list[str]) -> str:
    """Decode bytes to text; BOMs and encodings are recorded in ``notes``."""
    codec: str | None
    label: str | None
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        codec, label = "utf-32", "UTF-32"
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec, label = "utf-16", "UTF-16"
    else:
        codec = label = None
    if codec is None and b"\x00" in raw:
        head = raw[:1 << 14]
        even, odd = head[0::2], head[1::2]
        z_even = even.count(0) / max(len(even), 1)
        z_odd = odd.count(0) / max(len(odd), 1)
        if z_odd > 0.4 and z_even < 0.05 and len(raw) % 2 == 0:
            codec, label = "utf-16-le", "UTF-16 little-endian (no byte-order mark)"
        elif z_even > 0.4 and z_odd < 0.05 and len(raw) % 2 == 0:
            codec, label = "utf-16-be", "UTF-16 big-endian (no byte-order mark)"
        else:
            off = raw.index(b"\x00")
            raise DataError(f"{short(name)} contains NUL bytes (first at line {_line_of(raw, off)}, byte {off}): it is "
                            f"a binary or corrupted file, not CSV text. If it came from a spreadsheet, {_SAVE_AS}.")
    if codec is not None:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as exc:
            raise DataError(f"{short(name)} starts like {label} text but cannot be decoded as such "
                            f"(byte {exc.start}: {exc.reason}); {_SAVE_AS}.") from None
        notes.append(f"encoding: {label} (as saved by Excel's 'Unicode Text'); decoded and converted.")
        text = text.lstrip("\ufeff")
    elif raw.startswith(b"\xef\xbb\xbf"):
        try:
            text = raw[3:].decode("utf-8")
        except UnicodeDecodeError as exc:
            off = exc.start + 3
            raise DataError(f"{short(name)} has a UTF-8 byte-order mark but invalid UTF-8 at line "
                            f"{_line_of(raw, off)} (byte 0x{raw[off]:02X}); {_SAVE_AS}.") from None
        notes.append("encoding: UTF-8; the byte-order mark (BOM) at the start was removed.")
    else:
        try:
            text = raw.decode("utf-8")
            notes.append("encoding: UTF-8.")
        except UnicodeDecodeError as exc:
            off = exc.start
            where = f"byte 0x{raw[off]:02X} at line {_line_of(raw, off)}"
            _refuse_binary(raw, name, where)
            try:
                text = raw.decode("cp1252")
                notes.append(f"encoding: not valid UTF-8 ({where}); decoded as Windows-1252 (cp1252). Check that "
                             f"accented characters look right; if not, {_SAVE_AS}.")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
                notes.append(f"encoding: not valid UTF-8 ({where}) nor Windows-1252; decoded as Latin-1. "
                             f"Check that accented characters look right; if not, {_SAVE_AS}.")
    if "\x00" in text:
        pos = text.index("\x00")
        raise DataError(f"{short(name)} contains NUL characters (first at line {text.count(chr(10), 0, pos) + 1}); "
                        f"it is binary or corrupted, not CSV text. {_SAVE_AS[0].upper() + _SAVE_AS[1:]}.")
    sample = text[:1 << 16]
    if sample:
        ctrl = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
        if ctrl > max(2, 0.01 * len(sample)):
            raise DataError(f"{short(name)} looks like a binary file ({ctrl} control characters in its first "
                            f"{len(sample):,} characters), not CSV text; upload a CSV text file ({_SAVE_AS}).")
    return text


#: Largest share of bytes ≥ 0x80 in the first 64 KB of a file that is not valid UTF-8 (text in
#: Windows-1252/Latin-1 has a few accented letters; a binary file about half).
MAX_HIGH_BYTE_SHARE = 0.3


def _refuse_binary(raw: bytes, name: str, where: str) -> None:
    """DataError for bytes that are not UTF-8 and mostly not ASCII: binary, not a text CSV."""
    sample = raw[:1 << 16]
    high = len(sample) - len(sample.translate(None, bytes(range(0x80, 0x100))))
    c1 = len(sample) - len(sample.translate(None, b"\x81\x8d\x8f\x90\x9d"))   # bytes undefined in cp1252
    if (len(sample) >= 64 and high > MAX_HIGH_BYTE_SHARE * len(sample)) or c1 > max(2, 0.005 * len(sample)):
        raise DataError(f"{short(name)} does not look like a text CSV file: it is not valid UTF-8 ({where}) and "
                        f"{high / len(sample):.0%} of its first {len(sample):,} bytes are not ASCII text, so it is "
                        "probably a binary file (compressed, encrypted, an image or another program's own format) "
                        "renamed to .csv. Open the data in the program that made it and export the table as "
                        "'CSV UTF-8 (comma delimited)', then upload that .csv file.")


def _is_blank(rec: list[str]) -> bool:
    return len(rec) == 0 or (len(rec) == 1 and not rec[0].strip())


def _sniff_separator(text: str) -> str:
    """Pick the separator whose field count is the same (and > 1) on the first records, header included."""
    sample = text[:1 << 16]
    truncated = len(text) > len(sample)
    if truncated and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    counts: dict[str, list[int]] = {}
    for sep in _SEPARATORS:
        c: list[int] = []
        try:
            for rec in csv.reader(io.StringIO(sample, newline=""), delimiter=sep):
                if _is_blank(rec):
                    continue
                c.append(len(rec))
                if len(c) >= 100:
                    break
        except csv.Error:
            continue
        if c:
            counts[sep] = c
    consistent = [s for s in _SEPARATORS if s in counts and counts[s][0] > 1 and len(set(counts[s])) == 1]
    if consistent:
        return max(consistent, key=lambda s: (counts[s][0], -_SEPARATORS.index(s)))
    multi = [s for s in _SEPARATORS if s in counts and counts[s][0] > 1]
    if multi:
        return max(multi, key=lambda s: (sum(x == counts[s][0] for x in counts[s]) / len(counts[s]),
                                         -_SEPARATORS.index(s)))
    return ","


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _lines(text: str):
    """The lines of ``text`` with their endings (\\n, \\r\\n or \\r), as ``io.StringIO(text, newline="")``
    gives them, without its copy of the whole text in 4 bytes per character."""
    return (m.group(0) for m in _LINE.finditer(text))


@dataclass
class _Scan:
    header: list[str]
    header_record: int
    data_records: array          # record index (0-based over all records) of each data row
    data_lines: array            # first file line of each data row
    n_records: int
    n_blank: int


def _scan_records(text: str, sep: str, name: str, max_rows: int, max_cols: int) -> _Scan:
    """Pass 1: structure only (header, field counts, line numbers); stores no cells."""
    reader = csv.reader(_lines(text), delimiter=sep, quotechar='"', doublequote=True)
    header: list[str] | None = None
    header_record = -1
    m = 0
    recs, lines = array("q"), array("q")
    n_blank = 0
    idx = -1
    prev_line = 0
    try:
        for rec in reader:
            idx += 1
            start = prev_line + 1
            prev_line = reader.line_num
            if _is_blank(rec):
                n_blank += 1
                continue
            if header is None:
                header, header_record, m = rec, idx, len(rec)
                if m > max_cols:
                    raise DataError(f"{short(name)} has {m} columns; the limit is {max_cols}. Remove unused "
                                    "columns and upload again.")
                continue
            if len(rec) != m:
                shown = sep.join(rec)
                fields = "field" if len(rec) == 1 else "fields"
                hint = (f" Check for an extra or missing {_SEP_NAMES[sep]} on that line; a text cell that contains "
                        f"the separator must be enclosed in double quotes.")
                if any("\n" in f or "\r" in f for f in rec):
                    hint = (f" The row spans several lines, which usually means an unbalanced double quote (\") "
                            f"opens a field at line {start}; close the quote or remove it.")
                elif sep == "," and re.search(r"\d,\d", shown):
                    hint += (" If the numbers use a decimal comma (e.g. 1,5), use '.' as decimal point or save the "
                             "file with ';' as separator.")
                raise DataError(f"line {start} has {len(rec)} {fields} but the header has {m}; every row needs "
                                f"exactly {m} (separator {_SEP_NAMES[sep]}). The line starts {short(shown, 60)}.{hint}")
            recs.append(idx)
            lines.append(start)
            if len(recs) > max_rows:
                raise DataError(f"{short(name)} has more than {max_rows:,} data rows; the limit is {max_rows:,}. "
                                "Upload a random sample of rows.")
    except csv.Error as exc:
        raise DataError(f"{short(name)} could not be parsed near line {reader.line_num}: {exc}. This usually means an "
                        "unbalanced double quote (\"): close the quote or remove it.") from None
    if header is None:
        raise DataError(f"{short(name)} contains only blank lines: no header and no data. Choose a CSV file with a "
                        "header line and at least one data row.")
    return _Scan(header, header_record, recs, lines, idx + 1, n_blank)


#: Records per chunk of the cell pass (a progress tick between chunks, where a newer rerun stops a stale load).
CELL_CHUNK = 100_000


def _cell_chunks(scan: _Scan) -> int:
    return -(-scan.n_records // CELL_CHUNK)


def _cells_pandas(text: str, sep: str, scan: _Scan, progress: Any = None,
                  steps: tuple[int, int] = (0, 0)) -> list[pd.Series] | None:
    """Pass 2: all cells as strings via pandas' C parser, in chunks of :data:`CELL_CHUNK` records with a progress
    tick after each (``steps``: the first tick's number and the total); None if it disagrees with pass 1."""
    m = len(scan.header)
    try:
        reader = pd.read_csv(io.BytesIO(text.encode("utf-8")), encoding="utf-8", sep=sep, header=None, dtype=object,
                             na_filter=False, keep_default_na=False, skip_blank_lines=False, index_col=False,
                             engine="c", quotechar='"', doublequote=True, low_memory=False, chunksize=CELL_CHUNK)
        parts = []
        with reader:
            for i, part in enumerate(reader):
                parts.append(part)
                _tick(progress, steps[0] + i, steps[1])
        raw = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv.Error):
        return None
    if raw.shape != (scan.n_records, m):
        return None
    take = np.frombuffer(scan.data_records, dtype=np.int64) if len(scan.data_records) else np.zeros(0, np.int64)
    hdr = [str(v) for v in raw.iloc[scan.header_record].tolist()]
    if hdr != [str(h) for h in scan.header]:
        return None
    sub = raw.iloc[take]
    out = [sub.iloc[:, j].reset_index(drop=True) for j in range(m)]
    if any(s.isna().any() for s in out):
        return None
    return out


def _cells_csv(text: str, sep: str, scan: _Scan) -> list[pd.Series]:
    """Fallback pass 2 with the csv module (same segmentation as pass 1 by construction)."""
    keep = set(scan.data_records)
    rows = [rec for i, rec in enumerate(csv.reader(_lines(text), delimiter=sep,
                                                   quotechar='"', doublequote=True)) if i in keep]
    cols = list(zip(*rows)) if rows else [() for _ in scan.header]
    return [pd.Series(list(c), dtype="str") for c in cols]



#: Longest column name accepted (characters); a longer header cell is refused, not truncated.
MAX_NAME_CHARS = 200
#: A column whose non-missing cells are numbers except at most this share (and at most
#: MAX_STRAY_VALUES cells) is read as numeric with the stray cells as missing, each named in a note.
MAX_STRAY_SHARE = 0.05
MAX_STRAY_VALUES = 100


def _column_names(header: list[str], shown: str, notes: list[str]) -> list[str]:
    """Header cells → unique, non-empty column names (or DataError); what changed goes to ``notes``."""
    for j, h in enumerate(header):
        if len(h) > MAX_NAME_CHARS:
            raise DataError(f"column {j + 1}'s name is {len(h):,} characters long (it starts {short(h, 30)}); the "
                            f"limit is {MAX_NAME_CHARS} characters. Shorten that header cell and upload again (if the "
                            "first line is data, not names, add a header line above it).")
    names = [h.strip() for h in header]
    if names != list(header):
        notes.append("spaces around column names were removed.")
    for j, h in enumerate(names):
        if not h:
            names[j] = f"column_{j + 1}"
            notes.append(f"column {j + 1} has no name in the header; it was named {names[j]!r}.")
    if all(is_number_text(h) for h in names):
        raise DataError(f"the first line {short(shown, 60)} contains only numbers, so it looks like a data row, not "
                        "a header. Add a header line with column names (e.g. 'x,y') as the first line; if these "
                        "numbers really are names, prefix them with a letter (e.g. 'y2020').")
    seen: dict[str, list[int]] = {}
    for j, h in enumerate(names):
        seen.setdefault(h, []).append(j + 1)
    dups = {h: pos for h, pos in seen.items() if len(pos) > 1}
    if dups:
        desc = "; ".join(f"{short(h)} (columns {', '.join(map(str, pos))})" for h, pos in list(dups.items())[:5])
        raise DataError(f"duplicate column names in the header: {desc}. Rename them so every column has a unique "
                        "name, then upload again.")
    return names


def _assemble(names: list[str], cells: list[pd.Series], index: pd.Index, notes: list[str], sep: str | None,
              name: str, provenance: str, progress: Any = None, steps: tuple[int, int] = (0, 0)) -> Dataset:
    """Typed columns from text cells: numeric when every non-missing cell is a number, else text."""
    n = len(index)
    data: dict[str, Any] = {}
    numeric: list[str] = []
    text_cols: list[str] = []
    word = "line" if index.name == "line" else "row"
    for j, (h, col) in enumerate(zip(names, cells)):
        _tick(progress, steps[0] + j, steps[1])
        parsed = parse_cells(col, sep)
        if parsed.values is None and parsed.note is None:
            parsed = _stray_as_missing(h, col, parsed, index, notes)
        if parsed.values is None:
            data[h] = pd.Series(col.to_numpy(), index=index, dtype="str")
            text_cols.append(h)
            if parsed.note:
                notes.append(f"column {short(h)}: {parsed.note}; kept as text.")
            continue
        vals = parsed.values
        data[h] = pd.Series(vals, index=index, dtype="float64")
        if parsed.note:
            notes.append(f"column {short(h)}: {parsed.note}.")
        n_na = int(parsed.na_mask.sum())
        if n_na == n:
            notes.append(f"column {short(h)}: every cell is missing; it is not offered as a numeric column.")
            continue
        numeric.append(h)
        if n_na:
            tokens = col[parsed.na_mask].str.strip().value_counts()
            tok = ", ".join(f"{short(t)} x{int(c)}" for t, c in tokens.items())
            notes.append(f"column {short(h)}: {n_na} missing cell(s) ({tok}).")
        inf = np.isinf(vals)
        if inf.any():
            pos = np.flatnonzero(inf)[:5]
            ex = ", ".join(f"{word} {int(index[p])}: {short(str(col.iloc[p]).strip(), 20)}" for p in pos)
            notes.append(f"column {short(h)}: {int(inf.sum())} non-finite value(s) ({ex}); fix them before "
                         "using this column.")
    if text_cols:
        notes.append(f"text (non-numeric) columns: {list_names(text_cols)}.")
    frame = pd.DataFrame(data, index=index)
    notes.insert(0, f"read {n:,} row(s) x {len(names)} column(s); numeric columns: {list_names(numeric)}.")
    return Dataset(frame, tuple(numeric), {}, provenance, notes=tuple(notes), name=name)


def _stray_as_missing(h: str, col: pd.Series, parsed: Any, index: pd.Index, notes: list[str]) -> Any:
    """A numeric column with a few non-number cells (a word, a typo): read them as missing, and name
    each (value and line/row) with the fix in ``notes``; a mostly-text column is returned unchanged."""
    bad = parsed.bad_mask
    n_bad = int(bad.sum())
    n_num = int((~parsed.na_mask & ~bad).sum())
    if n_num <= n_bad:                                 # a text column
        return parsed
    word = "line" if index.name == "line" else "row"
    pos = np.flatnonzero(bad)
    shown = ", ".join(f"{word} {int(index[p])}: {short(str(col.iloc[p]).strip(), 20)}" for p in pos[:5])
    more = f" and {n_bad - 5} more" if n_bad > 5 else ""
    hint = hints([str(col.iloc[p]) for p in pos[:20]])
    if n_num < 2 or n_bad > MAX_STRAY_VALUES or n_bad > MAX_STRAY_SHARE * (n_num + n_bad):
        notes.append(f"column {short(h)} is kept as TEXT: {n_num} cells are numbers but {n_bad} are not ({shown}"
                     f"{more}). To use it as a numeric column, fix these cells in the file (a number, or empty / "
                     "NA if unknown) and upload again." + (f" {hint}" if hint else ""))
        return parsed
    nums = pd.to_numeric(col.str.strip().mask(bad | parsed.na_mask), errors="coerce").to_numpy(dtype=float)
    notes.append(f"column {short(h)} is numeric except {n_bad} cell(s) that are not numbers ({shown}{more}); they "
                 "are read as MISSING and take the column's public imputation value in releases. To keep their "
                 "values, fix these cells in the file (a number, or empty / NA if unknown) and upload again."
                 + (f" {hint}" if hint else ""))
    return ColumnParse(nums, parsed.na_mask | bad, np.zeros_like(bad), None)


def _tick(progress: Any, done: int, total: int) -> None:
    """Report progress; a callback returning False stops loading (:class:`~dpcore.errors.Cancelled`)."""
    if progress is not None and progress(int(done), int(total)) is False:
        raise Cancelled("loading stopped", done=done, total=total)


def _limits(max_bytes: Any, max_rows: Any, max_cols: Any) -> tuple[int, int, int]:
    return (check_int(max_bytes, "max_bytes", lo=1), check_int(max_rows, "max_rows", lo=1),
            check_int(max_cols, "max_cols", lo=1))


def _refuse_empty(raw: bytes, name: str, what: str) -> None:
    if len(raw) == 0:
        raise DataError(f"{short(name)} is empty (0 bytes); choose a {what} with a header line and at least "
                        "one data row.")


def load_csv(source: Any, *, name: str = "upload.csv", max_bytes: int = 50 * 2 ** 20,
             max_rows: int = 1_000_000, max_cols: int = 200, progress: Any = None) -> Dataset:
    """Load a CSV file into a :class:`Dataset`, or raise :class:`DataError` saying what is wrong and how to fix it.

    Parameters
    ----------
    source : bytes, a path (str or Path) or a binary file-like object (e.g. Streamlit's ``UploadedFile``).
    name : display name for messages (taken from the path / uploaded file if left at the default).
    max_bytes, max_rows, max_cols : limits that protect the server (Streamlit's ``server.maxUploadSize``
        must also be set: the per-widget limit is only enforced in the browser).
    progress : optional ``(done, total) -> bool`` called between the steps (decoding, the record scan,
        the cell pass, each column); returning False stops with :class:`~dpcore.errors.Cancelled`.

    Notes
    -----
    What loading does (each step recorded in ``notes``): refuses binary formats by their magic number
    (Excel .xlsx/.xls, gzip, PDF, PNG, …) and NUL bytes; decodes UTF-8 (BOM removed), UTF-16/32 (BOM,
    or UTF-16 without BOM by its NUL pattern), else Windows-1252, else Latin-1; detects the separator
    among ',', tab, ';', '|'; skips blank lines; reads every cell as text and makes a column numeric
    when every non-missing cell is a number (missing tokens: :data:`NA_TOKENS`, counted per column;
    with a non-comma separator a decimal comma is read, e.g. '1,5' → 1.5; in comma files quoted
    thousands separators are removed, e.g. '1,234,567' → 1234567). Non-finite numbers ('inf', '1e309')
    are kept and reported; :func:`~dpcore.data.column_values` refuses them. Errors: empty file, header
    only, ragged rows (line number and field counts), duplicate column names, a header that looks like
    data, too many rows/columns, file too large, unbalanced quotes.

    The frame's index is the file line number of each row (name ``"line"``); bounds are empty (the
    user must declare public bounds with :meth:`Dataset.with_bounds`). Use :func:`load_file` to
    accept Excel workbooks as well.
    """
    max_bytes, max_rows, max_cols = _limits(max_bytes, max_rows, max_cols)
    raw, name = _read_source(source, str(name), max_bytes)
    _refuse_empty(raw, name, "CSV file")
    kind = _binary_kind(raw)
    if kind is not None:
        raise DataError(f"{short(name)} is {kind}.")
    notes: list[str] = []
    _tick(progress, 0, 4)
    text = _decode(raw, name, notes)
    _tick(progress, 1, 4)
    if not text.strip():
        raise DataError(f"{short(name)} contains only whitespace/blank lines: no header and no data. Choose a CSV "
                        "file with a header line and at least one data row.")
    sep = _sniff_separator(text)
    scan = scan_simple(text, sep, max_rows, max_cols, _Scan) or _scan_records(text, sep, name, max_rows, max_cols)
    m, chunks = len(scan.header), _cell_chunks(scan)
    total = 3 + chunks + m
    _tick(progress, 2, total)
    if m > 1 or sep != ",":
        notes.append(f"separator: {_SEP_NAMES[sep]} (detected).")
    else:
        notes.append("single column (no separator found in the header line).")
    names = _column_names(list(scan.header), sep.join(scan.header), notes)
    n = len(scan.data_records)
    if n == 0:
        raise DataError(f"{short(name)} has a header line (columns {list_names(names)}) but no data rows; add "
                        "at least one data row below the header.")
    if scan.n_blank:
        notes.append(f"skipped {scan.n_blank} blank line(s).")
    cells = _cells_pandas(text, sep, scan, progress, (3, total))
    _tick(progress, 3 + chunks, total)
    if cells is None:
        cells = _cells_csv(text, sep, scan)
    index = pd.Index(np.frombuffer(scan.data_lines, dtype=np.int64).copy(), name="line")
    digest = hashlib.sha256(raw).hexdigest()[:12]
    prov = f"uploaded file {short(name, 80)} ({len(raw):,} bytes, sha256 {digest}…), {n:,} rows x {m} columns."
    ds = _assemble(names, cells, index, notes, sep, name, prov, progress, (3 + chunks, total))
    _tick(progress, total, total)
    return ds


def is_excel_workbook(raw: bytes) -> bool:
    """True when ``raw`` starts like an .xlsx/.xlsm workbook (a ZIP archive holding ``xl/``)."""
    if not raw.startswith(b"PK\x03\x04"):
        return False
    window = raw[:1 << 16]
    return b"xl/" in window or (b"[Content_Types].xml" in window and b"word/" not in window)




def load_excel(source: Any, *, name: str = "upload.xlsx", sheet: str | None = None,
               max_bytes: int = 50 * 2 ** 20, max_rows: int = 1_000_000, max_cols: int = 200,
               progress: Any = None) -> Dataset:
    """Load one sheet of an Excel workbook (.xlsx/.xlsm, read with openpyxl) into a :class:`Dataset`.

    Reads the first worksheet unless ``sheet`` names another (other sheets are listed in the notes),
    with the values Excel last computed for formulas (a formula never computed, e.g. in a file written
    by a script, reads as missing). The first non-empty row is the header; empty rows are skipped.
    Cells then go through the same rules as :func:`load_csv` (missing tokens, numeric vs text
    columns, duplicate/empty names, a header of numbers), so the same file gives the same columns as
    a CSV. The frame's index is the sheet's row number (name ``"row"``). Legacy .xls files, corrupt
    workbooks and a cell to the right of the header's last column are refused with a
    :class:`DataError` naming the problem and the fix. Limits: ``max_rows``, ``max_cols``, at most
    :data:`MAX_EXCEL_CELLS` cells and :data:`MAX_SHARED_STRINGS` shared strings. Hostile workbooks are
    refused before openpyxl parses anything: the ZIP directory's uncompressed sizes and expansion
    ratios (``MAX_XLSX_*``), the shared strings counted in a bounded pass, then the sheet's declared
    ``<dimension>``; rows are then streamed (a wrong dimension neither truncates nor pads them) with
    caps on data rows, empty rows (:data:`MAX_EMPTY_ROWS`) and cells.
    """
    max_bytes, max_rows, max_cols = _limits(max_bytes, max_rows, max_cols)
    raw, name = _read_source(source, str(name), max_bytes)
    _refuse_empty(raw, name, "workbook")
    if raw.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        raise DataError(f"{short(name)} is a legacy Excel workbook (.xls), which cannot be read here; open it in "
                        "Excel or LibreOffice and save it as .xlsx (Excel Workbook) or as 'CSV UTF-8'.")
    if not is_excel_workbook(raw):
        raise DataError(f"{short(name)} is not an Excel workbook (.xlsx: a ZIP archive with an xl/ folder); "
                        f"{_XLSX_FIX}. If it is a CSV file, upload it with a .csv name.")
    _check_workbook_zip(raw, name, max_rows, max_cols)
    try:
        import openpyxl
    except ImportError:  # pragma: no cover - openpyxl is a runtime requirement
        raise DataError(f"reading {short(name)} needs the openpyxl package, which is not installed here; save the "
                        "sheet as 'CSV UTF-8' and upload that file.") from None
    # openpyxl parses untrusted ZIP/XML: whatever it raises on a damaged file (BadZipFile, KeyError,
    # XML ParseError, ValueError, ...) becomes one DataError, never a traceback.
    try:
        wb = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - see above
        raise DataError(f"{short(name)} could not be read as an Excel workbook ({type(exc).__name__}: "
                        f"{short(exc, 80)}); it may be damaged or password-protected: {_XLSX_FIX}.") from None
    try:
        names_all = list(wb.sheetnames)
        sheets = wb.worksheets
        if not sheets:
            raise DataError(f"{short(name)} has no worksheet with cells (only charts?); {_XLSX_FIX}.")
        if sheet is None:
            ws = sheets[0]
        elif sheet in names_all and wb[sheet] in sheets:
            ws = wb[sheet]
        else:
            raise DataError(f"sheet {short(sheet)} not found in {short(name)}; its sheets are {list_names(names_all)}.")
        notes = [f"Excel workbook: read sheet {short(ws.title)}"
                 + (f" (of {len(names_all)}: {list_names(names_all)})." if len(names_all) > 1 else ".")]
        _check_dimension(ws, name, max_rows, max_cols)
        expected = ws.max_row if isinstance(ws.max_row, int) and ws.max_row > 0 else max_rows
        ws.reset_dimensions()   # stream what is there (a wrong <dimension> neither truncates nor pads rows)
        header, hrow, rows, rownums, n_blank = _sheet_rows(ws, name, max_rows, max_cols, progress, expected)
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - damaged sheet XML surfaces while streaming rows
        raise DataError(f"{short(name)}: a sheet could not be read ({type(exc).__name__}: {short(exc, 80)}); "
                        f"{_XLSX_FIX}.") from None
    finally:
        wb.close()
    names = _column_names(header, ", ".join(header), notes)
    if not rows:
        raise DataError(f"{short(name)} has a header row (row {hrow}: columns {list_names(names)}) but no data "
                        "rows; add at least one data row below the header.")
    if n_blank:
        notes.append(f"skipped {n_blank} empty row(s).")
    cells = [pd.Series([r[j] for r in rows], dtype="str") for j in range(len(names))]
    index = pd.Index(np.asarray(rownums, dtype=np.int64), name="row")
    digest = hashlib.sha256(raw).hexdigest()[:12]
    prov = (f"uploaded workbook {short(name, 80)}, sheet {short(ws.title)} ({len(raw):,} bytes, sha256 "
            f"{digest}…), {len(rows):,} rows x {len(names)} columns.")
    return _assemble(names, cells, index, notes, None, name, prov)




def load_file(source: Any, *, name: str = "upload.csv", sheet: str | None = None, progress: Any = None,
              **limits: Any) -> Dataset:
    """:func:`load_excel` for an .xlsx/.xlsm workbook (``sheet``: which one), else :func:`load_csv` —
    decided by the content, not the file name (a legacy .xls or any other binary file is refused by
    :func:`load_csv` with its reason and fix). ``limits``: ``max_bytes``, ``max_rows``, ``max_cols``;
    ``progress``: ``(done, total) -> bool`` between steps (CSV) or every 5 000 sheet rows (.xlsx)."""
    raw, name = _read_source(source, str(name), check_int(limits.get("max_bytes", 50 * 2 ** 20), "max_bytes", lo=1))
    if is_excel_workbook(raw):
        return load_excel(raw, name=name, sheet=sheet, progress=progress, **limits)
    return load_csv(raw, name=name, progress=progress, **limits)

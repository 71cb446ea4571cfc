"""The guards of the .xlsx reader (used by :func:`dpcore.data.readers.load_excel`): caps checked on the
workbook's ZIP directory, its shared strings and each sheet's declared dimension BEFORE openpyxl parses
anything, and the bounded row stream (issue 18: a 1.5 KB workbook declaring A1:XFD1048576 and an 826 KB one of
20 M shared strings are refused in well under a second).
"""
from __future__ import annotations

import datetime as _dt
from typing import Any

import io
import re

from ..errors import Cancelled, DataError
from ._format import mb, short

_XLSX_FIX = "open it in Excel or LibreOffice, check it, and save it again as .xlsx or as 'CSV UTF-8'"
_BOMB_FIX = ("open it in Excel or LibreOffice and save it again (or save the table as 'CSV UTF-8'); if it is "
             "not your own file, do not open it")
_SI_RE = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?si[\s/>]")
_COUNT_RE = re.compile(rb"\buniqueCount\s*=\s*[\"']\s*(\d+)")

#: Largest number of cells read from a workbook (data rows × header columns). openpyxl streams about
#: 6·10⁴ cells/s on the 2-core server at load average 4 (500 000 cells: 8.7 s) and 2·10⁴ at load 18
#: (10⁶ cells: 55 s, benchmarks/loaders.py), so this keeps a workbook near the 30 s budget; a CSV of
#: the same table loads several times faster and is allowed up to ``max_rows``.
MAX_EXCEL_CELLS = 500_000
#: Caps on the workbook's ZIP archive, checked from its directory before any part is decompressed:
#: parts, uncompressed bytes of one worksheet / of the shared strings / of any other part / of all
#: parts, and the expansion ratio of a large part (deflate on honest sheet XML gives 5–30:1).
MAX_XLSX_PARTS = 1_000
MAX_XLSX_SHEET_BYTES = 64 * 2 ** 20
MAX_XLSX_SHARED_BYTES = 32 * 2 ** 20
MAX_XLSX_OTHER_BYTES = 16 * 2 ** 20
MAX_XLSX_TOTAL_BYTES = 128 * 2 ** 20
MAX_XLSX_RATIO = 200
#: Largest number of shared strings (openpyxl parses them all before the first row: 400 000 took 19.5 s
#: on this 2-core machine under load); counted in the part itself, the declared count is not trusted.
MAX_SHARED_STRINGS = 200_000
#: Empty rows tolerated in a sheet beyond ``max_rows`` + the header (rows past that are refused).
MAX_EMPTY_ROWS = 10_000

def _cell_text(v: Any) -> str:
    """An Excel cell value as the text the CSV path would have read (None → '' = missing)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, _dt.datetime) and v.time() == _dt.time(0):
        return v.date().isoformat()          # Excel stores dates as date-times at midnight
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    return str(v)


def _col_letter(j: int) -> str:
    """Excel's letter for 0-based column ``j`` (0 → A, 26 → AA)."""
    s = ""
    j += 1
    while j:
        j, r = divmod(j - 1, 26)
        s = chr(65 + r) + s
    return s


def _tick(progress: Any, done: int, total: int) -> None:
    """Report progress; a callback returning False stops loading (:class:`~dpcore.errors.Cancelled`)."""
    if progress is not None and progress(int(done), int(total)) is False:
        raise Cancelled("loading stopped", done=done, total=total)


def _check_workbook_zip(raw: bytes, name: str, max_rows: int, max_cols: int) -> None:
    """Refuse a workbook whose ZIP would expand beyond the caps, before anything is decompressed.

    The sizes are the central directory's; :mod:`zipfile` stops every read at the declared size (and
    fails the CRC), so a part cannot expand beyond what is checked here. The shared strings are
    counted in a bounded streaming pass, stopped as soon as the count passes the cap.
    """
    import zipfile
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        raise DataError(f"{short(name)} could not be read as an Excel workbook ({type(exc).__name__}: "
                        f"{short(exc, 80)}); it may be damaged or password-protected: {_XLSX_FIX}.") from None
    with zf:
        if len(infos) > MAX_XLSX_PARTS:
            raise DataError(f"{short(name)} holds {len(infos):,} files in its ZIP archive; a workbook here may hold "
                            f"at most {MAX_XLSX_PARTS:,}. Save the sheet you need as 'CSV UTF-8' and upload that.")
        total = 0
        for info in infos:
            part = info.filename
            size = int(info.file_size)
            total += size
            lower = part.lower()
            if lower.startswith("xl/worksheets/"):
                cap, what = MAX_XLSX_SHEET_BYTES, "worksheet"
            elif lower.endswith("sharedstrings.xml"):
                cap, what = MAX_XLSX_SHARED_BYTES, "shared-strings part"
            else:
                cap, what = MAX_XLSX_OTHER_BYTES, "part"
            if size > cap:
                raise DataError(f"{short(name)}: its {what} {short(part, 60)} expands to {mb(size)}; the limit is "
                                f"{mb(cap)} ({MAX_EXCEL_CELLS:,} cells at most are read). Save a smaller sheet "
                                "(a random sample of rows, or only the columns you need) as 'CSV UTF-8' and upload "
                                "that file.")
            ratio = size / max(int(info.compress_size), 1)
            if size > 8 * 2 ** 20 and ratio > MAX_XLSX_RATIO:
                raise DataError(f"{short(name)}: its part {short(part, 60)} expands {ratio:,.0f}-fold ({mb(size)} "
                                f"from {mb(int(info.compress_size))}); more than {MAX_XLSX_RATIO}-fold is a "
                                f"compression bomb, not a spreadsheet: {_BOMB_FIX}.")
        if total > MAX_XLSX_TOTAL_BYTES:
            raise DataError(f"{short(name)} expands to {mb(total)} in all; the limit is {mb(MAX_XLSX_TOTAL_BYTES)}. "
                            "Save the sheet you need as 'CSV UTF-8' (a random sample of rows if it is large) "
                            "and upload that file.")
        for info in infos:
            if info.filename.lower().endswith("sharedstrings.xml"):
                _count_shared_strings(zf, info, name)


def _count_shared_strings(zf: Any, info: Any, name: str) -> None:
    """DataError when the shared-strings part declares or holds more than :data:`MAX_SHARED_STRINGS`."""
    def refuse(count: str) -> DataError:
        return DataError(f"{short(name)} has {count} shared strings (distinct texts); the limit is "
                         f"{MAX_SHARED_STRINGS:,}. Save the sheet as 'CSV UTF-8' (a random sample of rows if it is "
                         "large) and upload that file.")
    n, tail, first = 0, b"", True
    keep = 64
    try:
        with zf.open(info) as f:
            while True:
                chunk = f.read(1 << 20)
                buf = tail + chunk
                if first:
                    first = False
                    m = _COUNT_RE.search(buf[:4096])
                    if m and int(m.group(1)) > MAX_SHARED_STRINGS:
                        raise refuse(f"{int(m.group(1)):,} declared")
                if not chunk:
                    n += len(_SI_RE.findall(buf))
                    break
                cut = max(len(buf) - keep, 0)
                n += sum(1 for mt in _SI_RE.finditer(buf) if mt.start() < cut)
                tail = buf[cut:]
                if n > MAX_SHARED_STRINGS:
                    raise refuse(f"more than {MAX_SHARED_STRINGS:,}")
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - damaged deflate stream, bad CRC, ...
        raise DataError(f"{short(name)} could not be read as an Excel workbook ({type(exc).__name__}: "
                        f"{short(exc, 80)}); it may be damaged: {_XLSX_FIX}.") from None
    if n > MAX_SHARED_STRINGS:
        raise refuse(f"{n:,}")


def _check_dimension(ws: Any, name: str, max_rows: int, max_cols: int) -> None:
    """Refuse a sheet whose declared used range (``<dimension ref=…>``) is beyond the caps (read from the
    sheet's first element; nothing is streamed)."""
    try:
        lo_r, hi_r = ws.min_row or 1, ws.max_row
        lo_c, hi_c = ws.min_column or 1, ws.max_column
    except Exception:  # noqa: BLE001 - a malformed ref: the streaming caps still apply
        return
    if not hi_r or not hi_c:
        return
    rows, cols = hi_r - lo_r + 1, hi_c - lo_c + 1
    row_cap = max_rows + 1 + MAX_EMPTY_ROWS
    ref = f"{_col_letter(lo_c - 1)}{lo_r}:{_col_letter(hi_c - 1)}{hi_r}"
    if hi_c > max_cols or hi_r > row_cap:
        raise DataError(f"{short(name)}: sheet {short(ws.title)} declares a used range of {ref} ({rows:,} rows x "
                        f"{cols:,} columns); the limits are {max_rows:,} data rows and {max_cols} columns. If the "
                        "table itself is small, a formatted or blank cell far from it stretches the range: delete "
                        "the empty rows and columns after the table (select them, Delete) and save again, or save "
                        "the table as 'CSV UTF-8' and upload that file.")
    if (rows - 1) * cols > MAX_EXCEL_CELLS:
        raise DataError(f"{short(name)}: sheet {short(ws.title)} declares a used range of {ref} ({rows - 1:,} data "
                        f"rows x {cols} columns = {(rows - 1) * cols:,} cells); a workbook may have at most "
                        f"{MAX_EXCEL_CELLS:,} cells. Upload a random sample of rows, or save the table as "
                        f"'CSV UTF-8' (a CSV file may have up to {max_rows:,} rows).")


def _sheet_rows(ws: Any, name: str, max_rows: int, max_cols: int, progress: Any = None, expected: int = 0):
    """Header (texts), its row number, data rows (texts), their row numbers, and empty rows skipped."""
    header: list[str] | None = None
    hrow = 0
    m = 0
    rows: list[list[str]] = []
    rownums: list[int] = []
    n_blank = 0
    row_cap = max_rows + 1 + MAX_EMPTY_ROWS
    for r, values in enumerate(ws.iter_rows(min_row=1, values_only=True), start=1):
        if r % 5_000 == 0:
            _tick(progress, min(r, expected), max(expected, r))
        if r > row_cap:
            raise DataError(f"{short(name)}: the sheet {short(ws.title)} goes on past row {row_cap:,} (after "
                            f"{len(rows):,} data rows and {n_blank:,} empty rows); the limits are {max_rows:,} data "
                            f"rows and {MAX_EMPTY_ROWS:,} empty rows. Delete the rows after the table (or the stray "
                            "cell far below it) and save again, or upload a random sample of rows.")
        if values.count(None) == len(values):     # an empty row (cheap: no text per cell)
            if header is not None:
                n_blank += 1
            continue
        if header is not None and len(values) > m:        # cells right of the header: blank ones are dropped
            stray = next((m + k for k, v in enumerate(values[m:]) if v is not None and _cell_text(v).strip()), None)
            if stray is not None:
                raise DataError(f"{short(name)}: row {r} has a value in column {_col_letter(stray)} "
                                f"({short(_cell_text(values[stray]), 20)}), right of the header's last column "
                                f"{_col_letter(m - 1)}; give that column a name in the header row, or delete the "
                                "stray cell.")
            values = values[:m]
        texts = [_cell_text(v) for v in values]
        filled = [j for j, t in enumerate(texts) if t.strip()]
        if not filled:
            if header is not None:
                n_blank += 1
            continue
        if header is None:
            m = filled[-1] + 1
            if m > max_cols:
                raise DataError(f"{short(name)} has {m} columns; the limit is {max_cols}. Remove unused columns "
                                "and upload again.")
            header, hrow = texts[:m], r
            continue
        if filled[-1] >= m:
            j = filled[-1]
            raise DataError(f"{short(name)}: row {r} has a value in column {_col_letter(j)} "
                            f"({short(texts[j], 20)}), right of the header's last column {_col_letter(m - 1)}; give "
                            "that column a name in the header row, or delete the stray cell.")
        rows.append(texts[:m] + [""] * (m - len(texts)))
        rownums.append(r)
        if len(rows) > max_rows or len(rows) * m > MAX_EXCEL_CELLS:
            limit = min(max_rows, MAX_EXCEL_CELLS // m)
            raise DataError(f"{short(name)} has more than {limit:,} data rows; the limit is {limit:,} "
                            f"({MAX_EXCEL_CELLS:,} cells). Upload a random sample of rows.")
    if header is None:
        raise DataError(f"{short(name)}: the sheet {short(ws.title)} is empty (no header and no data); put a header "
                        "row with column names and at least one data row on the first sheet.")
    return header, hrow, rows, rownums, n_blank

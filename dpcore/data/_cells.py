"""Reading numbers out of text cells: missing-value tokens, decimal commas, thousands separators."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._format import short

#: Cell texts (case-insensitive, surrounding spaces ignored) read as missing values.
NA_TOKENS = frozenset({
    "", "na", "n/a", "n.a.", "#n/a", "#na", "nan", "-nan", "+nan", "null", "none", "nil", "missing",
    "-", "--", "?", ".", "<na>",
})
THOUSANDS_RE = r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?"
DECIMAL_COMMA_RE = r"[+-]?(?:\d{1,3}(?:\.\d{3})+|\d*),\d*"


def is_number_text(s: str) -> bool:
    """True when ``s`` (stripped) parses as a float.

    >>> is_number_text(" 1e3 "), is_number_text("1,5")
    (True, False)
    """
    t = s.strip()
    if not t:
        return False
    try:
        float(t)
    except ValueError:
        return False
    return True


@dataclass
class ColumnParse:
    values: np.ndarray | None     # float64 with NaN for missing, or None if not numeric
    na_mask: np.ndarray
    bad_mask: np.ndarray          # non-missing cells that are not numbers (after conversions)
    note: str | None              # conversion note (decimal comma, thousands) or reason for text


def parse_cells(cells: pd.Series, sep: str | None) -> ColumnParse:
    """Numbers of a string column; missing tokens; conversions for decimal comma / thousands separators.

    ``sep`` is the file's separator (None: unknown). With a separator other than ',', a comma inside a
    number is a decimal comma (European spreadsheets); with ',', a quoted "1,234,567" is a thousands
    separator. Mixed '.'/',' decimals in one column are refused (left as text).
    """
    if cells.dtype == object or pd.api.types.is_string_dtype(cells.dtype):
        fast = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
        if len(fast) and not np.isnan(fast).any():   # every cell a plain number: nothing missing or to convert
            return ColumnParse(fast, np.zeros(len(fast), bool), np.zeros(len(fast), bool), None)
    s = cells.astype("str")
    stripped = s.str.strip()
    na = (cells.isna().to_numpy(dtype=bool)
          | stripped.str.lower().isin(NA_TOKENS).fillna(False).to_numpy(dtype=bool))
    nums = pd.to_numeric(stripped.mask(na), errors="coerce").to_numpy(dtype=float)
    bad = ~na & np.isnan(nums)
    note = None
    if bad.any():
        bad_cells = stripped[bad]
        if sep is not None and sep != "," and bool(bad_cells.str.fullmatch(DECIMAL_COMMA_RE).all()) \
                and bool(bad_cells.str.contains(r"\d").all()):
            good_with_point = (~na & ~bad) & stripped.str.contains(".", regex=False).to_numpy(dtype=bool)
            if good_with_point.any():
                note = "mixed decimal separators ('.' and ',') in one column"
            else:
                conv = pd.to_numeric(bad_cells.str.replace(".", "", regex=False).str.replace(",", ".", regex=False),
                                     errors="coerce").to_numpy(dtype=float)
                if not np.isnan(conv).any():
                    nums = nums.copy()
                    nums[bad] = conv
                    example = bad_cells.iloc[0]
                    note = (f"read ',' as the decimal separator in {int(bad.sum())} cell(s) "
                            f"(e.g. {short(example)} -> {conv[0]:.15g})")
                    bad = np.zeros_like(bad)
        elif sep == "," and bool(bad_cells.str.fullmatch(THOUSANDS_RE).all()):
            conv = pd.to_numeric(bad_cells.str.replace(",", "", regex=False), errors="coerce").to_numpy(dtype=float)
            if not np.isnan(conv).any():
                nums = nums.copy()
                nums[bad] = conv
                example = bad_cells.iloc[0]
                note = (f"removed thousands separators ',' in {int(bad.sum())} cell(s) "
                        f"(e.g. {short(example)} -> {conv[0]:.15g})")
                bad = np.zeros_like(bad)
    if bad.any():
        return ColumnParse(None, na, bad, note)
    values = nums.copy()
    values[na] = np.nan
    return ColumnParse(values, na, bad, note)


def hints(examples: list[str]) -> str:
    """One hint per kind of near-number found among ``examples`` (decimal comma, %, currency, …)."""
    found: dict[str, str] = {}
    for ex in examples:
        t = ex.strip()
        if re.fullmatch(DECIMAL_COMMA_RE, t) and re.search(r"\d", t):
            found.setdefault("dc", f"{short(t)} looks like a number with a decimal comma: use '.' as the decimal "
                                   "point, or save the file with ';' as separator (decimal commas are then read)")
        elif re.fullmatch(r"[+-]?\d{1,3}(?:[ '\u2019\u00a0]\d{3})+(?:[.,]\d+)?", t):
            found.setdefault("ts", f"{short(t)} has spaces or apostrophes as thousands separators: remove them")
        elif t.endswith("%") and is_number_text(t[:-1]):
            found.setdefault("pct", f"{short(t)} is a percentage: remove the % signs (store 12% as 12 or 0.12)")
        elif t[:1] in "$\u20ac\u00a3\u00a5" and is_number_text(t[1:].replace(",", "")):
            found.setdefault("cur", f"{short(t)} has a currency symbol: remove it")
    return ("; ".join(found.values()) + ".") if found else ""

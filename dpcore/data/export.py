"""Output hygiene: CSV the app writes back (formula injection neutralised) and user text shown as Markdown."""
from __future__ import annotations

import string
from typing import Any

import pandas as pd

from ..errors import DataError

__all__ = ["escape_markdown", "to_safe_csv"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _neutralise(v: Any) -> Any:
    if isinstance(v, str) and v.lstrip(" ").startswith(_FORMULA_START):
        return "'" + v
    return v


def to_safe_csv(frame: pd.DataFrame, *, index: bool = False) -> str:
    """CSV text with spreadsheet formula injection neutralised (OWASP "CSV injection").

    Every *string* cell — and column name — that starts (after spaces) with ``= + - @``, a tab or a
    carriage return gets a leading apostrophe, so spreadsheets show it as text instead of evaluating
    it. Numbers (numeric dtypes, and numeric objects in object columns) are written unchanged. Lines
    end with CRLF (RFC 4180), so cells containing a CR or LF are quoted. Use for every CSV the app
    writes back.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"to_safe_csv needs a pandas DataFrame; got {type(frame).__name__}.")
    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_datetime64_any_dtype(col.dtype):
            continue
        out[c] = col.astype(object).map(_neutralise)
    out.columns = [_neutralise(c) if isinstance(c, str) else c for c in out.columns]
    if index:
        if not pd.api.types.is_numeric_dtype(out.index.dtype):
            out.index = pd.Index([_neutralise(v) for v in out.index], name=_neutralise(out.index.name))
        elif isinstance(out.index.name, str):
            out.index = out.index.rename(_neutralise(out.index.name))
    return out.to_csv(index=index, lineterminator="\r\n")


_MD_ESCAPE = frozenset(string.punctuation)


def escape_markdown(text: Any) -> str:
    """User text made inert for ``st.markdown``/``st.error``: every ASCII punctuation character is
    backslash-escaped (CommonMark renders "\\c" as the literal c), so ``<script>``, ``**bold**``,
    links, ``$…$`` LaTeX and ``:red[…]`` directives show as typed; newlines become spaces.
    For Markdown contexts only (plain-text widgets such as ``st.dataframe`` need no escaping).

    >>> print(escape_markdown("**bold** <b>"))
    \\*\\*bold\\*\\* \\<b\\>
    """
    s = str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return "".join("\\" + ch if ch in _MD_ESCAPE else ch for ch in s)

"""Small formatting helpers for the messages of :mod:`dpcore.data` (user values shown truncated)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd


def short(value: Any, limit: int = 40) -> str:
    """repr of a user-supplied value, truncated.

    >>> short("abc")
    "'abc'"
    """
    s = str(value)
    if len(s) > limit:
        s = s[:limit] + "…"
    return repr(s)


def list_names(names: Iterable[Any], limit: int = 12) -> str:
    """Up to ``limit`` names, quoted and comma-separated, or "(none)"."""
    names = [str(n) for n in names]
    shown = ", ".join(short(n, 30) for n in names[:limit])
    if len(names) > limit:
        shown += f", … ({len(names)} in all)"
    return shown or "(none)"


def fmt(x: float) -> str:
    """A number with 6 significant digits (``fmt(0.1 + 0.2) == '0.3'``)."""
    return f"{x:.6g}"


def mb(n: int) -> str:
    """A byte count in bytes or MB."""
    return f"{n:,} bytes" if n < 2 ** 20 else f"{n / 2 ** 20:.1f} MB"


def row_word(frame: pd.DataFrame) -> str:
    """"line" for a frame indexed by file line, else "row"."""
    return "line" if frame.index.name == "line" else "row"


def row_labels(frame: pd.DataFrame, positions: np.ndarray) -> list[int]:
    """Line/row numbers of the rows at ``positions`` (1-based positions for other indexes)."""
    if frame.index.name in ("line", "row"):
        return [int(frame.index[p]) for p in positions]
    return [int(p) + 1 for p in positions]


def fmt_rows(frame: pd.DataFrame, mask: np.ndarray, limit: int = 8) -> str:
    """"lines 3, 5 and 2 more" for the rows where ``mask`` is true."""
    pos = np.flatnonzero(mask)
    labels = row_labels(frame, pos[:limit])
    word = row_word(frame) + ("s" if len(pos) > 1 else "")
    more = f" and {len(pos) - limit} more" if len(pos) > limit else ""
    return f"{word} {', '.join(map(str, labels))}{more}"

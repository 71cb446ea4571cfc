"""Codebooks: public ranges written down for a table's columns, filled in as **declarations** (source ``"codebook"``).

A codebook states each variable's possible range from what it measures (a survey's documentation, a data
dictionary, the description that ships with a public table) — before, and without, looking at the values. Filling
bounds from it is a convenience for typing them: the result is exactly what the codebook says, marked
:data:`~dpcore.data.CODEBOOK` (a declaration, like a typed bound), and never the data's min/max. A column the codebook
does not name is left as it was (never filled from the data); a codebook value is never widened, narrowed or
clipped to the data (a range that excludes some values is the user's declaration: the values are clipped, as
for any declared bound, and the diagnostics say how many).

Two codebooks exist: a built-in table's documented public ranges (:func:`builtin_codebook`, the ranges of
:data:`~dpcore.data.BUILTIN_DATASETS` with their rationale) and a user's CSV with the columns ``column``, ``lower``,
``upper`` (:func:`read_codebook`; other columns, e.g. units or notes, are allowed and ignored, and said so).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..errors import DataError
from ._format import fmt, list_names, short
from .builtin import BUILTIN_DATASETS
from .dataset import CODEBOOK, Dataset

__all__ = ["Codebook", "CODEBOOK_HEADER", "MAX_CODEBOOK_BYTES", "apply_codebook", "builtin_codebook",
           "builtin_name", "read_codebook"]

#: The columns a codebook CSV must have (in any order; other columns are ignored).
CODEBOOK_HEADER = ("column", "lower", "upper")
#: A codebook is a small table: one row per column of the data.
MAX_CODEBOOK_BYTES = 1 * 2**20


@dataclass(frozen=True)
class Codebook:
    """Public ranges per column, ``{column: (lower, upper)}``, where they come from and what reading them did."""

    ranges: Mapping[str, tuple[float, float]]
    origin: str
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "ranges", MappingProxyType(dict(self.ranges)))


def builtin_name(ds: Dataset) -> str | None:
    """The key of :data:`BUILTIN_DATASETS` whose table ``ds`` is (by its display name: the built-in table, or a
    classroom scenario's copy of it, :func:`dpcore.data.scenarios.scenario_dataset`), or None."""
    return next((k for k, info in BUILTIN_DATASETS.items()
                 if ds.name == info.label or str(ds.name).startswith(info.label + " — ")), None)


def builtin_codebook(name: str) -> Codebook:
    """The documented public ranges of built-in table ``name`` (units and rationale in its notes).

    >>> builtin_codebook("diabetes").ranges["bmi"]
    (10.0, 60.0)
    """
    if name not in BUILTIN_DATASETS:
        raise DataError(f"built-in dataset {name!r} not known; choose one of {list_names(BUILTIN_DATASETS)}.")
    info = BUILTIN_DATASETS[name]
    return Codebook({b.column: (float(b.lower), float(b.upper)) for b in info.bounds},
                    f"the documented public ranges of {info.label}", tuple(b.note() for b in info.bounds))


def _number(text: Any, what: str, line: int) -> float:
    try:
        x = float(str(text).strip())
    except ValueError:
        raise DataError(f"codebook line {line}: {what} = {short(text)} is not a number; write a plain number "
                        "such as 0 or 120 (decimal point, no unit).") from None
    if not math.isfinite(x):
        raise DataError(f"codebook line {line}: {what} = {short(text)} is not finite; a public range needs two "
                        "finite numbers.")
    return x


def read_codebook(source: Any, *, name: str = "codebook.csv") -> Codebook:
    """A codebook from a CSV with the columns ``column``, ``lower``, ``upper`` (one row per data column).

    Read with :func:`~dpcore.data.load_csv` (any separator and encoding it reads). Raises :class:`DataError`
    naming the line, the value and the fix: a missing header column, an empty name, a bound that is not a finite
    number, lower ≥ upper, a column named twice.

    >>> cb = read_codebook(b"column,lower,upper,units\\nage,18,99,years\\n", name="cb.csv")
    >>> dict(cb.ranges), cb.notes
    ({'age': (18.0, 99.0)}, ("Ignored the codebook's column(s) 'units' (only column, lower, upper are read).",))
    """
    from .readers import load_csv      # readers imports the dataset module, as this one does

    table = load_csv(source, name=name, max_bytes=MAX_CODEBOOK_BYTES, max_rows=10_000, max_cols=50).frame
    header = {str(c).strip().lower(): c for c in table.columns}
    missing = [h for h in CODEBOOK_HEADER if h not in header]
    if missing:
        raise DataError(f"the codebook {short(name)} has no column {list_names(missing)}; its first line must name "
                        f"the columns column, lower, upper (found {list_names(table.columns)}).")
    extra = [c for c in table.columns if str(c).strip().lower() not in CODEBOOK_HEADER]
    ranges: dict[str, tuple[float, float]] = {}
    for line, row in zip(table.index, table[[header[h] for h in CODEBOOK_HEADER]].itertuples(index=False)):
        col, lo_text, hi_text = row
        col = "" if col is None or (isinstance(col, float) and math.isnan(col)) else str(col)
        if isinstance(col, str) and col.endswith(".0") and col[:-2].lstrip("-").isdigit():
            col = col[:-2]              # a column named by a number: the reader made it 3.0
        if not col.strip():
            raise DataError(f"codebook line {line}: the column name is empty; write the data column's name.")
        lo, hi = _number(lo_text, f"lower of {short(col)}", line), _number(hi_text, f"upper of {short(col)}", line)
        if not lo < hi:
            raise DataError(f"codebook line {line}: {short(col)} has lower = {fmt(lo)} ≥ upper = {fmt(hi)}; a public "
                            "range needs lower < upper — swap or widen them in the codebook.")
        if col in ranges:
            raise DataError(f"codebook line {line}: column {short(col)} is named twice; keep one range per column.")
        ranges[col] = (lo, hi)
    if not ranges:
        raise DataError(f"the codebook {short(name)} has no rows; write one line per column: name, lower, upper.")
    notes = (f"Ignored the codebook's column(s) {list_names(extra)} (only column, lower, upper are read).",) if extra \
        else ()
    return Codebook(ranges, f"the codebook {name}", notes)


def apply_codebook(ds: Dataset, codebook: Codebook) -> tuple[Dataset, tuple[str, ...], tuple[str, ...]]:
    """``(dataset, filled, unknown)``: ``ds`` with each numeric column the codebook names declared at exactly the
    codebook's range (source ``"codebook"``, imputation value its midpoint); ``filled`` those columns (frame order),
    ``unknown`` the codebook's names that are not numeric columns of ``ds`` (left out, to be reported). Columns
    the codebook does not name keep their bounds (or their absence): nothing is read from the data.

    >>> import pandas as pd
    >>> ds = Dataset(pd.DataFrame({"age": [30.0, 41.0], "w": [1.0, 2.0]}), ("age", "w"), {}, "t")
    >>> out, filled, unknown = apply_codebook(ds, Codebook({"age": (18, 99), "zip": (0, 1)}, "mine"))
    >>> out.bounds["age"], out.bound_source("age"), "w" in out.bounds, filled, unknown
    ((18.0, 99.0), 'codebook', False, ('age',), ('zip',))
    """
    filled = tuple(c for c in ds.numeric_columns if c in codebook.ranges)
    unknown = tuple(c for c in codebook.ranges if c not in ds.numeric_columns)
    for col in filled:
        lo, hi = codebook.ranges[col]
        ds = ds.with_bounds(col, lo, hi, source=CODEBOOK)
    return ds, filled, unknown

"""Columns of a :class:`~dpcore.data.Dataset` as numbers: validation, clipping to the public bounds,
imputation of missing cells, and the NON-PRIVATE diagnostics of what that did.

The release path uses :func:`public_column` / :func:`public_columns`: n is the number of rows
(public) whatever the data hold, because a missing cell is replaced by the column's declared public
imputation value and never dropped — under replace-one neighbours, one person's row turning into a
row with a missing cell must not change n (which every release publishes, and which calibrates the
mean's sensitivity). How many cells were imputed or clipped is a function of the data: it is kept in
a separate :class:`ColumnDiagnostics` object, labelled non-private, and never part of a release.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._validation import check_bounds, check_finite_array, check_int
from ..errors import DataError
from ._cells import hints, parse_cells
from ._format import fmt, fmt_rows, list_names, row_labels, row_word, short
from .dataset import FROM_DATA, Dataset

__all__ = [
    "EXTREME_MAGNITUDE",
    "NON_PRIVATE_LABEL",
    "ClipReport",
    "ColumnDiagnostics",
    "PublicColumn",
    "PublicColumns",
    "bounds_from_data",
    "bounds_warning",
    "clip_to_bounds",
    "column_values",
    "public_column",
    "public_columns",
]

#: |x| above this loses integer precision in float64 (2⁵³ ≈ 9e15): a message says so.
EXTREME_MAGNITUDE = 1e15
#: How pages title the counts of imputed/clipped records.
NON_PRIVATE_LABEL = "Non-private diagnostics"
#: Why bounds must be public and what happens to missing cells, in words for users.
WHY_PUBLIC_BOUNDS = (
    "A mechanism's noise is calibrated to its **sensitivity**: how much one person's record can move the "
    "statistic. Once values are clipped to a range [lower, upper] fixed in advance, one record moves a mean by "
    "at most (upper − lower)/n, whoever that person is. Bounds read off the data (its minimum and maximum) are "
    "themselves values of individual records: a release calibrated to them reveals the extreme records and "
    "voids the guarantee. Take bounds from domain knowledge (age in [0, 120]), a codebook or a separate public "
    "dataset. Rows are never dropped (n is public): a missing cell is replaced by the column's public "
    "**imputation value** (default: the midpoint of the bounds).")


# --------------------------------------------------------------------------------------------------
# Numbers of one column
# --------------------------------------------------------------------------------------------------
def _numbers(dataset: Dataset, column: str) -> np.ndarray:
    """float64 values of ``column`` with NaN for missing; DataError for text, mixed, bool or inf."""
    if not isinstance(dataset, Dataset):
        raise DataError(f"a Dataset is needed; got {type(dataset).__name__}.")
    frame = dataset.frame
    if column not in frame.columns:
        raise DataError(f"column {short(column)} not found; available columns: {list_names(frame.columns)} "
                        f"(numeric: {list_names(dataset.numeric_columns)}).")
    series = frame[column]
    if isinstance(series, pd.DataFrame):
        raise DataError(f"column name {short(column)} occurs more than once; rename the duplicates.")
    numeric_hint = f"numeric columns: {list_names(dataset.numeric_columns)}"
    if pd.api.types.is_bool_dtype(series.dtype):
        raise DataError(f"column {short(column)} holds true/false values, not numbers; encode them as 0/1 "
                        f"or choose another column ({numeric_hint}).")
    if pd.api.types.is_numeric_dtype(series.dtype):
        vals = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        parsed = parse_cells(series, None)
        if parsed.values is None:
            n_bad = int(parsed.bad_mask.sum())
            n_present = int((~parsed.na_mask).sum())
            pos = np.flatnonzero(parsed.bad_mask)[:3]
            ex_vals = [str(series.iloc[p]) for p in pos]
            ex = ", ".join(f"{short(v, 30)} at {row_word(frame)} {lab}"
                           for v, lab in zip(ex_vals, row_labels(frame, pos)))
            hint = hints(ex_vals)
            hint = hint + " " if hint else ""
            if n_bad == n_present:
                raise DataError(f"column {short(column)} is text, not numbers: none of its {n_present} non-missing "
                                f"cells is a number (e.g. {ex}). {hint}Choose a numeric column ({numeric_hint}).")
            raise DataError(f"column {short(column)} has mixed types: {n_bad} of {n_present} non-missing cells are "
                            f"not numbers (e.g. {ex}). {hint}Fix those cells or mark them missing (leave them "
                            f"empty or write NA), then upload again; or choose another column ({numeric_hint}).")
        vals = parsed.values
    inf = np.isinf(vals)
    if inf.any():
        raise DataError(f"column {short(column)} has {int(inf.sum())} non-finite value(s) (inf, or a number beyond "
                        f"±1.8e308 such as 1e309) at {fmt_rows(frame, inf, 5)}. Replace them with finite numbers, or "
                        "leave those cells empty to mark them missing, and upload again.")
    return vals


def _value_messages(frame: pd.DataFrame, column: str, vals: np.ndarray) -> list[str]:
    """Constant column and extreme magnitudes (|x| > 1e15) among the present values."""
    present = ~np.isnan(vals)
    values = vals[present]
    messages = []
    if values.size and np.all(values == values[0]):
        messages.append(f"column {short(column)} is constant (every value is {fmt(values[0])}): it carries no "
                        "information, and spread-based statistics are zero.")
    big = np.abs(values) > EXTREME_MAGNITUDE
    if big.any():
        i = int(np.argmax(np.abs(values)))
        lab = row_labels(frame, np.flatnonzero(present)[i:i + 1])[0]
        messages.append(f"column {short(column)} has {int(big.sum())} value(s) with |x| > 1e15 (largest "
                        f"{values[i]:.3g} at {row_word(frame)} {lab}): doubles lose precision at this magnitude "
                        "and noise scaled to such bounds swamps the data. Rescale the column (e.g. to thousands or "
                        "millions) and declare bounds in the new units.")
    return messages


def column_values(dataset: Dataset, column: str, *, min_rows: int = 2) -> tuple[np.ndarray, list[str]]:
    """The finite numbers of one column, with missing rows dropped and reported — to EXPLORE a column.

    Not for releases: dropping rows makes n depend on the data. A release uses :func:`public_column`
    (missing cells imputed with a public value, so n is the number of rows).

    Returns ``(values, messages)``: messages report dropped missing rows, a constant column and
    extreme magnitudes (|x| > 1e15). Raises :class:`DataError` for an unknown column, a text or
    mixed column (how many cells are not numbers, with examples and their lines), an all-missing
    column, non-finite values (inf, 1e309) and fewer than ``min_rows`` usable values.
    """
    min_rows = check_int(min_rows, "min_rows", lo=1)
    vals = _numbers(dataset, column)
    frame = dataset.frame
    missing = np.isnan(vals)
    if missing.all():
        raise DataError(f"column {short(column)} has no values: all {len(vals)} cells are missing. Choose another "
                        f"column (numeric columns: {list_names(dataset.numeric_columns)}).")
    messages: list[str] = []
    if missing.any():
        messages.append(f"column {short(column)}: dropped {int(missing.sum())} row(s) with missing values "
                        f"({fmt_rows(frame, missing)}); {int((~missing).sum())} row(s) remain and are used.")
    values = np.ascontiguousarray(vals[~missing], dtype=float)
    if values.size < min_rows:
        raise DataError(f"column {short(column)} has only {values.size} usable value(s)"
                        f"{f' after dropping {int(missing.sum())} missing' if missing.any() else ''}; this needs at "
                        f"least {min_rows} rows. Upload more data.")
    return values, messages + _value_messages(frame, column, vals)


# --------------------------------------------------------------------------------------------------
# Clipping to declared bounds
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClipReport:
    """How many values fell outside the declared public bounds and were clipped (non-private)."""

    column: str
    lower: float
    upper: float
    n_total: int
    n_below: int
    n_above: int

    @property
    def n_clipped(self) -> int:
        return self.n_below + self.n_above

    @property
    def fraction(self) -> float:
        return self.n_clipped / self.n_total if self.n_total else 0.0

    def message(self) -> str:
        b = f"[{fmt(self.lower)}, {fmt(self.upper)}]"
        if self.n_clipped == 0:
            return (f"column {short(self.column)}: all {self.n_total} values lie inside the declared bounds {b}; "
                    "nothing was clipped.")
        return (f"column {short(self.column)}: {self.n_clipped} of {self.n_total} values ({100 * self.fraction:.1f}%) "
                f"were outside the declared bounds {b} and were clipped to them ({self.n_below} below "
                f"{fmt(self.lower)}, {self.n_above} above {fmt(self.upper)}). Clipping is what bounds the "
                "sensitivity; if many values are clipped, the bounds are too narrow for this data.")


def clip_to_bounds(values: Any, lower: Any, upper: Any, *, column: str = "x") -> tuple[np.ndarray, ClipReport]:
    """np.clip(values, lower, upper) with a report of how many values moved (never silent).

    The bounds must be declared publicly (not taken from the data); values must be finite.

    >>> clip_to_bounds([-1.0, 0.5, 3.0], 0, 1)[1].n_clipped
    2
    """
    lo, hi = check_bounds(lower, upper, name=f"bounds for column {column!r}")
    arr = check_finite_array(values, f"column {column!r}", min_rows=0)
    below = int(np.count_nonzero(arr < lo))
    above = int(np.count_nonzero(arr > hi))
    return np.clip(arr, lo, hi), ClipReport(str(column), lo, hi, int(arr.size), below, above)


def bounds_from_data(values: Any, *, column: str = "x") -> tuple[float, float, str]:
    """(min, max, warning): bounds read off the data — for exploration only.

    The minimum and maximum are functions of single records; using them as clipping bounds makes the
    sensitivity data-dependent and **voids the differential-privacy guarantee** (the bounds themselves
    leak the extreme records). The returned warning says so and must be shown. To put such bounds on
    a dataset, use :meth:`Dataset.with_bounds_from_data`, which marks them ``"from data"``.
    """
    arr = check_finite_array(values, f"column {column!r}", min_rows=1)
    lo, hi = float(np.min(arr)), float(np.max(arr))
    warning = (f"WARNING: bounds for column {short(column)} were taken from the data (min {fmt(lo)}, max "
               f"{fmt(hi)}). This leaks information about the most extreme records and voids the privacy "
               "guarantee of every release that uses them. Use it only to explore; declare public bounds "
               "(from domain knowledge, not from this data) for a private release.")
    if lo == hi:
        warning += " The column is constant, so these bounds are empty; widen them."
    return lo, hi, warning


def bounds_warning(dataset: Dataset, column: str) -> str | None:
    """The warning to show when ``column``'s bounds came from the data (source ``"from data"``), else None."""
    if dataset.bound_source(column) != FROM_DATA:
        return None
    lo, hi = dataset.bounds[column]
    return (f"Bounds [{fmt(lo)}, {fmt(hi)}] for column {short(column)} were taken from the data (its min and "
            "max): releases that use them are NOT differentially private (the bounds are values of single "
            "records). Declare public bounds from domain knowledge for a private release.")


# --------------------------------------------------------------------------------------------------
# The release path: n public, missing imputed, clipped; counts kept apart as non-private diagnostics
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColumnDiagnostics:
    """NON-PRIVATE diagnostics of one column: counts of imputed and clipped cells, plus messages.

    These counts are functions of the data. They are never part of a release: show them only apart
    from any release, labelled :data:`NON_PRIVATE_LABEL` ("Non-private diagnostics").
    """

    column: str
    n: int
    n_imputed: int
    n_clipped_low: int
    n_clipped_high: int
    messages: tuple[str, ...] = ()
    private: ClassVar[bool] = False
    label: ClassVar[str] = NON_PRIVATE_LABEL

    @property
    def n_clipped(self) -> int:
        return self.n_clipped_low + self.n_clipped_high

    def as_row(self) -> dict:
        """One row of a diagnostics table."""
        return {"column": self.column, "rows (n)": self.n, "missing → imputed": self.n_imputed,
                "clipped below": self.n_clipped_low, "clipped above": self.n_clipped_high}


@dataclass(frozen=True, eq=False)
class PublicColumn:
    """One column ready for a mechanism: ``values`` (n,) = all rows, missing cells replaced by the public
    ``impute_value``, then clipped to [``lower``, ``upper``] (read-only array).

    ``source`` is ``"declared"``, ``"codebook"`` (both declarations) or ``"from data"`` (then releases using it
    are not DP: see :attr:`declared`). ``diagnostics`` is the separate NON-PRIVATE :class:`ColumnDiagnostics`.
    """

    column: str
    values: np.ndarray
    lower: float
    upper: float
    impute_value: float
    source: str
    diagnostics: ColumnDiagnostics

    @property
    def n(self) -> int:
        return int(self.values.shape[0])

    @property
    def declared(self) -> bool:
        """True when the bounds were declared — typed or filled from a codebook — not read off the data."""
        return self.source != FROM_DATA


@dataclass(frozen=True, eq=False)
class PublicColumns:
    """Several :class:`PublicColumn` side by side: ``values`` is the (n, k) matrix (read-only), columns
    in the order asked; ``lower``/``upper``/``impute_values`` are (k,) arrays."""

    parts: tuple[PublicColumn, ...]
    values: np.ndarray

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(p.column for p in self.parts)

    @property
    def n(self) -> int:
        return int(self.values.shape[0])

    @property
    def lower(self) -> np.ndarray:
        return np.array([p.lower for p in self.parts])

    @property
    def upper(self) -> np.ndarray:
        return np.array([p.upper for p in self.parts])

    @property
    def impute_values(self) -> np.ndarray:
        return np.array([p.impute_value for p in self.parts])

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(p.source for p in self.parts)

    @property
    def from_data(self) -> tuple[str, ...]:
        """Columns whose bounds came from the data (a release using any of them is not DP)."""
        return tuple(p.column for p in self.parts if not p.declared)

    @property
    def declared(self) -> bool:
        return not self.from_data

    @property
    def diagnostics(self) -> tuple[ColumnDiagnostics, ...]:
        """The NON-PRIVATE diagnostics, one per column."""
        return tuple(p.diagnostics for p in self.parts)

    def __getitem__(self, column: str) -> PublicColumn:
        for p in self.parts:
            if p.column == column:
                return p
        raise KeyError(column)


def public_column(dataset: Dataset, column: str, *, min_rows: int = 1) -> PublicColumn:
    """``column`` as a mechanism sees it: n = number of rows always; missing cells → the declared public
    imputation value; values clipped to the declared public bounds.

    Raises :class:`DataError` when the column has no bounds (declare them first), is not numeric,
    holds non-finite values, or the dataset has fewer than ``min_rows`` rows (n is public, so this
    check reveals nothing about the values).

    >>> ds = Dataset(pd.DataFrame({"age": [30.0, None, 150.0]}), ("age",), {"age": (0, 100)}, "example")
    >>> col = public_column(ds, "age")
    >>> col.values.tolist(), col.n, (col.diagnostics.n_imputed, col.diagnostics.n_clipped_high)
    ([30.0, 50.0, 100.0], 3, (1, 1))
    """
    min_rows = check_int(min_rows, "min_rows", lo=1)
    vals = _numbers(dataset, column)
    if column not in dataset.bounds:
        raise DataError(f"column {short(column)} has no declared public bounds; declare them on the Data page "
                        "(Dataset.with_bounds) from domain knowledge, before looking at the data.")
    if dataset.n_rows < min_rows:
        raise DataError(f"the dataset has {dataset.n_rows} row(s); this needs at least {min_rows}. Upload more data.")
    lo, hi = dataset.bounds[column]
    impute = dataset.imputes[column]
    missing = np.isnan(vals)
    filled = np.where(missing, impute, vals)
    low, high = filled < lo, filled > hi
    out = np.clip(filled, lo, hi)
    out.setflags(write=False)
    messages = _value_messages(dataset.frame, column, vals)
    if missing.all():
        messages.insert(0, f"column {short(column)}: every cell is missing, so every row holds the imputed "
                           f"value {fmt(impute)}.")
    diag = ColumnDiagnostics(str(column), int(vals.size), int(missing.sum()), int(low.sum()), int(high.sum()),
                             tuple(messages))
    return PublicColumn(str(column), out, float(lo), float(hi), float(impute), dataset.bound_sources[column], diag)


def diagnostics_frame(dataset: Dataset, columns: Sequence[str]) -> tuple[pd.DataFrame, list[str]]:
    """The NON-PRIVATE diagnostics of the bounded ``columns`` as a table (one row per column: n, missing
    cells imputed, cells clipped below/above) and their messages — for display apart from any release."""
    diags = [public_column(dataset, c).diagnostics for c in columns if c in dataset.bounds]
    frame = pd.DataFrame([d.as_row() for d in diags],
                         columns=["column", "rows (n)", "missing → imputed", "clipped below", "clipped above"])
    return frame, [m for d in diags for m in d.messages]


def public_columns(dataset: Dataset, columns: Sequence[str], *, min_rows: int = 1) -> PublicColumns:
    """:func:`public_column` for each of ``columns`` (e.g. predictors then response of a regression):
    an (n, k) matrix with n = number of rows; a row missing one cell keeps its other cells."""
    columns = [columns] if isinstance(columns, str) else list(columns)
    if not columns:
        raise DataError("choose at least one column.")
    dup = sorted({c for c in columns if columns.count(c) > 1})
    if dup:
        raise DataError(f"column(s) {list_names(dup)} chosen more than once; choose each column once.")
    parts = tuple(public_column(dataset, c, min_rows=min_rows) for c in columns)
    values = np.column_stack([p.values for p in parts]) if parts else np.empty((dataset.n_rows, 0))
    values.setflags(write=False)
    return PublicColumns(parts, values)

"""From a dataset's column(s) to a histogram over a domain of p cells (one column, or two crossed).

Each column becomes a factor with k levels:

* ``"integers"`` — a numeric column whose public bounds are whole numbers at most 50 apart: one cell per
  integer (values rounded to the nearest integer after clipping; :mod:`._bins`);
* ``"bins"`` — a numeric column with declared public bounds [lo, hi], cut into k equal bins (values
  outside are clipped into the end bins, missing cells take the column's public imputation value):
  the domain is public;
* ``"categories"`` — the distinct values of the column as they are (text or numbers; missing cells
  form the level "(missing)"). The list of levels is READ FROM THE DATA, so a release that labels
  cells with them is not differentially private (the page records it as such). At most
  :data:`MAX_CATEGORIES` levels: a numeric column with many distinct values must be binned.

Two columns are crossed: cell = i₁·k₂ + i₂, so p ≥ k₁·k₂. A declared p (public) may exceed the
number of levels (extra cells are empty) but never fall below it. No row is dropped (n is public).
"""
from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from .._validation import check_int
from ..data._format import list_names, short
from ..errors import DataError, DPValueError
from ..limits import check_work
from . import _bins as bins_rules
from ._tables import MAX_DENSE_CELLS, SparseCounts

__all__ = ["MAX_CATEGORIES", "MODES", "CategoricalTable", "CrossedLabels", "column_histogram"]

#: Largest number of levels of one column used as categories.
MAX_CATEGORIES = 10_000
MODES = ("categories", "bins", "integers")
MISSING = "(missing)"


class CrossedLabels(SequenceABC):
    """The labels "a × b" of a crossed table, made when asked for (a table of k₁·k₂ cells never builds
    k₁·k₂ strings: 4096 × 4096 bins would take gigabytes)."""

    def __init__(self, first: Sequence[str], second: Sequence[str]):
        self._a, self._b = list(first), list(second)

    def __len__(self) -> int:
        return len(self._a) * len(self._b)

    @property
    def levels(self) -> tuple[list[str], list[str]]:
        """The labels of the first column's and the second column's levels (cell i = i₁·k₂ + i₂)."""
        return list(self._a), list(self._b)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"cell {i} is outside the table's {len(self):,} cells")
        q, r = divmod(i, len(self._b))
        return f"{self._a[q]} × {self._b[r]}"


@dataclass(frozen=True, eq=False)
class CategoricalTable:
    """The histogram of one or two columns.

    Attributes
    ----------
    counts : SparseCounts
        Over the public domain of ``counts.p`` cells.
    labels : sequence of str
        Label of each of the first k₁·k₂ cells (cells beyond are empty padding of a declared p); a
        :class:`CrossedLabels` for two columns.
    from_data : tuple of str
        Columns whose levels were read from the data (a release using them is not DP).
    notes : tuple of str
        What was done (clipping counts, imputed cells): non-private diagnostics.
    """

    counts: SparseCounts
    labels: list
    from_data: tuple
    notes: tuple

    def domain_caption(self, modes: Mapping[str, str]) -> str:
        """The domain in words (Markdown, column names shown literally): p and each column's binning mode. With
        categories read from the data, p is a count of the data: the page shows it in the non-private box."""
        from ..data import literal

        return (f"p = {self.counts.p:,} cells (" + ", ".join(f"{literal(c)}: {modes[c]}" for c in modes) + "). "
                "Categories read from the data make the domain itself data-dependent: such a release is recorded "
                "as not DP.")


def _levels(ds, column: str, mode: str, bins: Optional[int]) -> tuple[np.ndarray, list[str], bool, list[str]]:
    frame = ds.frame
    if column not in frame.columns:
        raise DataError(f"column {short(column)} not found; available columns: {list_names(frame.columns)}.")
    x = frame[column]
    if mode in ("bins", "integers"):
        if column not in ds.numeric_columns or column not in ds.bounds:
            raise DPValueError(f"column {short(column)}: {mode} need a numeric column with declared public bounds; "
                               "declare them on the Data page or use mode 'categories'.")
        lo, hi = ds.bounds[column]
        if mode == "integers" and bins_rules.default_mode((lo, hi)) != "integers":
            raise DPValueError(f"column {short(column)}: one cell per integer needs whole-number bounds at most "
                               f"{bins_rules.INTEGER_MAX_LEVELS} integers apart (got [{lo:g}, {hi:g}]); use mode 'bins'.")
        v = x.to_numpy(dtype=float)
        miss = np.isnan(v)
        v = np.where(miss, ds.impute_value(column), v)
        clipped = int(((v < lo) | (v > hi)).sum())
        if mode == "integers":
            idx, labels = bins_rules.integer_index(v, (lo, hi)), bins_rules.integer_labels((lo, hi))
        else:
            k = check_int(bins, f"bins of column {column!r}", lo=1, hi=MAX_CATEGORIES)
            idx = np.clip(np.floor((np.clip(v, lo, hi) - lo) / (hi - lo) * k), 0, k - 1).astype(np.int64)
            labels = bins_rules.bin_labels(lo, hi, k)
        notes = [f"{column}: {clipped} value(s) outside [{lo:g}, {hi:g}] clipped into the end {mode}; "
                 f"{int(miss.sum())} missing cell(s) set to the public value {ds.impute_value(column):g}."]
        return idx, labels, False, notes
    if mode != "categories":
        raise DPValueError(f"mode = {mode!r} for column {short(column)} is not supported; choose 'categories', "
                           "'integers' or 'bins'.")
    numeric = pd.api.types.is_numeric_dtype(x) and not pd.api.types.is_bool_dtype(x)
    if numeric:
        vals = x.to_numpy(dtype=float)
        vals = np.where(np.isnan(vals), np.inf, vals)                # missing → its own level "(missing)"
        levels, idx = np.unique(vals, return_inverse=True)
        labels = [MISSING if np.isinf(v) else f"{v:g}" for v in levels]
    else:
        idx, uniques = pd.factorize(x.astype("string").fillna(MISSING), sort=True)
        labels = [str(u) for u in uniques]
    k = len(labels)
    if k > MAX_CATEGORIES:
        kind = "numeric " if numeric else ""
        fix = "declare public bounds and use mode 'bins'" if numeric else "choose a column with fewer distinct values"
        raise DPValueError(f"{kind}column {short(column)} has {k:,} distinct values; as categories that exceeds the cap "
                           f"of {MAX_CATEGORIES:,} cells per column: {fix}.")
    return np.asarray(idx, np.int64), labels, True, []


def column_histogram(ds, columns: Sequence[str], *, modes: Mapping[str, str], bins: Mapping[str, int] | None = None,
                     p: Optional[int] = None) -> CategoricalTable:
    """The histogram of one column, or of two columns crossed, over p cells.

    Parameters
    ----------
    ds : Dataset
    columns : one or two column names
    modes : mapping column → "categories" or "bins"
    bins : mapping column → number of bins (mode "bins")
    p : int, optional
        A declared (public) domain size ≥ the number of levels; default: exactly the number of levels.

    Raises
    ------
    DPValueError
        Too many categories (cap :data:`MAX_CATEGORIES` per column), p smaller than the levels,
        bins without public bounds, more than two columns.
    """
    columns = list(columns)
    if not 1 <= len(columns) <= 2:
        raise DPValueError(f"choose one or two columns (got {len(columns)}); two are crossed into one table.")
    bins = dict(bins or {})
    if len(columns) == 2 and all(modes.get(c) == "bins" for c in columns):   # ("integers": ≤ 50 levels each)   # public sizes: refuse before reading
        check_work("cells of the crossed table", {f"k{i + 1} (bins of {short(c)})": check_int(
            bins.get(c), f"bins of column {c!r}", lo=1, hi=MAX_CATEGORIES) for i, c in enumerate(columns)},
            MAX_DENSE_CELLS, fix="use fewer bins")
    parts = [_levels(ds, c, modes.get(c, "categories"), bins.get(c)) for c in columns]
    idx = parts[0][0]
    labels: Any = parts[0][1]                   # a list, or CrossedLabels for two columns
    if len(parts) == 2:
        k2 = len(parts[1][1])
        check_work("cells of the crossed table", {f"k{i + 1} (levels of {short(c)})": len(q[1])
                                                 for i, (c, q) in enumerate(zip(columns, parts))},
                   MAX_DENSE_CELLS, fix="bin a column more coarsely or choose a column with fewer categories")
        idx = idx * k2 + parts[1][0]
        labels = CrossedLabels(parts[0][1], parts[1][1])
    k = len(labels)
    if p is None:
        p = max(k, 2)
    p = check_int(p, "p", lo=2)
    if p < k:
        observed = " × ".join(str(len(q[1])) for q in parts)
        raise DPValueError(f"p = {p:,} is smaller than the {k:,} categories of {', '.join(map(repr, columns))} "
                           f"({observed} levels); raise p to at least {k:,}.")
    from_data = tuple(c for c, q in zip(columns, parts) if q[2])
    notes = tuple(n for q in parts for n in q[3])
    return CategoricalTable(SparseCounts.from_records(idx, p), labels, from_data, notes)

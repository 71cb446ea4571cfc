"""The :class:`Dataset`: a table plus its declared public bounds, imputation values and kind.

Bounds are public: fixed before looking at the data (domain knowledge, a codebook, the simulator's
design). Each bounded column also has a public imputation value (default: the midpoint of its
bounds) that replaces its missing cells, so n stays the number of rows (n is public), and a
**source**: ``"declared"`` (typed by the user), ``"codebook"`` (filled from a codebook: a table's documented public
ranges, :mod:`dpcore.data.codebook` — also a declaration), or ``"from data"`` when the bounds were read off the data's
min/max (:meth:`Dataset.with_bounds_from_data`) — releases using such bounds are not differentially private.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import pandas as pd

from .._validation import check_bounds, check_finite
from ..errors import DataError
from ._format import fmt, list_names, short

__all__ = ["BOUND_SOURCES", "CODEBOOK", "DECLARATIONS", "DECLARED", "FROM_DATA", "DATA_KINDS", "Dataset"]

DECLARED = "declared"
CODEBOOK = "codebook"
FROM_DATA = "from data"
#: Where a column's bounds came from.
BOUND_SOURCES = (DECLARED, CODEBOOK, FROM_DATA)
#: The sources that are declarations (public, stated without looking at the data): every source but "from data".
DECLARATIONS = (DECLARED, CODEBOOK)
#: Where a dataset came from: a user's file, a simulator, or a dataset shipped with scikit-learn.
DATA_KINDS = ("user", "built-in", "simulated")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table plus what is known about it.

    Attributes
    ----------
    frame : the data; numeric columns are float64 (NaN = missing), other columns text. Loaded CSVs are
        indexed by file line number (index name ``"line"``), simulated ones by row number (``"row"``).
    numeric_columns : columns whose every non-missing cell is a number (and with at least one number).
    bounds : declared **public** bounds per column, ``{column: (lower, upper)}`` (possibly empty).
    provenance : where the data came from (file name/size/hash, or simulator, parameters and seed).
    notes : what loading did (encoding, separator, missing tokens, blank lines, …).
    name : a short display name.
    imputes : public value that replaces a missing cell, per bounded column (default: the midpoint
        of its bounds; must lie within them).
    bound_sources : ``"declared"``, ``"codebook"`` or ``"from data"`` per bounded column (default
        ``"declared"``); the first two are declarations (:data:`DECLARATIONS`).
    kind : ``"user"`` (an upload: the default), ``"built-in"`` or ``"simulated"`` — the values of
        :data:`dpcore.privacy.DATA_KINDS`, read by :func:`dpcore.privacy.data_kind`. Built-in and
        simulated data are public demo data (:attr:`is_demo`): their releases may use fixed seeds.

    Examples
    --------
    >>> ds = Dataset(pd.DataFrame({"age": [30.0, None]}), ("age",), {"age": (0, 100)}, "example")
    >>> ds.impute_value("age"), ds.bound_source("age"), ds.bound_source("other")
    (50.0, 'declared', None)
    """

    frame: pd.DataFrame
    numeric_columns: tuple[str, ...]
    bounds: Mapping[str, tuple[float, float]]
    provenance: str
    notes: tuple[str, ...] = ()
    name: str = ""
    imputes: Mapping[str, float] = field(default_factory=dict)
    bound_sources: Mapping[str, str] = field(default_factory=dict)
    kind: str = "user"

    def __post_init__(self) -> None:
        if not isinstance(self.frame, pd.DataFrame):
            raise DataError(f"Dataset.frame must be a pandas DataFrame; got {type(self.frame).__name__}.")
        cols = tuple(self.numeric_columns)
        missing = [c for c in cols if c not in self.frame.columns]
        if missing:
            raise DataError(f"numeric_columns {missing!r} are not columns of the frame.")
        if self.kind not in DATA_KINDS:
            raise DataError(f"kind = {self.kind!r} is not known; use one of {', '.join(map(repr, DATA_KINDS))}.")
        checked, imputes, sources = {}, {}, {}
        for col, b in dict(self.bounds).items():
            if col not in self.frame.columns:
                raise DataError(f"bounds given for {col!r}, which is not a column of the frame.")
            try:
                lo, hi = b
            except (TypeError, ValueError):
                raise DataError(f"bounds for column {col!r} must be a pair (lower, upper); got {b!r}.") from None
            checked[col] = check_bounds(lo, hi, name=f"bounds for column {col!r}")
        for what, given in (("imputation value", self.imputes), ("bound source", self.bound_sources)):
            orphans = [c for c in given if c not in checked]
            if orphans:
                raise DataError(f"{what} given for column(s) {list_names(orphans)}, which have no bounds; "
                                "declare the bounds first (Dataset.with_bounds).")
        for col, (lo, hi) in checked.items():
            imputes[col] = _check_impute(self.imputes.get(col), lo, hi, col)
            src = self.bound_sources.get(col, DECLARED)
            if src not in BOUND_SOURCES:
                raise DataError(f"source = {src!r} for column {col!r} is not known; use 'declared' (public bounds "
                                "fixed before looking at the data), 'codebook' (a codebook's documented range) "
                                "or 'from data'.")
            sources[col] = src
        object.__setattr__(self, "numeric_columns", cols)
        object.__setattr__(self, "bounds", MappingProxyType(checked))
        object.__setattr__(self, "imputes", MappingProxyType(imputes))
        object.__setattr__(self, "bound_sources", MappingProxyType(sources))
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def n_rows(self) -> int:
        """The number of rows: the public n of every release on this dataset (rows are never dropped)."""
        return len(self.frame)

    @property
    def bounded_columns(self) -> tuple[str, ...]:
        """Numeric columns that have public bounds (the ones a mechanism can use), in frame order."""
        return tuple(c for c in self.numeric_columns if c in self.bounds)

    @property
    def is_demo(self) -> bool:
        """True for simulated and built-in data (public demo data: releases may use fixed seeds)."""
        return self.kind in ("built-in", "simulated")

    def bound_source(self, column: str) -> str | None:
        """``"declared"``, ``"from data"`` (releases using them are not DP), or None (no bounds)."""
        return self.bound_sources.get(column)

    def impute_value(self, column: str) -> float | None:
        """The public value that replaces ``column``'s missing cells, or None (no bounds)."""
        return self.imputes.get(column)

    def with_bounds(self, column: str, lower: Any, upper: Any, *, source: str = DECLARED,
                    impute: Any = None) -> Dataset:
        """A copy with public bounds for ``column`` (lower < upper, both finite).

        ``impute``: the public value for its missing cells, within the bounds (None: the midpoint).
        ``source``: ``"declared"`` (fixed before looking at the data), ``"codebook"`` (a codebook's documented
        range: also a declaration) or ``"from data"``.
        """
        if column not in self.frame.columns:
            raise DataError(f"column {short(column)} not found; available columns: {list_names(self.frame.columns)}.")
        lo, hi = check_bounds(lower, upper, name=f"bounds for column {column!r}")
        return dataclasses.replace(self, bounds={**self.bounds, column: (lo, hi)},
                                   imputes={**self.imputes, column: _check_impute(impute, lo, hi, column)},
                                   bound_sources={**self.bound_sources, column: source})

    def edit_bounds(self, column: str, lower: Any, upper: Any, impute: Any = None) -> Dataset:
        """What a bounds form means: a copy with ``column``'s bounds as edited, or ``self`` if unchanged.

        ``lower`` or ``upper`` None: the column has no bounds. ``impute`` None: the midpoint. Bounds
        that keep their values keep their source (bounds filled from the data stay ``"from data"``
        while unchanged); new values are ``"declared"``.

        >>> ds = Dataset(pd.DataFrame({"x": [1.0]}), ("x",), {}, "t").edit_bounds("x", 0, 4)
        >>> ds.edit_bounds("x", 0.0, 4.0) is ds, ds.edit_bounds("x", 0, 4, impute=1).impute_value("x")
        (True, 1.0)
        """
        stored = self.bounds.get(column)
        if lower is None or upper is None:
            return self if stored is None else self.without_bounds(column)
        lo, hi = check_bounds(lower, upper, name=f"bounds for column {column!r}")
        same = stored == (lo, hi)
        if same and self.imputes[column] == (_midpoint(lo, hi) if impute is None else impute):
            return self
        return self.with_bounds(column, lo, hi, impute=impute,
                                source=self.bound_sources[column] if same else DECLARED)

    def without_bounds(self, column: str) -> Dataset:
        """A copy in which ``column`` has no bounds (nor imputation value)."""
        keep = [c for c in self.bounds if c != column]
        return dataclasses.replace(self, bounds={c: self.bounds[c] for c in keep},
                                   imputes={c: self.imputes[c] for c in keep},
                                   bound_sources={c: self.bound_sources[c] for c in keep})

    def with_bounds_from_data(self, column: str) -> Dataset:
        """A copy with ``column``'s bounds set to its min and max, marked ``"from data"``.

        For exploration only: the min and max are values of single records, so releases using them
        are **not** differentially private (:func:`dpcore.data.bounds_warning` says so).
        """
        from .columns import (  # columns imports this module
            bounds_from_data,
            column_values,
        )
        values, _ = column_values(self, column, min_rows=1)
        lo, hi, _ = bounds_from_data(values, column=column)
        if lo == hi:
            raise DataError(f"column {short(column)} is constant (every value is {fmt(lo)}), so bounds from the "
                            "data would be empty; declare a public range that contains it.")
        return self.with_bounds(column, lo, hi, source=FROM_DATA)

    def fingerprint(self, *, include_bounds: bool = True) -> str:
        """A stable SHA-256 hex digest of the contents (column names, dtypes, index, values and, by
        default, the declared bounds, imputation values and bound sources) — for keying releases on
        this data. Notes/name/provenance/kind are excluded. Imputation values at the default
        midpoint and ``"declared"`` sources are left out of the digest, so datasets that use
        neither digest as before they existed.

        Kept on the instance once computed (a Dataset is frozen and its frame is not changed in place: every
        transformation returns a new Dataset): pages ask for the identity several times a rerun, and hashing
        every cell was ≈ 4 % of the server's time under load (py-spy, benchmarks/load.py)."""
        memo = self.__dict__.get("_fingerprints")
        if memo is None:
            memo = {}
            object.__setattr__(self, "_fingerprints", memo)
        if include_bounds not in memo:
            memo[include_bounds] = self._digest(include_bounds)
        return memo[include_bounds]

    def _digest(self, include_bounds: bool) -> str:
        h = hashlib.sha256()
        h.update(repr(tuple(str(c) for c in self.frame.columns)).encode())
        h.update(repr(tuple(str(t) for t in self.frame.dtypes)).encode())
        h.update(pd.util.hash_pandas_object(self.frame, index=True).to_numpy().tobytes())
        if include_bounds:
            h.update(repr(sorted((str(k), tuple(map(float, v))) for k, v in self.bounds.items())).encode())
            extra = sorted((str(c), self.imputes[c], self.bound_sources[c]) for c, (lo, hi) in self.bounds.items()
                           if self.imputes[c] != _midpoint(lo, hi) or self.bound_sources[c] != DECLARED)
            if extra:
                h.update(repr(extra).encode())
        return h.hexdigest()


def _midpoint(lo: float, hi: float) -> float:
    return lo + (hi - lo) / 2


def _check_impute(impute: Any, lo: float, hi: float, column: str) -> float:
    if impute is None:
        return _midpoint(lo, hi)
    v = check_finite(impute, f"imputation value for column {column!r}")
    if not lo <= v <= hi:
        raise DataError(f"imputation value for column {short(column)} = {fmt(v)} lies outside its bounds "
                        f"[{fmt(lo)}, {fmt(hi)}]; choose a public value inside them (e.g. the midpoint "
                        f"{fmt(_midpoint(lo, hi))}).")
    return v

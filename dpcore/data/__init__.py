"""Data for the explorer: datasets and their public bounds, reading files, the columns a mechanism
sees, simulated and built-in demo data, and safe output.

* :mod:`~dpcore.data.dataset` — :class:`Dataset`: a table, its declared **public** bounds per column,
  the public imputation value for missing cells (default: the midpoint) and where the bounds came
  from (``"declared"``, or ``"from data"``: then releases using them are not DP).
* :mod:`~dpcore.data.readers` — :func:`load_csv`, :func:`load_excel` (.xlsx via openpyxl) and
  :func:`load_file` (either, by content): bad files raise :class:`DataError` naming the line/column,
  the value and the fix; what loading did is recorded in :attr:`Dataset.notes`.
* :mod:`~dpcore.data.columns` — the release path's :func:`public_column` / :func:`public_columns`
  (n = number of rows always; missing cells imputed, values clipped; the counts of both only in a
  separate NON-PRIVATE :class:`ColumnDiagnostics`), plus :func:`column_values`, :func:`clip_to_bounds`,
  :func:`bounds_from_data` and :func:`bounds_warning` for exploring.
* :mod:`~dpcore.data.simulate` — univariate laws as datasets (bounds from the design; a topic's own
  designs, e.g. the KNG paper's regressions, live in that topic: :mod:`dpcore.kng.designs`); :mod:`~dpcore.data.builtin` — diabetes, breast cancer and wine from
  scikit-learn with bounds from domain knowledge.
* :mod:`~dpcore.data.export` — :func:`to_safe_csv` (CSV-injection-safe) and :func:`escape_markdown`.

Everything is pure (no global state); every random function takes ``rng``.
"""
from ..errors import DataError
from ._cells import NA_TOKENS
from .builtin import BUILTIN_DATASETS, BuiltinInfo, PublicBound, builtin_dataset
from .columns import (EXTREME_MAGNITUDE, NON_PRIVATE_LABEL, WHY_PUBLIC_BOUNDS, ClipReport, ColumnDiagnostics,
                      PublicColumn, PublicColumns, bounds_from_data, bounds_warning, clip_to_bounds, column_values,
                      diagnostics_frame, public_column, public_columns)
from .dataset import BOUND_SOURCES, CODEBOOK, DECLARATIONS, DECLARED, FROM_DATA, DATA_KINDS, Dataset
from .export import escape_markdown, literal, plotly_literal, plotly_literal_spec, sentence, to_safe_csv
from .readers import MAX_EXCEL_CELLS, MAX_SHARED_STRINGS, is_excel_workbook, load_csv, load_excel, load_file
from .simulate import (MAX_DATASET_ROWS, MAX_UNIVARIATE_N, SIMULATORS, UNIVARIATE_KINDS, SimulatorInfo,
                       describe_rng, merge_params, simulate_dataset, simulate_univariate)

__all__ = [
    "DataError", "Dataset", "DECLARED", "CODEBOOK", "DECLARATIONS", "FROM_DATA", "BOUND_SOURCES", "DATA_KINDS",
    "load_csv", "load_excel", "load_file", "is_excel_workbook", "NA_TOKENS", "MAX_EXCEL_CELLS",
    "MAX_SHARED_STRINGS",
    "public_column", "public_columns", "PublicColumn", "PublicColumns", "ColumnDiagnostics", "NON_PRIVATE_LABEL",
    "diagnostics_frame", "WHY_PUBLIC_BOUNDS",
    "column_values", "ClipReport", "clip_to_bounds", "bounds_from_data", "bounds_warning", "EXTREME_MAGNITUDE",
    "UNIVARIATE_KINDS", "SimulatorInfo", "SIMULATORS", "simulate_univariate", "simulate_dataset", "describe_rng",
    "merge_params",
    "MAX_UNIVARIATE_N", "MAX_DATASET_ROWS", "BUILTIN_DATASETS", "BuiltinInfo", "PublicBound", "builtin_dataset",
    "to_safe_csv", "escape_markdown", "literal", "sentence", "plotly_literal", "plotly_literal_spec",
]

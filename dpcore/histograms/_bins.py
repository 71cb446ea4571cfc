"""Public binning rules of a bounded numeric column: one cell per integer of the bounds, or k equal bins with
short labels (issue 20: "[0, 0.8571) × [1, 1.857)" for a survey column coded 0…6).

Every rule here reads only the column's declared public bounds, never its values, so the domain stays public.

>>> default_mode((0, 6)), default_mode((0.0, 5000.0)), default_mode((0.5, 6))
('integers', 'bins', 'bins')
>>> integer_labels((0, 3))
['0', '1', '2', '3']
>>> bin_labels(0, 6, 7)[:2], bin_labels(18, 98, 4)
(['[0, 0.86)', '[0.86, 1.71)'], ['[18, 38)', '[38, 58)', '[58, 78)', '[78, 98]'])
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["INTEGER_MAX_LEVELS", "default_mode", "integer_labels", "integer_index", "bin_labels"]

#: Bounds that are whole numbers at most this many integers apart (hi − lo + 1) default to one cell per
#: integer: an integer-coded survey answer (0…6), a count of children, a cultivar code.
INTEGER_MAX_LEVELS = 50


def _is_whole(v: float) -> bool:
    return math.isfinite(v) and float(v).is_integer()


def default_mode(bounds: tuple[float, float]) -> str:
    """``"integers"`` when the public bounds are whole numbers with at most :data:`INTEGER_MAX_LEVELS`
    integers between them (inclusive), else ``"bins"``: a rule on the bounds, never on the data."""
    lo, hi = bounds
    return "integers" if _is_whole(lo) and _is_whole(hi) and hi - lo + 1 <= INTEGER_MAX_LEVELS else "bins"


def integer_labels(bounds: tuple[float, float]) -> list[str]:
    """One label per integer lo, lo + 1, …, hi."""
    lo, hi = int(bounds[0]), int(bounds[1])
    return [str(v) for v in range(lo, hi + 1)]


def integer_index(values: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """The cell of each value: clipped to the bounds, then rounded to the nearest integer (half up), minus lo.
    A non-integer value (a mis-coded 2.5) falls in the cell of a neighbouring integer, never outside."""
    lo, hi = float(bounds[0]), float(bounds[1])
    return (np.floor(np.clip(values, lo, hi) + 0.5) - lo).clip(0, hi - lo).astype(np.int64)


def _fmt(v: float, decimals: int) -> str:
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def bin_labels(lo: float, hi: float, k: int) -> list[str]:
    """Labels of k equal bins of [lo, hi]: "[a, b)" (the last "[a, b]"), with the fewest decimals that keep
    two significant digits of the bin width, so neighbouring edges stay distinct and labels stay short."""
    edges = np.linspace(lo, hi, k + 1)
    width = (hi - lo) / k
    decimals = max(0, 1 - math.floor(math.log10(width))) if width > 0 else 0
    if max(abs(lo), abs(hi)) >= 1e6 or decimals > 8:        # extreme magnitudes: scientific notation
        return [f"[{edges[i]:.3g}, {edges[i + 1]:.3g}{']' if i == k - 1 else ')'}" for i in range(k)]
    return [f"[{_fmt(edges[i], decimals)}, {_fmt(edges[i + 1], decimals)}{']' if i == k - 1 else ')'}"
            for i in range(k)]

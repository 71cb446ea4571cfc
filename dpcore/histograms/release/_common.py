"""What the histogram releases share: their non-private diagnostics."""
from __future__ import annotations

import functools
from typing import Any

from ...mechanism import Diagnostics, lazy
from .._tables import SparseCounts, SparseHistogram, histogram_errors


def diagnostics(counts: SparseCounts, value: Any) -> Diagnostics:
    """q, n and the errors of ``value`` against the true counts (non-private); the errors are computed when a
    page reads one (one pass for all of them)."""
    @functools.cache
    def errors() -> dict[str, float]:
        return histogram_errors(value, counts)

    def entry(key: str) -> lazy:
        return lazy(lambda: errors()[key])

    keys = ("l1", "l2", "max", "false_positives") + (("missed",) if isinstance(value, SparseHistogram) else ())
    return Diagnostics(values={"occupied cells q (non-private)": counts.q, "records n": counts.n,
                               **{f"{k} error (non-private)": entry(k) for k in keys}})

"""What the histogram releases share: their non-private diagnostics."""
from __future__ import annotations

from typing import Any

from ...mechanism import Diagnostics
from .._tables import SparseCounts, histogram_errors


def diagnostics(counts: SparseCounts, value: Any) -> Diagnostics:
    """q, n and the errors of ``value`` against the true counts (non-private)."""
    return Diagnostics(values={"occupied cells q (non-private)": counts.q, "records n": counts.n,
                               **{f"{k} error (non-private)": v for k, v in histogram_errors(value, counts).items()}})

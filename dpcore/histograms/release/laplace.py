"""Noise in every cell: Laplace(b) or the two-sided geometric, b = Δ/ε; pure ε-DP (Hall 2012, Part 1)."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..._rng import RNGLike
from ...mechanism import Calibration, Note, Release
from .._sampling import sample_histogram
from .._tables import as_counts
from ..calibration import calibrate_histogram, data_shape, noise_text
from ..configs import HistogramConfig
from ._common import diagnostics


def release(data: Any, config: HistogramConfig, *, rng: RNGLike = None,
            override: Optional[Callable[[Calibration], Calibration]] = None) -> Release:
    """One release of the per-cell mechanism: ``value`` is the length-p vector of released counts.

    ``data``: :class:`~dpcore.histograms.SparseCounts` over ``config.p`` cells, or integer records.
    """
    counts = as_counts(data, config.p)
    cal = calibrate_histogram(config, data_shape(counts))
    cal = override(cal) if override else cal
    value = sample_histogram(counts, cal, 1, rng)[0]
    notes = (Note("info", f"{noise_text(config.noise)} = {cal.constant:.4g} in each of the p = {config.p:,} cells; "
                          f"expected ℓ1 error p·E|Z| ≈ {config.p * cal.constant:,.4g}."),)
    return Release("histograms/laplace", value, cal.cost(1), cal, True, notes, diagnostics(counts, value), config)

"""The histogram releases, one module per family, each with its ``release(data, config, *, rng)``:
:mod:`.laplace` (noise in every cell) and :mod:`.threshold` (hard thresholding; also the Laplace + thresholded
pair and the non-private oracle)."""
from __future__ import annotations

from . import laplace, threshold
from .threshold import PairValue, laplace_and_threshold_release, oracle_threshold

__all__ = ["laplace", "threshold", "PairValue", "laplace_and_threshold_release", "oracle_threshold"]

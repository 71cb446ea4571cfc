"""Local projection (BBNS 2019 Thm 5.1): ε-LDP reports, average, exact projection onto conv X."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_local_projection
from ..configs import LocalProjectionConfig
from ._common import local_family


def release(data: Any, config: LocalProjectionConfig, *, rng: RNGLike = None) -> Release:
    """Local projection mechanism (BBNS Thm 5.1): ε-LDP reports, average, exact projection onto conv X.
    Heuristic error (RECONSTRUCTED constant c ≈ 1–2): err₂ ≈ (c R C_ε w(X)/(k√n))^{1/2}."""
    return local_family(calibrate_local_projection, data, config, rng)

"""Local coarse projection (BBNS 2019 Thm 1.6): round to the public (α/2)-net, randomize, project; ε-LDP."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_local_coarse
from ..configs import LocalCoarseConfig
from ._common import local_family


def release(data: Any, config: LocalCoarseConfig, *, rng: RNGLike = None) -> Release:
    """Local coarse projection (BBNS Thm 1.6): round to the public (α/2)-net, randomize, project onto conv Y."""
    return local_family(calibrate_local_coarse, data, config, rng)

"""Local chaining (BBNS 2019 Thm 1.6): one ε/m-LDP report per non-constant level, projected and summed."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_local_chaining
from ..configs import LocalChainingConfig
from ._common import local_family


def release(data: Any, config: LocalChainingConfig, *, rng: RNGLike = None) -> Release:
    """Local chaining (BBNS Thm 1.6): one ε/m-LDP report per non-constant level, projected per level and summed."""
    return local_family(calibrate_local_chaining, data, config, rng)

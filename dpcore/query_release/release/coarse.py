"""Coarse projection (BBNS 2019 Thm 1.2): rounding to a public (α/2)-net, then the projection mechanism; ρ-zCDP."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_coarse
from ..configs import CoarseConfig
from ._common import gaussian_family


def release(data: Any, config: CoarseConfig, *, rng: RNGLike = None) -> Release:
    """Coarse projection (BBNS Thm 1.2; steps from the paper's §4.1, parameters RECONSTRUCTED).

    Y = greedy maximal (α/2)-separated subset of X in d₂ (public), records rounded to π(x) ∈ Y, then the
    projection mechanism on Y with σ_Y = diam₂(Y)/(n√(2ρ)). Explicit bound (RECONSTRUCTED):
    err₂ ≤ α/2 + (diam₂(Y) w(Y)/(k n √(2ρ)))^{1/2}; the α/2 rounding bias does not vanish with n.
    """
    return gaussian_family(calibrate_coarse, data, config, rng, project=True)

"""The projection mechanism (Nikolov, Talwar & Zhang 2016): Gaussian noise, exact projection onto conv X; ρ-zCDP."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_projection
from ..configs import ProjectionConfig
from ._common import gaussian_family


def release(data: Any, config: ProjectionConfig, *, rng: RNGLike = None) -> Release:
    """Projection mechanism ŷ = Proj_{conv X}(x̄ + N(0, σ²I)) (Nikolov, Talwar & Zhang 2016): ρ-zCDP.

    Error bound (RECONSTRUCTED, explicit constants ours): E‖ŷ − x̄‖² ≤ σ·w(X), so
    err₂ ≤ (diam₂(X) w(X)/(k n √(2ρ)))^{1/2}, and never worse than the raw noise: ‖ŷ − x̄‖ ≤ ‖ỹ − x̄‖.
    """
    return gaussian_family(calibrate_projection, data, config, rng, project=True)

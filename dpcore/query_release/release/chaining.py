"""The chaining mechanism (BBNS 2019 Lemma 4.2, Thm 1.3): projection on each telescoping level; ρ-zCDP."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from ...mechanism import Release
from ..calibration import calibrate_chaining
from ..configs import ChainingConfig
from ._common import gaussian_family


def release(data: Any, config: ChainingConfig, *, rng: RNGLike = None) -> Release:
    """Chaining mechanism (BBNS Lemma 4.2 and Thm 1.3; construction from the paper, constants RECONSTRUCTED).

    x = Σ_{i=0}^{T} f_i(x) + (x − π_T(x)) with f_0 = π_0, f_i = π_i − π_{i−1} (greedy 2^{−i}-nets in d₂);
    the projection mechanism runs on each non-constant level X_i = f_i(X) with ρ_i (uniform ρ/(#levels),
    or the labelled optimised split), and the residual level is answered by 0 (error ≤ 2^{−T} ≤ α/2).
    Explicit bound (RECONSTRUCTED): err₂ ≤ Σ_i (diam₂(X_i) w(X_i)/(k n √(2ρ_i)))^{1/2} + 2^{−T}.
    """
    return gaussian_family(calibrate_chaining, data, config, rng, project=True)

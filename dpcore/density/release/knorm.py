"""The K-norm KDE on the Carathéodory orbitope (d = 1): z = v_D + (Δ/ε) r U; ε-DP with the exact
rejection sampler (Hall 2012 slides Part 3; construction in ``dpcore.density._knorm``)."""
from __future__ import annotations

from typing import cast

import numpy as np

from ..._rng import as_generator
from ...mechanism import Diagnostics, Note, Release
from .._kde import check_data
from .._knorm import Body, _centre, _evaluate, body, hit_and_run, nonprivate_knorm, uniform_in_body
from ..calibration import calibrate_knorm
from ..configs import KNormConfig


def knorm_sample(data, config: KNormConfig, size: int, rng, *, override=None, B: Body | None = None):
    """``size`` draws of z = v_D + (Δ/ε) r U (shape (size, 2k)); returns (z, acceptance rate or NaN)."""
    x, _ = check_data(data, 1)
    cal = calibrate_knorm(config, np.shape(x))
    if override is not None:
        cal = override(cal)
    g = as_generator(rng)
    g_r, g_u = g.spawn(2)
    B = B or body(config.k, config.body_grid)
    r = g_r.gamma(2 * config.k + 1, 1.0, size)
    if config.sampler == "rejection":
        U, acc = uniform_in_body(B, size, g_u)
    else:
        U, acc = np.stack([hit_and_run(B, config.steps, c) for c in g_u.spawn(size)]), float("nan")
    scale = cal.sensitivity / cast(float, cal.epsilon) * cal.params["noise_factor"]
    return _centre(x, config)[None] + scale * r[:, None] * U, acc


def release(data, config: KNormConfig, *, rng=None) -> Release:
    """``size`` K-norm draws of f̃ on the grid, shape (size, grid)."""
    x, clipped = check_data(data, 1)
    cal = calibrate_knorm(config, np.shape(x))
    z, acc = knorm_sample(x, config, config.size, rng)
    notes = [Note("info", f"uniform-in-B step: {config.sampler}"
                  + (f", acceptance {acc:.3f} (exact, pure ε-DP)" if config.sampler == "rejection" else ""))]
    if config.sampler != "rejection":
        notes.append(Note("approximate", "hit-and-run is approximately private only: (ε, (1 + e^ε)η)-DP where η, "
                          "its total-variation distance to the uniform law, is not certified."))
    diag = Diagnostics(values={"non-private truncated KDE (grid-rounded data)": nonprivate_knorm(x, config),
                               "records clipped into [0, 1]": clipped})
    return Release("density/knorm", _evaluate(z, config), cal.cost(config.size), cal, True, tuple(notes), diag,
                   config)

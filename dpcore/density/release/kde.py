"""The GP-KDE release: f_D on the public grid plus σ·G, G a Gaussian process with covariance ⪰ K(grid);
(ε, δ)-DP (Hall, Rinaldo & Wasserman 2013, §4.1; derivation in ``dpcore.density._kde``)."""
from __future__ import annotations

import numpy as np

from ...mechanism import Calibration, Diagnostics, Note, Release
from .._kde import _use_binning, check_data, kde_on_grid, sample_gp
from ..calibration import calibrate_gp
from ..configs import GPKDEConfig


def gp_sample(data, config: GPKDEConfig, size: int, rng, *, override=None) -> np.ndarray:
    """``size`` GP-KDE draws, shape (size,) + (grid,)*d, with ``override`` (an audit's mutant) applied to the
    calibration (its ``params["noise_factor"]`` multiplies σ)."""
    x, _ = check_data(data, config.d)
    cal = calibrate_gp(config, np.shape(x))
    if override is not None:
        cal = override(cal)
    return _gp_draws(x, config, cal, size, rng)[1]


def _gp_draws(x: np.ndarray, config: GPKDEConfig, cal: Calibration, size: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(f_D on the grid, ``size`` draws f_D + σ·G): the one noisy-output path of the release and the audit."""
    f = kde_on_grid(x, config.bandwidth, config.grid, binning=_use_binning(len(x), config), bins=config.bins)
    sigma = cal.constant * cal.params["noise_factor"]
    return f, f[None] + sigma * sample_gp(config.grid, config.bandwidth, config.d, size, rng)


def release(data, config: GPKDEConfig, *, rng=None) -> Release:
    """Release ``size`` GP-KDE draws on the grid: value of shape (size,) + (grid,)*d (unit-cube density)."""
    x, clipped = check_data(data, config.d)
    n = len(x)
    cal = calibrate_gp(config, x.shape)
    binned = _use_binning(n, config)
    f, value = _gp_draws(x, config, cal, config.size, rng)
    sigma = cal.constant * cal.params["noise_factor"]
    notes = [Note("info", f"GP noise scale σ = {sigma:.4g} ({cal.params['calibration']} calibration); "
                          f"E∫(f̃ − f_D)² = σ² = {sigma ** 2:.4g} over [0, 1]^{config.d}.")]
    if binned:
        notes.append(Note("info", f"f_D computed by linear binning on {config.bins} cells per axis (same Δ)."))
    diag = Diagnostics(values={"non-private KDE on the grid": f, "records clipped into [0, 1]^d": clipped})
    return Release("density/gp-kde", value, cal.cost(config.size), cal, True, tuple(notes), diag, config)

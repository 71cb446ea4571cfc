"""The Fourier-basis KDE with Laplace noise on the non-constant coefficients; ε-DP (Hall 2012 slides Part 3)."""
from __future__ import annotations

import numpy as np

from ..._rng import as_generator
from ...mechanism import Diagnostics, Note, Release
from .._fourier import _tensor, coefficients, evaluate, weights
from .._kde import check_data
from ..calibration import calibrate_fourier
from ..configs import FourierConfig


def fourier_sample_coefficients(data, config: FourierConfig, size: int, rng, *, override=None) -> np.ndarray:
    """``size`` noisy coefficient arrays (size,) + (m,)*d (the constant one fixed at 1)."""
    x, _ = check_data(data, config.d)
    return _noisy_coefficients(coefficients(x, config.k), len(x), config, size, rng, override=override)


def _noisy_coefficients(beta: np.ndarray, n: int, config: FourierConfig, size: int, rng, *,
                        override=None) -> np.ndarray:
    """The one noisy path: β̂ + Laplace(b) on the non-constant coefficients, ``size`` times."""
    cal = calibrate_fourier(config, (n,))
    if override is not None:
        cal = override(cal)
    b = cal.constant * cal.params["noise_factor"]
    noise = as_generator(rng).laplace(0.0, b, (size,) + beta.shape)
    noise.reshape(size, -1)[:, 0] = 0.0
    return beta[None] + noise


def release(data, config: FourierConfig, *, rng=None) -> Release:
    """``size`` draws of f̃ on the grid, shape (size,) + (grid,)*d."""
    x, clipped = check_data(data, config.d)
    cal = calibrate_fourier(config, np.shape(x))
    beta = coefficients(x, config.k)                   # once: the release and the non-private diagnostic
    z = _noisy_coefficients(beta, len(x), config, config.size, rng)
    value = evaluate(z, config.k, config.bandwidth, config.grid, config.weights)
    lam = _tensor([weights(config.k, config.bandwidth, config.weights)] * config.d).ravel()
    noise_ise = 2 * cal.constant ** 2 * float((lam[1:] ** 2).sum())
    notes = (Note("info", f"Laplace scale b = {cal.constant:.4g} on {lam.size - 1} coefficients; expected noise "
                          f"∫(f̃ − f̂^m)² = 2b²Σλ_j² = {noise_ise:.4g}."),)
    nonprivate = evaluate(beta[None], config.k, config.bandwidth, config.grid, config.weights)[0]
    diag = Diagnostics(values={"non-private truncated KDE on the grid": nonprivate,
                               "records clipped into [0, 1]^d": clipped})
    return Release("density/fourier-laplace", value, cal.cost(config.size), cal, True, notes, diag, config)

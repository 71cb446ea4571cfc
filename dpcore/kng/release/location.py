"""``release(data, config, *, rng)`` of the location family: the mean (§4.1), the median or geometric median
(§4.4) and the τ-quantile (§4.5) of Reimherr & Awan (2019), by KNG or the exponential mechanism.

Privacy: pure ε-DP per draw for the exact target law (KNG: Thm 3.1; exponential mechanism: Prop. 2.2),
replace-one neighbours, n fixed; exact samplers for the mean and the 1-D median and quantile, MCMC
(approximately private) for the geometric median and the exponential mechanism's mean in ℓ1/ℓ2 with
d ≥ 2. Sensitivities: :func:`dpcore.kng.calibration.calibrate_location`. Cost: ``size`` draws at ε each.
"""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from .._problems import problem_of
from ..calibration import LOCATION_CONFIGS, calibrate_location
from . import _engine
from ._engine import KNGRelease, Override, Progress

#: The configs this family releases.
CONFIGS = LOCATION_CONFIGS


def release(data: Any, config: Any, *, rng: RNGLike = None, override: Override = None,
            progress: Progress = None) -> KNGRelease:
    """One private release of the mean, median or quantile: ``config.size`` independent draws.

    Parameters
    ----------
    data : array (n,) or (n, d) of records (one column for the quantile).
    config : :class:`~dpcore.kng.configs.MeanConfig`, ``MedianConfig`` or ``QuantileConfig``.
    rng : seed or Generator.
    override : callable(Calibration) -> Calibration, optional
        Replaces the calibration (an audit's mutant; never used by a real release).
    progress : callable(done, total) -> bool, optional
        Called between MCMC blocks; returning False raises :class:`dpcore.errors.Cancelled`.

    Returns
    -------
    KNGRelease
        ``value`` (size, d) draws in the caller's units; ``calibration == calibrate_location(config, (n, d))``
        and ``cost == calibration.cost(size)``; the non-private estimate, clipping count and MCMC diagnostics
        only in ``diagnostics``.

    >>> import numpy as np
    >>> from dpcore import kng
    >>> cfg = kng.make("median", mechanism="kng", epsilon=1.0, bounds=(0, 1), size=2)
    >>> release(np.linspace(0, 1, 11), cfg, rng=0).value.shape
    (2, 1)
    """
    return _engine.release(problem_of(config, CONFIGS), data, config, calibrate=calibrate_location, rng=rng,
                           override=override, progress=progress)

"""The private bandwidth: the rule of thumb applied to quartiles released by the exponential mechanism;
ε-DP, charged on top of the KDE that uses it (Hall 2012 slides Part 2; ``dpcore.density._bandwidth``)."""
from __future__ import annotations

import numpy as np

from ..._rng import as_generator
from ...mechanism import Diagnostics, Release
from .._bandwidth import bandwidth_rule_iqr, nonprivate_bandwidth, private_quantiles
from .._kde import check_data
from ..calibration import calibrate_bandwidth
from ..configs import BandwidthConfig


def quartiles_sample(data, config: BandwidthConfig, size: int, rng, *, override=None) -> np.ndarray:
    """``size`` draws of the private quartiles (q₁, q₃) of every axis, shape (size, 2d)."""
    x, _ = check_data(data, config.d)
    cal = calibrate_bandwidth(config, np.shape(x))
    if override is not None:
        cal = override(cal)
    eq = config.epsilon / (2 * config.d)
    g = as_generator(rng)
    cols = []
    for j in range(config.d):
        for q in (0.25, 0.75):
            cols.append(private_quantiles(x[:, j], q, eq, size, g, factor=cal.params["em_factor"]))
    return np.stack(cols, axis=1)


def bandwidth_sample(data, config: BandwidthConfig, size: int, rng, *, override=None) -> np.ndarray:
    """``size`` private bandwidths (shape (size,)): the rule applied to the private quartiles."""
    x, _ = check_data(data, config.d)
    qs = quartiles_sample(x, config, size, rng, override=override)
    iqr = np.abs(qs[:, 1::2] - qs[:, 0::2]).mean(axis=1)
    return bandwidth_rule_iqr(iqr, len(x), config.d, config.h_min)


def release(data, config: BandwidthConfig, *, rng=None) -> Release:
    """Release ``size`` private bandwidths (value shape (size,)); the cost adds to the KDE that uses one."""
    x, _ = check_data(data, config.d)
    cal = calibrate_bandwidth(config, np.shape(x))
    h = bandwidth_sample(x, config, config.size, rng)
    return Release("density/bandwidth", h, cal.cost(config.size), cal,
                   diagnostics=Diagnostics(values={"non-private rule-of-thumb h": nonprivate_bandwidth(x, config)}),
                   config=config)

"""A data-driven bandwidth whose private estimate is charged (Hall 2012 slides Part 2; spec §2.3, correction 4).

The HRW rule of thumb h = (4/((d+1)n))^{1/(d+4)} · IQR/1.34 reads the data through the IQR, so it is not
a public choice. Here each axis's quartiles q₁, q₃ are released by the exponential mechanism for quantiles
(Smith 2011) on [0, 1]: output t with density ∝ exp(−(ε_q/2)·|#{x_i ≤ t} − qn|) on [0, 1] (Lebesgue base
measure, sampled exactly interval by interval). Replace-one changes the count #{x_i ≤ t} by at most 1, so
the utility has sensitivity 1 and each quantile is ε_q-DP; the 2d quantiles share ε (ε_q = ε/(2d), basic
composition). h = rule(mean over axes of (q₃ − q₁)/1.34), floored at the public h_min, is post-processing:
the bandwidth is ε-DP and its cost is charged on top of the KDE release that uses it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING


import numpy as np

from dpcore._rng import as_generator

from ._kde import check_data

if TYPE_CHECKING:
    from .configs import BandwidthConfig

__all__ = ["private_quantiles", "quantile_logpdf", "bandwidth_rule_iqr", "nonprivate_bandwidth"]

REFERENCE_BW = ("Hall, Rinaldo & Wasserman (2013) bandwidth rule; private quantiles by the "
                "exponential mechanism, Smith (2011), McSherry & Talwar (2007)")


def private_quantiles(x: np.ndarray, q: float, epsilon: float, size: int, rng, *, factor: float = 0.5) -> np.ndarray:
    """``size`` draws of the exponential-mechanism q-quantile of x ⊂ [0, 1] (``factor`` = 1/2 · 1/Δu)."""
    g = as_generator(rng)
    z = np.concatenate([[0.0], np.sort(np.clip(x, 0.0, 1.0)), [1.0]])
    n = len(x)
    lengths = np.diff(z)
    i = np.arange(n + 1)
    with np.errstate(divide="ignore"):
        logw = np.log(lengths) - factor * epsilon * np.abs(i - q * n)
    p = np.exp(logw - logw.max())
    p /= p.sum()
    pick = g.choice(n + 1, size=size, p=p)
    return z[pick] + g.random(size) * lengths[pick]


def bandwidth_rule_iqr(iqr: np.ndarray, n: int, d: int, h_min: float) -> np.ndarray:
    """h = (4/((d+1)n))^{1/(d+4)} · IQR/1.34, floored at h_min."""
    return np.maximum((4.0 / ((d + 1) * n)) ** (1.0 / (d + 4)) * np.asarray(iqr) / 1.34, h_min)


def quantile_logpdf(x: np.ndarray, q: float, epsilon: float, t: np.ndarray, factor: float = 0.5) -> np.ndarray:
    """Exact log-density of :func:`private_quantiles` at t (for likelihood-ratio audit events)."""
    xs = np.sort(np.clip(x, 0.0, 1.0))
    n = len(xs)
    z = np.concatenate([[0.0], xs, [1.0]])
    i = np.arange(n + 1)
    logz = np.logaddexp.reduce(np.log(np.maximum(np.diff(z), 1e-300)) - factor * epsilon * np.abs(i - q * n))
    c = np.searchsorted(xs, t, side="right")
    return -factor * epsilon * np.abs(c - q * n) - logz


def nonprivate_bandwidth(data, config: BandwidthConfig) -> float:
    """The same rule with the empirical quartiles (NOT private)."""
    x, _ = check_data(data, config.d)
    iqr = np.mean([np.subtract(*np.quantile(x[:, j], [0.75, 0.25])) for j in range(config.d)])
    return float(bandwidth_rule_iqr(iqr, len(x), config.d, config.h_min))



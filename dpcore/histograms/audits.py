"""Privacy audits of the histogram mechanisms (declared in :mod:`dpcore.histograms.declare`).

Every sampler below calls the same vectorised samplers the releases use
(``sample_histogram``, ``sample_threshold`` of ``dpcore.histograms._sampling``),
with the audit's calibration override applied; outputs are dense (N, p) arrays over a tiny domain.

Events (fixed before sampling):

* per-cell noise: the exact log-likelihood ratio Σ_i (|x_i − c′_i| − |x_i − c_i|)/b of the two
  neighbours (most powerful; the same formula is the pmf ratio of the two-sided geometric);
* thresholded releases: the same function evaluated on the thresholded output (a fixed function of
  the output, so its level sets are valid events);
* the sparse sampler's locations: the support pattern (which cells are non-zero), one singleton
  event per pattern — drawing the survivors' locations WITH replacement makes collisions, which
  shifts mass between patterns by a factor ≈ e (spec correction 1);
* the noisy-q threshold: the number of released cells among cells empty in both datasets (exact q
  moves τ, and with it the survival probability of every such cell).

Note (not an audit): "a threshold without its log p term" (τ = 0) is still post-processing of the
Laplace release, hence still ε-DP — no privacy audit can reject it. It is caught by the
false-positive-rate test in tests/histograms (≈ (p − q)/2 false positives instead of ≈ 1/2).
"""
from __future__ import annotations

import numpy as np

from dpcore.audit import halfline_events, llr_events, singleton_events

from ._sampling import sample_histogram, sample_threshold
from ._tables import SparseCounts
from .calibration import calibrate_histogram, calibrate_threshold, sensitivity
from .configs import HistogramConfig, ThresholdConfig

__all__ = ["histogram_sampler", "threshold_sampler", "llr_events_for", "pattern_events", "empty_count_events",
           "half_sensitivity", "with_replacement", "exact_q"]


def histogram_sampler(p: int, **kw):
    """Audit sampler of the per-cell mechanism over ``p`` cells (config fields in ``kw``)."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = HistogramConfig(epsilon, p, **kw)
        counts = SparseCounts.from_records(data, p)
        cal = calibrate_histogram(cfg, (counts.n,))
        cal = override(cal) if override else cal
        return sample_histogram(counts, cal, n, rng)
    return sampler


def threshold_sampler(p: int, **kw):
    """Audit sampler of the thresholded mechanism over ``p`` cells: dense (N, p) outputs."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = ThresholdConfig(epsilon, p, **kw)
        counts = SparseCounts.from_records(data, p)
        cal = calibrate_threshold(cfg, (counts.n,))
        cal = override(cal) if override else cal
        return sample_threshold(counts, cal, n, rng).to_dense()
    return sampler


def llr_events_for(p: int, neighbours: str = "replace-one", share: float = 0.0):
    """Events {Σ_i (|x_i − c′_i| − |x_i − c_i|)/b > t}: the exact log-likelihood ratio of per-cell noise."""
    def events(d_a, d_b, epsilon, delta):
        b = sensitivity(neighbours) / (epsilon * (1 - share))
        ca = SparseCounts.from_records(d_a, p).to_dense().astype(float)
        cb = SparseCounts.from_records(d_b, p).to_dense().astype(float)

        def la(out):
            return -np.abs(np.asarray(out, float) - ca).sum(axis=1) / b

        def lb(out):
            return -np.abs(np.asarray(out, float) - cb).sum(axis=1) / b
        return llr_events(la, lb, np.linspace(-0.9, 0.9, 7) * epsilon)
    return events


def pattern_events(p: int):
    """One singleton event per support pattern (bit i set = cell i released non-zero)."""
    weights = 2 ** np.arange(p)
    ev = singleton_events(np.arange(2 ** p))

    def events(d_a, d_b, epsilon, delta):
        return lambda out: ev((np.asarray(out) != 0) @ weights)
    return events


def empty_count_events(p: int):
    """Half-lines of the number of released cells among those empty in both datasets."""
    def events(d_a, d_b, epsilon, delta):
        occupied = np.union1d(np.asarray(d_a), np.asarray(d_b))
        empty = np.setdiff1d(np.arange(p), occupied)
        ev = halfline_events(np.arange(0, empty.size) + 0.5)
        return lambda out: ev((np.asarray(out)[:, empty] != 0).sum(axis=1))
    return events


# -- mutants (calibration overrides) ----------------------------------------------------------------------------
def half_sensitivity(cal):
    """Histogram with sensitivity 1 where 2 is needed (replace-one): b = 1/ε (τ follows b)."""
    return cal.replace(sensitivity=cal.sensitivity / 2, constant=cal.constant / 2)


def with_replacement(cal):
    """Sparse sampler drawing the surviving empty cells' locations WITH replacement (duplicates collapse)."""
    return cal.replace(params={"locations": "with replacement"})


def exact_q(cal):
    """τ = b·log(p/q) from the data's exact q (the non-private oracle) instead of the noisy q̂."""
    return cal.replace(params={"q_noise_scale": 0.0})

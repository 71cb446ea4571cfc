"""Hard-thresholded histograms: the noisy cells, every cell ≤ τ set to 0, τ = b·log(p/q′) (Hall 2012, Part 1;
CPST-style). :func:`release` (sparse or naive sampler), :func:`laplace_and_threshold_release` (one draw released
as is and thresholded, ε once), and the NON-PRIVATE :func:`oracle_threshold` (the data's own q; no Release).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from ..._rng import RNGLike, as_generator
from ...errors import DPValueError
from ...mechanism import Calibration, Diagnostics, Note, Release
from .._sampling import sample_histogram, sample_threshold, survival_probability
from .._tables import BatchHistogram, SparseHistogram, as_counts, histogram_errors
from ..calibration import calibrate_histogram, calibrate_threshold, data_shape, noise_text
from ..configs import HistogramConfig, ThresholdConfig
from ._common import diagnostics


def release(data: Any, config: ThresholdConfig, *, rng: RNGLike = None,
            override: Optional[Callable[[Calibration], Calibration]] = None) -> Release:
    """One thresholded release: ``value`` is a :class:`~dpcore.histograms.SparseHistogram`
    (cells sorted by index; τ and, with the noisy-q rule, q̂ are part of the release)."""
    counts = as_counts(data, config.p)
    cal = calibrate_threshold(config, data_shape(counts))
    cal = override(cal) if override else cal
    value = sample_threshold(counts, cal, 1, rng).replicate(0)
    fp = (config.p - counts.q) * float(survival_probability(config.noise, cal.constant, value.tau))
    # with the noisy-q rule τ is a function of the released q̂: both notes restate the noised output ("output")
    kind = "info" if value.q_hat is None else "output"
    notes = [Note(kind, f"τ = {value.tau:.4g}; an empty cell survives with probability "
                          f"{float(survival_probability(config.noise, cal.constant, value.tau)):.3g}"
                          + (" = 1/(2p)" if config.tau_rule == "log p" and config.noise == "laplace" else "") + ".")]
    if value.q_hat is not None:
        notes.append(Note("output", f"released noisy number of occupied cells q̂ = {value.q_hat:.0f} "
                                    f"(ε_q = {cal.params['epsilon_q']:.4g} of the total ε)."))
    if config.sampler == "sparse":
        notes.append(Note("warning", "The sparse sampler's running time grows with q (the number of occupied cells): "
                                     "the time a release takes is not part of the DP guarantee."))
    diag = diagnostics(counts, value)
    diag = Diagnostics(values={**diag.values, "expected false positives (non-private: uses q)": fp})
    return Release("histograms/threshold", value, cal.cost(1), cal, True, tuple(notes), diag, config)


@dataclass(frozen=True, eq=False)
class PairValue:
    """One noisy draw of every cell (``laplace``, length p) and its thresholded version (``threshold``)."""

    laplace: np.ndarray
    threshold: SparseHistogram

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.threshold, dtype=dtype)


def laplace_and_threshold_release(data: Any, config: ThresholdConfig, *, rng: RNGLike = None) -> Release:
    """ONE noisy draw of all p cells, released as is AND thresholded at τ: the thresholded histogram is
    post-processing of the same draw, so the pair costs ε once (spec §1.4). Needs ``sampler="dense"``
    and a public τ (rule "log p" or "public q bound")."""
    if config.sampler != "dense" or config.tau_rule == "noisy q":
        raise DPValueError("the Laplace + thresholded pair needs sampler = 'dense' and a public τ (tau_rule 'log p' or "
                           "'public q bound').")
    counts = as_counts(data, config.p)
    cal = calibrate_threshold(config, data_shape(counts))
    # the per-cell draw is the audited histogram sampler's (histograms/laplace audits); thresholding is post-processing
    per_cell = calibrate_histogram(HistogramConfig(config.epsilon, config.p, config.neighbours, config.noise),
                                   data_shape(counts))
    x = sample_histogram(counts, per_cell, 1, as_generator(rng))[0]
    tau = cal.constant * math.log(config.p / cal.params["q_for_tau"])
    cells = np.flatnonzero(x > tau)
    vals = x[cells]
    if config.postprocess == "round":
        vals = np.round(vals)
        cells, vals = cells[vals != 0], vals[vals != 0]
    thr = SparseHistogram(config.p, cells.astype(np.int64), vals, tau)
    notes = (Note("info", "The per-cell vector and its thresholded version come from the same draw: thresholding is "
                          "post-processing, so the pair costs ε once."),
             Note("info", f"τ = {tau:.4g}; {noise_text(config.noise)} = {cal.constant:.4g}."))
    diag = Diagnostics(values={**{f"{ERROR_NAMES.get(k, k)}, Laplace per cell (non-private)": v
                                  for k, v in histogram_errors(x, counts).items()},
                               **{f"{ERROR_NAMES.get(k, k)}, thresholded (non-private)": v
                                  for k, v in histogram_errors(thr, counts).items()},
                               "occupied cells q (non-private)": counts.q})
    return Release("histograms/threshold", PairValue(x, thr), cal.cost(1), cal, True, notes, diag, config)


#: Readable names of the error measures of ``histogram_errors`` (issue 20: a diagnostics header read
#: "false_positives error").
ERROR_NAMES = {"l1": "ℓ1 error", "l2": "ℓ2 error", "max": "largest cell error", "false_positives": "false positives",
               "missed": "occupied cells released as 0"}


def oracle_threshold(data: Any, config: ThresholdConfig, *, reps: int = 1, rng: RNGLike = None) -> BatchHistogram:
    """NON-PRIVATE ORACLE (for comparison only): thresholding at τ = b·log(p/q) with the data's own q.

    τ then depends on q, which changes between neighbours (spec correction 2): this is not
    differentially private and returns no Release, only the outputs for error comparisons.
    """
    counts = as_counts(data, config.p)
    cal = calibrate_threshold(ThresholdConfig(config.epsilon, config.p, config.neighbours, config.noise,
                                              sampler=config.sampler, postprocess=config.postprocess), data_shape(counts))
    cal = cal.replace(params={"tau_rule": "public q bound", "q_for_tau": max(counts.q, 1)})
    return sample_threshold(counts, cal, reps, rng)


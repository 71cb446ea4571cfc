"""Histogram topic declaration: mechanisms, audits (with mutants) and figures (read by :mod:`dpcore.registry`).

Neighbours for the replace-one audits: one record moved from cell 0 to cell 1 (both count vectors
change, ℓ1 distance 2, where the sensitivity is attained). The sparse-sampler audit uses τ = 0
(a public bound q_bound = p) so that empty cells survive with probability 1/2 and collisions of a
with-replacement draw are frequent.
"""
from __future__ import annotations

import numpy as np

from dpcore.audit import Audit, Mutant
from dpcore.mechanism import MechanismSpec, NoiseStep
from dpcore.registry import Style, Topic

from . import audits
from ._sampling import true_counts
from .calibration import REFERENCE, calibrate_histogram, calibrate_threshold, data_shape
from .configs import HistogramConfig, ThresholdConfig
from .figures import EXPERIMENTS
from .release import laplace, threshold
from ._preview import error_law


def _ex_histogram():
    return np.array([0, 1, 1, 3, 3, 3]), {"epsilon": 1.0, "p": 6}


def _ex_threshold():
    return np.array([0, 1, 1, 5, 5, 5, 5]), {"epsilon": 1.0, "p": 8}


MECHANISMS = (
    MechanismSpec("histograms/laplace", "Laplace (or geometric) noise in every cell", HistogramConfig,
                  laplace.release, true_counts, _ex_histogram, calibrate=calibrate_histogram, shape=data_shape,
                  noise=(NoiseStep("cell counts (and the noisy q): exact discrete Laplace (two-sided geometric)", "exact-discrete", integer=True),)),
    MechanismSpec("histograms/threshold", "Hard-thresholded histogram (τ = b·log p; sparse sampler)",
                  ThresholdConfig, threshold.release, true_counts, _ex_threshold,
                  private_fields=("notes:output",), calibrate=calibrate_threshold, shape=data_shape,
                  noise=(NoiseStep("cell counts (and the noisy q): exact discrete Laplace (two-sided geometric)", "exact-discrete", integer=True), NoiseStep("number of surviving empty cells (sparse sampler): exact Binomial(p − q, P(noise > τ)) by exact geometric gaps", "exact-discrete", integer=True),)),   # τ and q̂ of the noisy-q rule restate the noised q̂
)

_HALF = Mutant("sensitivity 1 where 2 is needed", "b = 1/ε under replace-one neighbours (one record moved changes "
               "two cells)", audits.half_sensitivity)
_MOVE = (np.array([0, 2]), np.array([1, 2]))            # one record moved from cell 0 to cell 1
_NB = "one record moved from cell 0 to cell 1 (replace-one: two cells change, ℓ1 = 2)"

#: The add/remove-one claim (Δ = 1) has its own audit and mutant, run by tests/histograms (D and D′ differ in
#: size, so it is not offered on the Privacy audit page, whose pair editor is for replace-one pairs).
ADD_REMOVE_AUDIT = Audit(
    "histograms/laplace-add-remove", "histograms/laplace", "Laplace per cell, add/remove-one neighbours, p = 3",
    (np.array([0, 2]), np.array([2])), "one record (in cell 0) removed (add/remove-one: one cell changes by 1)",
    audits.histogram_sampler(3, neighbours="add/remove-one"), audits.llr_events_for(3, "add/remove-one"), epsilon=1.0,
    mutant=Mutant("sensitivity 1/2 where 1 is needed", "b = 1/(2ε) under add/remove-one neighbours",
                  audits.half_sensitivity),
    n_samples=200_000, seed=17, output_label="released count of cell 0")

AUDITS = (
    Audit("histograms/laplace", "histograms/laplace", "Laplace per cell, p = 3", _MOVE, _NB,
          audits.histogram_sampler(3), audits.llr_events_for(3), epsilon=1.0, mutant=_HALF, n_samples=200_000, seed=11,
          output_label="released count of cell 0"),
    Audit("histograms/laplace-geometric", "histograms/laplace", "Two-sided geometric per cell (integer), p = 3",
          _MOVE, _NB, audits.histogram_sampler(3, noise="geometric"), audits.llr_events_for(3), epsilon=1.0, mutant=_HALF,
          n_samples=200_000, seed=12, output_label="released count of cell 0"),
    Audit("histograms/threshold-dense", "histograms/threshold", "Thresholded (naive sampler), p = 3, τ = 0 "
          "(public q bound = p)", _MOVE, _NB, audits.threshold_sampler(3, sampler="dense", tau_rule="public q bound",
                                                                 q_bound=3),
          audits.llr_events_for(3), epsilon=1.0, mutant=_HALF, n_samples=200_000, seed=13,
          output_label="released count of cell 0"),
    Audit("histograms/threshold-sparse", "histograms/threshold", "Thresholded by the sparse sampler, p = 3, τ = 0",
          _MOVE, _NB, audits.threshold_sampler(3, tau_rule="public q bound", q_bound=3), audits.llr_events_for(3),
          epsilon=1.0, mutant=_HALF, n_samples=200_000, seed=14, output_label="released count of cell 0"),
    Audit("histograms/threshold-sparse-locations", "histograms/threshold",
          "Sparse sampler's locations: support patterns, p = 4, τ = 0, ε = 0.5",
          (np.array([0, 0]), np.array([0, 1])), "one record moved from cell 0 to cell 1: D has 3 empty cells, D′ 2",
          audits.threshold_sampler(4, tau_rule="public q bound", q_bound=4), audits.pattern_events(4), epsilon=0.5,
          mutant=Mutant("locations WITH replacement", "the surviving empty cells' locations drawn with replacement "
                        "(collisions collapse): the law is no longer the naive mechanism's", audits.with_replacement),
          n_samples=200_000, seed=15, output_label="released count of cell 0"),
    Audit("histograms/threshold-noisy-q", "histograms/threshold",
          "Threshold τ = b·log(p/q̂) with a noisy q̂ (half of ε), p = 8",
          (np.array([0, 0]), np.array([0, 1])), "one record moved from cell 0 to cell 1: q goes from 1 to 2",
          audits.threshold_sampler(8, tau_rule="noisy q", q_share=0.5), audits.empty_count_events(8), epsilon=1.0,
          mutant=Mutant("exact q (non-private oracle)", "τ = b·log(p/q) from the data's own q: an empty cell's "
                        "survival probability doubles when q doubles", audits.exact_q),
          n_samples=200_000, seed=16, output_label="released count of cell 0"),
)

TOPIC = Topic(name="histograms", title="Sparse private histograms (Laplace vs hard thresholding)",
              reference=REFERENCE, mechanisms=MECHANISMS, audits=AUDITS, experiments=EXPERIMENTS,
    paper="Hall (2012), “New Statistical Applications for Differential Privacy”, PhD thesis, Part 1 (sparse private histograms)",
    url="http://reports-archive.adm.cs.cmu.edu/anon/ml2011/abstracts/12-113.html",
    preview=error_law,
    styles={
        "laplace": Style("Laplace", "vermillion"),
        "laplace-clip-round": Style("Laplace + clip/round", "orange"),
        "threshold": Style("Thresholded (τ = (2/ε) log p)", "blue"),
        "oracle-threshold": Style("Threshold, oracle q (NOT private)", "grey"),
        "all-zeros": Style("All-zeros output", "black"),
    },
    audit_seconds={
        "histograms/laplace": 1.60e-05,
        "histograms/laplace-geometric": 2.05e-05,
        "histograms/threshold-dense": 1.51e-05,
        "histograms/threshold-sparse": 2.37e-05,
        "histograms/threshold-sparse-locations": 2.13e-05,
        "histograms/threshold-noisy-q": 2.61e-05,
    },
)

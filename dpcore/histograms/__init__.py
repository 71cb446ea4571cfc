"""Sparse private histograms (Hall 2012, thesis defence, Part 1): Laplace or geometric noise per cell,
hard thresholding with a sparse O(q + F) sampler, post-processing, designs, errors and figures.

Layout (docs/architecture.md): :mod:`.configs`, :mod:`.calibration`, :mod:`.release` (``laplace``,
``threshold``), :mod:`.audits`, :mod:`.figures`, :mod:`.designs`, :mod:`.plots`; the count tables, the
samplers, the column → histogram builder and the random-DP illustration are private and re-exported here.

>>> from dpcore.histograms import ThresholdConfig, release, sparse_table
>>> t = sparse_table(2**30, 100, 1000, rng=0)
>>> r = release.threshold.release(t, ThresholdConfig(epsilon=1.0, p=2**30), rng=1)
>>> r.cost.epsilon, r.value.p
(1.0, 1073741824)
"""
from . import release
from ._bins import INTEGER_MAX_LEVELS, default_mode
from ._columns import MAX_CATEGORIES, MODES, CategoricalTable, column_histogram
from ._random_dp import GUARANTEE as RDP_GUARANTEE
from ._random_dp import RDPConfig, RDPDemo, RDPRelease, rdp_demo, rdp_failure_rate, rdp_gamma, rdp_release
from ._sampling import MAX_DENSE_WORK, sample_histogram, sample_threshold, simplex_round, survival_probability, true_counts
from ._tables import (MAX_DENSE_CELLS, MAX_P, BatchHistogram, SparseCounts, SparseHistogram, all_zeros_errors,
                      as_counts, batch_errors, dense_errors, histogram_errors)
from .calibration import REFERENCE, calibrate_histogram, calibrate_threshold, data_shape, sensitivity
from .configs import (HISTOGRAM_POST, NEIGHBOURS, NOISES, SAMPLERS, TAU_RULES, THRESHOLD_POST, HistogramConfig,
                      ThresholdConfig)
from .designs import NLCS_N, NLCS_P, NLCS_Q, nlcs_shaped, sparse_table
from .release import PairValue, laplace_and_threshold_release, oracle_threshold

__all__ = ["HISTOGRAM_POST", "NEIGHBOURS", "NOISES", "SAMPLERS", "TAU_RULES", "THRESHOLD_POST", "HistogramConfig",
           "ThresholdConfig", "REFERENCE", "calibrate_histogram", "calibrate_threshold", "data_shape", "sensitivity",
           "release", "PairValue", "laplace_and_threshold_release", "oracle_threshold", "MAX_DENSE_WORK",
           "sample_histogram", "sample_threshold", "simplex_round", "survival_probability", "true_counts",
           "MAX_DENSE_CELLS", "MAX_P", "BatchHistogram", "SparseCounts", "SparseHistogram", "all_zeros_errors",
           "as_counts", "batch_errors", "dense_errors", "histogram_errors", "NLCS_N", "NLCS_P", "NLCS_Q",
           "nlcs_shaped", "sparse_table", "MAX_CATEGORIES", "MODES", "CategoricalTable", "column_histogram",
           "RDP_GUARANTEE", "RDPConfig", "RDPDemo", "RDPRelease", "rdp_demo", "rdp_failure_rate", "rdp_gamma",
           "rdp_release", "INTEGER_MAX_LEVELS", "default_mode"]

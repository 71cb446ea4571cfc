"""Sparse private histograms (Hall 2012, thesis defence, Part 1): Laplace or geometric noise per cell,
hard thresholding with a sparse O(q + F) sampler, post-processing, designs, errors and figures.

>>> from dpcore.histograms import ThresholdConfig, threshold_release, sparse_table
>>> t = sparse_table(2**30, 100, 1000, rng=0)
>>> r = threshold_release(t, ThresholdConfig(epsilon=1.0, p=2**30), rng=1)
>>> r.cost.epsilon, r.value.p
(1.0, 1073741824)
"""
from .mechanisms import (HISTOGRAM_POST, NEIGHBOURS, NOISES, SAMPLERS, TAU_RULES, THRESHOLD_POST, HistogramConfig,
                         ThresholdConfig, calibrate_histogram, calibrate_threshold, histogram_release,
                         laplace_and_threshold_release, oracle_threshold, sample_histogram, sample_threshold, sensitivity, simplex_round,
                         survival_probability, threshold_release, true_counts)
from .tables import (MAX_DENSE_CELLS, MAX_P, BatchHistogram, SparseCounts, SparseHistogram, all_zeros_errors,
                     as_counts, batch_errors, dense_errors, histogram_errors, nlcs_shaped, sparse_table)

__all__ = ["HISTOGRAM_POST", "NEIGHBOURS", "NOISES", "SAMPLERS", "TAU_RULES", "THRESHOLD_POST", "HistogramConfig",
           "ThresholdConfig", "calibrate_histogram", "calibrate_threshold", "histogram_release", "laplace_and_threshold_release",
           "oracle_threshold",
           "sample_histogram", "sample_threshold", "sensitivity", "simplex_round", "survival_probability",
           "threshold_release", "true_counts", "MAX_DENSE_CELLS", "MAX_P", "BatchHistogram", "SparseCounts",
           "SparseHistogram", "all_zeros_errors", "as_counts", "batch_errors", "dense_errors", "histogram_errors",
           "nlcs_shaped", "sparse_table"]

"""Sparse count tables, the NLCS-shaped design and the error measures (sparse and dense agree)."""
import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore import histograms


def test_from_records_counts_and_validation():
    t = histograms.SparseCounts.from_records([3, 1, 1, 0, 3, 3], 5)
    assert t.cells.tolist() == [0, 1, 3] and t.counts.tolist() == [1, 2, 3]
    assert (t.n, t.q, t.to_dense().tolist()) == (6, 3, [1, 2, 0, 3, 0])
    with pytest.raises(DPValueError, match="outside the domain"):
        histograms.SparseCounts.from_records([0, 7], 5)
    with pytest.raises(DPValueError, match="p = 1 is too small"):
        histograms.SparseCounts.from_records([0], 1)
    with pytest.raises(DPValueError, match="sorted"):
        histograms.SparseCounts(5, [3, 1], [1, 1])
    with pytest.raises(DPValueError, match="config says p"):
        histograms.as_counts(t, 6)


def test_nlcs_shaped_table_has_the_slide_shape():
    t = histograms.nlcs_shaped()
    assert (t.p, t.q, t.n) == (2**16, 3152, 21_574)
    assert t.counts.min() >= 1 and np.median(t.counts) <= 3          # heavy skew (a = 0.3)
    again = histograms.nlcs_shaped()
    np.testing.assert_array_equal(t.cells, again.cells)               # public seed: the same table


def test_sparse_table_at_p_2_30_is_sparse():
    t = histograms.sparse_table(2**30, 1000, 5000, rng=1)
    assert t.q == 1000 and t.n == 5000 and t.cells.max() < 2**30
    with pytest.raises(DPValueError, match="too many to materialise"):
        t.to_dense()


def test_batch_and_dense_errors_agree():
    g = np.random.default_rng(0)
    t = histograms.SparseCounts.from_records(g.integers(0, 10, 40), 30)
    dense = np.zeros((5, 30))
    for r in range(5):
        cells = np.sort(g.choice(30, 8, replace=False))
        dense[r, cells] = g.normal(3, 2, 8)
    rep, cells = np.nonzero(dense)
    b = histograms.BatchHistogram(5, 30, rep, cells.astype(np.int64), dense[rep, cells], np.zeros(5))
    eb, ed = histograms.batch_errors(b, t), histograms.dense_errors(dense, t)
    for k in ("l1", "l2", "max", "false_positives"):
        np.testing.assert_allclose(eb[k], ed[k])
    np.testing.assert_allclose(b.to_dense(), dense)
    one = histograms.histogram_errors(b.replicate(2), t)
    assert one["l1"] == pytest.approx(ed["l1"][2])


def test_all_zeros_error_is_n():
    t = histograms.nlcs_shaped()
    assert histograms.all_zeros_errors(t)["l1"] == t.n
    assert histograms.dense_errors(np.zeros(t.p), t)["l1"][0] == t.n

"""Columns → histogram: bins over public bounds, categories read from the data, crossing, caps, p checks;
the Laplace + thresholded pair release (one draw, one ε)."""
import numpy as np
import pandas as pd
import pytest

from dpcore.data import Dataset, builtin_dataset
from dpcore.errors import DPValueError
from dpcore.histograms import ThresholdConfig, laplace_and_threshold_release
from dpcore.histograms.columns import MAX_CATEGORIES, column_histogram


def _ds():
    f = pd.DataFrame({"town": ["a", "b", None, "b", "c"], "age": [10.0, 95.0, np.nan, 130.0, 40.0]})
    return Dataset(f, ("age",), {"age": (0, 100)}, "test")


def test_bins_use_public_bounds_clip_and_impute():
    ct = column_histogram(_ds(), ["age"], modes={"age": "bins"}, bins={"age": 4})
    assert ct.counts.p == 4 and ct.from_data == ()
    assert ct.counts.to_dense().tolist() == [1, 1, 1, 2]       # 10 | 40, 50 (imputed midpoint) | 95, 130 → clipped
    assert ct.counts.n == 5 and "clipped" in ct.notes[0]


def test_categories_are_read_from_the_data_and_missing_is_a_level():
    ct = column_histogram(_ds(), ["town"], modes={"town": "categories"})
    assert ct.from_data == ("town",) and ct.counts.n == 5
    assert sorted(ct.labels) == ["(missing)", "a", "b", "c"]


def test_two_columns_are_crossed_and_p_can_pad():
    ct = column_histogram(_ds(), ["town", "age"], modes={"town": "categories", "age": "bins"}, bins={"age": 2}, p=20)
    assert ct.counts.p == 20 and len(ct.labels) == 8 and ct.counts.n == 5
    with pytest.raises(DPValueError, match="p = 7 is smaller than the 8 categories"):
        column_histogram(_ds(), ["town", "age"], modes={"town": "categories", "age": "bins"}, bins={"age": 2}, p=7)


def test_caps_and_bad_modes():
    g = np.random.default_rng(0)
    f = pd.DataFrame({"x": g.normal(size=MAX_CATEGORIES + 1)})
    with pytest.raises(DPValueError, match="distinct values.*cap of 10,000.*'bins'"):
        column_histogram(Dataset(f, ("x",), {}, "t"), ["x"], modes={"x": "categories"})
    with pytest.raises(DPValueError, match="bins need a numeric column with declared public bounds"):
        column_histogram(_ds(), ["town"], modes={"town": "bins"}, bins={"town": 3})
    with pytest.raises(DPValueError, match="one or two columns"):
        column_histogram(_ds(), ["town", "age", "town"], modes={})


def test_wine_cultivar_by_alcohol_and_the_pair_release():
    ct = column_histogram(builtin_dataset("wine"), ["target", "alcohol"], modes={"target": "bins", "alcohol": "bins"},
                          bins={"target": 3, "alcohol": 8})
    assert ct.counts.p == 24 and ct.counts.n == 178
    cfg = ThresholdConfig(1.0, 24, sampler="dense")
    r = laplace_and_threshold_release(ct.counts, cfg, rng=0)
    assert r.cost.epsilon == 1.0
    x = r.value.laplace
    thr = np.asarray(r.value.threshold)
    np.testing.assert_array_equal(thr, np.where(x > r.value.threshold.tau, x, 0))   # same draw, post-processed
    huge = laplace_and_threshold_release(ct.counts, ThresholdConfig(1e9, 24, sampler="dense"), rng=0)
    np.testing.assert_allclose(np.asarray(huge.value.threshold), ct.counts.to_dense(), atol=1e-6)
    with pytest.raises(DPValueError, match="sampler = 'dense'"):
        laplace_and_threshold_release(ct.counts, ThresholdConfig(1.0, 24), rng=0)

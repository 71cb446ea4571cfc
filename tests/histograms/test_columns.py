"""Columns → histogram: bins over public bounds, categories read from the data, crossing, caps, p checks;
the Laplace + thresholded pair release (one draw, one ε)."""
import numpy as np
import pandas as pd
import pytest

from dpcore.data import Dataset, builtin_dataset
from dpcore.errors import DPValueError
from dpcore.histograms import ThresholdConfig, laplace_and_threshold_release
from dpcore.histograms import MAX_CATEGORIES, column_histogram


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


# -- issue 18: the cell cap is checked on public sizes before any label is built --------------------------------
def _two_numeric(n=1000):
    g = np.random.default_rng(1)
    f = pd.DataFrame({"u": g.uniform(size=n), "v": g.uniform(size=n)})
    return Dataset(f, ("u", "v"), {"u": (0, 1), "v": (0, 1)}, "test")


def test_crossing_two_binned_columns_is_refused_before_reading_them(monkeypatch):
    """10 000 × 10 000 bins built 10⁸ label strings (11.7 GB, 88 s) before the 2^24-cell cap refused."""
    from dpcore.histograms import _columns as C

    monkeypatch.setattr(C, "_levels", lambda *a: pytest.fail("levels read before the cell cap"))
    with pytest.raises(DPValueError, match=r"cells of the crossed table = k1 \(bins of 'u'\) 10,000 × k2 \(bins of "
                                           r"'v'\) 10,000 = 100,000,000 exceeds the cap of 16,777,216"):
        column_histogram(_two_numeric(), ["u", "v"], modes={"u": "bins", "v": "bins"}, bins={"u": 10_000, "v": 10_000})


def test_crossing_categories_is_capped_before_the_labels():
    g = np.random.default_rng(2)
    f = pd.DataFrame({"a": g.integers(0, 5000, 30_000).astype(str), "b": g.integers(0, 5000, 30_000).astype(str)})
    ds = Dataset(f, (), {}, "test")
    with pytest.raises(DPValueError, match=r"k1 \(levels of 'a'\) .* exceeds the cap of 16,777,216"):
        column_histogram(ds, ["a", "b"], modes={"a": "categories", "b": "categories"})


def test_crossed_labels_are_made_on_demand_and_equal_the_full_list():
    ct = column_histogram(_ds(), ["town", "age"], modes={"town": "categories", "age": "bins"}, bins={"age": 2})
    full = [f"{a} × {b}" for a in ["(missing)", "a", "b", "c"] for b in ["[0, 50)", "[50, 100]"]]
    assert list(ct.labels) == full and ct.labels[-1] == full[-1] and ct.labels[1:3] == full[1:3]
    with pytest.raises(IndexError):
        ct.labels[len(full)]
    big = column_histogram(_two_numeric(), ["u", "v"], modes={"u": "bins", "v": "bins"}, bins={"u": 4096, "v": 4096})
    assert len(big.labels) == 2**24 == big.counts.p and big.labels[4097] == big.labels[1].replace(
        "[0, 0.00024) ×", "[0.00024, 0.00049) ×")   # short labels (issue 20): two significant digits of the width


def test_integers_mode_one_cell_per_integer_of_the_public_bounds():
    """Issue 20 item 4: a column coded 0…6 with bounds [0, 6]: seven cells labelled 0…6 (values clipped, a stray
    2.4 rounded into cell 2, a missing cell to the public midpoint 3); refused for bounds that are not whole."""
    f = pd.DataFrame({"q": [0.0, 6.0, 2.4, np.nan, 9.0, 3.0]})
    ct = column_histogram(Dataset(f, ("q",), {"q": (0, 6)}, "test"), ["q"], modes={"q": "integers"})
    assert list(ct.labels) == ["0", "1", "2", "3", "4", "5", "6"] and ct.from_data == ()
    assert ct.counts.to_dense().tolist() == [1, 0, 1, 2, 0, 0, 2]
    with pytest.raises(DPValueError, match="whole-number bounds"):
        column_histogram(Dataset(f, ("q",), {"q": (0, 6.5)}, "test"), ["q"], modes={"q": "integers"})

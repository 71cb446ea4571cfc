"""Workload builders: public universes, exact diameters, the size cap, the public record mapping."""
import itertools
import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from dpcore.errors import DataError, DPValueError
from dpcore.query_release._geometry import diameter
from dpcore.query_release._workloads import (
    MAX_UNIVERSE_CELLS,
    Cone,
    Marginals,
    RandomSigns,
    Thresholds,
    check_indices,
    mean_point,
    records_to_indices,
)


@pytest.mark.parametrize("d,w", [(3, 1), (4, 2), (5, 2), (5, 3)])
def test_marginals_shape_and_exact_diameter(d, w):
    wl = Marginals(d, w).build()
    assert wl.points.shape == (2 ** d, math.comb(d, w) * 2 ** w)
    assert np.all(wl.points.sum(axis=1) == math.comb(d, w))          # one 1 per attribute subset
    assert wl.diam2 == pytest.approx(diameter(wl.points), abs=1e-12)  # closed form = brute force
    # each query is 1[u_S = c]: check one by brute force
    bits = (np.arange(2 ** d)[:, None] >> np.arange(d)) & 1
    S = next(iter(itertools.combinations(range(d), w)))
    for c in range(2 ** w):
        want = np.all([bits[:, j] == ((c >> m) & 1) for m, j in enumerate(S)], axis=0)
        np.testing.assert_array_equal(wl.points[:, c], want.astype(float))


def test_thresholds_and_cone_diameters():
    assert Thresholds(9).build().diam2 == pytest.approx(diameter(Thresholds(9).build().points))
    wl = Cone(40, r=0.1, L=4, n_dirs=6).build()
    assert wl.diam2 == pytest.approx(np.max([np.linalg.norm(a - b) for a in wl.points for b in wl.points]))


def test_universe_cap_is_checked_before_allocating():
    tracemalloc.start()
    with pytest.raises(DPValueError) as e:
        Marginals(20, 3)                       # |X| = 2^20, k = 9120
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    msg = str(e.value)
    assert "1,048,576" in msg and "9,120" in msg and f"{MAX_UNIVERSE_CELLS:,}" in msg and "cap" in msg
    assert peak < 1_000_000                    # nothing close to 2^20 × 9120 × 8 bytes was allocated
    with pytest.raises(DPValueError, match="cap"):
        RandomSigns(k=100_000, N=1_000)


def test_bad_parameters_name_themselves():
    with pytest.raises(DPValueError, match="w"):
        Marginals(2, 3)
    with pytest.raises(DPValueError, match="N"):
        Thresholds(1)
    with pytest.raises(DPValueError, match="r"):
        Cone(10, r=-1.0)


def test_random_signs_public_seed_and_merged_duplicates():
    a, b = RandomSigns(4, 64, 3).build(), RandomSigns(4, 64, 3).build()
    np.testing.assert_array_equal(a.points, b.points)
    assert len(np.unique(a.points, axis=0)) == a.size <= 16


def test_indices_checked_and_mean_point():
    wl = Thresholds(5).build()
    with pytest.raises(DataError, match="public universe"):
        check_indices([0, 7], wl)
    with pytest.raises(DataError):
        check_indices([[0, 1]], wl)
    np.testing.assert_allclose(mean_point(np.array([0, 4]), wl), 0.5 * (wl.points[0] + wl.points[4]))


def test_records_mapped_by_public_rule_never_dropped():
    frame = pd.DataFrame({"a": [1.0, 5.0, np.nan], "b": [0.0, 3.0, 9.0]})
    idx = records_to_indices(frame, ("a", "b"), (2.0, 2.0), missing_as=1)
    np.testing.assert_array_equal(idx, [0, 3, 3])      # NaN -> 1 by the declared rule; 3 rows kept
    with pytest.raises(DataError, match="'c'"):
        records_to_indices(frame, ("a", "c"), (0.0, 0.0))

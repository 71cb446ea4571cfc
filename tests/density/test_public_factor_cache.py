"""The GP-KDE's public matrices are cached (issue 21): same values as computed afresh, read-only, bounded, and
only below the size cap (a huge grid is computed, not kept)."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore.density import _kde as K


def test_cached_factor_equals_a_fresh_one_and_is_read_only():
    L = K.gp_factors(64, 0.05, 1)
    assert L is K.gp_factors(64, 0.05, 1)                      # one computation for every release
    assert np.array_equal(L, K._gp_factors(64, 0.05, 1))
    with pytest.raises(ValueError):
        L[0, 0] = 1.0                                          # no release can change what the next one uses
    k = K._binned_kernel(64, 256, 0.05)
    assert k is K._binned_kernel(64, 256, 0.05) and not k.flags.writeable
    assert np.array_equal(k, K.gram(K.grid_axis(64), np.linspace(0, 1, 256), 0.05))


def test_caches_are_bounded_and_skip_large_matrices():
    assert K._gp_factors_cached.cache_parameters()["maxsize"] == 8
    assert K._binned_kernel_cached.cache_parameters()["maxsize"] == 8
    big = int(np.sqrt(K.CACHED_ENTRIES)) + 1
    before = K._gp_factors_cached.cache_info().currsize
    K.gp_factors(big, 0.5, 1)
    assert K._gp_factors_cached.cache_info().currsize == before   # above the cap: computed, not kept

"""A release computes only what it releases (issue 21): the non-private estimate and the clipping count of the
1-D median/quantile are computed when a page reads them, and are right when read (the exact sampler reorders the
release's own clipped copy in place)."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore import kng
from dpcore.mechanism import Diagnostics, LazyValues, lazy


@pytest.mark.parametrize("problem, params, estimate", [
    ("median", {}, lambda y: np.median(y)),
    ("quantile", {"tau": 0.3}, lambda y: np.quantile(y, 0.3, method="inverted_cdf")),
])
def test_median_and_quantile_diagnostics_are_lazy_and_right(problem, params, estimate):
    y = np.random.default_rng(0).normal(size=50_001) * 3
    y0 = y.copy()
    cfg = kng.make(problem, mechanism="kng", epsilon=1.0, bounds=(-5, 5), **params)
    r = kng.release_for(cfg)(y, cfg, rng=1)
    values = r.diagnostics.values
    assert isinstance(values, LazyValues)
    assert isinstance(values._m["non-private estimate"], lazy)       # not computed by the release itself
    assert values["clipped records"] == np.count_nonzero(np.abs(y0) > 5) > 0
    assert values["non-private estimate"][0] == pytest.approx(estimate(np.clip(y0, -5, 5)), abs=0)
    assert np.array_equal(y, y0)                                       # the caller's data untouched


def test_lazy_values_are_read_only_computed_once_and_pickle_evaluated():
    import pickle
    calls = []
    d = Diagnostics(values={"a": 1, "b": lazy(lambda: calls.append(1) or 2.0)})
    assert not calls and len(d.values) == 2 and list(d.values) == ["a", "b"]
    assert d.values["b"] == 2.0 and d.values["b"] == 2.0 and calls == [1]
    with pytest.raises(TypeError):
        d.values["c"] = 3                                              # type: ignore[index]
    assert dict(pickle.loads(pickle.dumps(d.values))) == {"a": 1, "b": 2.0}
    assert Diagnostics(values={"a": 1}).values == {"a": 1}            # plain values stay a frozen mapping

"""The LASSO Gram path without extra passes over X (issue 21): on data already in the public domain, XᵀX, Xᵀy and
the domain checks come from one blocked pass; the release equals the general route's (same draws, counts 0)."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore.lasso import LassoConfig
from dpcore.lasso.release import private_fw as F
from dpcore.lasso import _solver as S


def _data(n=5000, p=12, seed=0, scale=1.0):
    g = np.random.default_rng(seed)
    X = g.uniform(-scale, scale, (n, p))
    return X, np.clip(X[:, 0] - 0.5 * X[:, 1] + 0.1 * g.normal(size=n), -1, 1)


def test_one_pass_gram_matches_the_general_route():
    X, y = _data()
    G, b = S.gram_in_domain(X, y, steps=200, path="gram", rows=333)
    assert np.allclose(G, X.T @ X, rtol=1e-13, atol=1e-9) and np.allclose(b, X.T @ y, rtol=1e-13, atol=1e-9)


@pytest.mark.parametrize("bad", ["clip-x", "clip-y", "nan", "direct", "float32", "list"])
def test_one_pass_gram_declines_what_the_general_route_must_handle(bad):
    X, y = _data()
    if bad == "clip-x":
        X[-1, 3] = 1.5                  # in the last block: the pass is abandoned, clip_design clips and counts
    elif bad == "clip-y":
        y[7] = -2.0
    elif bad == "nan":
        X[10, 0] = np.nan
    args = dict(steps=200, path="direct" if bad == "direct" else "gram")
    if bad == "float32":
        X = X.astype(np.float32)
    if bad == "list":
        X = X.tolist()
    assert S.gram_in_domain(X, y, **args) is None


@pytest.mark.parametrize("scale", [1.0, 1.3])
def test_release_is_the_same_on_either_route(monkeypatch, scale):
    X, y = _data(scale=scale)
    cfg = LassoConfig(epsilon=1.0, delta=1e-6, path="gram", steps=300)
    fast = F.release((X, y), cfg, rng=3, diagnostics=False)
    monkeypatch.setattr(F, "_gram_in_domain", lambda data, cfg: (None, None))
    slow = F.release((X, y), cfg, rng=3, diagnostics=False)
    assert np.array_equal(fast.value, slow.value)
    assert dict(fast.diagnostics.values) == dict(slow.diagnostics.values)
    assert (fast.diagnostics.values["clipped covariate entries"] > 0) == (scale > 1)

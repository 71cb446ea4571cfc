"""Unit tests of the audit harness itself (tests/audit.py)."""
import numpy as np
import pytest
from scipy import stats

from tests.audit import (audit, clopper_pearson_lower, clopper_pearson_upper, halfline_events,
                         singleton_events)


def test_clopper_pearson_bounds_cover_and_edges():
    assert clopper_pearson_lower(np.array([0]), 100, 0.025)[0] == 0
    assert clopper_pearson_upper(np.array([100]), 100, 0.025)[0] == 1
    lo = clopper_pearson_lower(np.array([50]), 100, 0.025)[0]
    hi = clopper_pearson_upper(np.array([50]), 100, 0.025)[0]
    # matches the two-sided exact 95% interval from scipy
    ci = stats.binomtest(50, 100).proportion_ci(0.95, method="exact")
    assert lo == pytest.approx(ci.low) and hi == pytest.approx(ci.high)


def test_identical_laws_never_rejected_even_at_tiny_epsilon():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=100_000), rng.normal(size=100_000)
    res = audit(a, b, halfline_events([-1, 0, 1]), epsilon=1e-9)
    assert not res.rejected and res.n_events == 6


def test_disjoint_supports_rejected():
    a, b = np.zeros(20_000), np.ones(20_000)
    res = audit(a, b, singleton_events([0.0, 1.0]), epsilon=5.0)
    assert res.rejected and res.worst > 0.8


def test_delta_absorbs_small_differences():
    a = np.r_[np.zeros(9_000), np.ones(1_000)]
    b = np.zeros(10_000)
    ev = singleton_events([1.0])
    assert audit(a, b, ev, epsilon=0.1).rejected
    assert not audit(a, b, ev, epsilon=0.1, delta=0.2).rejected


def test_projection_events():
    x = np.array([[1.0, 2.0], [3.0, -1.0]])
    ev = halfline_events([0.0], projection=np.array([1.0, 1.0]))(x)
    assert ev.shape == (2, 2) and ev[:, 0].tolist() == [True, True]

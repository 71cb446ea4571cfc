"""The audit page's time model (issue 18): every audit capped so that one run stays under the budget."""
from __future__ import annotations

import pytest

from dpcore.audit import cost
from dpcore.audit import explore as X
from dpcore.errors import DPValueError
from dpcore.limits import BUDGET_SECONDS
from dpcore.registry import audits


def test_every_registered_audit_has_a_measured_figure():
    """A new audit must be timed (benchmarks/limits.py prints the figure) — else it gets the slowest rate."""
    missing = sorted(set(audits()) - set(cost.measured()))
    assert not missing, f"no measured seconds per sample for {missing}"
    assert all(0 < v < 0.1 for v in cost.measured().values())


def test_every_cap_is_under_the_budget_by_the_time_model():
    for aid, a in audits().items():
        cap = X.sample_cap(a)
        assert 1_000 <= X.default_samples(a) <= cap, aid
        assert cap * cost.seconds_per_sample(aid) <= cost.RUN_SECONDS < BUDGET_SECONDS or cap == 1_000, aid


def test_kng_linear_regression_audit_is_capped_by_its_time_model():
    """Issue 18: the page allowed 4 × 40 000 = 160 000 samples of the KNG linear-regression audit (MCMC, about
    2 ms a sample: 347–409 s measured); now the cap is what runs in about 24 s, and more is refused up front."""
    a = audits()["kng/linear_regression-kng"]
    cap = X.sample_cap(a)
    assert cap < 20_000 and X.default_samples(a) == cap
    with pytest.raises(DPValueError, match=r"time model.*s per sample\); lower n") as exc:
        X.check_samples(a, 160_000)
    assert f"{cap:,}" in str(exc.value)


def test_unmeasured_audits_get_the_slowest_rate():
    assert cost.seconds_per_sample("no/such-audit") == max(cost.measured().values())

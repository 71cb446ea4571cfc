"""Issue 18: the app's runs are refused up front when their estimated time (public settings only) exceeds the
budget — the LASSO figure at the Error vs n page's own limits took 375 s."""
from __future__ import annotations

import time

import pytest

from dpcore.errors import DPValueError
from dpcore.experiments import registry, run_experiment
from dpcore.experiments.runner import estimated_seconds
from dpcore.lasso import figures as Fg
from dpcore.limits import BUDGET_SECONDS


def test_lasso_at_the_page_limits_is_refused_before_any_unit_runs(monkeypatch):
    exp = registry()["lasso"]
    monkeypatch.setattr(Fg, "excess_risk_unit", lambda *a, **k: pytest.fail("a unit ran before the time cap"))
    t0 = time.perf_counter()
    with pytest.raises(DPValueError, match=r"estimated run time of 'lasso' \(seconds\) = replicates 10 × seconds per "
                                           r"replicate over n = 1000, 3000, 10000 .* exceeds the cap of 30"):
        run_experiment("lasso", xs=exp.axis.grid(exp.app_limits["max_x"]), reps=exp.app_limits["max_reps"],
                       epsilon=1.0, seed=0, jobs=1, max_seconds=BUDGET_SECONDS)
    assert time.perf_counter() - t0 < 5


def test_a_small_lasso_run_fits_and_runs():
    exp = registry()["lasso"]
    params = dict(exp.options, epsilon=1.0)
    assert estimated_seconds(exp, (100, 300), 2, params, ("p=100",)) < BUDGET_SECONDS
    frame = run_experiment("lasso", xs=(100, 300), reps=2, epsilon=1.0, seed=0, jobs=1, methods=["p=100"],
                           max_seconds=BUDGET_SECONDS)
    assert len(frame) == 4


def test_unit_seconds_grow_with_n_and_p_and_skip_infeasible_units():
    kw = dict(epsilon=1.0, delta=1e-6, radius=1.0)
    assert 0 < Fg.unit_seconds(1000, 100, **kw) < Fg.unit_seconds(1000, 1000, **kw) < Fg.unit_seconds(1000, 10_000, **kw)
    assert Fg.unit_seconds(10_000, 100, **kw) > Fg.unit_seconds(1000, 100, **kw)
    assert not Fg.feasible(100_000, 10_000) and Fg.unit_seconds(100_000, 10_000, **kw) == 0.0


def test_experiments_without_an_estimate_are_not_capped():
    exp = next(e for e in registry().values() if e.unit_seconds is None)
    assert estimated_seconds(exp, exp.quick_xs, 2, dict(exp.options), exp.methods) is None

"""Tests of dpcore.experiments' runner: config validation, plans, per-unit seeding, parallelism,
cancellation (on a test-only error-vs-n experiment)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore._rng import seed_sequence_for
from dpcore._validation import DPValueError
from dpcore.experiments import (Cancelled, blocks_across_x, blocks_by_x, make_config, plan_tasks, run_experiment,
                                unit_rngs)

from .fakes import make_fake

FAKE = make_fake()


def test_config_validation():
    with pytest.raises(DPValueError, match="unknown"):
        make_config("no-such-id")
    with pytest.raises(DPValueError, match="epsilon"):
        make_config(FAKE, epsilon=0)
    with pytest.raises(DPValueError, match="reps"):
        make_config(FAKE, reps=0)
    with pytest.raises(DPValueError, match="n"):
        make_config(FAKE, ns=[1])
    with pytest.raises(DPValueError, match="whole number"):
        make_config(FAKE, ns=[10.5])
    with pytest.raises(DPValueError, match="option"):
        make_config(FAKE, bogus=3)
    with pytest.raises(DPValueError, match="method"):
        make_config(FAKE, methods=["kng"])
    with pytest.raises(DPValueError, match="either xs or ns"):
        make_config(FAKE, xs=[10], ns=[10])
    cfg = make_config(FAKE, ns=[1000, 10, 10.0], seed=None)
    assert cfg.xs == cfg.ns == (10, 1000) and cfg.axis == "n" and 0 <= cfg.seed < 2**63
    assert make_config(FAKE, xs=[100, 10], seed=1).xs == (10, 100)


def test_options_are_typed_from_their_defaults():
    assert make_config(FAKE, scale=3, seed=0).params["scale"] == 3.0
    assert isinstance(make_config(FAKE, scale=3, seed=0).params["scale"], float)
    with pytest.raises(DPValueError, match="scale .* float"):
        make_config(FAKE, scale="big", seed=0)
    with pytest.raises(DPValueError, match="scale"):
        make_config(FAKE, scale=True, seed=0)


def test_plans_cover_each_unit_once_and_ignore_jobs():
    cfg = make_config(FAKE, ns=[10, 100], reps=7, seed=0)
    for plan in (blocks_by_x(3), blocks_across_x(2), blocks_by_x(100)):
        tasks = plan_tasks(make_fake(plan), cfg)
        units = sorted(u for t in tasks for u in t)
        assert units == sorted((n, r) for n in (10, 100) for r in range(7))


def test_plan_that_misses_a_unit_is_refused():
    bad = make_fake(lambda config: [((config.xs[0], 0),)])
    with pytest.raises(RuntimeError, match="exactly once"):
        plan_tasks(bad, make_config(bad, ns=[10, 100], reps=2, seed=0))


def test_unit_streams_depend_only_on_seed_n_rep():
    a = make_config(FAKE, ns=[10, 100], reps=3, seed=5)
    b = make_config(FAKE, ns=[100, 1000], reps=9, seed=5, epsilon=3.0, methods=["noisy", "nonprivate"])
    ga, gb = unit_rngs(a, 100, 2), unit_rngs(b, 100, 2)
    for k in ("data", "nonprivate", "noisy"):
        assert ga[k].random() == gb[k].random()
    assert unit_rngs(a, 100, 2)["data"].random() != unit_rngs(a, 100, 1)["data"].random()
    assert unit_rngs(a, 100, 2)["data"].random() != unit_rngs(a, 100, 2)["noisy"].random()


def test_n_axis_keeps_the_seed_scheme_of_the_papers_figures():
    """Unit (n, rep) of an integer axis uses SeedSequence(seed, spawn_key=(n, rep)) — the scheme
    of the KNG figures before axes were generalised, so their numbers are unchanged."""
    cfg = make_config(FAKE, ns=[100], reps=3, seed=2019)
    children = seed_sequence_for(2019, 100, 2).spawn(3)
    g = unit_rngs(cfg, 100, 2)
    assert g["data"].random() == np.random.default_rng(children[0]).random()
    assert g["noisy"].random() == np.random.default_rng(children[2]).random()


def test_run_frame_columns_and_order():
    f = run_experiment(FAKE, ns=[10, 100], reps=4, seed=1, jobs=1)
    assert list(f.columns[:7]) == ["figure", "method", "n", "rep", "error", "epsilon", "seed"]
    assert len(f) == 2 * 2 * 4 and set(f["figure"]) == {"fake-mean"}
    assert list(pd.unique(f["method"])) == ["nonprivate", "noisy"]
    assert (f["seed"] == 1).all() and (f["epsilon"] == 1.0).all() and (f["scale"] == 50.0).all()
    assert f.attrs["experiment"] == "fake-mean" and f.attrs["elapsed_s"] >= 0
    assert f.attrs["axis"] == "n" and f.attrs["ns"] == f.attrs["xs"] == [10, 100]
    assert (f["error"] > 0).all() and f["n"].dtype == np.int64


def test_results_do_not_depend_on_jobs_or_grouping_but_on_seed():
    kw = dict(ns=[10, 100, 1000], reps=5)
    f1 = run_experiment(FAKE, seed=11, jobs=1, **kw)
    f2 = run_experiment(FAKE, seed=11, jobs=2, **kw)
    f3 = run_experiment(make_fake(blocks_across_x(2)), seed=11, jobs=1, **kw)
    pd.testing.assert_frame_equal(f1, f2)
    pd.testing.assert_frame_equal(f1.drop(columns="figure"), f3.drop(columns="figure"))
    f4 = run_experiment(FAKE, seed=12, jobs=1, **kw)
    assert not np.allclose(f1["error"], f4["error"])
    # the data of a unit do not depend on ε or on the other methods
    f5 = run_experiment(FAKE, seed=11, jobs=1, epsilon=2.0, methods=["nonprivate"], **kw)
    np.testing.assert_array_equal(f5["error"], f1.loc[f1.method == "nonprivate", "error"])


def test_row_outside_its_task_is_refused():
    def task(config, units):
        return [{"method": "nonprivate", "n": 999, "rep": 0, "error": 1.0}]

    with pytest.raises(RuntimeError, match="outside its task"):
        run_experiment(make_fake(run_task=task), ns=[10], reps=1, seed=0, jobs=1)


@pytest.mark.parametrize("jobs", [1, 2])
def test_cancel_returns_partial_frame(jobs):
    calls = []

    def progress(done, total):
        calls.append((done, total))
        return done < 2

    with pytest.raises(Cancelled) as info:
        run_experiment(FAKE, ns=[10, 100, 1000], reps=12, seed=0, jobs=jobs, progress=progress)
    exc = info.value
    total = 3 * 4
    assert calls[0] == (0, total) and calls[-1] == (2, total) and exc.done == 2 and exc.total == total
    assert len(exc.frame) == 2 * 3 * 2 and exc.frame.attrs["cancelled"] is True
    assert list(exc.frame.columns[:5]) == ["figure", "method", "n", "rep", "error"]


def test_cancel_before_start_and_progress_none_continues():
    with pytest.raises(Cancelled) as info:
        run_experiment(FAKE, ns=[10], reps=2, seed=0, jobs=1, progress=lambda d, t: False)
    assert info.value.frame.empty
    seen = []
    f = run_experiment(FAKE, ns=[10], reps=2, seed=0, jobs=1, progress=lambda d, t: seen.append(d))
    assert len(f) == 4 and seen == [0, 1]


def test_bad_jobs():
    with pytest.raises(DPValueError, match="jobs"):
        run_experiment(FAKE, ns=[10], reps=1, seed=0, jobs=0)

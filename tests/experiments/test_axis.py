"""A sweep over a non-n axis (ε, a float log axis), declared only inside the tests: it runs, its
frame carries the axis under its own name and does not depend on jobs; declarations are checked."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpcore._validation import DPValueError
from dpcore.experiments import (Axis, Experiment, describe, fit_slopes, make_config, registry, run_experiment,
                                summarize, unit_rngs)

from .fakes import make_eps, make_fake

EPS = make_eps()


def test_test_experiment_is_not_registered_globally():
    assert EPS.id not in registry()


def test_epsilon_axis_runs_and_frame_has_the_axis_column():
    f = run_experiment(EPS, xs=[0.01, 0.1, 1.0], reps=4, seed=3, jobs=1, records=150)
    assert list(f.columns[:6]) == ["figure", "method", "epsilon", "rep", "error", "seed"]
    assert "n" not in f.columns and f["epsilon"].dtype == float
    assert sorted(f["epsilon"].unique()) == [0.01, 0.1, 1.0]
    assert (f["records"] == 150).all() and (f.loc[f.method == "laplace", "records_seen"] == 150).all()
    assert f.attrs["axis"] == "epsilon" and f.attrs["epsilon"] is None and f.attrs["log_x"] is True
    s = summarize(f)
    assert list(s.columns[:2]) == ["method", "epsilon"] and len(s) == 2 * 3


def test_epsilon_axis_frame_is_independent_of_jobs_and_grouping():
    kw = dict(xs=[0.01, 0.1, 1.0, 10.0], reps=5, seed=8)
    f1 = run_experiment(EPS, jobs=1, **kw)
    f2 = run_experiment(EPS, jobs=2, **kw)
    pd.testing.assert_frame_equal(f1, f2)
    from dpcore.experiments import blocks_across_x
    f3 = run_experiment(make_eps(plan=blocks_across_x(3)), jobs=1, **kw)
    pd.testing.assert_frame_equal(f1, f3)


def test_float_axis_seed_depends_on_the_value_not_its_position_in_the_grid():
    a = run_experiment(EPS, xs=[0.1, 1.0], reps=3, seed=4, jobs=1)
    b = run_experiment(EPS, xs=[0.003, 0.1, 1.0, 5.0], reps=3, seed=4, jobs=1)
    pd.testing.assert_frame_equal(a.reset_index(drop=True),
                                  b[b.epsilon.isin([0.1, 1.0])].reset_index(drop=True))
    cfg = make_config(EPS, xs=[0.1, 0.2], reps=1, seed=4)
    assert unit_rngs(cfg, 0.1, 0)["data"].random() != unit_rngs(cfg, 0.2, 0)["data"].random()


def test_epsilon_axis_slope_is_about_minus_one_and_described():
    f = run_experiment(EPS, xs=[1e-4, 1e-3, 1e-2], reps=40, seed=1, jobs=1)
    s = fit_slopes(f).set_index("method")
    assert list(fit_slopes(f).columns) == ["method", "slope", "intercept", "se_slope", "epsilon_min",
                                           "epsilon_max", "points"]
    assert s.loc["laplace", "slope"] == pytest.approx(-1.0, abs=0.15)     # error ≈ 1/(nε)
    text = describe(f)
    assert text.startswith("At these settings (ε = 0.0001 … 0.01, 40 replicates per ε)") and "log10 ε" in text
    slope_txt = f"{s.loc['laplace', 'slope']:+.2f}".replace("-", "−").lstrip("+")
    assert f"laplace {slope_txt}" in text.lower() and "reference −1.00, ε⁻¹" in text


def test_epsilon_is_not_a_setting_when_it_is_the_axis():
    with pytest.raises(DPValueError, match="sweeps ε"):
        make_config(EPS, epsilon=1.0)
    with pytest.raises(DPValueError, match="ns is for experiments that sweep n"):
        make_config(EPS, ns=[10])
    with pytest.raises(DPValueError, match="epsilon .* positive"):
        make_config(EPS, xs=[0.0, 1.0])
    with pytest.raises(DPValueError, match="outside the allowed range"):
        make_config(EPS, xs=[1e5])


def test_linear_axis_fits_on_x_itself():
    def task(config, units):
        return [{"method": "nonprivate", "p": p, "rep": r, "error": 10.0 ** (-0.2 * p)} for p, r in units]

    exp = Experiment(id="fake-p", title="p", description="d", caption="c", methods=("nonprivate",),
                     axis=Axis("p", "dimension p", values=(1, 2, 3, 4), log=False), default_reps=2,
                     run_task=task, reference_slope=None)
    f = run_experiment(exp, seed=0, jobs=1)
    assert f["p"].dtype == np.int64 and f.attrs["log_x"] is False
    assert fit_slopes(f).loc[0, "slope"] == pytest.approx(-0.2)
    assert fit_slopes(f).loc[0, "p_max"] == 4


@pytest.mark.parametrize("change, msg", [
    (dict(options={"reps": 3}), "reserved"),
    (dict(options={"ns": 3}), "reserved"),
    (dict(options={"grid": (1, 2)}), "bool, int, float or str"),
    (dict(option_help={"nope": "x"}), "not among its options"),
    (dict(quick={"sweeps": 3}), "quick settings"),
    (dict(methods=("a", "a")), "distinct"),
    (dict(id="bad id"), "slug"),
    (dict(axis=(10, 100)), "Axis"),
])
def test_bad_declarations_are_refused(change, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        make_fake(**change)


def test_epsilon_axis_needs_no_default_epsilon():
    with pytest.raises(ValueError, match="default_epsilon must be None"):
        make_eps(default_epsilon=1.0)


def test_axis_validation():
    with pytest.raises(ValueError, match="increasing"):
        Axis("n", "n", values=(100, 10))
    with pytest.raises(ValueError, match="identifier"):
        Axis("1/alpha", "1/α", values=(1, 2))
    ax = Axis("inv_alpha", "1/α", values=(2, 4), integer=True)
    assert ax.flag == "inv_alphas" and ax.coerce(1e3) == 1000 and isinstance(ax.coerce(1e3), int)
    assert Axis("epsilon", "ε", values=(0.5,), integer=False).key(0.5) != Axis("n", "n", values=(1,)).key(1)
    assert math.isclose(make_eps().quick_xs[0], 0.01)


def test_row_without_the_axis_column_is_refused():
    def task(config, units):
        return [{"method": "nonprivate", "n": 1, "rep": r, "error": 1.0} for _, r in units]

    with pytest.raises(RuntimeError, match="axis column 'epsilon'"):
        run_experiment(make_eps(run_task=task), xs=[0.1], reps=1, seed=0, jobs=1)


def test_app_grid_and_app_options():
    ax = Axis("n", "n", values=(100, 1000), lo=20)
    assert ax.grid(cap=10_000) == (100, 1000, 10_000) and ax.grid(cap=500) == (100,)
    assert make_eps().axis.grid(cap=10) == (0.01, 0.1, 1.0, 10.0)
    assert Axis("p", "p", values=(1, 3, 5), log=False).grid() == (1, 3, 5)
    assert make_eps().app_options == ("records", "verbose", "kind")
    assert make_fake(options={"scale": 1.0, "block": 3}, grouping_params=("block",)).app_options == ("scale",)
    with pytest.raises(ValueError, match="not among its options"):
        make_fake(app_options=("nope",))

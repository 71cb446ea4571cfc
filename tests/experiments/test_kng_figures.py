"""Tiny runs of KNG's registered figures (dpcore/kng/figures.py): paper defaults, frames,
independence of jobs and grouping, sufficient statistics, and the paper's qualitative picture."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore._validation import DPValueError
from dpcore.experiments import fit_slopes, make_config, registry, run_experiment, summarize, unit_rngs

KNG_IDS = ["kng-linear", "kng-quantile-regression", "kng-median", "kng-mean"]


def test_figure_defaults_follow_the_paper():
    f1, f2 = registry()["kng-linear"], registry()["kng-quantile-regression"]
    assert f1.axis.values == tuple(10**k for k in range(2, 8)) and f1.default_reps == 100
    assert f1.options["sweeps"] == 10_000 and f1.default_epsilon == 1.0 and f1.options["B"] == 1.0
    assert set(f1.methods) == {"nonprivate", "kng", "exponential", "objective_perturbation"}
    assert f2.axis.values == tuple(10**k for k in range(1, 6)) and f2.options["sweeps"] == 1_000
    assert f2.options["tau"] == 0.5 and set(f2.methods) == {"nonprivate", "kng", "exponential"}
    assert "max|Y|" in f1.paper_protocol_note
    for exp_id in KNG_IDS:
        exp = registry()[exp_id]
        assert exp.axis.name == "n" and exp.axis.log and exp.axis.integer and exp.reference_slope == -0.5
        assert "nonprivate" in exp.methods
        assert exp.label("exponential") == "Exponential mechanism"    # from dpcore.viz.style


def test_kng_option_validation():
    with pytest.raises(DPValueError, match="sweeps"):
        make_config("kng-linear", sweeps=0)
    with pytest.raises(DPValueError, match="constants"):
        make_config("kng-linear", constants="printed")
    with pytest.raises(DPValueError, match="tau"):
        make_config("kng-quantile-regression", tau=0.9)   # paper constants are not private for τ > 1/2
    with pytest.raises(DPValueError, match="n"):
        make_config("kng-linear", ns=[10])                # below the figure's smallest n


def _tiny(exp_id):
    exp = registry()[exp_id]
    kw = {"ns": tuple(exp.quick["x"][:2]), "reps": 3}
    if "sweeps" in exp.options:
        kw["sweeps"] = 40
    return kw


@pytest.mark.parametrize("exp_id", KNG_IDS)
def test_every_experiment_runs_tiny(exp_id):
    exp = registry()[exp_id]
    kw = _tiny(exp_id)
    f = run_experiment(exp_id, seed=3, jobs=1, **kw)
    assert list(f.columns[:7]) == ["figure", "method", "n", "rep", "error", "epsilon", "seed"]
    assert len(f) == len(exp.methods) * len(kw["ns"]) * kw["reps"]
    assert list(pd.unique(f["method"])) == list(exp.methods)
    assert np.isfinite(f["error"]).all() and (f["error"] >= 0).all()
    assert (f["figure"] == exp_id).all()
    if "sweeps" in exp.options:
        assert (f["sweeps"] == 40).all()
        private = f[f.method.isin(["kng", "exponential"])]
        exact = private["exact"].fillna(0).astype(bool) if "exact" in f else pd.Series(False, index=private.index)
        mc = private[~exact]                          # MCMC draws carry their diagnostics; exact draws need none
        assert mc["rhat"].notna().all() and mc["ess"].notna().all()
        assert private.loc[exact, "rhat"].isna().all()
    assert "block" not in f.columns   # grouping options are not results


def test_linear_figure_independent_of_jobs_and_blocks():
    kw = dict(ns=[100, 1000], reps=4, sweeps=30, seed=21)
    f1 = run_experiment("kng-linear", jobs=1, block=4, **kw)
    f2 = run_experiment("kng-linear", jobs=2, block=1, **kw)
    pd.testing.assert_frame_equal(f1, f2)
    f3 = run_experiment("kng-linear", jobs=1, block=4, **{**kw, "seed": 22})
    assert not np.allclose(f1["error"], f3["error"])


def test_quantile_regression_independent_of_blocks():
    kw = dict(ns=[50], reps=4, sweeps=30, seed=5, jobs=1)
    pd.testing.assert_frame_equal(run_experiment("kng-quantile-regression", block=4, **kw),
                                  run_experiment("kng-quantile-regression", block=1, **kw))


def test_linear_figure_uses_chunked_sufficient_statistics(monkeypatch):
    """Figure 1 never materialises a design matrix: data come from regression_suffstats_chunked
    and the peak traced memory stays far below one n × d matrix (n = 1e6: 96 MB)."""
    import tracemalloc

    from dpcore.kng import designs

    calls = []
    real = designs.regression_suffstats_chunked

    def spy(n, theta_star, *, rng, chunk=250_000):
        calls.append((n, chunk))
        return real(n, theta_star, rng=rng, chunk=chunk)

    def forbidden(*a, **k):
        raise AssertionError("simulate_regression must not be used for Figure 1")

    monkeypatch.setattr(designs, "regression_suffstats_chunked", spy)
    monkeypatch.setattr(designs, "simulate_regression", forbidden)
    tracemalloc.start()
    try:
        f = run_experiment("kng-linear", ns=[10**6], reps=1, seed=0, jobs=1, methods=["nonprivate"], chunk=20_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls == [(10**6, 20_000)]
    assert peak < 20 * 2**20, f"peak traced memory {peak / 2**20:.1f} MB"
    assert f["error"].iloc[0] < 0.05      # OLS at n = 1e6 is accurate: the statistics are right


def test_linear_error_is_computed_in_original_units():
    """Paper protocol: fit on Y/R, multiply by R; the non-private error equals the OLS error."""
    from dpcore.kng import designs

    cfg = make_config("kng-linear", ns=[200], reps=1, seed=9, methods=["nonprivate"])
    f = run_experiment("kng-linear", ns=[200], reps=1, seed=9, jobs=1, methods=["nonprivate"])
    g = unit_rngs(cfg, 200, 0)["data"]
    X, y = designs.simulate_regression(200, designs.figure1_theta(), rng=g)
    ols = np.linalg.lstsq(X, y, rcond=None)[0]
    assert f["error"].iloc[0] == pytest.approx(np.linalg.norm(ols - designs.figure1_theta()), rel=1e-8)


@pytest.mark.stat
def test_median_experiment_shows_kng_merging_and_exponential_parallel():
    f = run_experiment("kng-median", ns=[1000, 10_000, 100_000], reps=30, seed=4, jobs=1)
    s = summarize(f).pivot(index="n", columns="method", values="log10_mean_error")
    assert abs(s.loc[100_000, "kng"] - s.loc[100_000, "nonprivate"]) < 0.1
    assert (s["exponential"] - s["nonprivate"]).min() > 0.3
    slopes = fit_slopes(f).set_index("method")["slope"]
    assert slopes["nonprivate"] == pytest.approx(-0.5, abs=0.12)
    assert slopes["exponential"] == pytest.approx(-0.5, abs=0.12)


@pytest.mark.stat
def test_linear_experiment_nonprivate_slope_and_exponential_gap():
    f = run_experiment("kng-linear", ns=[1000, 10_000, 100_000], reps=10, seed=4, jobs=1, sweeps=400,
                       methods=["nonprivate", "exponential"])
    s = summarize(f).pivot(index="n", columns="method", values="log10_mean_error")
    assert fit_slopes(f).set_index("method").loc["nonprivate", "slope"] == pytest.approx(-0.5, abs=0.12)
    assert (s["exponential"] - s["nonprivate"]).min() > 0.1

"""Tests of dpcore.experiments: registry, runner (seeding, parallelism, cancellation), summaries,
CLI, and tiny runs of every registered experiment."""
from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

from dpcore._validation import DPValueError
from dpcore.experiments import (REGISTRY, Cancelled, Experiment, blocks_across_ns, blocks_by_n, fit_slopes,
                                format_summary, list_experiments, make_config, plan_tasks, register,
                                run_experiment, summarize, unit_rngs)


# ------------------------------------------------------------------ a fake experiment (no MCMC)
def fake_task(config, units):
    """Sample mean of n standard normals: error |x̄| (slope −1/2); 'noisy' adds Laplace/(nε)."""
    rows = []
    for n, rep in units:
        g = unit_rngs(config, n, rep)
        xbar = g["data"].standard_normal(n).mean()
        rows.append({"method": "nonprivate", "n": n, "rep": rep, "error": abs(xbar)})
        if "noisy" in config.methods:
            z = g["noisy"].laplace() * config.params["scale"] / (n * config.epsilon)
            rows.append({"method": "noisy", "n": n, "rep": rep, "error": abs(xbar + z), "acceptance": 0.5})
    return rows


def _fake(plan=blocks_by_n(3)):
    return Experiment(id="fake-mean", title="Fake", description="test double", caption="c",
                      paper_protocol_note="", methods=("nonprivate", "noisy"), default_ns=(10, 100, 1000),
                      default_reps=12, default_epsilon=1.0, run_task=fake_task, plan=plan,
                      defaults={"scale": 50.0})


FAKE = _fake()


# ------------------------------------------------------------------------------- registry
def test_registry_has_paper_experiments_and_is_read_only():
    ids = [i for i, _ in list_experiments()]
    for want in ("kng-linear", "kng-quantile-regression", "kng-median", "kng-mean"):
        assert want in ids
    with pytest.raises(TypeError):
        REGISTRY["x"] = FAKE  # type: ignore[index]
    with pytest.raises(RuntimeError, match="sealed"):
        register(_fake())
    for exp in REGISTRY.values():
        assert exp.title and exp.caption and exp.description
        assert exp.default_reps >= 1 and len(exp.default_ns) >= 2
        assert "nonprivate" in exp.methods


def test_figure_defaults_follow_the_paper():
    f1, f2 = REGISTRY["kng-linear"], REGISTRY["kng-quantile-regression"]
    assert f1.default_ns == tuple(10**k for k in range(2, 8)) and f1.default_reps == 100
    assert f1.defaults["sweeps"] == 10_000 and f1.default_epsilon == 1.0 and f1.defaults["B"] == 1.0
    assert set(f1.methods) == {"nonprivate", "kng", "exponential", "objective_perturbation"}
    assert f2.default_ns == tuple(10**k for k in range(1, 6)) and f2.defaults["sweeps"] == 1_000
    assert f2.defaults["tau"] == 0.5 and set(f2.methods) == {"nonprivate", "kng", "exponential"}
    assert "max|Y|" in f1.paper_protocol_note


def test_config_validation():
    with pytest.raises(DPValueError, match="unknown"):
        make_config("no-such-id")
    with pytest.raises(DPValueError, match="epsilon"):
        make_config(FAKE, epsilon=0)
    with pytest.raises(DPValueError, match="reps"):
        make_config(FAKE, reps=0)
    with pytest.raises(DPValueError, match="n"):
        make_config(FAKE, ns=[1])
    with pytest.raises(DPValueError, match="option"):
        make_config(FAKE, bogus=3)
    with pytest.raises(DPValueError, match="method"):
        make_config(FAKE, methods=["kng"])
    with pytest.raises(DPValueError, match="sweeps"):
        make_config("kng-linear", sweeps=0)
    with pytest.raises(DPValueError, match="constants"):
        make_config("kng-linear", constants="printed")
    with pytest.raises(DPValueError, match="tau"):
        make_config("kng-quantile-regression", tau=0.9)   # paper constants are not private for τ > 1/2
    cfg = make_config(FAKE, ns=[1000, 10, 10.0], seed=None)
    assert cfg.ns == (10, 1000) and 0 <= cfg.seed < 2**63


def test_plans_cover_each_unit_once_and_ignore_jobs():
    cfg = make_config(FAKE, ns=[10, 100], reps=7, seed=0)
    for plan in (blocks_by_n(3), blocks_across_ns(2), blocks_by_n(100)):
        tasks = plan_tasks(_fake(plan), cfg)
        units = sorted(u for t in tasks for u in t)
        assert units == sorted((n, r) for n in (10, 100) for r in range(7))


def test_unit_streams_depend_only_on_seed_n_rep():
    a = make_config(FAKE, ns=[10, 100], reps=3, seed=5)
    b = make_config(FAKE, ns=[100, 1000], reps=9, seed=5, epsilon=3.0, methods=["noisy", "nonprivate"])
    ga, gb = unit_rngs(a, 100, 2), unit_rngs(b, 100, 2)
    for k in ("data", "nonprivate", "noisy"):
        assert ga[k].random() == gb[k].random()
    assert unit_rngs(a, 100, 2)["data"].random() != unit_rngs(a, 100, 1)["data"].random()
    assert unit_rngs(a, 100, 2)["data"].random() != unit_rngs(a, 100, 2)["noisy"].random()


# --------------------------------------------------------------------------------- runner
def test_run_frame_columns_and_order():
    f = run_experiment(FAKE, ns=[10, 100], reps=4, seed=1, jobs=1)
    assert list(f.columns[:7]) == ["figure", "method", "n", "rep", "error", "epsilon", "seed"]
    assert len(f) == 2 * 2 * 4 and set(f["figure"]) == {"fake-mean"}
    assert list(pd.unique(f["method"])) == ["nonprivate", "noisy"]
    assert (f["seed"] == 1).all() and (f["epsilon"] == 1.0).all() and (f["scale"] == 50.0).all()
    assert f.attrs["experiment"] == "fake-mean" and f.attrs["elapsed_s"] >= 0
    assert (f["error"] > 0).all()


def test_results_do_not_depend_on_jobs_or_grouping_but_on_seed():
    kw = dict(ns=[10, 100, 1000], reps=5)
    f1 = run_experiment(FAKE, seed=11, jobs=1, **kw)
    f2 = run_experiment(FAKE, seed=11, jobs=2, **kw)
    f3 = run_experiment(_fake(blocks_across_ns(2)), seed=11, jobs=1, **kw)
    pd.testing.assert_frame_equal(f1, f2)
    pd.testing.assert_frame_equal(f1.drop(columns="figure"), f3.drop(columns="figure"))
    f4 = run_experiment(FAKE, seed=12, jobs=1, **kw)
    assert not np.allclose(f1["error"], f4["error"])
    # the data of a unit do not depend on ε or on the other methods
    f5 = run_experiment(FAKE, seed=11, jobs=1, epsilon=2.0, methods=["nonprivate"], **kw)
    np.testing.assert_array_equal(f5["error"], f1.loc[f1.method == "nonprivate", "error"])


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


# ------------------------------------------------------------------------------ summaries
def _synthetic(slopes, ns=(10, 100, 1000, 10_000, 100_000), reps=4, noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for m, b in slopes.items():
        for n in ns:
            for r in range(reps):
                rows.append({"method": m, "n": n, "rep": r,
                             "error": 3.0 * n ** b * math.exp(noise * rng.standard_normal())})
    return pd.DataFrame(rows)


def test_fit_slopes_recovers_known_slopes_over_top_decades():
    f = _synthetic({"a": -0.5, "b": -1.0})
    s = fit_slopes(f).set_index("method")
    assert s.loc["a", "slope"] == pytest.approx(-0.5, abs=1e-12)
    assert s.loc["b", "slope"] == pytest.approx(-1.0, abs=1e-12)
    assert s.loc["a", "intercept"] == pytest.approx(math.log10(3.0), abs=1e-12)
    assert s.loc["a", "n_min"] == 100 and s.loc["a", "n_max"] == 100_000 and s.loc["a", "points"] == 4
    # a kink below the top three decades does not affect the fit
    g = f.copy()
    g.loc[g.n == 10, "error"] *= 100
    assert fit_slopes(g).set_index("method").loc["a", "slope"] == pytest.approx(-0.5, abs=1e-12)
    assert fit_slopes(g, decades=4).set_index("method").loc["a", "slope"] == pytest.approx(-0.9)


def test_summarize_standard_errors():
    f = _synthetic({"a": -0.5}, reps=400, noise=0.3, seed=1)
    s = summarize(f)
    sub = f[f.n == 100]["error"]
    row = s[s.n == 100].iloc[0]
    assert row.reps == 400
    assert row.mean_error == pytest.approx(sub.mean())
    assert row.se_log10_mean_error == pytest.approx(sub.std() / (20 * sub.mean() * math.log(10)))
    assert row.se_mean_log10_error == pytest.approx(np.log10(sub).std() / 20)
    # the s.e. is honest: log-normal noise with σ = 0.3 → s.e. of mean log10 ≈ 0.3/ln10/20
    assert row.se_mean_log10_error == pytest.approx(0.3 / math.log(10) / 20, rel=0.15)
    txt = format_summary(f)
    assert "fitted slopes" in txt and "100000" in txt


def test_error_vs_n_figure_has_legend_slopes_and_reference_line():
    from dpcore.viz_experiments import error_vs_n_figure

    f = _synthetic({"nonprivate": -0.5, "kng": -0.8})
    fig = error_vs_n_figure(f, title="t")
    names = [t.name for t in fig.data]
    assert any("slope -0.50" in n for n in names) and any("slope -0.80" in n for n in names)
    ref = [t for t in fig.data if t.name.startswith("reference")]
    assert len(ref) == 1 and np.diff(ref[0].y)[0] / np.diff(ref[0].x)[0] == pytest.approx(-0.5)
    assert fig.data[0].error_y.array is not None


# ------------------------------------------------------------------ registered experiments
def _tiny(exp_id):
    exp = REGISTRY[exp_id]
    kw = {"ns": tuple(exp.quick["ns"][:2]), "reps": 3}
    if "sweeps" in exp.defaults:
        kw["sweeps"] = 40
    return kw


@pytest.mark.parametrize("exp_id", ["kng-linear", "kng-quantile-regression", "kng-median", "kng-mean"])
def test_every_experiment_runs_tiny(exp_id):
    exp = REGISTRY[exp_id]
    kw = _tiny(exp_id)
    f = run_experiment(exp_id, seed=3, jobs=1, **kw)
    assert list(f.columns[:7]) == ["figure", "method", "n", "rep", "error", "epsilon", "seed"]
    assert len(f) == len(exp.methods) * len(kw["ns"]) * kw["reps"]
    assert list(pd.unique(f["method"])) == list(exp.methods)
    assert np.isfinite(f["error"]).all() and (f["error"] >= 0).all()
    assert (f["figure"] == exp_id).all()
    if "sweeps" in exp.defaults:
        assert (f["sweeps"] == 40).all()
        mc = f[f.method.isin(["kng", "exponential"])]
        assert mc["rhat"].notna().all() and mc["ess"].notna().all()
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

    from dpcore import data as dpdata

    calls = []
    real = dpdata.regression_suffstats_chunked

    def spy(n, theta_star, *, rng, chunk=250_000):
        calls.append((n, chunk))
        return real(n, theta_star, rng=rng, chunk=chunk)

    def forbidden(*a, **k):
        raise AssertionError("simulate_regression must not be used for Figure 1")

    monkeypatch.setattr(dpdata, "regression_suffstats_chunked", spy)
    monkeypatch.setattr(dpdata, "simulate_regression", forbidden)
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
    from dpcore import data as dpdata

    cfg = make_config("kng-linear", ns=[200], reps=1, seed=9, methods=["nonprivate"])
    f = run_experiment("kng-linear", ns=[200], reps=1, seed=9, jobs=1, methods=["nonprivate"])
    g = unit_rngs(cfg, 200, 0)["data"]
    X, y = dpdata.simulate_regression(200, dpdata.figure1_theta(), rng=g)
    ols = np.linalg.lstsq(X, y, rcond=None)[0]
    assert f["error"].iloc[0] == pytest.approx(np.linalg.norm(ols - dpdata.figure1_theta()), rel=1e-8)


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


# ---------------------------------------------------------------------------------- CLI
def test_cli_list():
    from dpcore.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    assert main(["reproduce", "--list"], out=out, err=err) == 0
    lines = out.getvalue().strip().splitlines()
    assert [ln.split()[0] for ln in lines] == list(REGISTRY)
    assert all(len(ln.split(maxsplit=1)) == 2 for ln in lines)


def test_cli_reproduce_writes_csv_html_and_summary(tmp_path):
    from dpcore.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["reproduce", "kng-median", "--ns", "10,1e2,1000", "--reps", "4", "--epsilon", "2", "--seed", "7",
                 "--jobs", "1", "--out", str(tmp_path)], out=out, err=err)
    assert code == 0, err.getvalue()
    frame = pd.read_csv(tmp_path / "kng-median.csv")
    assert list(frame.columns[:7]) == ["figure", "method", "n", "rep", "error", "epsilon", "seed"]
    assert len(frame) == 3 * 3 * 4 and (frame["epsilon"] == 2).all() and (frame["seed"] == 7).all()
    slopes = pd.read_csv(tmp_path / "kng-median_slopes.csv")
    assert list(slopes["method"]) == ["nonprivate", "kng", "exponential"] and slopes["slope"].notna().all()
    html = (tmp_path / "kng-median.html").read_text(encoding="utf-8")
    assert "plotly" in html.lower() and "reference slope" in html
    text = out.getvalue()
    assert "fitted slopes" in text and "elapsed" in text and "mean of log10(error)" in text
    assert "\r" in err.getvalue() and "3/3 tasks" in err.getvalue()
    # same seed → same CSV
    main(["reproduce", "kng-median", "--ns", "10,1e2,1000", "--reps", "4", "--epsilon", "2", "--seed", "7",
          "--jobs", "2", "--out", str(tmp_path / "b"), "--quiet"], out=io.StringIO(), err=io.StringIO())
    pd.testing.assert_frame_equal(frame, pd.read_csv(tmp_path / "b" / "kng-median.csv"))


@pytest.mark.parametrize("argv, msg", [
    (["reproduce", "nope"], "unknown"),
    (["reproduce", "kng-median", "--ns", "10,abc"], "--ns"),
    (["reproduce", "kng-median", "--epsilon", "-1"], "epsilon"),
    (["reproduce", "kng-median", "--sweeps", "10"], "sweeps"),
    (["reproduce"], "experiment id"),
])
def test_cli_bad_input(argv, msg, tmp_path):
    from dpcore.__main__ import main

    err = io.StringIO()
    assert main(argv + ["--out", str(tmp_path)], out=io.StringIO(), err=err) == 2
    assert msg in err.getvalue()

"""The figure's per-unit function: rows, determinism, and the expected orderings at small settings."""
import numpy as np
import pytest

from dpcore.query_release.figures import (
    CENTRAL_METHODS,
    LOCAL_METHODS,
    fit_slope,
    run_unit,
    scenario_data,
)


def test_unit_rows_and_determinism():
    a = run_unit("marginals", 50, 3, methods=CENTRAL_METHODS + ("local-projection",))
    b = run_unit("marginals", 50, 3, methods=CENTRAL_METHODS + ("local-projection",))
    assert [r["error"] for r in a] == [r["error"] for r in b]
    assert {r["method"] for r in a} == set(CENTRAL_METHODS) | {"local-projection"}
    assert all(r["error"] > 0 and r["max_error"] >= r["error"] for r in a)


def test_scenario_data_two_far_points():
    d = scenario_data("cone", 7)
    assert d.size == 7 and set(d) == {0, d.max()}
    with pytest.raises(ValueError, match="scenario"):
        scenario_data("nope", 3)


def test_projection_beats_gaussian_and_gaussian_slope_is_minus_one():
    ns = (20, 200)
    err = {m: [] for m in ("gaussian", "projection")}
    for n in ns:
        rows = [r for rep in range(4) for r in run_unit("marginals", n, rep, methods=("gaussian", "projection"))]
        for m, values in err.items():
            values.append(np.sqrt(np.mean([r["error"] ** 2 for r in rows if r["method"] == m])))
    assert all(p < g for p, g in zip(err["projection"], err["gaussian"]))
    assert fit_slope(ns, err["gaussian"]) == pytest.approx(-1.0, abs=0.15)


def test_local_methods_run():
    rows = run_unit("marginals", 300, 0, methods=LOCAL_METHODS)
    e = {r["method"]: r["error"] for r in rows}
    assert e["local-projection"] < e["local-average"]


def test_registered_experiment_runs_and_is_independent_of_grouping():
    from dpcore.experiments import run_experiment

    kw = dict(ns=(10, 100), reps=2, seed=5, jobs=1, methods=("gaussian", "projection", "local-projection"),
              scenario="marginals")
    a = run_experiment("query-release", block=1, **kw)
    b = run_experiment("query-release", block=2, **kw)
    assert len(a) == 2 * 2 * 3 and set(a["method"]) == {"gaussian", "projection", "local-projection"}
    np.testing.assert_array_equal(a.sort_values(["method", "n", "rep"])["error"].to_numpy(),
                                  b.sort_values(["method", "n", "rep"])["error"].to_numpy())
    with pytest.raises(ValueError, match="scenario"):
        run_experiment("query-release", scenario="sphere", **{k: v for k, v in kw.items() if k != "scenario"})

"""The lab (page back end): frames, caps, schema mapping of a user's columns."""
import numpy as np
import pandas as pd
import pytest

from dpcore.errors import DPValueError
from dpcore.query_release._lab import ColumnRule, LabConfig, lab_dataset, release_marginals, run_lab, schema_indices
from dpcore.query_release._workloads import Marginals, Thresholds


def test_run_lab_frames():
    cfg = LabConfig(Thresholds(32), methods=("gaussian", "projection", "local-projection"), ns=(10, 100), reps=2,
                    alphas=(0.2, 0.1), complexity_reps=4)
    res = run_lab(cfg, rng=0)
    assert set(res.errors["method"]) == {"gaussian", "projection", "local-projection"} and len(res.errors) == 12
    assert {"upper bound", "lower bound", "empirical", "heuristic"} <= set(res.complexity["kind"])
    assert res.floor == pytest.approx(0.05) and len(res.answers) == 12
    assert np.all(np.diff(res.profile["log_s"]) <= 1e-12)


def test_lab_config_validation_and_work_cap():
    with pytest.raises(DPValueError, match="dataset"):
        LabConfig(Thresholds(8), dataset="all")
    with pytest.raises(DPValueError, match="method"):
        LabConfig(Thresholds(8), methods=("nope",))
    with pytest.raises(DPValueError, match="cap"):
        LabConfig(Marginals(12, 2), methods=("local-projection",), ns=(1_000_000,), reps=50)
    with pytest.raises(DPValueError, match="cap"):
        LabConfig(Marginals(13, 3), methods=("projection", "coarse"), ns=(10, 100, 1000), reps=5)


def test_lab_datasets():
    spec = Thresholds(10)
    assert set(lab_dataset("one point", 5, spec)) == {0}
    assert set(lab_dataset("two far points", 6, spec)) == {0, 9}
    assert lab_dataset("uniform", 100, spec, 1).max() < 10


def test_schema_maps_every_row_by_public_rules():
    frame = pd.DataFrame({"colour": ["red", "blue", None, "green "], "age": [10.0, np.nan, 70.0, 40.0]})
    rules = (ColumnRule("colour", categories=("red", "green")), ColumnRule("age", threshold=35.0))
    idx = schema_indices(frame, rules)
    np.testing.assert_array_equal(idx, [1, 0, 2, 3])       # missing/other → 0; no row dropped
    with pytest.raises(DPValueError, match="either"):
        ColumnRule("age")
    rel = release_marginals(frame, rules, 1, "projection", rho=0.5, rng=0)
    assert rel.value.shape == (Marginals(2, 1).build().k,)


def test_viz_figures_build_from_lab_frames():
    from dpcore.query_release import plots as V

    res = run_lab(LabConfig(Thresholds(16), methods=("projection", "pmw", "local-coarse"), ns=(10, 50), reps=2,
                            alphas=(0.2,), complexity_reps=3), rng=1)
    fig = V.error_vs_n_figure(res.errors, alpha=0.1, floor=res.floor)
    assert fig.layout.xaxis.type == "log" and {t.name for t in fig.data} == {"Projection", "PMW (MWEM form)",
                                                                              "Local coarse projection"}
    assert V.error_vs_n_figure(res.errors, metric="max").layout.yaxis.title.text.startswith("worst-case")
    names = {t.name for t in V.sample_complexity_figure(res.complexity).data}
    assert "Local projection (heuristic)" in names and "Projection (empirical)" in names
    assert len(V.answers_figure(res.answers).data) == 3
    summ = V.error_summary(res.errors)
    assert set(summ.columns) == {"method", "n", "reps", "error", "se"}


def test_an_empty_alpha_grid_is_refused_by_name():
    """The page asked for α ≥ target/2 only; at its maximum target α = 1 none was left and run_lab raised
    KeyError('alpha') (found by the widget-extremes sweep, issue 18)."""
    with pytest.raises(DPValueError, match="alphas is empty"):
        LabConfig(Thresholds(8), alphas=())

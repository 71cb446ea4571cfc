"""One exported notebook per topic executes from top to bottom in a fresh kernel (nbclient + ipykernel), without
Streamlit, and computes the same release as the script (issue 22)."""
from __future__ import annotations

import pandas as pd
import pytest

from dpcore import density, histograms, kng, lasso, query_release, registry, single_parameter
from dpcore import export as X
from dpcore import privacy as P
from dpcore.data import builtin_dataset
from dpcore.single_parameter import functional
from tests.export.helpers import ROOT

pytestmark = pytest.mark.app

STREAM = X.stream(P.Randomness("fixed", 0), ("notebook test",))


def _kng():
    src = X.simulated(kng.simulated_dataset, "median", 200, 1, rng=0)
    ds = src.load()
    pdata = kng.problem_data(pd.DataFrame(ds.frame), ds.bounds, "median", ["x"])
    cfg = kng.make("median", mechanism="exponential", epsilon=1.0, size=2, n_sweeps=200, **pdata.params)
    release = registry.mechanism("kng/median-exponential").release
    return X.kng_script(src, problem_data=kng.problem_data, release=release, problem="median", columns=["x"], xs=["x"], y_column=None, intercept=True,
                        configs={"exponential": cfg}, streams={"exponential": STREAM}, labels={})


def _lasso():
    return X.lasso_script(X.loaded(lasso.diabetes_dataset), prepare_design=lasso.prepare_design, release=lasso.release,
                          y_column="target", x_columns=["bmi", "bp"],
                          config=lasso.LassoConfig(epsilon=1.0, steps=10), stream=STREAM, diagnostics=False)


def _histograms():
    src = X.simulated(histograms.sparse_table, 256, 10, 100, target="table", rng=0)
    return X.histogram_script(src, release=histograms.laplace_and_threshold_release, stream=X.seed_stream(0),
                              config=histograms.ThresholdConfig(1.0, 256, sampler="dense"))


def _density():
    return X.density_script(X.loaded(builtin_dataset, "wine"), unit_cube_columns=density.unit_cube_columns,
                            compare_release=density.compare_release, columns=["alcohol"], stream=STREAM,
                            config=density.CompareConfig(epsilon=1.0, grid=16, draws=1, methods=("fourier-laplace",)))


def _single_parameter():
    src = X.simulated(single_parameter.simulated_dataset, 500, 2, rng=0)
    cfg = single_parameter.FunctionalConfig(epsilon=1.0, delta=1e-5, coordinate=0, loss="robust", geometry="l2-ball")
    return X.functional_script(src, prepare_xy=single_parameter.prepare_xy, release=functional.release, y_column="y", x_columns=["x1", "x2"], intercept=False, scale_response=False,
                               config=cfg, stream=STREAM)


def _query_release():
    cfg = query_release.LabConfig(query_release.Thresholds(16), dataset=query_release.DATASETS[0], rho=0.5, epsilon=1.0, alpha=0.2,
                        methods=("gaussian",), ns=(100,), reps=2, alphas=(0.2,))
    return X.lab_script(query_release.run_lab, cfg, 0)


def _experiments():
    return X.experiment_script("kng-median", xs=(100, 1000), reps=2, epsilon=1.0, seed=0, methods=["kng"],
                               jobs=1)


@pytest.mark.parametrize("build", [_kng, _lasso, _histograms, _density, _single_parameter, _query_release,
                                   _experiments], ids=lambda f: f.__name__.strip("_"))
def test_exported_notebook_executes(build, tmp_path, monkeypatch):
    import nbclient
    import nbformat

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    script = build()
    nb = nbformat.reads(script.to_notebook(), as_version=4)
    nbclient.NotebookClient(nb, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any(o.output_type == "stream" and o.text.strip() for o in outputs)   # it printed the result

"""dpcore.export: configs written as code round-trip, scripts pass ruff, a user's data is stated by its path and
declared bounds (never its values) with fresh entropy, fixed-seed streams are the app's (issue 22)."""
from __future__ import annotations

import os
import subprocess
import sys


import numpy as np
import pandas as pd
import pytest

from dpcore import data as dpdata
from dpcore import export as X
from dpcore import privacy as P
from dpcore import registry
from tests.export.helpers import ROOT, run_script


def _script_of(value):
    return X.Script("t", "", (X.Section("s", "", (X.Assign("c", value),)),))


@pytest.mark.parametrize("name", sorted(registry.mechanisms()))
def test_every_registered_config_is_written_as_code_that_rebuilds_it(name):
    spec = registry.mechanism(name)
    _, kwargs = spec.example()
    cfg = spec.config(**kwargs)
    env: dict = {}
    exec(_script_of(cfg).to_python(), env)  # noqa: S102 - our own generated code
    assert env["c"] == cfg and type(env["c"]) is type(cfg)


def test_a_value_that_cannot_be_rebuilt_is_refused():
    class Opaque:
        pass

    with pytest.raises(X.ExportError, match="cannot write"):
        _script_of(Opaque()).to_python()


def test_literals_are_exact():
    assert X.literal(0.1) == "0.1" and eval(X.literal(1 / 3)) == 1 / 3
    assert X.literal(float("inf")) == 'float("inf")' and X.literal(np.float64(2.5)) == "2.5"
    assert X.literal(("a",)) == '("a",)' and X.literal({"k": [1, None]}) == '{"k": [1, None]}'
    assert X.literal("it's \"q\"") == repr("it's \"q\"")


def test_fixed_seed_entropy_is_the_generator_the_app_uses():
    r, key = P.Randomness("fixed", 7), ("k", 1.0, (2, 3))
    a = np.random.default_rng(np.random.SeedSequence(r.entropy(key))).random(3)
    np.testing.assert_array_equal(a, r.generator(key).random(3))
    assert P.Randomness("fresh").entropy(key) is None
    assert X.stream(P.Randomness("fresh"), key).mode == "fresh"


def _user_dataset() -> dpdata.Dataset:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"y": rng.uniform(-5, 5, 60), "x1": rng.uniform(0, 10, 60), "x2": rng.uniform(0, 1, 60)})
    frame.loc[4, "x1"] = np.nan
    ds = dpdata.Dataset(frame, ("y", "x1", "x2"), {}, "test", name="people.csv")
    return ds.with_bounds("y", -5, 5).with_bounds("x1", 0, 10, impute=2.0).with_bounds_from_data("x2")


def _lasso_on(ds, stream):
    from dpcore import lasso

    cfg = lasso.LassoConfig(epsilon=1.0, steps=20)
    return X.lasso_script(X.from_dataset(ds, ["y", "x1", "x2"]), prepare_design=lasso.prepare_design,
                          release=lasso.release, y_column="y", x_columns=["x1", "x2"], config=cfg,
                          stream=stream, diagnostics=False), cfg


def test_user_data_is_stated_by_path_and_public_bounds_and_runs_with_fresh_entropy(tmp_path):
    ds = _user_dataset()
    script, cfg = _lasso_on(ds, X.stream(P.Randomness("fresh"), ("key",)))
    text = script.to_python()
    assert 'PATH = "people.csv"' in text and "data.load_file(PATH)" in text
    assert 'ds.with_bounds("x1", 0.0, 10.0, impute=2.0)' in text
    assert 'ds.with_bounds("x2", ..., ...)' in text                          # issue 29: never the data's min/max
    assert "FRESH OS entropy" in text and "np.random.default_rng()" in text
    for v in ds.frame["y"].head(5):                                          # no data value in the script
        assert repr(float(v)) not in text
    text = text.replace('ds.with_bounds("x2", ..., ...)', 'ds.with_bounds("x2", 0.0, 1.0)')   # the user fills it
    (tmp_path / "people.csv").write_text(ds.frame.to_csv(index=False), encoding="utf-8")
    outs, stdout = run_script(text, script.outputs, tmp_path)
    assert outs["release"].shape == (2,) and "cost" in stdout
    again, _ = run_script(text, script.outputs, tmp_path)
    assert not np.array_equal(outs["release"], again["release"])            # fresh entropy: another draw


def test_issue29_2_export_after_fill_from_data_writes_a_placeholder_never_the_data_bounds(tmp_path):
    """Finding 2: "Fill from data" then export. Before: ``ds.with_bounds("x2", <min>, <max>, source="from data")``
    — two records' exact values — in the script and the notebook. After: ``...`` with a comment saying why; the
    script stops naming the column and the fix until the user types public bounds, then runs."""
    ds = _user_dataset()
    lo, hi = ds.bounds["x2"]
    script, _ = _lasso_on(ds, X.stream(P.Randomness("fresh"), ("key",)))
    for text in (script.to_python(), script.to_notebook()):
        for v in (lo, hi):
            assert repr(float(v)) not in text and f"{v:.6g}" not in text, f"the data's bound {v} is in the export"
        assert "FILL IN the public bounds of 'x2'" in text.replace('\\"', '"')
    text = script.to_python()
    (tmp_path / "people.csv").write_text(ds.frame.to_csv(index=False), encoding="utf-8")
    (tmp_path / "exported.py").write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "exported.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode != 0 and "bounds for column 'x2' lower is ..., a placeholder to fill in" in done.stderr


def test_built_in_data_with_edited_bounds_restates_only_the_edits():
    ds = dpdata.builtin_dataset("wine").with_bounds("alcohol", 10, 15)
    steps = X.from_dataset(ds, ["alcohol", "proline"]).steps
    text = X.Script("t", "", (X.Section("d", "", steps),)).to_python()
    assert 'data.builtin_dataset("wine")' in text
    assert 'ds.with_bounds("alcohol", 10.0, 15.0)' in text and "proline" not in text


def test_generated_scripts_pass_ruff_check_and_format(tmp_path):
    from tests.export import test_notebooks as nb

    scripts = {"user": _lasso_on(_user_dataset(), X.stream(P.Randomness("fixed", 0), ("k",)))[0],
               **{f.__name__.strip("_"): f() for f in (nb._kng, nb._lasso, nb._histograms, nb._density,
                                                       nb._single_parameter, nb._query_release, nb._experiments)}}
    for name, script in scripts.items():
        (tmp_path / f"{name}.py").write_text(script.to_python(), encoding="utf-8")
    # isolated from the repo's settings: black's width, isort (dpcore first-party, as from the app's folder)
    for args in (["check", "--isolated", "--select", "E,F,W,I,B,UP", "--line-length", "88"],
                 ["format", "--isolated", "--check"]):
        done = subprocess.run([sys.executable, "-m", "ruff", *args, "--no-cache", str(tmp_path)], cwd=ROOT,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_notebook_is_valid_nbformat_with_one_code_cell_per_section():
    import nbformat

    script, _ = _lasso_on(_user_dataset(), X.seed_stream(0))
    nb = nbformat.reads(script.to_notebook(), as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) == 1 + len(script.sections) and "import" in code[0].source

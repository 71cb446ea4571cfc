"""Tests of ``python -m dpcore reproduce``: list, run and outputs, per-experiment typed flags
from declared options (``ID --help``), clear errors for unknown flags and bad values."""
from __future__ import annotations

import io

import pandas as pd
import pytest

import dpcore.experiments as experiments
from dpcore.__main__ import main
from dpcore.experiments import registry

from .fakes import make_eps


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_list():
    code, out, _ = _run(["reproduce", "--list"])
    assert code == 0
    lines = out.strip().splitlines()
    assert [ln.split()[0] for ln in lines] == list(registry())
    assert all(len(ln.split(maxsplit=1)) == 2 and ln.endswith(f"[x: {registry()[ln.split()[0]].axis.name}]")
               for ln in lines)


def test_cli_reproduce_writes_csv_html_and_summary(tmp_path):
    code, out, err = _run(["reproduce", "kng-median", "--ns", "10,1e2,1000", "--reps", "4", "--epsilon", "2",
                           "--seed", "7", "--jobs", "1", "--out", str(tmp_path)])
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "kng-median.csv")
    assert list(frame.columns[:7]) == ["figure", "method", "n", "rep", "error", "epsilon", "seed"]
    assert len(frame) == 3 * 3 * 4 and (frame["epsilon"] == 2).all() and (frame["seed"] == 7).all()
    slopes = pd.read_csv(tmp_path / "kng-median_slopes.csv")
    assert list(slopes["method"]) == ["nonprivate", "kng", "exponential"] and slopes["slope"].notna().all()
    html = (tmp_path / "kng-median.html").read_text(encoding="utf-8")
    assert "plotly" in html.lower() and "reference slope" in html
    assert "fitted slopes" in out and "elapsed" in out and "mean of log10(error)" in out
    assert "\r" in err and "3/3 tasks" in err
    # same seed → same CSV, whatever --jobs; --x is the generic spelling of --ns
    _run(["reproduce", "kng-median", "--x", "10,1e2,1000", "--reps", "4", "--epsilon", "2", "--seed", "7",
          "--jobs", "2", "--out", str(tmp_path / "b"), "--quiet"])
    pd.testing.assert_frame_equal(frame, pd.read_csv(tmp_path / "b" / "kng-median.csv"))


def test_help_lists_the_declared_options_with_types():
    code, out, _ = _run(["reproduce", "kng-quantile-regression", "--help"])
    assert code == 0
    for flag in ("--sweeps INT", "--B FLOAT", "--tau FLOAT", "--constants {paper,calibrated}", "--block INT",
                 "--x X, --ns X", "--epsilon EPSILON", "options of kng-quantile-regression"):
        assert flag in out, flag
    assert "default: 1000" in out and "quantile level τ" in out
    code, out, _ = _run(["reproduce", "kng-median", "--help"])
    assert code == 0 and "--block INT" in out and "--sweeps" not in out


def test_unknown_option_is_a_clear_error(tmp_path):
    code, _, err = _run(["reproduce", "kng-median", "--sweeps", "10", "--out", str(tmp_path)])
    assert code == 2
    assert "--sweeps: not an option of experiment 'kng-median'" in err
    assert "--block (int, default 25)" in err and "reproduce kng-median --help" in err
    assert not (tmp_path / "kng-median.csv").exists()


@pytest.fixture
def with_eps_experiment(monkeypatch):
    """The CLI sees the test-only ε experiment (the global registry is not changed)."""
    table = dict(registry(), **{"fake-eps": make_eps()})
    monkeypatch.setattr(experiments, "registry", lambda: table)


def test_cli_runs_a_non_n_axis_experiment(with_eps_experiment, tmp_path):
    code, out, err = _run(["reproduce", "fake-eps", "--epsilons", "0.01,0.1", "--reps", "3", "--records", "50",
                           "--verbose", "--jobs", "1", "--out", str(tmp_path), "--quiet"])
    assert code == 0, err
    f = pd.read_csv(tmp_path / "fake-eps.csv")
    assert list(f.columns[:6]) == ["figure", "method", "epsilon", "rep", "error", "seed"]
    assert sorted(f["epsilon"].unique()) == [0.01, 0.1] and (f["records"] == 50).all() and f["verbose"].all()
    assert "epsilon = 0.01,0.1" in out and "log10(epsilon)" in out
    code, out, _ = _run(["reproduce", "fake-eps", "--help"])
    assert "--x X, --epsilons X" in out and "--records INT" in out and "--verbose, --no-verbose" in out
    assert "--epsilon EPSILON" not in out              # ε is the axis, not a setting
    code, _, err = _run(["reproduce", "fake-eps", "--epsilon", "1", "--out", str(tmp_path)])
    assert code == 2 and "--epsilon: not an option of experiment 'fake-eps'" in err
    code, _, err = _run(["reproduce", "fake-eps", "--kind", "median", "--out", str(tmp_path)])
    assert code == 2 and "invalid choice" in err


@pytest.mark.parametrize("argv, msg", [
    (["reproduce", "nope"], "unknown"),
    (["reproduce", "nope", "--sweeps", "3"], "unknown"),
    (["reproduce", "kng-median", "--ns", "10,abc"], "--ns"),
    (["reproduce", "kng-median", "--ns", "10.5"], "whole number"),
    (["reproduce", "kng-median", "--epsilon", "-1"], "epsilon"),
    (["reproduce", "kng-median", "--sweeps", "10"], "sweeps"),
    (["reproduce", "kng-linear", "--sweeps", "3"], "sweeps"),
    (["reproduce", "kng-linear", "--sweeps", "many"], "--sweeps"),
    (["reproduce"], "experiment id"),
])
def test_cli_bad_input(argv, msg, tmp_path):
    code, _, err = _run(argv + ["--out", str(tmp_path)])
    assert code == 2
    assert msg in err

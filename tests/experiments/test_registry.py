"""The registry finds KNG's figures through dpcore/kng/declare.py (no central list)."""
from __future__ import annotations

import pytest

import dpcore.experiments as experiments
from dpcore import registry as topics
from dpcore.experiments import Experiment, list_experiments, registry


def test_registry_finds_kng_figures_through_declare():
    from dpcore.kng import declare, figures

    assert declare.TOPIC.experiments == figures.EXPERIMENTS
    table = topics.experiments()
    for exp in figures.EXPERIMENTS:
        assert table[exp.id] is exp
    assert registry() is table and experiments.REGISTRY is table
    ids = [i for i, _ in list_experiments()]
    for want in ("kng-linear", "kng-quantile-regression", "kng-median", "kng-mean"):
        assert want in ids


def test_registry_is_read_only_and_has_no_central_list():
    with pytest.raises(TypeError):
        registry()["x"] = registry()["kng-mean"]  # type: ignore[index]
    assert not hasattr(experiments, "EXPERIMENT_MODULES") and not hasattr(experiments, "register")
    with pytest.raises(AttributeError):
        experiments.NO_SUCH_NAME  # noqa: B018


def test_every_registered_experiment_is_complete():
    for exp in registry().values():
        assert isinstance(exp, Experiment)
        assert exp.title and exp.caption and exp.description and exp.axis.label
        assert exp.default_reps >= 1 and len(exp.axis.values) >= 2
        assert set(exp.quick) <= set(exp.options) | {"x", "reps"}
        assert all(exp.axis.lo <= x <= exp.axis.hi for x in exp.quick_xs)

"""Sweeps over any axis: figure declarations, a parallel runner that depends only on the seed,
and summaries.

>>> from dpcore.experiments import run_experiment, fit_slopes
>>> frame = run_experiment("kng-median", ns=[100, 1000], reps=5, seed=1, jobs=1)   # doctest: +SKIP
>>> fit_slopes(frame)                                                                # doctest: +SKIP

A figure is an :class:`Experiment` with a named x :class:`Axis` and declared options (see
:mod:`dpcore.experiments.spec`). Topics declare their figures in ``dpcore/<topic>/declare.py``
(``Topic(..., experiments=(...))``); :func:`registry` reads them through
:func:`dpcore.registry.experiments` — read-only, computed once per process, no central list.

Command line: ``python -m dpcore reproduce <id>`` (``--list`` for the ids, ``<id> --help`` for
its options).
"""
from __future__ import annotations

from typing import Mapping

from dpcore.errors import Cancelled
from dpcore.experiments.analysis import (SLOPE_DECADES, describe, fit_slopes, format_number, format_summary,
                                         summarize)
from dpcore.experiments.runner import base_columns, get_experiment, make_config, plan_tasks, run_experiment
from dpcore.experiments.spec import (Axis, Experiment, RunConfig, blocks_across_ns, blocks_across_x, blocks_by_n,
                                     blocks_by_x, unit_rngs)


def registry() -> Mapping[str, Experiment]:
    """Read-only mapping id → Experiment over every topic's ``declare.py`` (in topic order)."""
    from dpcore import registry as _registry

    return _registry.experiments()


def list_experiments() -> list[tuple[str, str]]:
    """(id, title) of every registered experiment, in registry order."""
    return [(e.id, e.title) for e in registry().values()]


def __getattr__(name: str):
    if name == "REGISTRY":          # read access kept for callers: the same read-only mapping
        return registry()
    raise AttributeError(f"module 'dpcore.experiments' has no attribute {name!r}")


__all__ = [
    "Axis", "Experiment", "RunConfig", "Cancelled", "unit_rngs", "blocks_by_x", "blocks_across_x",
    "blocks_by_n", "blocks_across_ns", "run_experiment", "make_config", "plan_tasks", "get_experiment",
    "base_columns", "registry", "list_experiments", "summarize", "fit_slopes", "format_summary", "describe",
    "format_number", "SLOPE_DECADES",
]

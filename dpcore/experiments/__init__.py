"""Error-vs-n experiments: a read-only registry, a parallel sweep runner and summaries.

>>> from dpcore.experiments import run_experiment, fit_slopes
>>> frame = run_experiment("kng-median", ns=[100, 1000], reps=5, seed=1, jobs=1)   # doctest: +SKIP
>>> fit_slopes(frame)                                                                # doctest: +SKIP

Command line: ``python -m dpcore reproduce <id>`` (``--list`` for the ids).

The registry (:data:`REGISTRY`, an id → :class:`Experiment` mapping) is filled while this package
is imported — by the modules named in :data:`EXPERIMENT_MODULES`, each calling
``register(Experiment(...))`` — and then sealed read-only. To add an experiment, write such a module
and append its name to ``EXPERIMENT_MODULES`` (see :mod:`dpcore.experiments._registry`).
"""
from __future__ import annotations

import importlib

from dpcore.experiments._registry import (Experiment, RunConfig, blocks_across_ns, blocks_by_n, register,
                                          unit_rngs)

#: Modules that register experiments (imported in this order; later issues append theirs).
EXPERIMENT_MODULES: tuple[str, ...] = (
    "dpcore.experiments.kng_figures",
)

for _name in EXPERIMENT_MODULES:
    importlib.import_module(_name)

from dpcore.experiments._registry import _seal  # noqa: E402

#: Read-only mapping id → Experiment (sealed at import).
REGISTRY = _seal()
del _name, _seal

from dpcore.experiments.analysis import SLOPE_DECADES, fit_slopes, format_summary, summarize  # noqa: E402
from dpcore.experiments.runner import (Cancelled, get_experiment, make_config, plan_tasks,  # noqa: E402
                                       run_experiment)


def list_experiments() -> list[tuple[str, str]]:
    """(id, title) of every registered experiment, in registration order."""
    return [(e.id, e.title) for e in REGISTRY.values()]


__all__ = [
    "REGISTRY", "EXPERIMENT_MODULES", "Experiment", "RunConfig", "Cancelled", "register", "unit_rngs",
    "blocks_by_n", "blocks_across_ns", "run_experiment", "make_config", "plan_tasks", "get_experiment",
    "list_experiments", "summarize", "fit_slopes", "format_summary", "SLOPE_DECADES",
]

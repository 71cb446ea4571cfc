"""Experiment specifications and the read-only registry of error-vs-n experiments.

An *experiment* is a Monte-Carlo sweep over sample sizes ``n`` and replicates ``rep``: every
unit ``(n, rep)`` draws its own data and fits every method on it; the result is one row per
(method, n, rep) with the estimation error.

Registering a new experiment (later issues)
-------------------------------------------
Write a module (e.g. ``dpcore/experiments/lasso_figures.py``) that calls, at import time::

    from dpcore.experiments._registry import Experiment, register, blocks_by_n

    register(Experiment(
        id="lasso-fw", title="...", description="...", caption="...",
        paper_protocol_note="",                 # "" when the protocol has no data-dependent step
        methods=("nonprivate", "frank_wolfe"),
        default_ns=(100, 1000, 10_000), default_reps=100, default_epsilon=1.0,
        run_task=_run_task,                     # module-level function (picklable), see below
        plan=blocks_by_n(25),                   # how units are grouped into parallel tasks
        defaults={"sweeps": 1000},              # experiment-specific options (overridable)
        quick={"ns": (100, 1000), "reps": 10},  # settings that finish in a few seconds
    ))

and add the module's name to ``EXPERIMENT_MODULES`` in ``dpcore/experiments/__init__.py``.
Registration is only open while ``dpcore.experiments`` is being imported; the package then
seals the registry into a read-only ``MappingProxyType`` (:data:`REGISTRY`) — no user session can
add, remove or change an experiment afterwards (``register`` then raises ``RuntimeError``).

``run_task(config, units)`` receives the frozen :class:`RunConfig` and a tuple of ``(n, rep)``
pairs and returns a list of row dicts with at least ``method``, ``n``, ``rep``, ``error``
(extra numeric columns such as ``acceptance`` are kept). It must draw every random number of unit
``(n, rep)`` from :func:`unit_rngs` ``(config, n, rep)`` only, so that results depend on the seed
and not on how units are grouped into tasks or on the number of worker processes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from dpcore._rng import seed_sequence_for

Unit = tuple[int, int]                      # (n, rep)
Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class RunConfig:
    """Everything a task needs to know about a sweep (frozen, picklable).

    Attributes
    ----------
    experiment_id : str
    ns : tuple of int
        Sample sizes, increasing.
    reps : int
        Replicates per n.
    epsilon : float
        Privacy parameter of every private method.
    seed : int
        Root seed: unit ``(n, rep)`` uses ``seed_sequence_for(seed, n, rep)``.
    methods : tuple of str
        Methods to fit (a subset of the experiment's methods, in the experiment's order).
    params : Mapping
        Experiment-specific options (the experiment's ``defaults`` updated by the caller).
    """

    experiment_id: str
    ns: tuple[int, ...]
    reps: int
    epsilon: float
    seed: int
    methods: tuple[str, ...]
    all_methods: tuple[str, ...]
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __reduce__(self):  # MappingProxyType does not pickle: rebuild from a plain dict
        return (_rebuild_config, (self.experiment_id, self.ns, self.reps, self.epsilon, self.seed,
                                  self.methods, self.all_methods, dict(self.params)))


def _rebuild_config(experiment_id, ns, reps, epsilon, seed, methods, all_methods, params):
    return RunConfig(experiment_id, ns, reps, epsilon, seed, methods, all_methods, MappingProxyType(params))


Plan = Callable[[RunConfig], list[tuple[Unit, ...]]]
RunTask = Callable[[RunConfig, tuple[Unit, ...]], Rows]


def blocks_by_n(block: int) -> Plan:
    """Plan: for each n, the replicates in consecutive blocks of ``block`` (one task each).

    Use when a task needs the same n for all its units (e.g. full data arrays (R, n, d)).
    """
    if block < 1:
        raise ValueError(f"block must be >= 1; got {block}.")

    def plan(config: RunConfig) -> list[tuple[Unit, ...]]:
        return [tuple((n, r) for r in range(lo, min(lo + block, config.reps)))
                for n in config.ns for lo in range(0, config.reps, block)]
    plan.block = block  # type: ignore[attr-defined]
    return plan


def blocks_across_ns(block: int) -> Plan:
    """Plan: replicates in blocks of ``block``; one task holds those replicates at *every* n.

    Use when per-task overhead (e.g. a vectorised MCMC over all the task's chains) is large and
    the per-unit data are small (sufficient statistics).
    """
    if block < 1:
        raise ValueError(f"block must be >= 1; got {block}.")

    def plan(config: RunConfig) -> list[tuple[Unit, ...]]:
        return [tuple((n, r) for n in config.ns for r in range(lo, min(lo + block, config.reps)))
                for lo in range(0, config.reps, block)]
    plan.block = block  # type: ignore[attr-defined]
    return plan


@dataclass(frozen=True)
class Experiment:
    """Specification of one error-vs-n experiment (see the module docstring).

    Attributes
    ----------
    id, title, description : str
    caption : str
        What the figure shows (one or two sentences, shown under the plot).
    paper_protocol_note : str
        Where the paper's protocol uses a data-dependent step that a real release must replace
        (e.g. scaling by R = max|Y|); "" if none.
    methods : tuple of str
        Methods in display order; ``"nonprivate"`` (if present) is the reference curve.
    default_ns : tuple of int
    default_reps : int
    default_epsilon : float
    run_task : callable
        ``run_task(config, units) -> rows`` (module-level, picklable).
    plan : callable
        ``plan(config) -> list of tuples of units`` (fixed grouping, independent of ``jobs``).
    defaults : Mapping
        Experiment-specific options and their defaults (e.g. ``sweeps``, ``constants``).
    quick : Mapping
        Small settings (keys among ns, reps, and option names) that finish in a few seconds:
        used by the app's defaults and by tests.
    min_n, max_n : int
        Allowed range of n.
    reference_slope : float
        Slope of the reference line in the figure (−1/2: the parametric rate).
    validate : callable or None
        ``validate(params) -> params``: checks option values, raising DPValueError.
    method_labels : Mapping
        Display names of the methods.
    grouping_params : tuple of str
        Options that only change how units are grouped into tasks (never the results, e.g.
        ``block``); they are not written as columns of the frame.
    app_limits : Mapping
        Caps used by the app's page (``max_n``, ``max_reps``, ``max_sweeps``) so that a run stays
        interactive.
    """

    id: str
    title: str
    description: str
    caption: str
    paper_protocol_note: str
    methods: tuple[str, ...]
    default_ns: tuple[int, ...]
    default_reps: int
    default_epsilon: float
    run_task: RunTask
    plan: Plan
    defaults: Mapping[str, Any] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)
    min_n: int = 2
    max_n: int = 10**8
    reference_slope: float = -0.5
    validate: Callable[[dict], dict] | None = None
    method_labels: Mapping[str, str] = field(default_factory=dict)
    grouping_params: tuple[str, ...] = ()
    app_limits: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if not self.id or not all(c.isalnum() or c in "-_" for c in self.id):
            raise ValueError(f"experiment id {self.id!r} must be a non-empty slug of letters, digits, '-' or '_'.")
        if not self.methods or len(set(self.methods)) != len(self.methods):
            raise ValueError(f"experiment {self.id!r}: methods must be a non-empty tuple of distinct names.")
        if not self.default_ns or list(self.default_ns) != sorted(set(self.default_ns)):
            raise ValueError(f"experiment {self.id!r}: default_ns must be increasing.")
        object.__setattr__(self, "methods", tuple(self.methods))
        object.__setattr__(self, "default_ns", tuple(int(n) for n in self.default_ns))
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))
        object.__setattr__(self, "quick", MappingProxyType(dict(self.quick)))
        object.__setattr__(self, "method_labels", MappingProxyType(dict(self.method_labels)))
        object.__setattr__(self, "app_limits", MappingProxyType(dict(self.app_limits)))
        object.__setattr__(self, "grouping_params", tuple(self.grouping_params))

    def label(self, method: str) -> str:
        """Display name of ``method``."""
        return self.method_labels.get(method, method)

    def __reduce__(self):  # MappingProxyType fields do not pickle: rebuild from plain dicts
        kw = {f: getattr(self, f) for f in self.__dataclass_fields__}
        for f in ("defaults", "quick", "method_labels", "app_limits"):
            kw[f] = dict(kw[f])
        return (_rebuild_experiment, (kw,))


def _rebuild_experiment(kw):
    return Experiment(**kw)


# -- random streams -----------------------------------------------------------------------------
def unit_rngs(config: RunConfig, n: int, rep: int) -> dict[str, np.random.Generator]:
    """Independent generators of unit ``(n, rep)``: ``"data"`` and one per method.

    All derive from ``seed_sequence_for(config.seed, n, rep)`` only. Child 0 is the data stream;
    method ``m`` uses child ``1 + all_methods.index(m)``, so a method's stream is the same whether
    or not other methods are run, and the data of a unit do not depend on ε or on the methods.
    """
    children = seed_sequence_for(config.seed, n, rep).spawn(1 + len(config.all_methods))
    out = {"data": np.random.default_rng(children[0])}
    for i, m in enumerate(config.all_methods):
        out[m] = np.random.default_rng(children[1 + i])
    return out


# -- the registry ----------------------------------------------------------------------------------
class _Registration:
    """Collects experiments while the package is imported; sealed afterwards (see module doc)."""

    __slots__ = ("_items", "_sealed")

    def __init__(self):
        self._items: dict[str, Experiment] = {}
        self._sealed = False

    def add(self, experiment: Experiment) -> Experiment:
        if self._sealed:
            raise RuntimeError(
                f"cannot register {getattr(experiment, 'id', experiment)!r}: the experiment registry is "
                "sealed once dpcore.experiments is imported; add your module to "
                "dpcore.experiments.EXPERIMENT_MODULES instead.")
        if not isinstance(experiment, Experiment):
            raise TypeError(f"register expects an Experiment; got {type(experiment).__name__}.")
        if experiment.id in self._items:
            raise ValueError(f"an experiment with id {experiment.id!r} is already registered.")
        self._items[experiment.id] = experiment
        return experiment

    def seal(self) -> Mapping[str, Experiment]:
        self._sealed = True
        return MappingProxyType(dict(self._items))


_REGISTRATION = _Registration()


def register(experiment: Experiment) -> Experiment:
    """Add ``experiment`` to the registry (only while ``dpcore.experiments`` is being imported).

    Returns the experiment, so ``EXP = register(Experiment(...))`` keeps a module-level name.
    """
    return _REGISTRATION.add(experiment)


def _seal() -> Mapping[str, Experiment]:
    return _REGISTRATION.seal()


def validate_ns(ns: Sequence[Any], experiment: Experiment) -> tuple[int, ...]:
    """Sorted distinct integer sample sizes within the experiment's [min_n, max_n]."""
    from dpcore._validation import DPValueError, check_int

    if isinstance(ns, (str, bytes)) or not hasattr(ns, "__iter__"):
        raise DPValueError(f"ns must be a list of sample sizes such as [100, 1000, 10000]; got {ns!r}.")
    out = []
    for v in ns:
        if isinstance(v, float) and math.isfinite(v) and v == int(v):
            v = int(v)
        out.append(check_int(v, "n (in ns)", lo=experiment.min_n, hi=experiment.max_n))
    if not out:
        raise DPValueError("ns is empty; give at least one sample size (e.g. 100,1000,10000).")
    return tuple(sorted(set(out)))

"""What a figure declares: its swept x axis (:class:`Axis`), its options, and how it runs.

Why this module is long: the declaration (:class:`Experiment`), the settings it validates (axis values,
options typed from their defaults, the run-time model) and the per-unit seeding are one contract that every
topic's figures rely on; splitting them would scatter the rules a figure must obey.

An *experiment* is a Monte-Carlo sweep over the values ``x`` of one named axis (sample size n,
privacy parameter ε, dimension p, 1/α, …) and replicates ``rep``: every unit ``(x, rep)`` draws
its own data and fits every method on it; the result is one row per (method, x, rep) with the
error. A topic declares its figures in ``dpcore/<topic>/declare.py``
(``Topic(..., experiments=(Experiment(...), ...))``); :mod:`dpcore.registry` finds them, and
``python -m dpcore reproduce ID`` turns the declared options into command-line flags.

Declaring a figure::

    from dpcore.experiments import Axis, Experiment, blocks_by_x, unit_rngs

    def run_task(config, units):                 # module-level: worker processes pickle it
        rows = []
        for eps, rep in units:                   # units are (x, rep) pairs
            g = unit_rngs(config, eps, rep)      # "data" + one Generator per method
            ...
            rows.append({"method": "laplace", "epsilon": eps, "rep": rep, "error": err})
        return rows

    HIST_EPS = Experiment(
        id="hist-eps", title="...", description="...", caption="...",
        methods=("nonprivate", "laplace"),
        axis=Axis("epsilon", "privacy parameter ε", values=(0.01, 0.1, 1, 10), integer=False, lo=1e-4, hi=1e4),
        default_epsilon=None,                    # ε is the axis here
        default_reps=100, run_task=run_task, plan=blocks_by_x(25),
        options={"bins": 64}, option_help={"bins": "number of histogram bins"},
        quick={"x": (0.1, 1, 10), "reps": 10},
        reference_slope=-1.0, reference_label="ε⁻¹",
    )

``run_task(config, units)`` returns rows with at least ``method``, the axis column
(``config.axis``), ``rep`` and ``error``; extra numeric columns are kept. Every random number of
unit ``(x, rep)`` must come from :func:`unit_rngs` ``(config, x, rep)``, so that results depend
on the seed and not on how units are grouped into tasks or on the number of worker processes.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from dpcore._rng import seed_sequence_for

Unit = tuple[Any, int]                      # (x, rep)
Rows = list[dict[str, Any]]

#: Names a figure's option may not take (they are the runner's own settings and CLI flags).
RESERVED = frozenset({"x", "xs", "reps", "epsilon", "seed", "jobs", "methods", "out", "list", "quiet", "help",
                      "id", "progress", "backend", "experiment", "figure", "method", "rep", "error"})


@dataclass(frozen=True)
class Axis:
    """The quantity a figure sweeps.

    Attributes
    ----------
    name : str
        Column of the frame and key of the units (``"n"``, ``"epsilon"``, ``"p"``, ``"inv_alpha"``).
        The command line takes its values as ``--x`` or ``--<name>s`` (``--ns``, ``--epsilons``).
    label : str
        Axis title with units, shown on the plot (``"sample size n (records)"``).
    values : tuple
        Default values (the paper's grid), increasing.
    log : bool
        Log scale (the figure is log–log and slopes are fitted on log10 x); False: linear x.
    integer : bool
        Values are whole numbers (n, p) rather than reals (ε).
    lo, hi : float
        Allowed range (inclusive).
    """

    name: str
    label: str
    values: tuple
    log: bool = True
    integer: bool = True
    lo: float = -math.inf
    hi: float = math.inf

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"axis name {self.name!r} must be an identifier (it becomes a frame column).")
        vals = tuple(self.coerce(v) for v in self.values)
        if not vals or list(vals) != sorted(set(vals)):
            raise ValueError(f"axis {self.name!r}: values must be a non-empty increasing tuple.")
        object.__setattr__(self, "values", vals)

    @property
    def flag(self) -> str:
        """The axis's own command-line flag (``ns`` for n)."""
        return self.name + "s"

    def coerce(self, v: Any) -> Any:
        """One value as the axis's type (int for integer axes; a whole-valued float is accepted)."""
        from dpcore._validation import DPValueError

        if isinstance(v, (bool, np.bool_)):
            raise DPValueError(f"{self.name} = {v!r} is not a number.")
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise DPValueError(f"{self.name} = {v!r} is not a number; give values such as "
                               f"{', '.join(map(str, self.values[:3]))}.") from None
        if not math.isfinite(f):
            raise DPValueError(f"{self.name} = {v!r} must be finite.")
        if self.integer:
            if f != int(f):
                raise DPValueError(f"{self.name} = {v!r} must be a whole number.")
            out: Any = int(f)
        else:
            out = f
        if self.log and out <= 0:
            raise DPValueError(f"{self.name} = {v!r} must be positive (the axis is logarithmic).")
        if not self.lo <= out <= self.hi:
            raise DPValueError(f"{self.name} = {v!r} is outside the allowed range [{self.lo:g}, {self.hi:g}].")
        return out

    def grid(self, cap: float | None = None) -> tuple:
        """Values an interactive page offers: the defaults and, on a log axis, every power of ten
        between the smallest default (or ``lo``) and ``min(hi, cap)``; all ≤ ``cap``.

        >>> Axis("n", "n", values=(100, 1000), lo=20).grid(cap=10_000)
        (100, 1000, 10000)
        """
        top = min(self.hi, math.inf if cap is None else cap)
        out = {v for v in self.values if v <= top}
        if self.log:
            bottom = max(self.lo, min(self.values)) if self.lo > 0 else min(self.values)
            k0 = math.ceil(math.log10(bottom) - 1e-9)
            k1 = math.floor(math.log10(min(top, max(self.values) * 10**6)) + 1e-9)
            for k in range(k0, k1 + 1):
                if self.integer and k < 0:
                    continue
                out.add(self.coerce(10**k if self.integer else 10.0**k))
        return tuple(sorted(out))

    def key(self, v: Any) -> int:
        """Integer seed key of value ``v``: the value itself on integer axes (so n-axis seeds are
        ``(seed, n, rep)``); the 64-bit pattern of the float otherwise (independent of the grid)."""
        if self.integer:
            return int(v)
        return struct.unpack("<Q", struct.pack("<d", float(v)))[0]


@dataclass(frozen=True)
class RunConfig:
    """Everything a task needs to know about a sweep (frozen, picklable).

    Attributes
    ----------
    experiment_id : str
    axis : str
        Name of the swept axis (the frame column).
    xs : tuple
        Values of the axis, increasing.
    reps : int
        Replicates per x.
    epsilon : float or None
        ε of every private method (None when ε is the axis or the figure has no ε).
    seed : int
        Root seed: unit ``(x, rep)`` uses ``seed_sequence_for(seed, key(x), rep)``.
    methods, all_methods : tuple of str
        Methods to fit (in the experiment's order) and all of the experiment's methods.
    params : Mapping
        The figure's options (its declared defaults updated by the caller).
    integer_axis : bool
        Whether the axis is integer (decides the seed key of x).
    """

    experiment_id: str
    axis: str
    xs: tuple
    reps: int
    epsilon: float | None
    seed: int
    methods: tuple[str, ...]
    all_methods: tuple[str, ...]
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    integer_axis: bool = True

    @property
    def eps(self) -> float:
        """ε of a figure with one ε (an error naming the fix when ``epsilon`` is None)."""
        if self.epsilon is None:
            from dpcore._validation import DPValueError
            raise DPValueError(f"{self.experiment_id}: this figure needs one ε; give --epsilon (it has none).")
        return float(self.epsilon)

    @property
    def ns(self) -> tuple:
        """The x values (name kept for error-vs-n figures)."""
        return self.xs

    def x_key(self, x: Any) -> int:
        """Seed key of value ``x`` (see :meth:`Axis.key`)."""
        return int(x) if self.integer_axis else struct.unpack("<Q", struct.pack("<d", float(x)))[0]

    def __reduce__(self):  # MappingProxyType does not pickle: rebuild from a plain dict
        return (_rebuild_config, (self.experiment_id, self.axis, self.xs, self.reps, self.epsilon, self.seed,
                                  self.methods, self.all_methods, dict(self.params), self.integer_axis))


def _rebuild_config(experiment_id, axis, xs, reps, epsilon, seed, methods, all_methods, params, integer_axis):
    return RunConfig(experiment_id, axis, xs, reps, epsilon, seed, methods, all_methods,
                     MappingProxyType(params), integer_axis)


Plan = Callable[[RunConfig], list[tuple[Unit, ...]]]
RunTask = Callable[[RunConfig, tuple[Unit, ...]], Rows]


def blocks_by_x(block: int) -> Plan:
    """Plan: for each x, the replicates in consecutive blocks of ``block`` (one task each).

    Use when a task needs the same x for all its units (e.g. full data arrays (R, n, d)).
    """
    if block < 1:
        raise ValueError(f"block must be >= 1; got {block}.")

    def plan(config: RunConfig) -> list[tuple[Unit, ...]]:
        return [tuple((x, r) for r in range(lo, min(lo + block, config.reps)))
                for x in config.xs for lo in range(0, config.reps, block)]
    plan.block = block  # type: ignore[attr-defined]
    return plan


def blocks_across_x(block: int) -> Plan:
    """Plan: replicates in blocks of ``block``; one task holds those replicates at *every* x.

    Use when per-task overhead (e.g. a vectorised MCMC over all the task's chains) is large and
    the per-unit data are small (sufficient statistics).
    """
    if block < 1:
        raise ValueError(f"block must be >= 1; got {block}.")

    def plan(config: RunConfig) -> list[tuple[Unit, ...]]:
        return [tuple((x, r) for x in config.xs for r in range(lo, min(lo + block, config.reps)))
                for lo in range(0, config.reps, block)]
    plan.block = block  # type: ignore[attr-defined]
    return plan


#: Names kept for error-vs-n figures.
blocks_by_n = blocks_by_x
blocks_across_ns = blocks_across_x

_OPTION_TYPES = (bool, int, float, str)


@dataclass(frozen=True)
class Experiment:
    """Declaration of one figure (see the module docstring).

    Attributes
    ----------
    id, title, description : str
        ``id`` is a slug (``python -m dpcore reproduce ID``).
    caption : str
        What the figure is about (one or two sentences; the page adds numbers computed from the run).
    methods : tuple of str
        Methods in display order; ``"nonprivate"`` (if present) is the reference curve.
    axis : Axis
        The swept quantity.
    default_reps : int
    run_task : callable
        ``run_task(config, units) -> rows`` (module-level, picklable).
    plan : callable
        ``plan(config) -> list of tuples of units`` (fixed grouping, independent of ``jobs``);
        default :func:`blocks_by_x` ``(25)``.
    default_epsilon : float or None
        ε of the private methods; None when ε is the axis or not a parameter of the figure.
    options : Mapping
        The figure's own options and their defaults (bool, int, float or str). Each becomes a
        flag ``--name`` of ``python -m dpcore reproduce ID``, typed from its default.
    option_help, option_choices : Mapping
        Help text per option; allowed values of str options.
    quick : Mapping
        Small settings that finish in seconds (keys ``x``, ``reps`` and option names): the app's
        defaults and the tests' settings.
    paper_protocol_note : str
        Where the paper's protocol uses a data-dependent step a real release must replace; "" if none.
    reference_slope : float or None
        Slope of the reference line of the plot (−1/2: the parametric rate in n); None: no line.
    reference_label : str
        The rate it stands for, e.g. ``"n^−1/2"``.
    error_label : str
        What ``error`` measures, with units (the y axis title).
    validate : callable or None
        ``validate(params) -> params``: checks option values, raising DPValueError.
    method_labels : Mapping
        Display names overriding :mod:`dpcore.viz.style`'s labels.
    grouping_params : tuple of str
        Options that only change how units are grouped into tasks (never the results, e.g.
        ``block``); they are not written as columns of the frame.
    app_limits : Mapping
        Caps used by the app (``max_x``, ``max_reps``, ``max_<option>``) so a run stays interactive.
    app_options : tuple of str or None
        Options the app shows as widgets (None: every option but the grouping ones); the others
        keep their defaults there (the CLI still takes them all).
    unit_seconds : callable or None
        ``unit_seconds(x, params, methods) -> float``: the estimated seconds of ONE replicate at x (every
        method), from public settings only, measured on the 2-core reference machine. With it, a run asked
        with ``max_seconds`` (the app) is refused up front when replicates × Σ_x unit_seconds exceeds it.
    """

    id: str
    title: str
    description: str
    caption: str
    methods: tuple[str, ...]
    axis: Axis
    default_reps: int
    run_task: RunTask
    plan: Plan | None = None
    default_epsilon: float | None = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)
    option_help: Mapping[str, str] = field(default_factory=dict)
    option_choices: Mapping[str, tuple] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)
    paper_protocol_note: str = ""
    reference_slope: float | None = -0.5
    reference_label: str = ""
    error_label: str = "mean error"
    validate: Callable[[dict], dict] | None = None
    method_labels: Mapping[str, str] = field(default_factory=dict)
    grouping_params: tuple[str, ...] = ()
    app_limits: Mapping[str, Any] = field(default_factory=dict)
    app_options: tuple[str, ...] | None = None
    unit_seconds: Callable[[Any, Mapping[str, Any], tuple[str, ...]], float] | None = None

    def __post_init__(self) -> None:
        if not self.id or not all(c.isalnum() or c in "-_" for c in self.id):
            raise ValueError(f"experiment id {self.id!r} must be a non-empty slug of letters, digits, '-' or '_'.")
        if not self.methods or len(set(self.methods)) != len(self.methods):
            raise ValueError(f"experiment {self.id!r}: methods must be a non-empty tuple of distinct names.")
        if not isinstance(self.axis, Axis):
            raise TypeError(f"experiment {self.id!r}: axis must be an Axis; got {type(self.axis).__name__}.")
        if self.axis.name == "epsilon" and self.default_epsilon is not None:
            raise ValueError(f"experiment {self.id!r} sweeps ε: default_epsilon must be None.")
        for name, default in dict(self.options).items():
            if not name.isidentifier() or name in RESERVED or name in (self.axis.name, self.axis.flag):
                raise ValueError(f"experiment {self.id!r}: option name {name!r} is reserved or not an identifier.")
            if type(default) not in _OPTION_TYPES:
                raise TypeError(f"experiment {self.id!r}: option {name!r} has default {default!r}; "
                                "defaults must be bool, int, float or str (they type the CLI flag).")
        for d in (self.option_help, self.option_choices, self.grouping_params, self.app_options or ()):
            extra = set(d) - set(self.options)
            if extra:
                raise ValueError(f"experiment {self.id!r}: {sorted(extra)} are not among its options.")
        extra = set(self.quick) - set(self.options) - {"x", "reps"}
        if extra:
            raise ValueError(f"experiment {self.id!r}: quick settings {sorted(extra)} are not options.")
        object.__setattr__(self, "methods", tuple(self.methods))
        for f in ("options", "option_help", "quick", "method_labels", "app_limits"):
            object.__setattr__(self, f, MappingProxyType(dict(getattr(self, f))))
        object.__setattr__(self, "option_choices",
                           MappingProxyType({k: tuple(v) for k, v in dict(self.option_choices).items()}))
        object.__setattr__(self, "grouping_params", tuple(self.grouping_params))
        if self.app_options is None:
            object.__setattr__(self, "app_options", tuple(k for k in self.options if k not in self.grouping_params))
        object.__setattr__(self, "app_options", tuple(self.app_options or ()))

    def label(self, method: str) -> str:
        """Display name of ``method`` (its own override, else :func:`dpcore.viz.style.label`)."""
        from dpcore.viz.style import label

        return self.method_labels.get(method) or label(method)

    @property
    def default_xs(self) -> tuple:
        """The axis's default values."""
        return self.axis.values

    @property
    def quick_xs(self) -> tuple:
        """The axis values of the quick settings (default: the first three defaults)."""
        return tuple(self.axis.coerce(v) for v in self.quick.get("x", self.axis.values[:3]))

    def __reduce__(self):  # MappingProxyType fields do not pickle: rebuild from plain dicts
        kw = {f: getattr(self, f) for f in self.__dataclass_fields__}
        for f in ("options", "option_help", "option_choices", "quick", "method_labels", "app_limits"):
            kw[f] = dict(kw[f])
        return (_rebuild_experiment, (kw,))


def _rebuild_experiment(kw):
    return Experiment(**kw)


# -- random streams -----------------------------------------------------------------------------
def unit_rngs(config: RunConfig, x: Any, rep: int) -> dict[str, np.random.Generator]:
    """Independent generators of unit ``(x, rep)``: ``"data"`` and one per method.

    All derive from ``seed_sequence_for(config.seed, key(x), rep)`` only (key(n) = n on integer
    axes). Child 0 is the data stream; method ``m`` uses child ``1 + all_methods.index(m)``, so a
    method's stream is the same whether or not other methods are run, and the data of a unit do
    not depend on ε or on the methods.
    """
    children = seed_sequence_for(config.seed, config.x_key(x), rep).spawn(1 + len(config.all_methods))
    out = {"data": np.random.default_rng(children[0])}
    for i, m in enumerate(config.all_methods):
        out[m] = np.random.default_rng(children[1 + i])
    return out


def validate_xs(xs: Sequence[Any], axis: Axis) -> tuple:
    """Sorted distinct values of ``axis`` (DPValueError naming the axis otherwise)."""
    from dpcore._validation import DPValueError

    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise DPValueError(f"{axis.flag} must be a list of values such as {list(axis.values[:3])}; got {xs!r}.")
    out = [axis.coerce(v) for v in xs]
    if not out:
        raise DPValueError(f"{axis.flag} is empty; give at least one value (e.g. {list(axis.values[:3])}).")
    return tuple(sorted(set(out)))

"""The sweep runner: experiment id → tidy pandas frame, in parallel, depending only on the seed.

Why this module is long: one run path (settings → run-time check → plan → tasks on loky, threads or Dask
→ progress and cancellation → the tidy frame) is kept in one place so that every backend provably runs the
same tasks with the same seeds; the declarations it runs live in :mod:`.spec`.

Parallelism (design.md): joblib with the loky backend; each task is a fixed group of units
``(x, rep)`` planned by the experiment (never by the number of workers), and every random number
of a unit comes from ``seed_sequence_for(seed, key(x), rep)`` — so ``jobs=1`` and ``jobs=8`` give the
same frame, bit for bit. ``jobs=1`` runs in-process (no worker processes). Through joblib's
backend mechanism (``joblib.parallel_config(backend="dask")``, ``"ray"``) the same sweep can run
on a cluster: pass ``backend=`` here.

Progress and cancellation: ``progress(done_tasks, total_tasks)`` is called once before any work
(``done = 0``) and after every finished task. If it returns ``False`` (exactly; ``None`` means
continue) the run stops: running worker tasks are aborted, and :class:`Cancelled` is raised; its
``frame`` attribute holds the rows of the tasks finished so far (a valid, smaller tidy frame).
"""
from __future__ import annotations

import math
import secrets
import time
import warnings
from types import MappingProxyType
from typing import Any, Callable, Generator, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from dpcore._validation import DPValueError, check_choice, check_epsilon, check_int
from dpcore.errors import Cancelled
from dpcore.limits import check_work
from dpcore.experiments.spec import Experiment, RunConfig, Unit, blocks_by_x, validate_xs

Progress = Callable[[int, int], Any]

MAX_REPS = 100_000
SEED_MAX = 2**63 - 1


def base_columns(experiment: Experiment) -> tuple[str, ...]:
    """Columns every frame of ``experiment`` has, in this order (extra columns follow):
    ``figure, method, <axis>, rep, error, epsilon, seed`` (``epsilon`` only once when it is the axis)."""
    cols = ["figure", "method", experiment.axis.name, "rep", "error"]
    if experiment.axis.name != "epsilon":
        cols.append("epsilon")
    return tuple(cols + ["seed"])


def get_experiment(experiment: str | Experiment) -> Experiment:
    """The registered experiment with this id (or the Experiment itself)."""
    if isinstance(experiment, Experiment):
        return experiment
    from dpcore.experiments import registry

    table = registry()
    if experiment not in table:
        raise DPValueError(f"experiment = {experiment!r} is unknown; choose one of "
                           f"{', '.join(sorted(table))} (python -m dpcore reproduce --list).")
    return table[experiment]


def _coerce_option(exp: Experiment, name: str, value: Any) -> Any:
    """``value`` as the type of the option's default (an int-valued float is an int; "yes" is not a bool)."""
    default = exp.options[name]
    kind = type(default)
    bad = DPValueError(f"option {name} = {value!r} of experiment {exp.id!r} must be of type {kind.__name__} "
                       f"(default {default!r}).")
    if kind is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise bad
        return bool(value)
    if kind is int:
        if isinstance(value, (bool, np.bool_)):
            raise bad
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise bad from None
        if not math.isfinite(f) or f != int(f):
            raise bad
        return int(f)
    if kind is float:
        if isinstance(value, (bool, np.bool_)):
            raise bad
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad from None
    value = str(value)
    if name in exp.option_choices:
        value = check_choice(value, name, exp.option_choices[name])
    return value


def make_config(experiment: str | Experiment, *, xs: Sequence[Any] | None = None, ns: Sequence[int] | None = None,
                reps: int | None = None, epsilon: float | None = None, seed: int | None = None,
                methods: Sequence[str] | None = None, **params: Any) -> RunConfig:
    """Validate a sweep's settings (None → the experiment's default) into a frozen RunConfig.

    ``xs`` are the values of the experiment's axis (``ns`` is accepted for an n axis).
    ``seed=None`` draws a fresh 63-bit seed from OS entropy; it is recorded in the frame, so the
    run can be reproduced.
    """
    exp = get_experiment(experiment)
    if ns is not None:
        if exp.axis.name != "n":
            raise DPValueError(f"ns is for experiments that sweep n; {exp.id!r} sweeps {exp.axis.name}: "
                               f"pass xs=[...] instead.")
        if xs is not None:
            raise DPValueError("give either xs or ns, not both.")
        xs = ns
    xs_t = validate_xs(exp.axis.values if xs is None else xs, exp.axis)
    reps_i = check_int(exp.default_reps if reps is None else reps, "reps", lo=1, hi=MAX_REPS)
    if exp.default_epsilon is None:
        if epsilon is not None:
            raise DPValueError(f"epsilon = {epsilon!r} is not a setting of experiment {exp.id!r}"
                               + (" (it sweeps ε: give the values as xs)." if exp.axis.name == "epsilon" else "."))
        eps = None
    else:
        eps = check_epsilon(exp.default_epsilon if epsilon is None else epsilon)
    seed_i = secrets.randbits(63) if seed is None else check_int(seed, "seed", lo=0, hi=SEED_MAX)
    if methods is None:
        meth = exp.methods
    else:
        if isinstance(methods, str):
            methods = [m.strip() for m in methods.split(",") if m.strip()]
        chosen = {check_choice(m, "method", exp.methods) for m in methods}
        if not chosen:
            raise DPValueError(f"methods is empty; choose among {', '.join(exp.methods)}.")
        meth = tuple(m for m in exp.methods if m in chosen)
    unknown = sorted(set(params) - set(exp.options))
    if unknown:
        raise DPValueError(f"option(s) {', '.join(map(repr, unknown))} unknown for experiment {exp.id!r}; "
                           f"valid options: {', '.join(sorted(exp.options)) or 'none'}.")
    merged = dict(exp.options)
    merged.update({k: _coerce_option(exp, k, v) for k, v in params.items() if v is not None})
    if exp.validate is not None:
        merged = exp.validate(merged)
    return RunConfig(exp.id, exp.axis.name, xs_t, reps_i, eps, seed_i, meth, exp.methods,
                     MappingProxyType(merged), exp.axis.integer)


def _plan(exp: Experiment):
    return exp.plan if exp.plan is not None else blocks_by_x(25)


def plan_tasks(experiment: str | Experiment, config: RunConfig) -> list[tuple[Unit, ...]]:
    """The experiment's grouping of the config's units into tasks (checked to cover each unit once)."""
    exp = get_experiment(experiment)
    tasks = [tuple(t) for t in _plan(exp)(config) if len(t)]
    units = sorted(u for t in tasks for u in t)
    expected = sorted((x, r) for x in config.xs for r in range(config.reps))
    if units != expected:
        raise RuntimeError(f"experiment {exp.id!r}: its plan does not cover every ({config.axis}, rep) exactly once.")
    return tasks


def _execute(experiment: Experiment, config: RunConfig, units: tuple[Unit, ...]) -> list[dict]:
    """Worker entry point: run one task (module-level so that loky can pickle it).

    BLAS is limited to one thread inside a task: the work is many small products (chunks of
    50 000 × 12, batched 12 × 12 systems), where OpenBLAS threading is ~3× *slower* on 2 cores,
    and parallelism comes from the worker processes.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn/joblib setups
        rows = experiment.run_task(config, units)
    else:
        with threadpool_limits(limits=1, user_api="blas"):
            rows = experiment.run_task(config, units)
    axis = config.axis
    want = {(config.x_key(x), r) for x, r in units}
    for row in rows:
        if axis not in row or (config.x_key(row[axis]), int(row["rep"])) not in want:
            raise RuntimeError(f"experiment {experiment.id!r} returned a row for unit "
                               f"({row.get(axis)!r}, {row.get('rep')!r}) outside its task "
                               f"(rows must carry the axis column {axis!r}).")
    return rows


def _assemble(experiment: Experiment, config: RunConfig, rows: Iterable[dict]) -> pd.DataFrame:
    axis = experiment.axis
    frame = pd.DataFrame(list(rows))
    if frame.empty:
        frame = pd.DataFrame({c: pd.Series(dtype=float) for c in ("method", axis.name, "rep", "error")})
    frame.insert(0, "figure", experiment.id)
    if axis.name != "epsilon":
        frame["epsilon"] = np.nan if config.epsilon is None else config.epsilon
    frame["seed"] = config.seed
    for k, v in config.params.items():
        if k not in frame.columns and k not in experiment.grouping_params and isinstance(v, (int, float, str, bool)):
            frame[k] = v
    frame[axis.name] = frame[axis.name].astype("int64" if axis.integer else float)
    frame["rep"] = frame["rep"].astype("int64")
    frame["error"] = frame["error"].astype(float)
    order = {m: i for i, m in enumerate(experiment.methods)}
    frame["_order"] = frame["method"].map(order)
    frame = frame.sort_values(["_order", axis.name, "rep"], kind="stable").drop(columns="_order")
    base = base_columns(experiment)
    cols = list(base) + [c for c in frame.columns if c not in base]
    frame = frame[cols].reset_index(drop=True)
    frame.attrs = {
        "experiment": experiment.id,
        "title": experiment.title,
        "caption": experiment.caption,
        "paper_protocol_note": experiment.paper_protocol_note,
        "axis": axis.name,
        "axis_label": axis.label,
        "log_x": axis.log,
        "xs": list(config.xs),
        "reps": config.reps,
        "epsilon": config.epsilon,
        "seed": config.seed,
        "methods": list(config.methods),
        "params": dict(config.params),
        "reference_slope": experiment.reference_slope,
        "reference_label": experiment.reference_label,
        "error_label": experiment.error_label,
        "method_labels": {m: experiment.label(m) for m in experiment.methods},
    }
    if axis.name == "n":
        frame.attrs["ns"] = list(config.xs)
    return frame


def estimated_seconds(exp: Experiment, xs: Sequence[Any], reps: int, params: Mapping[str, Any],
                      methods: Sequence[str]) -> float | None:
    """replicates × Σ_x ``exp.unit_seconds`` (None when the experiment declares no estimate)."""
    if exp.unit_seconds is None:
        return None
    return int(reps) * sum(float(exp.unit_seconds(x, params, tuple(methods))) for x in xs)


def check_run_time(exp: Experiment, xs: Sequence[Any], reps: int, params: Mapping[str, Any],
                   methods: Sequence[str], max_seconds: float) -> None:
    """Refuse a run whose estimated time (public settings only) exceeds ``max_seconds``, before it starts."""
    if exp.unit_seconds is None:
        return
    per_rep = sum(float(exp.unit_seconds(x, params, tuple(methods))) for x in xs)
    check_work(f"estimated run time of {exp.id!r} (seconds)", {"replicates": int(reps),
               f"seconds per replicate over {exp.axis.name} = {', '.join(map(str, xs))}": round(per_rep, 2)},
               max_seconds, fix=f"lower the replicates or the largest {exp.axis.name}, or run it from the command "
                                f"line (python -m dpcore reproduce {exp.id})")


def run_experiment(experiment: str | Experiment, *, xs: Sequence[Any] | None = None,
                   ns: Sequence[int] | None = None, reps: int | None = None, epsilon: float | None = None,
                   seed: int | None = None, jobs: int = -1, progress: Progress | None = None,
                   methods: Sequence[str] | None = None, backend: str = "loky", scheduler: str | None = None,
                   max_seconds: float | None = None,
                   **params: Any) -> pd.DataFrame:
    """Run a sweep and return the tidy frame (one row per method, x, rep).

    Parameters
    ----------
    experiment : str or Experiment
        A registered id (``python -m dpcore reproduce --list``) or an Experiment object.
    xs, reps, epsilon, methods
        Values of the experiment's axis, replicates per x, ε, subset of methods; None → the
        experiment's defaults. ``ns`` is accepted instead of ``xs`` for an n axis.
    seed : int or None
        Root seed; the frame depends only on it (and the settings). None → fresh entropy (recorded
        in the ``seed`` column).
    jobs : int
        Worker processes: -1 = all cores (default), 1 = in-process, k > 1 = k processes.
        Never changes the result.
    progress : callable or None
        ``progress(done_tasks, total_tasks)``; return ``False`` to cancel (raises :class:`Cancelled`
        carrying the partial frame).
    backend : str
        "loky" (default: local worker processes through joblib), "threading", or "dask": the tasks go to a
        Dask cluster (``distributed``), the same tasks with the same per-unit seeds, so the frame is the
        same as with ``jobs=1``; ``jobs`` is then ignored (the cluster's workers decide).
    scheduler : str or None
        With ``backend="dask"``: the scheduler's address (``"tcp://host:8786"``); None uses the Dask client
        already active in this process (``distributed.Client(...)``).
    max_seconds : float or None
        The app's budget: when the experiment declares ``unit_seconds``, a run whose estimate
        replicates × Σ_x unit_seconds exceeds it is refused before anything runs (:func:`check_run_time`).
    **params
        The experiment's options (e.g. ``sweeps``, ``constants``); unknown names are rejected.

    Returns
    -------
    pandas.DataFrame
        Columns :func:`base_columns` (``figure, method, <axis>, rep, error, epsilon, seed``), then
        experiment extras (e.g. ``acceptance``) and scalar options; sorted by (method order, x,
        rep). ``frame.attrs`` holds the settings, the axis, ``elapsed_s`` and the experiment's
        ``paper_protocol_note``.
    """
    exp = get_experiment(experiment)
    config = make_config(exp, xs=xs, ns=ns, reps=reps, epsilon=epsilon, seed=seed, methods=methods, **params)
    if max_seconds is not None:
        check_run_time(exp, config.xs, config.reps, {**config.params, "epsilon": config.epsilon}, config.methods,
                       max_seconds)
    jobs = _checked_jobs(jobs)
    # Largest tasks first (by total x, e.g. total n): better load balance; never changes results.
    tasks = sorted(plan_tasks(exp, config), key=lambda t: -sum(float(x) for x, _ in t))
    total = len(tasks)
    t0 = time.perf_counter()
    collected: list[dict] = []
    done = 0

    def cancelled() -> Cancelled:
        part = _assemble(exp, config, collected)
        part.attrs["elapsed_s"] = time.perf_counter() - t0
        part.attrs["cancelled"] = True
        return Cancelled(f"run cancelled after {done} of {total} tasks; the partial frame ({len(part)} rows) "
                         "is in .frame", done=done, total=total, partial=part)

    if progress is not None and progress(0, total) is False:
        raise cancelled()
    n_workers, results = _task_source(exp, config, tasks, jobs=jobs, backend=backend, scheduler=scheduler)
    try:
        for rows in results:
            collected.extend(rows)
            done += 1
            if progress is not None and progress(done, total) is False:
                raise cancelled()
    finally:
        results.close()
    frame = _assemble(exp, config, collected)
    frame.attrs["elapsed_s"] = time.perf_counter() - t0
    frame.attrs["jobs"] = n_workers if backend != "dask" else "dask"
    return frame


def _checked_jobs(jobs: Any) -> int:
    """``jobs`` as an int: -1 (all cores), 1 (in-process) or a positive count; anything else is refused."""
    jobs = int(jobs)
    if jobs == 0 or jobs < -1:
        raise DPValueError(f"jobs = {jobs} is invalid; use -1 (all cores), 1 (in-process) or a positive count.")
    return jobs


def _task_source(exp: Experiment, config: RunConfig, tasks: list, *, jobs: int, backend: str,
                 scheduler: str | None) -> tuple[int, Generator[list[dict], None, None]]:
    """(local worker count, 0 for Dask; the generator of every task's rows) for ``backend``."""
    if backend == "dask":
        return 0, _dask_results(exp, config, tasks, scheduler)
    if scheduler is not None:
        raise DPValueError(f"scheduler = {scheduler!r} applies only to backend='dask' (got backend={backend!r}).")
    n_workers = _effective_jobs(jobs, len(tasks))
    return n_workers, _task_rows(exp, config, tasks, n_workers, backend)


def _task_rows(exp: Experiment, config: RunConfig, tasks: list, n_workers: int,
               backend: str) -> Generator[list[dict], None, None]:
    """The rows of every task as it finishes: in-process (``n_workers == 1``) or from joblib workers.

    Closing the generator (a cancelled run) stops the workers' generator too."""
    if n_workers == 1:
        for units in tasks:
            yield _execute(exp, config, units)
        return
    from joblib import Parallel, delayed

    par = Parallel(n_jobs=n_workers, backend=backend, return_as="generator_unordered")
    gen = par(delayed(_execute)(exp, config, units) for units in tasks)
    try:
        for rows in gen:     # not `yield from`: closing this generator must close gen inside the filter below
            yield rows
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # joblib warns when a generator is closed early
            gen.close()


#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
DASK_CONNECT_TIMEOUT_S = 20


def _dask_results(exp: Experiment, config: RunConfig, tasks: list, scheduler: str | None):
    """Yield each task's rows as it finishes on a Dask cluster (``distributed``); cancel what is left when
    closed early. The tasks and their seeds are those of the local runs, so the frame is the same."""
    try:
        from distributed import Client, as_completed, get_client
    except ImportError as exc:
        raise DPValueError("backend='dask' needs the 'distributed' package: pip install \"dask[distributed]\".") from exc
    if scheduler is None:
        try:
            client, own = get_client(), False
        except ValueError as exc:
            raise DPValueError("backend='dask' found no Dask client in this process: pass scheduler='tcp://HOST:PORT' "
                               "(python -m dpcore reproduce ID --backend dask --scheduler ADDRESS) or start "
                               "distributed.Client(...) first.") from exc
    else:
        try:
            client, own = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT_S), True
        except OSError as exc:
            raise DPValueError(f"could not reach the Dask scheduler at {scheduler!r} ({exc}); check the address "
                               "(e.g. tcp://127.0.0.1:8786) and that `dask scheduler` is running.") from exc
    futures = [client.submit(_execute, exp, config, units, pure=False) for units in tasks]
    try:
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.cancel(futures)
        if own:
            client.close()


def _effective_jobs(jobs: int, n_tasks: int) -> int:
    if jobs == -1:
        from joblib import cpu_count

        jobs = cpu_count()
    return max(1, min(jobs, n_tasks))

"""The sweep runner: experiment id → tidy pandas frame, in parallel, depending only on the seed.

Parallelism (design.md): joblib with the loky backend; each task is a fixed group of units
``(n, rep)`` planned by the experiment (never by the number of workers), and every random number
of a unit comes from ``seed_sequence_for(seed, n, rep)`` — so ``jobs=1`` and ``jobs=8`` give the
same frame, bit for bit. ``jobs=1`` runs in-process (no worker processes). Through joblib's
backend mechanism (``joblib.parallel_config(backend="dask")``, ``"ray"``) the same sweep can run
on a cluster: pass ``backend=`` here.

Progress and cancellation: ``progress(done_tasks, total_tasks)`` is called once before any work
(``done = 0``) and after every finished task. If it returns ``False`` (exactly; ``None`` means
continue) the run stops: running worker tasks are aborted, and :class:`Cancelled` is raised; its
``frame`` attribute holds the rows of the tasks finished so far (a valid, smaller tidy frame).
"""
from __future__ import annotations

import secrets
import time
import warnings
from types import MappingProxyType
from typing import Any, Callable, Iterable, Sequence

import pandas as pd

from dpcore._validation import DPValueError, check_choice, check_epsilon, check_int
from dpcore.experiments._registry import Experiment, RunConfig, Unit, validate_ns

Progress = Callable[[int, int], Any]

#: Columns every frame has, in this order (extra experiment columns follow).
BASE_COLUMNS = ("figure", "method", "n", "rep", "error", "epsilon", "seed")
MAX_REPS = 100_000
SEED_MAX = 2**63 - 1


from dpcore.errors import Cancelled  # noqa: E402  (one type for every cancelled computation)


def get_experiment(experiment: str | Experiment) -> Experiment:
    """The registered experiment with this id (or the Experiment itself)."""
    if isinstance(experiment, Experiment):
        return experiment
    from dpcore.experiments import REGISTRY

    if experiment not in REGISTRY:
        raise DPValueError(f"experiment = {experiment!r} is unknown; choose one of "
                           f"{', '.join(sorted(REGISTRY))} (python -m dpcore reproduce --list).")
    return REGISTRY[experiment]


def make_config(experiment: str | Experiment, *, ns: Sequence[int] | None = None, reps: int | None = None,
                epsilon: float | None = None, seed: int | None = None, methods: Sequence[str] | None = None,
                **params: Any) -> RunConfig:
    """Validate a sweep's settings (None → the experiment's default) into a frozen RunConfig.

    ``seed=None`` draws a fresh 63-bit seed from OS entropy; it is recorded in the frame, so the
    run can be reproduced.
    """
    exp = get_experiment(experiment)
    ns_t = validate_ns(exp.default_ns if ns is None else ns, exp)
    reps_i = check_int(exp.default_reps if reps is None else reps, "reps", lo=1, hi=MAX_REPS)
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
    unknown = sorted(set(params) - set(exp.defaults))
    if unknown:
        raise DPValueError(f"option(s) {', '.join(map(repr, unknown))} unknown for experiment {exp.id!r}; "
                           f"valid options: {', '.join(sorted(exp.defaults)) or 'none'}.")
    merged = dict(exp.defaults)
    merged.update({k: v for k, v in params.items() if v is not None})
    if exp.validate is not None:
        merged = exp.validate(merged)
    return RunConfig(exp.id, ns_t, reps_i, eps, seed_i, meth, exp.methods, MappingProxyType(merged))


def plan_tasks(experiment: str | Experiment, config: RunConfig) -> list[tuple[Unit, ...]]:
    """The experiment's grouping of the config's units into tasks (checked to cover each unit once)."""
    exp = get_experiment(experiment)
    tasks = [tuple(t) for t in exp.plan(config) if len(t)]
    units = sorted(u for t in tasks for u in t)
    expected = sorted((n, r) for n in config.ns for r in range(config.reps))
    if units != expected:
        raise RuntimeError(f"experiment {exp.id!r}: its plan does not cover every (n, rep) exactly once.")
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
    want = set(units)
    for row in rows:
        if (int(row["n"]), int(row["rep"])) not in want:
            raise RuntimeError(f"experiment {experiment.id!r} returned a row for unit "
                               f"({row['n']}, {row['rep']}) outside its task.")
    return rows


def _assemble(experiment: Experiment, config: RunConfig, rows: Iterable[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows))
    if frame.empty:
        frame = pd.DataFrame({c: pd.Series(dtype=float) for c in ("method", "n", "rep", "error")})
    frame.insert(0, "figure", experiment.id)
    frame["epsilon"] = config.epsilon
    frame["seed"] = config.seed
    for k, v in config.params.items():
        if k not in frame.columns and k not in experiment.grouping_params and isinstance(v, (int, float, str, bool)):
            frame[k] = v
    frame["n"] = frame["n"].astype("int64")
    frame["rep"] = frame["rep"].astype("int64")
    frame["error"] = frame["error"].astype(float)
    order = {m: i for i, m in enumerate(experiment.methods)}
    frame["_order"] = frame["method"].map(order)
    frame = frame.sort_values(["_order", "n", "rep"], kind="stable").drop(columns="_order")
    cols = list(BASE_COLUMNS) + [c for c in frame.columns if c not in BASE_COLUMNS]
    frame = frame[cols].reset_index(drop=True)
    frame.attrs = {
        "experiment": experiment.id,
        "title": experiment.title,
        "caption": experiment.caption,
        "paper_protocol_note": experiment.paper_protocol_note,
        "ns": list(config.ns),
        "reps": config.reps,
        "epsilon": config.epsilon,
        "seed": config.seed,
        "methods": list(config.methods),
        "params": dict(config.params),
        "reference_slope": experiment.reference_slope,
        "method_labels": {m: experiment.label(m) for m in experiment.methods},
    }
    return frame


def run_experiment(experiment: str | Experiment, *, ns: Sequence[int] | None = None, reps: int | None = None,
                   epsilon: float | None = None, seed: int | None = None, jobs: int = -1,
                   progress: Progress | None = None, methods: Sequence[str] | None = None,
                   backend: str = "loky", **params: Any) -> pd.DataFrame:
    """Run an error-vs-n sweep and return the tidy frame (one row per method, n, rep).

    Parameters
    ----------
    experiment : str or Experiment
        A registered id (``python -m dpcore reproduce --list``) or an Experiment object.
    ns, reps, epsilon, methods
        Sample sizes, replicates per n, ε, subset of methods; None → the experiment's defaults.
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
        joblib backend ("loky" by default; "threading", or "dask"/"ray" when registered).
    **params
        Experiment options (e.g. ``sweeps``, ``constants``); unknown names are rejected.

    Returns
    -------
    pandas.DataFrame
        Columns ``figure, method, n, rep, error, epsilon, seed`` then experiment extras (e.g.
        ``acceptance``) and scalar options; sorted by (method order, n, rep). ``frame.attrs`` holds
        the settings, ``elapsed_s`` and the experiment's ``paper_protocol_note``.
    """
    exp = get_experiment(experiment)
    config = make_config(exp, ns=ns, reps=reps, epsilon=epsilon, seed=seed, methods=methods, **params)
    jobs = int(jobs)
    if jobs == 0 or jobs < -1:
        raise DPValueError(f"jobs = {jobs} is invalid; use -1 (all cores), 1 (in-process) or a positive count.")
    # Largest tasks first (by total n): better load balance across workers; never changes results.
    tasks = sorted(plan_tasks(exp, config), key=lambda t: -sum(n for n, _ in t))
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
    n_workers = _effective_jobs(jobs, total)
    if n_workers == 1:
        for units in tasks:
            collected.extend(_execute(exp, config, units))
            done += 1
            if progress is not None and progress(done, total) is False:
                raise cancelled()
    else:
        from joblib import Parallel, delayed

        par = Parallel(n_jobs=n_workers, backend=backend, return_as="generator_unordered")
        gen = par(delayed(_execute)(exp, config, units) for units in tasks)
        try:
            for rows in gen:
                collected.extend(rows)
                done += 1
                if progress is not None and progress(done, total) is False:
                    raise cancelled()
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # joblib warns when a generator is closed early
                gen.close()
    frame = _assemble(exp, config, collected)
    frame.attrs["elapsed_s"] = time.perf_counter() - t0
    frame.attrs["jobs"] = n_workers
    return frame


def _effective_jobs(jobs: int, n_tasks: int) -> int:
    if jobs == -1:
        from joblib import cpu_count

        jobs = cpu_count()
    return max(1, min(jobs, n_tasks))

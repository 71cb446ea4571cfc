"""What the query-release releases share: the one read of the data, the Gaussian-family and local runs, and the
vectorised samplers the audits, figures and Monte Carlo bounds draw from (each calibrates through
:mod:`dpcore.query_release.calibration`, as the releases do).

Data flow: the data (universe indices) are read ONCE, into the histogram h; the noise step uses h;
everything after the noise step sees only the noisy vectors and public objects.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._rng import RNGLike, as_generator, spawn
from ...errors import DPValueError
from ...mechanism import Diagnostics, Note, Release
from .._central import _grid, _noise_step, _pmw_run, _postprocess, _sigmas, approx_guarantee, plan_for
from .._local import MAX_LOCAL_WORK, _centres, _level_reports_sum, _NAMES, _plan, randomize
from .._workloads import Workload, check_indices
from ..calibration import (calibrate_chaining, calibrate_coarse, calibrate_gaussian, calibrate_local_chaining,
                           calibrate_local_coarse, calibrate_local_projection, calibrate_pmw, calibrate_projection)
from ..configs import (ChainingConfig, CoarseConfig, GaussianConfig, LocalChainingConfig, LocalCoarseConfig,
                       LocalProjectionConfig, PMWConfig, ProjectionConfig)

CENTRAL_CALIBRATE: dict[type, Callable] = {GaussianConfig: calibrate_gaussian, ProjectionConfig: calibrate_projection,
                                           CoarseConfig: calibrate_coarse, ChainingConfig: calibrate_chaining}
LOCAL_CALIBRATE: dict[type, Callable] = {LocalProjectionConfig: calibrate_local_projection,
                                         LocalCoarseConfig: calibrate_local_coarse,
                                         LocalChainingConfig: calibrate_local_chaining}


def histogram(data: Any, wl: Workload) -> tuple[np.ndarray, int]:
    """The normalised histogram h of the records over the universe, and n: the one read of the data."""
    idx = check_indices(data, wl)
    return np.bincount(idx, minlength=wl.size) / idx.size, int(idx.size)


def gaussian_family(calibrate: Callable, data: Any, config: Any, rng: RNGLike, project: bool) -> Release:
    """One release of a Gaussian-based central mechanism: noisy level means (the only step reading h),
    then, when ``project``, each projected onto its public hull, summed."""
    wl = config.workload.build()
    hist, n = histogram(data, wl)          # the only read of the data
    plan = plan_for(config)
    cal = calibrate(config, (n,))
    noisy = _noise_step(hist, plan, _sigmas(cal, plan, n), as_generator(rng), reps=1, grid=_grid(cal, plan, n))
    del hist
    value, gaps = _postprocess(noisy, plan, project, getattr(config, "tol", 1e-9))
    conv = approx_guarantee(config.rho)
    notes = [Note("info", f"ρ = {config.rho:g}-zCDP ⇒ (ε, δ = 1e-6)-DP with ε = {conv['epsilon_tight']:.4g} (tight) "
                          f"or {conv['epsilon_simple']:.4g} (simple).")]
    if plan.residual_note:
        notes.append(Note("info", plan.residual_note))
    if gaps:
        # a function of the noisy answers only (post-processing): part of the private output, kind "output"
        notes.append(Note("output", f"projection duality gap ≤ {max(gaps):.2e} (certificate of the exact projection)."))
    noisy_sum = plan.constant + sum(z[0] for z in noisy) if noisy else plan.constant.copy()
    return Release(mechanism=cal.mechanism, value=value[0], cost=cal.cost(1), calibration=cal, notes=tuple(notes),
                   diagnostics=Diagnostics(values={"noisy answers before projection (private, post-noise)": noisy_sum}),
                   config=config)


def sample_outputs(data: Any, config: Any, reps: int, rng: RNGLike, *, override=None,
                   stage: str = "output") -> np.ndarray:
    """``reps`` independent outputs of a central mechanism on ``data`` (optionally with a calibration override).

    ``stage`` = "noisy" returns the concatenated noisy level means (the noise step); "output" the release.
    """
    wl = config.workload.build()
    hist, n = histogram(data, wl)
    g = as_generator(rng)
    if isinstance(config, PMWConfig):
        cal = calibrate_pmw(config, (n,))
        cal = override(cal) if override else cal
        return _pmw_run(hist @ wl.points, wl.points, cal, g, reps, transcript=(stage == "noisy"))
    plan = plan_for(config)
    cal = CENTRAL_CALIBRATE[type(config)](config, (n,))
    cal = override(cal) if override else cal
    noisy = _noise_step(hist, plan, _sigmas(cal, plan, n), g, reps, grid=_grid(cal, plan, n))
    if stage == "noisy":
        return np.concatenate(noisy, axis=1)
    value, _ = _postprocess(noisy, plan, not isinstance(config, GaussianConfig), getattr(config, "tol", 1e-9))
    return value


def local_family(calibrate: Callable, data: Any, config: Any, rng: RNGLike) -> Release:
    """One run of a local protocol: every party's ε-LDP reports per level, the server's averages projected."""
    name, _ = _NAMES[type(config)]
    wl = config.workload.build()
    idx = check_indices(data, wl)
    n = int(idx.size)
    plan = _plan(config)
    work = n * wl.k * max(len(plan.levels), 1)
    if work > MAX_LOCAL_WORK:
        raise DPValueError(f"local protocol work n·k·levels = {work:,} is over the cap {MAX_LOCAL_WORK:,}; "
                           "use fewer parties or a smaller workload.")
    cal = calibrate(config, (n,))
    g = as_generator(rng)
    gens = spawn(g, max(len(plan.levels), 1))
    noisy = []
    for (P, index, _, _), (c, R), e_i, gi in zip(plan.levels, _centres(plan), cal.params["level_epsilons"], gens):
        s = _level_reports_sum(P, index, idx, c, R, e_i, e_i * cal.params["flip_factor"], gi)
        noisy.append((c + R * s / n)[None, :])      # the server's view: averages of reports
    del idx
    value, _ = _postprocess(noisy, plan, True, config.tol)
    notes = [Note("info", f"ε-LDP with ε = {config.epsilon:g} per party ({len(plan.levels)} report(s), "
                          f"ε_i = {cal.params['level_epsilons'][0] if plan.levels else config.epsilon:.4g} each).")]
    if plan.residual_note:
        notes.append(Note("info", plan.residual_note))
    avg = plan.constant + sum(z[0] for z in noisy) if noisy else plan.constant.copy()
    return Release(mechanism=f"query_release/{name}", value=value[0], cost=cal.cost(1), calibration=cal,
                   notes=tuple(notes), config=config,
                   diagnostics=Diagnostics(values={"averaged reports before projection (private, post-noise)": avg}))


def local_reports(record: int, config: Any, reps: int, rng: RNGLike, *, override=None) -> np.ndarray:
    """``reps`` independent report vectors of ONE party holding universe row ``record`` (the randomizer's raw
    outputs Z_ε per level, concatenated): the noise step a local audit checks."""
    wl = config.workload.build()
    idx = check_indices(np.array([record]), wl)
    plan = _plan(config)
    cal = LOCAL_CALIBRATE[type(config)](config, (1,))
    cal = override(cal) if override else cal
    gens = spawn(rng, max(len(plan.levels), 1))
    out = []
    for (P, index, _, _), (c, R), e_i, gi in zip(plan.levels, _centres(plan), cal.params["level_epsilons"], gens):
        V = np.broadcast_to((P[index[idx[0]]] - c) / R, (reps, P.shape[1]))
        out.append(randomize(V, e_i, gi, flip_epsilon=e_i * cal.params["flip_factor"]))
    return np.concatenate(out, axis=1)

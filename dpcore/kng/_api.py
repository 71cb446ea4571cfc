"""The registry of KNG problems, the pure ``release(data, config)`` and the name-based facade :func:`sample`.

:func:`release` takes a frozen config (:mod:`dpcore.kng.configs`) and dispatches once, on the
config's type, to its problem object; :func:`sample` builds that config from keyword arguments
(refusing any parameter the problem does not have, by name) for pages and scripts.
:func:`nonprivate_estimate` is the non-private answer, a plain value — never a release.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from .._rng import RNGLike
from .._validation import DPValueError, check_choice
from ..mechanism import Calibration, make_config
from ._location import Mean, Median, Quantile, exact_law
from ._problem import Prepared, Problem
from ._regression import LinearRegression, QuantileRegression
from ._release import KNGRelease, Override, Progress, plan
from ._release import check_total_work as _check_total_work
from ._release import release as _release

#: The problems, by registry name (read-only).
PROBLEMS: Mapping[str, Problem] = MappingProxyType({p.name: p for p in (
    Mean(), Median(), Quantile(), LinearRegression(), QuantileRegression())})
_BY_CONFIG = MappingProxyType({p.config: p for p in PROBLEMS.values()})


def problem(name: str) -> Problem:
    """The problem object called ``name`` (a DPValueError listing the names otherwise)."""
    return PROBLEMS[check_choice(name, "problem", tuple(PROBLEMS))]


def problem_of(config: Any) -> Problem:
    """The problem object a config belongs to."""
    try:
        return _BY_CONFIG[type(config)]
    except KeyError:
        raise TypeError(f"config must be one of the KNG configs ({', '.join(c.__name__ for c in _BY_CONFIG)}); "
                        f"got {type(config).__name__}.") from None


def make(problem_name: str, **params: Any) -> Any:
    """The frozen config of ``problem_name`` from keyword arguments (an irrelevant one is refused by name)."""
    p = problem(problem_name)
    return make_config(p.config, f"problem {p.name!r}", **params)


def release(data: Any, config: Any, *, rng: RNGLike = None, override: Override = None,
            progress: Progress = None) -> KNGRelease:
    """One private release: ``config.size`` independent draws, each pure ε-DP for its target law.

    Parameters
    ----------
    data : array (n,) or (n, d); a tuple (X, y) for the regressions.
    config : a config of :mod:`dpcore.kng.configs` (its type chooses the problem).
    rng : seed or Generator.
    override : callable(Calibration) -> Calibration, optional
        Replaces the calibration (an audit's mutant; never used by a real release).
    progress : callable(done, total) -> bool, optional
        Called between MCMC blocks; returning False raises :class:`dpcore.errors.Cancelled`.

    Returns
    -------
    KNGRelease
        ``value`` (size, d) draws in the caller's units; ``cost == calibration.cost(size)``; the
        non-private estimate, clipping count and MCMC diagnostics only in ``diagnostics``.
    """
    return _release(problem_of(config), data, config, rng=rng, override=override, progress=progress)


def check_interaction(data: Any, configs: Sequence[Any]) -> None:
    """Refuse, before any sampling, releases of the same data meant to run in one interaction (one per
    mechanism) whose MCMC work together exceeds the cap of one release (:data:`dpcore.kng._release.MAX_WORK`).

    Only public quantities enter: n, d, draws, sweeps and each mechanism's move cost.
    """
    items = []
    for cfg in configs:
        pl = plan(problem_of(cfg), data, cfg, None)
        items.append((pl.problem, pl.prepared, cfg, pl.exact is not None))
    _check_total_work(items)


def calibrate(config: Any, d: int) -> Calibration:
    """The public calibration of ``config`` in dimension ``d`` (known before any draw: pages show
    ``calibrate(cfg, d).cost(cfg.size)`` before the user releases)."""
    return problem_of(config).calibrate(config, d)


def nonprivate_estimate(data: Any, config: Any) -> np.ndarray:
    """The non-private estimate (d,) on the data the mechanism sees (clipped to the public domain, in the
    caller's units) — NOT private: for comparison only."""
    prob = problem_of(config)
    P = prob.prepare(data, config)
    return P.nonprivate * P.scale


def sample(problem_name: str, data: Any, *, mechanism: str, epsilon: float, norm: str = "linf", size: int = 1,
           rng: RNGLike = None, progress: Progress = None, **params: Any) -> KNGRelease:
    """Draw ``size`` private estimates for ``problem_name`` with ``mechanism`` (Reimherr & Awan 2019).

    Parameters
    ----------
    problem_name : {"mean", "median", "quantile", "linear_regression", "quantile_regression"}
        "median" with d ≥ 2 columns is the geometric median.
    data : array (n,) or (n, d); a tuple (X, y) for the regressions.
    mechanism : {"kng", "exponential", "objective_perturbation"}
        Objective perturbation: linear regression only. The non-private estimate is
        :func:`nonprivate_estimate`, not a mechanism.
    epsilon : float > 0 (per draw)
    norm : {"l1", "l2", "linf"}
        The K-norm of KNG's gradient (and of objective perturbation's noise).
    size : int
        Number of independent draws; the release costs size × ε.
    rng : seed or Generator
    progress : callable(done, total) -> bool, optional; forwarded to the MCMC sampler.
    **params
        The problem's own parameters (anything else is refused, by name):
        ``sampler`` {"auto", "exact", "mcmc"}, ``n_sweeps``, ``burn_in`` (every problem; not
        objective perturbation); ``bounds=(lo, hi)`` (median, quantile; or the mean's box);
        ``radius``, ``center`` (mean: ‖x_i − center‖_K ≤ radius); ``tau`` (quantile, quantile
        regression); ``B`` (‖θ‖₁ ≤ B, regressions, scaled units); ``C_X`` (quantile regression:
        ‖x‖_K ≤ C_X); ``x_bound``, ``y_bound`` (regressions: |x_ij| ≤ x_bound_j, |y| ≤ y_bound;
        the data are divided by them and the estimates multiplied back — post-processing);
        ``constants`` = "calibrated" or "paper" (quantile, regressions; the paper's printed
        constants, refused where they are not private: τ > 1/2 for KNG).

    Returns
    -------
    KNGRelease (see :func:`release`).
    """
    cfg = make(problem_name, mechanism=mechanism, epsilon=epsilon, norm=norm, size=size, **params)
    return release(data, cfg, rng=rng, progress=progress)


def log_density(problem_name: str, data: Any, thetas: Any, *, mechanism: str, epsilon: float, norm: str = "linf",
                **params: Any) -> np.ndarray:
    """Unnormalised log density of the mechanism's output at the rows of ``thetas`` (for plotting).

    Same arguments as :func:`sample`; ``thetas`` (m, d) (or (m,) in 1-D), in the original units.
    −inf outside Θ. For objective perturbation the density of the interior of Θ is returned
    (exp(−c‖∇ℓ(θ) + γθ‖_K); the boundary of the ℓ1 ball carries extra mass). Computed from the
    data: a teaching view, not a release.
    """
    cfg = make(problem_name, mechanism=mechanism, epsilon=epsilon, norm=norm, **params)
    prob = problem_of(cfg)
    P = prob.prepare(data, cfg)
    cal = prob.calibrate(cfg, P.d)
    th = np.asarray(thetas, dtype=float)
    if th.ndim == 1:
        th = th[:, None] if P.d == 1 else th[None, :]
    if th.ndim != 2 or th.shape[1] != P.d:
        raise DPValueError(f"thetas must have shape (m, {P.d}); got {np.shape(thetas)}.")
    if P.scale_out is not None:
        th = th / P.scale_out
    return prob.log_density(P, cal, th)


def prepared(data: Any, config: Any, override: Override = None) -> tuple[Problem, Prepared, Calibration]:
    """(problem, prepared data, calibration) of a config — for tests, plots and audits."""
    pl = plan(problem_of(config), data, config, override)
    return pl.problem, pl.prepared, pl.calibration


def exact_pieces(data: Any, config: Any, override: Optional[Override] = None):
    """The exact 1-D law (``Pieces``: logpdf, cdf) of a median/quantile config, on the clipped data."""
    _, P, cal = prepared(data, config, override)
    if P.d != 1 or problem_of(config).name not in ("median", "quantile"):
        raise DPValueError("the exact law is available for the 1-D median and quantile only.")
    return exact_law(P, cal)

"""The name-based facade of the KNG topic: :func:`sample`, :func:`log_density`, the non-private estimate.

Each family of :mod:`dpcore.kng.release` has its own ``release(data, config, *, rng)``;
:func:`release_for` gives the one a config belongs to, and :func:`sample` builds that config from
keyword arguments (refusing any parameter the problem does not have, by name) for pages and scripts.
:func:`nonprivate_estimate` is the non-private answer, a plain value — never a release.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from .._rng import RNGLike
from .._validation import DPValueError
from ..mechanism import Calibration
from ._location import exact_law
from ._problem import Prepared, Problem
from ._problems import PROBLEMS, make, problem, problem_of
from .calibration import calibrate_for, mechanism_calibration
from .release import linear_regression, location, quantile_regression
from .release._engine import KNGRelease, Override, Progress, plan
from .release._engine import check_total_work as _check_total_work

__all__ = ["PROBLEMS", "problem", "problem_of", "make", "release_for", "check_interaction", "nonprivate_estimate",
           "sample", "log_density", "prepared", "exact_pieces"]

_FAMILIES = (location, linear_regression, quantile_regression)


def release_for(config: Any) -> Callable[..., KNGRelease]:
    """The ``release`` function of the family of :mod:`dpcore.kng.release` that ``config`` belongs to.

    >>> from dpcore import kng
    >>> kng.release_for(kng.make("quantile", mechanism="kng", epsilon=1.0, bounds=(0, 1))).__module__
    'dpcore.kng.release.location'
    """
    for family in _FAMILIES:
        if isinstance(config, family.CONFIGS):
            return family.release
    problem_of(config)  # a TypeError naming every KNG config
    raise AssertionError("unreachable: every KNG config belongs to a release family")


def check_interaction(data: Any, configs: Sequence[Any]) -> None:
    """Refuse, before any sampling, releases of the same data meant to run in one interaction (one per
    mechanism) whose MCMC work together exceeds the cap of one release (:data:`dpcore.kng.release._engine.MAX_WORK`).

    Only public quantities enter: n, d, draws, sweeps and each mechanism's move cost.
    """
    items = []
    for cfg in configs:
        pl = plan(problem_of(cfg), data, cfg, None, calibrate_for(cfg))
        items.append((pl.problem, pl.prepared, cfg, pl.exact is not None))
    _check_total_work(items)


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
    KNGRelease (see the family's ``release`` in :mod:`dpcore.kng.release`).
    """
    cfg = make(problem_name, mechanism=mechanism, epsilon=epsilon, norm=norm, size=size, **params)
    return release_for(cfg)(data, cfg, rng=rng, progress=progress)


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
    cal = mechanism_calibration(cfg, P.d)
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
    pl = plan(problem_of(config), data, config, override, calibrate_for(config))
    return pl.problem, pl.prepared, pl.calibration


def exact_pieces(data: Any, config: Any, override: Optional[Override] = None):
    """The exact 1-D law (``Pieces``: logpdf, cdf) of a median/quantile config, on the clipped data."""
    _, P, cal = prepared(data, config, override)
    if P.d != 1 or problem_of(config).name not in ("median", "quantile"):
        raise DPValueError("the exact law is available for the 1-D median and quantile only.")
    return exact_law(P, cal)

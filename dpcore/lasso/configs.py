"""Configs of private LASSO (Talwar, Thakurta & Zhang 2015): frozen, self-validating dataclasses.

* :class:`LassoConfig` — private Frank–Wolfe over the ℓ1 ball or the simplex (Algorithm 2), optionally with an
  intercept (two stages: private centring means, then Frank–Wolfe); calibrated by
  :func:`~dpcore.lasso.calibration.calibrate`.
* :class:`NoisyGradientConfig` — noisy-gradient Frank–Wolfe for a general C (Theorem 2.6); calibrated by
  :func:`~dpcore.lasso.calibration.calibrate_noisy_gradient`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .._validation import check_choice, check_delta, check_epsilon, check_int, check_positive
from ..errors import DPValueError

__all__ = ["LassoConfig", "NoisyGradientConfig", "SELECTIONS", "COMPOSITIONS", "CONSTRAINTS", "GENERAL_CONSTRAINTS",
           "PATHS", "DTYPES", "STEP_RULES", "MAX_STEPS", "MAX_P"]


SELECTIONS = ("exponential", "laplace")
COMPOSITIONS = ("zcdp", "advanced")
CONSTRAINTS = ("l1", "simplex")
PATHS = ("auto", "direct", "gram")
DTYPES = ("float64", "float32")
#: Public rules for T when neither ``steps`` nor ``step_scale`` is given: Theorem 2.5, or the T minimising a bound
#: on the expected excess risk (:func:`~dpcore.lasso.calibration.risk_bound_steps`; converges as ε grows).
STEP_RULES = ("theorem2.5", "risk-bound")
#: Largest number of Frank–Wolfe steps (a public cap; the page says so).
MAX_STEPS = 20_000
#: Largest number of covariates p.
MAX_P = 100_000


def _check_run(cfg: Any) -> None:
    """The checks every Frank–Wolfe config shares: ε, δ, 0 < radius ≤ 1000 and 1 ≤ T ≤ MAX_STEPS (T is
    normalised to an int on the frozen config)."""
    check_epsilon(cfg.epsilon)
    check_delta(cfg.delta)
    check_positive(cfg.radius, "radius")
    if not cfg.radius <= 1e3:
        raise DPValueError(f"radius = {cfg.radius:g} is too large (the noise grows like r²); use r ≤ 1000.")
    if cfg.steps is not None:
        object.__setattr__(cfg, "steps", check_int(cfg.steps, "steps (T)", lo=1, hi=MAX_STEPS))


@dataclass(frozen=True)
class LassoConfig:
    """Private Frank–Wolfe on the ℓ1 ball (or simplex) of radius ``radius``.

    Parameters
    ----------
    epsilon, delta : float
        Target (ε, δ) of the whole run (replace-one neighbours).
    radius : float
        r = ‖C‖₁, the public radius of the ℓ1 ball.
    steps : int or None
        T, the number of noisy vertex selections; None → Theorem 2.5
        (:func:`~dpcore.lasso.calibration.theorem25_steps`).
    selection : {"exponential", "laplace"}
        Per-step mechanism (module docstring).
    composition : {"zcdp", "advanced"}
        Composition route over the T steps.
    constraint : {"l1", "simplex"}
        C = r·(ℓ1 ball) (2p vertices) or r·(probability simplex) (p vertices).
    intercept : bool
        Fit an intercept: the means of the p + 1 columns are released first (Laplace, ``intercept_share`` of ε),
        the data centred at them and halved, and Frank–Wolfe runs with the rest of ε (module docstring,
        "Intercept"). The released value is then (intercept, θ₁, …, θ_p).
    intercept_share : float or None
        Share of ε spent on the means (default 0.1 with an intercept; refused without one).
    step_scale : float or None
        c in the public step count T = c·(nε)^{2/3} (instead of Theorem 2.5's constant, which drops log
        factors); refused together with ``steps``.
    step_rule : {"theorem2.5", "risk-bound"}
        The public rule for T when ``steps`` and ``step_scale`` are None: Theorem 2.5, or the T in
        [1, MAX_STEPS] minimising a bound on the expected excess risk valid for every dataset
        (:func:`~dpcore.lasso.calibration.risk_bound_steps`, derived in :mod:`dpcore.lasso.calibration`) — fewer,
        sharper steps at a small n and a huge ε, so the release converges as ε grows.
    path : {"auto", "direct", "gram"}
        "direct": one product Xᵀr per step (residual updated in O(n)); "gram": XᵀX and Xᵀy once,
        then O(p) per step; "auto" picks Gram when n > p and p < T and p ≤ 3000.
    dtype : {"float64", "float32"}
        Arithmetic of the products (float32 halves memory and time on large designs).
    """

    epsilon: float = 1.0
    delta: float = 1e-6
    radius: float = 1.0
    steps: Optional[int] = None
    selection: str = "exponential"
    composition: str = "zcdp"
    constraint: str = "l1"
    path: str = "auto"
    dtype: str = "float64"
    intercept: bool = False
    intercept_share: Optional[float] = None
    step_scale: Optional[float] = None
    step_rule: str = "theorem2.5"

    def __post_init__(self) -> None:
        _check_run(self)
        check_choice(self.step_rule, "step_rule", STEP_RULES)
        if self.step_rule != STEP_RULES[0] and (self.steps is not None or self.step_scale is not None):
            raise DPValueError(f"step_rule = {self.step_rule!r} chooses T itself; drop steps / step_scale, or use "
                               "step_rule='theorem2.5' with them.")
        if not isinstance(self.intercept, (bool, np.bool_)):
            raise DPValueError(f"intercept = {self.intercept!r} must be True or False.")
        if self.intercept_share is not None:
            if not self.intercept:
                raise DPValueError("intercept_share applies only with intercept=True (it is the share of ε spent on "
                                   "the means that centre the data); drop it or set intercept=True.")
            share = check_positive(self.intercept_share, "intercept_share")
            if not share < 1:
                raise DPValueError(f"intercept_share = {share:g} must lie in (0, 1): the rest of ε goes to the "
                                   "Frank–Wolfe steps (e.g. 0.1).")
        if self.step_scale is not None:
            if self.steps is not None:
                raise DPValueError("give either steps (T) or step_scale (c in T = c·(nε)^(2/3)), not both.")
            check_positive(self.step_scale, "step_scale")
            if not self.step_scale <= 1e3:
                raise DPValueError(f"step_scale = {self.step_scale:g} is too large; use c ≤ 1000 (e.g. 0.05).")
        check_choice(self.selection, "selection", SELECTIONS)
        check_choice(self.composition, "composition", COMPOSITIONS)
        check_choice(self.constraint, "constraint", CONSTRAINTS)
        check_choice(self.path, "path", PATHS)
        check_choice(self.dtype, "dtype", DTYPES)


#: The sets C of the noisy-gradient variant: ℓ1 ball, simplex, ℓ∞ ball.
GENERAL_CONSTRAINTS = ("l1", "simplex", "linf")


@dataclass(frozen=True)
class NoisyGradientConfig:
    """Noisy-gradient Frank–Wolfe on C ∈ {ℓ1 ball, simplex, ℓ∞ ball} of radius r; (ε, δ) of the whole run;
    T (None → the public rule of Theorem 2.5)."""

    epsilon: float = 1.0
    delta: float = 1e-6
    radius: float = 1.0
    steps: Optional[int] = None
    constraint: str = "l1"

    def __post_init__(self) -> None:
        _check_run(self)
        check_choice(self.constraint, "constraint", GENERAL_CONSTRAINTS)

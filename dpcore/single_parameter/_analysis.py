"""The NON-PRIVATE analysis behind every release of the single-parameter topic (Asi, Duchi & Talwar 2025):
validate and clip ``data = (X, y)``, fit θ̂, the public constants and ladders, the counts — and the helpers the
releases share (notes, diagnostics, the calibration overrides of the audits' mutants).

Neighbouring relation: replace one observation (n fixed and public). Covariates are clipped to the
public domain (ℓ2 ball of radius r, or the hypercube [−r, r]^d); the number clipped is reported in the
NON-PRIVATE diagnostics only.

What is public (issue 17): a release's notes, calibration and cost depend only on the public inputs
(the config, n, d) and on the noised statistics. Clipping counts, the degeneracy of the design ("column
j is identically zero", "labels are separable") and local sensitivities (LS_v, so the noise sd of
Algorithm 5) are data: they go to :class:`~dpcore.mechanism.Diagnostics`. Notes that restate the noised
statistics (λ̂, Λ̂, τ, the test statistic) have kind ``"output"``; a ⊥ note (kind ``"withheld"``) says
only what follows from them. Both are declared part of the private output in ``declare.py``.

Nearly every formula is **[DERIVED]** (re-derived to be provably private; the paper's constants
may be tighter) — see :mod:`dpcore.single_parameter._stability`. ⊥ ("abstain") is a released value:
``released=True``, value NaN, and a note saying why; its cost is charged either way.

Degenerate designs: when d ≥ n (public), a covariate column is identically zero, two columns are
identical, two columns are constant, or (logistic, ρ = 0) the data are strictly separable, the
minimiser does not exist or the Hessian is exactly singular at every θ, so λ_min = 0 exactly and
the count is 0: nothing certifies and the θ releases return ⊥ (whose note names only the noised bound;
the reason is a non-private diagnostic). A numerically singular design that
is not exactly so makes the Newton fit raise a :class:`~dpcore.errors.DPValueError` before any
noise is drawn.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._validation import check_finite_array
from ..errors import DataError
from ..mechanism import Calibration, Diagnostics, Note
from ..privacy import analytic_gaussian_sigma
from ._fit import Fit, fit, is_separable
from ._losses import get_loss
from ._recursion import Ladder, generic_ladder, lower_ladder
from ._stability import Constants, constants_for

__all__ = ["Analysis", "analyse", "prepare", "prepare_glm", "check_functional_data", "clip_note", "baseline_notes",
           "analysis_diagnostics", "laplace_params", "gaussian_sigma", "local_sensitivity", "BOTTOM"]

#: The text shown for an abstention.
BOTTOM = "⊥ (abstain)"


@dataclass(frozen=True)
class Analysis:
    """NON-PRIVATE: the clipped data, the fit, the public constants, ladders and the counts.

    ``degenerate`` is None or the reason λ_min = 0 exactly (no fit was needed).
    """

    X: np.ndarray
    y: np.ndarray
    consts: Constants
    ladder: Ladder
    fit: Optional[Fit]
    lam_min: float
    lam_max: float
    K: int
    degenerate: Optional[str]
    clipped: int
    r_p: float
    q: float
    nu: float


def check_functional_data(data, cfg, *, response: str = "y") -> None:
    """Validate ``data = (X, y)`` for ``cfg`` without releasing anything (pages call it before the button).

    Raises the same :class:`DataError` the release would raise (e.g. a non-binary response for the
    logistic loss), so a user learns about bad input before pressing Release. ``response``: the response
    column's name, for the message. The message states the rule and the column, never values of the data
    (issue 29: a page shows it as public text); the offending values are in the error's ``nonprivate``.
    """
    prepare(data, cfg, response=response)


def prepare(data, cfg, *, response: str = "y"):
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        raise DataError("data must be a pair (X, y): an (n, d) covariate matrix and a length-n response.")
    X = check_finite_array(data[0], "X (covariates)", ndim=(2,), min_rows=2)
    y = check_finite_array(data[1], "y (response)", ndim=(1,), min_rows=2)
    if y.shape[0] != X.shape[0]:
        raise DataError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values; they must match.")
    if cfg.loss == "logistic":
        vals = set(np.unique(y).tolist())
        if vals <= {0.0, 1.0}:
            y = 2.0 * y - 1.0  # 0/1 labels are read as −1/+1 (an encoding, not a change of the data)
        elif not vals <= {-1.0, 1.0}:
            raise DataError(f"the response column {response!r} is not binary: the logistic loss needs every value "
                            "in {0, 1} or in {−1, +1}. Choose a binary response column, or the robust-regression "
                            "loss.", nonprivate={f"values of {response!r} (the first 4, sorted)": sorted(vals)[:4]})
    n, d = X.shape
    if cfg.geometry == "l2-ball":
        norms = np.linalg.norm(X, axis=1)
        over = norms > cfg.radius
        if over.any():
            X = X.copy()
            X[over] *= (cfg.radius / norms[over])[:, None]
        r2, r_p, q, nu = cfg.radius, cfg.radius, 2.0, 1.0
    else:
        over = np.any(np.abs(X) > cfg.radius, axis=1)
        if over.any():
            X = np.clip(X, -cfg.radius, cfg.radius)
        r2, r_p, q, nu = cfg.radius * math.sqrt(d), cfg.radius, 1.0, math.sqrt(d)
    return X, y, r2, r_p, q, nu, int(over.sum())


def _degenerate(X, y, cfg) -> Optional[str]:
    n, d = X.shape
    if cfg.rho > 0:
        return None
    if d >= n:
        return f"d = {d} ≥ n = {n}: the Hessian is singular, so λ_min = 0 and nothing can be certified"
    zero = np.nonzero(np.all(X == 0, axis=0))[0]
    if zero.size:
        return f"covariate column {int(zero[0])} is identically zero: the Hessian is singular (λ_min = 0)"
    const = np.nonzero(np.all(X == X[:1], axis=0))[0]
    if const.size >= 2:
        return (f"columns {int(const[0])} and {int(const[1])} are both constant (collinear): the Hessian is "
                "singular (λ_min = 0); keep one intercept column")
    seen: dict = {}
    XT = np.ascontiguousarray(X.T)
    for j in range(d):
        key = XT[j].tobytes()
        if key in seen:
            return (f"covariate column {j} duplicates column {seen[key]}: the Hessian is singular "
                    "(λ_min = 0)")
        seen[key] = j
    if cfg.loss == "logistic" and is_separable(X, y):
        return ("the labels are linearly separable and ρ = 0: the logistic minimiser does not exist "
                "(λ_min is 0 in the limit); set ρ > 0")
    return None


def analyse(data, cfg, *, generic: bool = False) -> Analysis:
    """Validate and clip the data, fit θ̂, and compute λ_min, λ_max and the count K (NON-PRIVATE)."""
    X, y, r2, r_p, q, nu, clipped = prepare(data, cfg)
    n = X.shape[0]
    k = constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho)
    ladder = generic_ladder(k) if generic else lower_ladder(k)
    reason = _degenerate(X, y, cfg)
    if reason is not None:
        return Analysis(X, y, k, ladder, None, 0.0, k.cap, 0, reason, clipped, r_p, q, nu)
    F = fit(cfg.loss, X, y, rho=cfg.rho)
    K = int(ladder.count(F.lam_min))
    return Analysis(X, y, k, ladder, F, F.lam_min, F.lam_max, K, None, clipped, r_p, q, nu)


def clip_note(an: Analysis, cfg) -> tuple[Note, ...]:
    """The public note on clipping: the rule only (a function of the config). The count is data: it is the
    non-private diagnostic ``"clipped rows"``."""
    dom = f"‖x‖₂ ≤ {cfg.radius:g}" if cfg.geometry == "l2-ball" else f"|x_j| ≤ {cfg.radius:g}"
    return (Note("info", f"covariate rows outside the public domain {dom} are clipped to it (how many is a "
                         "non-private diagnostic)."),)


def analysis_diagnostics(an: Analysis, **extra) -> Diagnostics:
    vals: dict[str, object] = {"true λ_min (non-private)": an.lam_min, "true λ_max (non-private)": an.lam_max,
            "count K(λ_min) (non-private)": an.K, "ladder rungs (public)": len(an.ladder),
            "certification floor λ_c (public)": float(an.ladder.B[1]), "clipped rows": an.clipped}
    if an.fit is not None:
        vals["θ̂ (non-private)"] = an.fit.theta.copy()
        vals["Newton iterations"] = an.fit.iterations
        vals["‖∇L_n(θ̂)‖ (non-private)"] = an.fit.grad_norm
    if an.degenerate:
        vals["degenerate design"] = an.degenerate
    vals.update(extra)
    return Diagnostics(values=vals)


def laplace_params(cal: Optional[Calibration]) -> dict:
    p = {} if cal is None else dict(cal.params)
    return dict(noise_scale=float(p.get("count_noise", 1.0)), shift=bool(p.get("count_shift", True)))




def gaussian_sigma(eps, delta, cal) -> float:
    scale = 1.0 if cal is None else float(cal.params.get("gauss_scale", 1.0))
    return analytic_gaussian_sigma(eps, delta) * scale


def local_sensitivity(an: Analysis, v: np.ndarray) -> float:
    """LS_v(P_n) = (2 r_p/n)·‖H⁻¹v‖_q (exact, NON-PRIVATE; q = 2 on the ℓ2 ball, 1 on the hypercube)."""
    assert an.fit is not None               # only called on a fitted (non-degenerate) design
    w = np.linalg.solve(an.fit.H, v)
    return float(2.0 * an.r_p / an.X.shape[0] * np.linalg.norm(w, ord=an.q))








def prepare_glm(data, cfg):
    X, y, r2, r_p, q, nu, clipped = prepare(data, cfg)
    k = get_loss(cfg.loss).constants(r2)
    return X, y, r2, k, clipped


def baseline_notes(clipped, n):
    """Notes of a release about clipping: none. How many rows were clipped is data (a public note would leak it,
    issue 17): it is reported in the non-private diagnostics ("clipped rows") only."""
    return ()

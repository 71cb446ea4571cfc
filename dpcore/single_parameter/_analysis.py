"""Certified eigenvalue bounds and single-parameter release (Asi, Duchi & Talwar 2025, §3, §6–8).

Mechanisms (each a pure ``release(data, config, *, rng) -> Release``; ``data = (X, y)``):

* :func:`release_lambda_min` — **Algorithm 2** (= Algorithm 6-L on the count of recursion (10)):
  a private lower bound λ̂ ≤ λ_min(H) with probability ≥ 1 − δ; ε-DP.
* :func:`release_eigen_bounds` — Algorithms 2 + **4**: (λ̂, Λ̂) with λ̂ ≤ λ_min w.p. ≥ 1 − δ₁ and
  Λ̂ ≥ λ_max w.p. ≥ 1 − δ₂; (ε₁ + ε₂, δ₁)-DP (Lemma 2.2 with the good set {λ̂ ≤ λ_min}).
* :func:`release_theta` — **Algorithm 3**, local output perturbation θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_n(λ̂)·Z,
  or ⊥ when (C1) fails at λ̂; (ε₁ + ε₂, δ₁ + δ₂)-DP (Observation 2.4).
* :func:`release_functional` — **Algorithm 5**, propose-test-release of ⟨v, θ̂⟩:
  (ε₁ + ε₂ + ε₃ + ε₄, δ₁ + δ₂ + δ₃ + e^{ε₃}δ₄)-DP (Corollary 3.6; Lemma 2.2 applied in two nested
  steps, then the shift (Lemma 2.3) chained before the variance change (Lemma A.1(iii))).
* :func:`release_theta_generic` — **Algorithm 7**, generic smooth losses (recursion R₁, (C2));
  (ε₁ + ε₂, δ₁ + δ₂)-DP (Proposition 7.1).

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
may be tighter) — see :mod:`dpcore.single_parameter.stability`. ⊥ ("abstain") is a released value:
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

from .._rng import RNGLike, as_generator
from .._validation import (check_choice, check_delta, check_epsilon, check_finite_array, check_int,
                           check_positive)
from ..errors import DataError, DPValueError
from ..mechanism import Calibration, Diagnostics, Note, Release
from ..privacy import analytic_gaussian_sigma
from .fit import Fit, fit, is_separable
from .recursion import Ladder, alg4, alg6l, generic_ladder, lower_ladder, upper_count
from .stability import Constants, constants_for, eps_var

__all__ = ["LambdaMinConfig", "EigenBoundsConfig", "ThetaConfig", "FunctionalConfig", "GenericConfig",
           "Analysis", "analyse", "release_lambda_min", "release_eigen_bounds", "release_theta",
           "release_functional", "release_theta_generic", "nonprivate_lambda_min", "nonprivate_eigenvalues",
           "nonprivate_theta", "nonprivate_functional", "sample_functional", "sample_eigen_bounds",
           "sample_theta", "sample_theta_generic", "GEOMETRIES", "BOTTOM"]

GEOMETRIES = ("l2-ball", "hypercube")
#: The text shown for an abstention.
BOTTOM = "⊥ (abstain)"
REF = "Asi, Duchi & Talwar (2025), On Privately Estimating a Single Parameter, arXiv:2503.17252"


# ---------------------------------------------------------------------------------------------
# configs
# ---------------------------------------------------------------------------------------------
def _check_problem(cfg) -> None:
    check_choice(cfg.loss, "loss", ("robust", "logistic"))
    check_positive(cfg.radius, "radius")
    check_choice(cfg.geometry, "geometry", GEOMETRIES)
    check_positive(cfg.rho, "rho", allow_zero=True)
    check_positive(cfg.c, "c")
    check_positive(cfg.sbar, "sbar")
    if cfg.c < math.e - 1 - 1e-12:
        raise DPValueError(f"c = {cfg.c} is below e − 1 ≈ 1.718, the smallest slope for which ψ(s) ≤ c·s holds "
                           "for these losses; use c ≥ 1.719 (default 2).")
    if cfg.sbar > 1:
        raise DPValueError(f"sbar = {cfg.sbar} > 1: the linear bound ψ(s) ≤ c·s is only proven on [0, 1]; use ≤ 1.")


def _check_fraction(x: float, name: str) -> float:
    x = check_positive(x, name)
    if not x < 1:
        raise DPValueError(f"{name} = {x} must lie strictly between 0 and 1 (the share of the budget).")
    return x


@dataclass(frozen=True)
class LambdaMinConfig:
    """Algorithm 2: ε (the privacy of λ̂), δ (its coverage failure), the loss and the public domain."""

    epsilon: float = 1.0
    delta: float = 1e-5
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    rho: float = 0.0
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        _check_problem(self)


@dataclass(frozen=True)
class EigenBoundsConfig:
    """Algorithms 2 + 4: total ε split as (share·ε, (1 − share)·ε); δ₁ = δ₂ = δ/2."""

    epsilon: float = 1.0
    delta: float = 1e-5
    share: float = 0.5
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    rho: float = 0.0
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        _check_fraction(self.share, "share")
        _check_problem(self)


@dataclass(frozen=True)
class ThetaConfig:
    """Algorithm 3: ε₁ = share·ε, ε₂ = (1 − share)·ε, δ₁ = δ₂ = δ/2."""

    epsilon: float = 1.0
    delta: float = 1e-5
    share: float = 0.5
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    rho: float = 0.0
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        _check_fraction(self.share, "share")
        _check_problem(self)


@dataclass(frozen=True)
class GenericConfig(ThetaConfig):
    """Algorithm 7 (generic smooth losses): same budget split as Algorithm 3; ρ must be 0 (the
    analysis is for the unregularised estimator)."""

    def __post_init__(self):
        super().__post_init__()
        if self.rho != 0:
            raise DPValueError(f"rho = {self.rho}: Algorithm 7 is for the unregularised estimator; set rho = 0.")


@dataclass(frozen=True)
class FunctionalConfig:
    """Algorithm 5: the target v = e_coordinate (or a unit ``direction``), and the budget split.

    ``eps_split`` = shares of ε for (λ̂, Λ̂, Gaussian shift, variance change), summing to 1;
    ``delta_split`` likewise for δ, with δ₄ = share₄·δ/e^{ε₃} so the total is exactly (ε, δ).
    Default: quarters.
    """

    epsilon: float = 1.0
    delta: float = 1e-5
    coordinate: int = 0
    direction: Optional[tuple] = None
    eps_split: tuple = (0.25, 0.25, 0.25, 0.25)
    delta_split: tuple = (0.25, 0.25, 0.25, 0.25)
    loss: str = "robust"
    radius: float = 1.0
    geometry: str = "l2-ball"
    rho: float = 0.0
    c: float = 2.0
    sbar: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_int(self.coordinate, "coordinate", lo=0)
        for name in ("eps_split", "delta_split"):
            sp = tuple(float(x) for x in getattr(self, name))
            if len(sp) != 4 or any(not (math.isfinite(x) and x > 0) for x in sp) or abs(sum(sp) - 1) > 1e-9:
                raise DPValueError(f"{name} = {getattr(self, name)} must be 4 positive shares summing to 1 "
                                   "(for λ̂, Λ̂, the Gaussian shift and the variance change); e.g. (0.25,)*4.")
            object.__setattr__(self, name, sp)
        if self.direction is not None:
            v = np.asarray(self.direction, dtype=float)
            if v.ndim != 1 or not np.all(np.isfinite(v)) or abs(np.linalg.norm(v) - 1) > 1e-9:
                raise DPValueError(f"direction = {self.direction} must be a finite unit vector (‖v‖₂ = 1); "
                                   "divide it by its norm.")
            object.__setattr__(self, "direction", tuple(float(x) for x in v))
        _check_problem(self)

    def budgets(self):
        """((ε₁, δ₁), (ε₂, δ₂), (ε₃, δ₃), (ε₄, log δ₄))."""
        e = [s * self.epsilon for s in self.eps_split]
        d = [s * self.delta for s in self.delta_split]
        return (e[0], d[0]), (e[1], d[1]), (e[2], d[2]), (e[3], math.log(d[3]) - e[2])

    def vector(self, d: int) -> np.ndarray:
        if self.direction is not None:
            if len(self.direction) != d:
                raise DPValueError(f"direction has {len(self.direction)} entries but the data have d = {d} covariates.")
            return np.asarray(self.direction, dtype=float)
        if self.coordinate >= d:
            raise DPValueError(f"coordinate = {self.coordinate} but the data have d = {d} covariates "
                               f"(coordinates 0 to {d - 1}).")
        v = np.zeros(d)
        v[self.coordinate] = 1.0
        return v


# ---------------------------------------------------------------------------------------------
# non-private analysis (shared by every release and by the audits' vectorised samplers)
# ---------------------------------------------------------------------------------------------
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


def check_functional_data(data, cfg) -> None:
    """Validate ``data = (X, y)`` for ``cfg`` without releasing anything (pages call it before the button).

    Raises the same :class:`DataError` the release would raise (e.g. a non-binary response for the
    logistic loss), so a user learns about bad input before pressing Release.
    """
    _prepare(data, cfg)


def _prepare(data, cfg):
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
            raise DataError(f"y must be binary (−1/+1 or 0/1) for logistic regression; got values like "
                            f"{sorted(vals)[:4]}. Choose a binary response column, or the robust-regression loss.")
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
    X, y, r2, r_p, q, nu, clipped = _prepare(data, cfg)
    n = X.shape[0]
    k = constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho)
    ladder = generic_ladder(k) if generic else lower_ladder(k)
    reason = _degenerate(X, y, cfg)
    if reason is not None:
        return Analysis(X, y, k, ladder, None, 0.0, k.cap, 0, reason, clipped, r_p, q, nu)
    F = fit(cfg.loss, X, y, rho=cfg.rho)
    K = int(ladder.count(F.lam_min))
    return Analysis(X, y, k, ladder, F, F.lam_min, F.lam_max, K, None, clipped, r_p, q, nu)


def _clip_note(an: Analysis, cfg) -> tuple[Note, ...]:
    """The public note on clipping: the rule only (a function of the config). The count is data: it is the
    non-private diagnostic ``"clipped rows"``."""
    dom = f"‖x‖₂ ≤ {cfg.radius:g}" if cfg.geometry == "l2-ball" else f"|x_j| ≤ {cfg.radius:g}"
    return (Note("info", f"covariate rows outside the public domain {dom} are clipped to it (how many is a "
                         "non-private diagnostic)."),)


def _diag(an: Analysis, **extra) -> Diagnostics:
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


def _laplace_params(cal: Optional[Calibration]) -> dict:
    p = {} if cal is None else dict(cal.params)
    return dict(noise_scale=float(p.get("count_noise", 1.0)), shift=bool(p.get("count_shift", True)))


# ---------------------------------------------------------------------------------------------
# vectorised samplers (the release functions and the audits share them)
# ---------------------------------------------------------------------------------------------
def sample_lambda_min(an: Analysis, epsilon: float, delta: float, size: int, rng, cal=None) -> np.ndarray:
    """``size`` independent draws of Algorithm 2's λ̂ (Algorithm 6-L on K)."""
    lam_hat, _ = alg6l(an.K, an.ladder, epsilon, delta, size, as_generator(rng), **_laplace_params(cal))
    return lam_hat


def sample_eigen_bounds(an: Analysis, e1, d1, e2, d2, size, rng, cal=None) -> tuple[np.ndarray, np.ndarray]:
    """``size`` draws of (λ̂, Λ̂) from Algorithms 2 and 4."""
    g = as_generator(rng)
    lp = _laplace_params(cal)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **lp)
    Lam_hat, _ = alg4(an.consts, an.lam_max, lam_hat, e2, d2, g, **lp)
    return lam_hat, Lam_hat


def sample_theta(an: Analysis, e1, d1, e2, d2, size, rng, cal=None) -> np.ndarray:
    """``size`` draws of Algorithm 3 (rows of NaN are ⊥)."""
    g = as_generator(rng)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **_laplace_params(cal))
    d = an.X.shape[1]
    sig = _sigma(e2, d2, cal)
    Z = g.standard_normal((size, d))
    ok = an.consts.C1(lam_hat) & (lam_hat > 0) & (an.fit is not None)
    out = np.full((size, d), np.nan)
    if an.fit is not None and ok.any():
        out[ok] = an.fit.theta + sig * an.consts.Delta_n(lam_hat[ok])[:, None] * Z[ok]
    return out


def sample_theta_generic(an: Analysis, e1, d1, e2, d2, size, rng, cal=None) -> np.ndarray:
    """``size`` draws of Algorithm 7 (rows of NaN are ⊥)."""
    g = as_generator(rng)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **_laplace_params(cal))
    d = an.X.shape[1]
    sig = _sigma(e2, d2, cal)
    Z = g.standard_normal((size, d))
    ok = an.consts.C2(lam_hat) & (lam_hat > 0) & (an.fit is not None)
    out = np.full((size, d), np.nan)
    if an.fit is not None and ok.any():
        out[ok] = an.fit.theta + sig * an.consts.Delta_gen(lam_hat[ok])[:, None] * Z[ok]
    return out


def _sigma(eps, delta, cal) -> float:
    scale = 1.0 if cal is None else float(cal.params.get("gauss_scale", 1.0))
    return analytic_gaussian_sigma(eps, delta) * scale


def local_sensitivity(an: Analysis, v: np.ndarray) -> float:
    """LS_v(P_n) = (2 r_p/n)·‖H⁻¹v‖_q (exact, NON-PRIVATE; q = 2 on the ℓ2 ball, 1 on the hypercube)."""
    assert an.fit is not None               # only called on a fitted (non-degenerate) design
    w = np.linalg.solve(an.fit.H, v)
    return float(2.0 * an.r_p / an.X.shape[0] * np.linalg.norm(w, ord=an.q))


def sample_functional(an: Analysis, cfg: FunctionalConfig, size: int, rng, cal=None) -> dict:
    """``size`` independent runs of Algorithm 5 (vectorised). Returns arrays: ``value`` (NaN = ⊥),
    ``lam_hat``, ``Lam_hat``, ``tau``, ``taub``, ``eps_var``, ``c1`` (bool) and ``passed`` (bool)."""
    g = as_generator(rng)
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    lp = _laplace_params(cal)
    lam_hat, _ = alg6l(an.K, an.ladder, e1, d1, size, g, **lp)
    Lam_hat, _ = alg4(an.consts, an.lam_max, lam_hat, e2, d2, g, **lp)
    c1 = an.consts.C1(lam_hat) & (lam_hat > 0)
    tau, taub = an.consts.tau_pair(lam_hat, Lam_hat)
    ev = eps_var(an.nu * tau, log_delta=ld4)
    passed = c1 & (an.nu * tau < 1) & (ev <= e4) & (an.fit is not None)
    Z = g.standard_normal(size)
    value = np.full(size, np.nan)
    if an.fit is not None and passed.any():
        v = cfg.vector(an.X.shape[1])
        S = local_sensitivity(an, v)
        value[passed] = v @ an.fit.theta + _sigma(e3, d3, cal) * (1.0 + an.nu * taub[passed]) * S * Z[passed]
    return dict(value=value, lam_hat=lam_hat, Lam_hat=Lam_hat, tau=tau, taub=taub, eps_var=ev, c1=c1, passed=passed)


# ---------------------------------------------------------------------------------------------
# calibrations
# ---------------------------------------------------------------------------------------------
_COUNT = ("the count K(λ_min) = min{k : R^(k)(λ_min) ≤ 0} of the lower recursion (10) has sensitivity 1 "
          "under replace-one, because λ_min(P′) ≥ R(λ_min(P)) for every neighbour (Corollary 5.2) and R is "
          "nondecreasing [DERIVED].")


def calibrate_lambda_min(cfg: LambdaMinConfig) -> Calibration:
    return Calibration(
        mechanism="single_parameter/lambda-min", notion="pure", epsilon=cfg.epsilon, sensitivity=1.0,
        constant=1.0 / cfg.epsilon, constant_name="Laplace scale 1/ε on the count",
        derivation=_COUNT + f" λ̂ = K⁻¹(⌈K + Lap(1/ε) − log(1/(2δ))/ε⌉) ≤ λ_min with probability ≥ 1 − δ "
                            f"(δ = {cfg.delta:g} is a coverage level, not a privacy δ).",
        reference=REF + ", Algorithm 2 / Algorithm 6 and Corollary 3.2", params={"delta_coverage": cfg.delta})


def calibrate_eigen_bounds(cfg: EigenBoundsConfig) -> Calibration:
    e1, e2 = cfg.share * cfg.epsilon, (1 - cfg.share) * cfg.epsilon
    return Calibration(
        mechanism="single_parameter/eigen-bounds", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta / 2,
        sensitivity=1.0, constant=1.0 / e1, constant_name="Laplace scale 1/ε₁ on the count K (and 1/ε₂ on K↑)",
        derivation=_COUNT + " Given λ̂ ≤ λ_min, the upward count K↑ of R↑(Λ) = (1 + c r₂ Δ_n(λ̂))Λ + M1/n to "
                            "Λ_cap = M1 + ρ also has sensitivity 1; Lemma 2.2 with the good set {λ̂ ≤ λ_min} "
                            f"(missed w.p. δ₁) gives (ε₁ + ε₂, δ₁)-DP with ε₁ = {e1:g}, ε₂ = {e2:g}, "
                            f"δ₁ = δ₂ = {cfg.delta / 2:g}.",
        reference=REF + ", Algorithms 2 and 4, Corollaries 3.2 and 3.4", params={"epsilons": (e1, e2)})


def calibrate_theta(cfg: ThetaConfig, *, generic: bool = False) -> Calibration:
    e1, e2 = cfg.share * cfg.epsilon, (1 - cfg.share) * cfg.epsilon
    d1 = d2 = cfg.delta / 2
    sig = analytic_gaussian_sigma(e2, d2)
    if generic:
        name, alg = "single_parameter/theta-generic", "Algorithm 7, Propositions 5.2 and 7.1"
        deriv = ("‖θ̂(P′) − θ̂(P)‖₂ ≤ Δ_gen(λ̂) when (C2) nλ̂² ≥ 4D·M2, nλ̂ ≥ 8M1' holds and λ̂ ≤ λ_min [DERIVED]; ")
    else:
        name, alg = "single_parameter/theta", "Algorithm 3, Theorem 1"
        deriv = ("‖θ̂(P′) − θ̂(P)‖₂ ≤ Δ_n(λ̂) = 2D/(a + √(a² − 2c r₂ D nλ̂)), a = nλ̂ − M1, when (C1) holds at "
                 "λ̂ ≤ λ_min [DERIVED, Corollary 3.1]; ")
    return Calibration(
        mechanism=name, notion="approx", epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=1.0, constant=sig,
        constant_name="Gaussian multiplier σ(ε₂, δ₂) (noise sd = σ·Δ(λ̂))",
        derivation=deriv + "λ̂ is ε₁-DP with P(λ̂ > λ_min) ≤ δ₁; the Gaussian step with sd σ(ε₂, δ₂)·Δ(λ̂) is "
                           f"(ε₂, δ₂)-DP on that good event (Lemma 2.3), so the total is (ε₁ + ε₂, δ₁ + δ₂) with "
                           f"ε₁ = {e1:g}, ε₂ = {e2:g}, δ₁ = δ₂ = {d1:g} (Observation 2.4). Count sensitivity 1.",
        reference=REF + ", " + alg, params={"gauss_scale": 1.0, "count_noise": 1.0})


def calibrate_functional(cfg: FunctionalConfig) -> Calibration:
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    sig = analytic_gaussian_sigma(e3, d3)
    return Calibration(
        mechanism="single_parameter/functional", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta,
        sensitivity=1.0, constant=sig, constant_name="Gaussian multiplier σ(ε₃, δ₃) (noise sd = σ(1 + ντ̄)·LS_v)",
        derivation=("λ̂ (Alg. 2, ε₁) and Λ̂ (Alg. 4, ε₂) are counts of sensitivity 1 plus Laplace noise; on the good "
                    "set {λ̂ ≤ λ_min, Λ̂ ≥ λ_max} (missed w.p. ≤ δ₁ + δ₂, Lemma 2.2 in two nested steps), "
                    "|⟨v, θ̂′ − θ̂⟩| ≤ (1 + ν τ̄)·LS_v [DERIVED Corollary 3.3] so the mean shift costs (ε₃, δ₃) "
                    "(Lemma 2.3), and LS_v′/LS_v ∈ [1 − ντ, 1 + ντ] so the variance change costs (ε₄, δ₄) when "
                    "ε_var(ντ; δ₄) ≤ ε₄ (the test (14); Lemma A.1(iii)), chained shift-then-variance: total "
                    f"(ε₁+ε₂+ε₃+ε₄, δ₁+δ₂+δ₃+e^ε₃·δ₄) = ({cfg.epsilon:g}, {cfg.delta:g}) with ε = "
                    f"({e1:.3g}, {e2:.3g}, {e3:.3g}, {e4:.3g}), δ₄ = e^{{{ld4:.4g}}}. The test depends only on "
                    "(λ̂, Λ̂), so ⊥ is post-processing."),
        reference=REF + ", Algorithm 5, Corollary 3.6 and Theorem 2",
        params={"gauss_scale": 1.0, "count_noise": 1.0, "count_shift": True})


# ---------------------------------------------------------------------------------------------
# releases
# ---------------------------------------------------------------------------------------------
def release_lambda_min(data, cfg: LambdaMinConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 2: a private lower bound λ̂ on λ_min(∇²L_n(θ̂)) (0 means "not certified").

    ε-DP (Laplace on a sensitivity-1 count); P(λ̂ ≤ λ_min) ≥ 1 − δ (δ is a coverage level).
    """
    cal = calibrate_lambda_min(cfg)
    an = analyse(data, cfg)
    lam_hat = float(sample_lambda_min(an, cfg.epsilon, cfg.delta, 1, rng, cal)[0])
    notes = _clip_note(an, cfg) + (Note("info", f"the released λ̂ ≤ λ_min with probability ≥ 1 − {cfg.delta:g} "
                                                "(λ̂ = 0: not certified)"),)
    return Release(cal.mechanism, lam_hat, cal.cost(1), cal, True, notes, _diag(an), cfg)


def release_eigen_bounds(data, cfg: EigenBoundsConfig, *, rng: RNGLike = None) -> Release:
    """Algorithms 2 and 4: value (λ̂, Λ̂), certified λ̂ ≤ λ_min (w.p. ≥ 1 − δ/2) and Λ̂ ≥ λ_max (w.p. ≥ 1 − δ/2)."""
    cal = calibrate_eigen_bounds(cfg)
    an = analyse(data, cfg)
    e1, e2 = cal.params["epsilons"]
    lh, Lh = sample_eigen_bounds(an, e1, cfg.delta / 2, e2, cfg.delta / 2, 1, rng, cal)
    notes = _clip_note(an, cfg) + (Note("info", f"the released λ̂ ≤ λ_min and Λ̂ ≥ λ_max, each with probability "
                                                f"≥ 1 − {cfg.delta / 2:g}"),)
    Ku = int(upper_count(an.consts, an.lam_max, lh[:1])[0]) if lh[0] > 0 else 0
    return Release(cal.mechanism, np.array([lh[0], Lh[0]]), cal.cost(1), cal, True, notes,
                   _diag(an, **{"count K↑(λ_max) (non-private)": Ku}), cfg)


def _bottom_theta(floor_name) -> Note:
    """The ⊥ note: what follows from the noised λ̂ alone (a degenerate design's reason is a diagnostic)."""
    return Note("withheld", f"{BOTTOM}: the private bound λ̂ is below the certified region {floor_name}, so no "
                            "noise scale can be certified (n too small for this design and ε, or λ_min = 0); the "
                            "cost is charged: the decision used λ̂.")


def release_theta(data, cfg: ThetaConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 3: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_n(λ̂)·Z, or ⊥ (NaN vector) when (C1) fails at λ̂."""
    return _release_theta(data, cfg, rng, generic=False)


def release_theta_generic(data, cfg: GenericConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 7: θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_gen(λ̂)·Z with λ̂ from recursion R₁, or ⊥ when (C2) fails."""
    return _release_theta(data, cfg, rng, generic=True)


def _release_theta(data, cfg, rng, generic):
    cal = calibrate_theta(cfg, generic=generic)
    an = analyse(data, cfg, generic=generic)
    e1, e2 = cfg.share * cfg.epsilon, (1 - cfg.share) * cfg.epsilon
    g = as_generator(rng)
    sampler = sample_theta_generic if generic else sample_theta
    # draw λ̂ once and reuse it for the note (same generator state as the sampler)
    state = g.bit_generator.state
    lam_hat = float(alg6l(an.K, an.ladder, e1, cfg.delta / 2, 1, g)[0][0])
    g.bit_generator.state = state
    theta = sampler(an, e1, cfg.delta / 2, e2, cfg.delta / 2, 1, g, cal)[0]
    notes = list(_clip_note(an, cfg))
    if np.all(np.isnan(theta)):
        notes.append(Note("output", f"private bound λ̂ = {lam_hat:.6g}"))
        notes.append(_bottom_theta("(C2)" if generic else "(C1)"))
        extra = {}
    else:
        dn = an.consts.Delta_gen(lam_hat) if generic else an.consts.Delta_n(lam_hat)
        notes.append(Note("output", f"certified λ̂ = {lam_hat:.6g}; noise sd per coordinate σ·Δ(λ̂) = "
                                    f"{cal.constant * float(dn):.4g}"))
        extra = {"noise sd (public given λ̂)": cal.constant * float(dn)}
    return Release(cal.mechanism, theta, cal.cost(1), cal, True, tuple(notes), _diag(an, **extra), cfg)


def release_functional(data, cfg: FunctionalConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 5: propose-test-release of ⟨v, θ̂⟩ (value NaN for ⊥; the cost is charged either way)."""
    cal = calibrate_functional(cfg)
    an = analyse(data, cfg)
    v = cfg.vector(an.X.shape[1])
    out = sample_functional(an, cfg, 1, rng, cal)
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    lh, Lh, tau, ev = (float(out[k][0]) for k in ("lam_hat", "Lam_hat", "tau", "eps_var"))
    notes = list(_clip_note(an, cfg))
    notes.append(Note("output", f"private bounds: λ̂ = {lh:.6g} (≤ λ_min w.p. ≥ 1 − {d1:.2g}), "
                                f"Λ̂ = {Lh:.6g} (≥ λ_max w.p. ≥ 1 − {d2:.2g})"))
    extra = {}
    if an.fit is not None:
        S = local_sensitivity(an, v)
        extra = {"oracle local sensitivity LS_v (non-private)": S,
                 "oracle noise sd σ(ε, δ)·LS_v (non-private)": analytic_gaussian_sigma(cfg.epsilon, cfg.delta) * S,
                 "⟨v, θ̂⟩ (non-private)": float(v @ an.fit.theta)}
    taub = float(out["taub"][0])
    if out["passed"][0]:
        # the noise sd σ(ε₃, δ₃)(1 + ντ̄)·LS_v uses the exact local sensitivity LS_v: data, a diagnostic only
        notes.append(Note("output", f"test passed: ε_var(ντ) = {ev:.4g} ≤ ε₄ = {e4:.4g} (τ = {tau:.4g}); released "
                                    f"with noise sd σ(ε₃, δ₃)(1 + ντ̄)·LS_v, σ(ε₃, δ₃)(1 + ντ̄) = "
                                    f"{cal.constant * (1 + an.nu * taub):.4g} (LS_v, the local sensitivity, is data "
                                    "and is not shown)"))
        extra["noise sd (non-private: uses LS_v)"] = (cal.constant * (1 + an.nu * taub)
                                                      * extra["oracle local sensitivity LS_v (non-private)"])
    elif not out["c1"][0]:
        notes.append(Note("withheld", f"{BOTTOM}: λ̂ is not in the certified region (C1) (needs nλ̂ ≥ "
                                      f"{an.consts.n * an.consts.lam_c:.4g}); n is too small for this design and ε, "
                                      "or λ_min = 0."))
    elif not (an.nu * tau < 1 and ev <= e4):
        notes.append(Note("withheld", f"{BOTTOM}: the variance-change test (14) failed: ε_var(ντ) = {ev:.4g} > "
                                      f"ε₄ = {e4:.4g} (τ = {tau:.4g}, ν = {an.nu:.3g}); κ̂ = Λ̂/λ̂ = {Lh / lh:.3g} "
                                      "is too large for this n."))
    else:  # the bounds passed but θ̂ does not exist: λ̂ > λ_min = 0, the event of probability ≤ δ₁
        notes.append(Note("withheld", f"{BOTTOM}: the private bounds passed the tests but no fit can be released "
                                      f"(λ̂ exceeded λ_min, an event of probability ≤ {d1:.2g})."))
    return Release(cal.mechanism, float(out["value"][0]), cal.cost(1), cal, True, tuple(notes),
                   _diag(an, **extra), cfg)


# ---------------------------------------------------------------------------------------------
# non-private answers (plain values)
# ---------------------------------------------------------------------------------------------
def nonprivate_lambda_min(data, cfg) -> float:
    """λ_min(∇²L_n(θ̂)) (NON-PRIVATE)."""
    return analyse(data, cfg).lam_min


def nonprivate_eigenvalues(data, cfg) -> np.ndarray:
    """(λ_min, λ_max) (NON-PRIVATE)."""
    an = analyse(data, cfg)
    return np.array([an.lam_min, an.lam_max])


def nonprivate_theta(data, cfg) -> np.ndarray:
    """θ̂ (NON-PRIVATE)."""
    an = analyse(data, cfg)
    if an.fit is None:
        raise DPValueError(f"θ̂ is undefined: {an.degenerate}.")
    return an.fit.theta


def nonprivate_functional(data, cfg: FunctionalConfig) -> float:
    """⟨v, θ̂⟩ (NON-PRIVATE)."""
    theta = nonprivate_theta(data, cfg)
    return float(cfg.vector(theta.shape[0]) @ theta)

"""Public API: :func:`sample`, :func:`log_density` and the batched regression samplers.

Privacy statement (every private mechanism here; Reimherr & Awan 2019, spec kng.md):

* Guarantee: pure ε-DP **for the exact target law** (KNG: Thm 3.1; exponential mechanism:
  Prop. 2.2; objective perturbation: Kifer et al. 2012 / Awan–Slavković, exact constrained
  minimiser). Exact samplers (the mean, the 1-D median and quantile) release draws from that
  law; MCMC draws (geometric median, regressions, the exponential mechanism in d ≥ 2) are only
  approximately distributed as the target: "ε-DP for the exact target; the MCMC draw is
  approximately private" (a sampler within total variation η of the target for every dataset
  gives (ε, (1 + e^ε)η)-DP, and η is not certified).
* Neighbouring relation: replace one record; n is fixed and public.
* Sensitivities: :mod:`dpcore.kng._calibration` (derivations next to the constants).
* Cost: each of the ``size`` independent draws costs ε; releasing all of them costs ``size``·ε
  (basic composition) — ``KNGResult.cost`` is ``PrivacyCost.pure(ε·size)``.

MCMC rules (spec §4): each released draw is the last state of its own chain; chains start at the
centre of Θ (data-independent) with proposal scales from public quantities (n, ε, Δ, the public
bounds) and adapt during burn-in. When fewer than 4 draws are requested, extra chains are run on
the same data *for the diagnostics only*: their states are discarded, never released. The
diagnostics (acceptance, split R-hat, ESS) are computed from the private data: they are
non-private and shown beside, never inside, a release. When they show the chains have not mixed
(max R-hat > 1.05 or min ESS < 100) the draw is withheld (``released=False``, samples NaN, with a
message); the cost is still charged, because the chains ran on the data and the refusal itself
depends on them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from .._rng import RNGLike, as_generator, generators_for, spawn
from .._validation import (DPValueError, check_choice, check_epsilon, check_int, check_norm,
                           check_positive, check_probability_level)
from ..mcmc import MCMCDiagnostics, metropolis_within_gibbs, per_chain_rhat_ess
from ..noise import knorm_noise
from ..privacy import PrivacyCost
from ._calibration import CONSTANTS, MECHANISMS, PROBLEMS, Calibration, calibrate, cube_to_norm
from ._exact import (quantile_exponential_pieces, quantile_kng_pieces, sample_quantile_kng,
                     sample_truncated_normal)
from ._objpert import l1_constrained_qp
from ._problems import Prepared, nonprivate_quantile_regression, ols, prepare
from ._targets import GeometricMedianTarget, LinearRegressionTarget, _norm_rows, quantile_regression_target

#: Largest number of draws per call (exact samplers / MCMC chains / objective-perturbation QPs).
MAX_SIZE = 1_000_000
MAX_CHAINS = 5_000
MAX_SWEEPS = 200_000
#: Work cap for MCMC targets that touch every record per evaluation: chains × n × d.
MAX_MCMC_WORK = 30_000_000
#: Release rule for MCMC draws.
RHAT_MAX, ESS_MIN = 1.05, 100.0
#: Chains run at least (extra ones for the diagnostics only).
MIN_CHAINS = 4
#: Default sweeps per problem.
DEFAULT_SWEEPS = {"linear_regression": 5_000, "quantile_regression": 2_000, "median": 2_000,
                  "quantile": 2_000, "mean": 2_000}

MCMC_NOTE = "ε-DP for the exact target; the MCMC draw is approximately private"
EXACT_NOTE = "exact sampler: ε-DP"


@dataclass(frozen=True)
class KNGResult:
    """A release of :func:`sample`.

    Attributes
    ----------
    samples : (size, d) array
        The private draws (NaN when ``released`` is False). Regressions: in the original units.
    nonprivate : (d,) array
        The non-private estimate on the same (clipped) data — NOT private, for comparison.
    cost : PrivacyCost or None
        ``PrivacyCost.pure(ε·size)`` (None for mechanism "nonprivate").
    sensitivity, density_constant : float or None
        Δ (or Δ_ℓ) and c of the density (see :mod:`dpcore.kng._calibration`).
    diagnostics : MCMCDiagnostics or None
        Non-private MCMC diagnostics (None for exact samplers).
    released : bool
        False when the MCMC diagnostics refused the release (see ``message``).
    statement : str
        Privacy statement: guarantee, neighbours, sensitivity derivation.
    """

    problem: str
    mechanism: str
    samples: np.ndarray
    nonprivate: np.ndarray
    cost: Optional[PrivacyCost]
    sensitivity: Optional[float]
    density_constant: Optional[float]
    norm: str
    epsilon: Optional[float]
    exact: bool
    diagnostics: Optional[MCMCDiagnostics]
    released: bool
    message: str
    statement: str
    n: int
    d: int
    clipped: int = 0
    params: tuple = ()

    @property
    def size(self) -> int:
        return int(self.samples.shape[0])


@dataclass(frozen=True)
class BatchResult:
    """Batched regression draws over R independent replicates (one chain each).

    ``theta`` (R, d) and ``nonprivate`` (R, d) are in the caller's (scaled) units. ``cost`` is the
    cost of each replicate's release (each replicate is a different dataset). ``diagnostics``
    summarises the worst replicate per coordinate (max split R-hat, min ESS of each single chain);
    ``replicate_rhat``/``replicate_ess`` (R, d) hold them per replicate; ``mixed`` (R,) applies
    the release rule per replicate.
    """

    theta: np.ndarray
    nonprivate: np.ndarray
    cost: Optional[PrivacyCost]
    sensitivity: Optional[float]
    density_constant: Optional[float]
    diagnostics: Optional[MCMCDiagnostics]
    mechanism: str = ""
    replicate_rhat: Optional[np.ndarray] = None
    replicate_ess: Optional[np.ndarray] = None
    mixed: Optional[np.ndarray] = None
    trace: Optional[np.ndarray] = None
    note: str = ""


# ----------------------------------------------------------------------------- validation
_PARAMS = {"tau", "B", "C_X", "constants", "bounds", "radius", "center", "x_bound", "y_bound"}


def _check_params(problem: str, params: dict) -> dict:
    unknown = set(params) - _PARAMS
    if unknown:
        raise DPValueError(f"unknown parameter(s) {sorted(unknown)}; allowed: {sorted(_PARAMS)}.")
    p = dict(params)
    p["tau"] = check_probability_level(p.get("tau", 0.5), "tau")
    p["B"] = check_positive(p.get("B", 1.0), "B")
    if p.get("C_X") is not None:
        p["C_X"] = check_positive(p["C_X"], "C_X")
    p["constants"] = check_choice(p.get("constants", "calibrated"), "constants", CONSTANTS)
    return p


def _step_cap(P: Prepared) -> float:
    if P.l1_radius is not None:
        return P.l1_radius
    if P.lower is not None:
        return float(np.max(P.upper - P.lower))
    return float(P.data.get("radius", 1.0))


def _initial_step(P: Prepared, cal: Calibration, mechanism: str) -> float:
    """Initial proposal scale from public quantities only (n, ε, Δ, the public bounds).

    The target's width is about 2Δ·w/(εn) (KNG) or √(2Δ_ℓ·w/(εn)) (exponential), w the public data
    scale; the chains start at the centre of Θ, possibly far from the mode, where a random walk
    with steps of that width would crawl (on a cone, half the moves go downhill whatever the step,
    so the adaptation barely grows a too-small step). Starting at no less than a tenth of Θ's
    size and letting the burn-in adaptation shrink the steps (fast: ×1/17 per batch when
    nothing is accepted) reaches the mode at n = 10 and at n = 1e7 alike.
    """
    return initial_step_rule(_target_width(P, cal, mechanism), _step_cap(P))


def initial_step_rule(width, cap):
    """min(cap, max(width, cap/10)), elementwise."""
    return np.minimum(cap, np.maximum(width, 0.1 * cap))


def _target_width(P: Prepared, cal: Calibration, mechanism: str) -> float:
    eps, n = cal.epsilon, P.n
    w = P.width if P.problem in ("median", "quantile") else 1.0
    if P.problem == "mean":
        return 2.4 / math.sqrt(2.0 * cal.density_constant * n)  # the exact Gaussian sd of the target
    if mechanism == "kng":
        return 2.0 * cal.sensitivity * w / (eps * n)
    return math.sqrt(2.0 * cal.sensitivity * w / (eps * n))


# ----------------------------------------------------------------------------- densities
def _logpdf(P: Prepared, cal: Calibration, mechanism: str, th: np.ndarray) -> np.ndarray:
    """Unnormalised log density of the mechanism's output at rows of θ (scaled units)."""
    c = cal.density_constant
    if mechanism == "kng":
        lp = -c * _norm_rows(P.gradient(th), cal.norm)
    elif mechanism == "exponential":
        lp = -c * P.objective(th)
    else:  # objective perturbation, interior of Θ: b = −(∇ℓ(θ) + γθ), constant Jacobian
        lp = -c * _norm_rows(P.gradient(th) + cal.gamma * th, cal.norm)
    return np.where(P.in_domain(th), lp, -np.inf)


def log_density(problem: str, data: Any, thetas: Any, *, mechanism: str, epsilon: float, norm: str = "linf",
                **params) -> np.ndarray:
    """Unnormalised log density of the mechanism's output at the rows of ``thetas`` (for plotting).

    Same arguments as :func:`sample`; ``thetas`` (m, d) (or (m,) in 1-D), in the original units.
    −inf outside Θ. For objective perturbation the density of the interior of Θ is returned
    (exp(−c‖∇ℓ(θ) + γθ‖_K); the boundary of the ℓ1 ball carries extra mass).
    """
    problem = check_choice(problem, "problem", PROBLEMS)
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    if mechanism == "nonprivate":
        raise DPValueError("the non-private estimate is a point, not a density; choose a private mechanism.")
    norm = check_norm(norm)
    eps = check_epsilon(epsilon)
    p = _check_params(problem, params)
    P = _prepare(problem, data, mechanism, norm, p)
    cal = _calibrate(P, mechanism, eps, norm, p)
    th = np.asarray(thetas, dtype=float)
    if th.ndim == 1:
        th = th[:, None] if P.d == 1 else th[None, :]
    if th.ndim != 2 or th.shape[1] != P.d:
        raise DPValueError(f"thetas must have shape (m, {P.d}); got {np.shape(thetas)}.")
    if P.scale_out is not None:
        th = th / P.scale_out
    return _logpdf(P, cal, mechanism, th)


def _prepare(problem, data, mechanism, norm, p) -> Prepared:
    return prepare(problem, data, mechanism, norm=norm, tau=p["tau"], B=p["B"], C_X=p.get("C_X"),
                   bounds=p.get("bounds"), radius=p.get("radius"), center=p.get("center"),
                   x_bound=p.get("x_bound", 1.0), y_bound=p.get("y_bound", 1.0))


def _calibrate(P: Prepared, mechanism: str, eps: float, norm: str, p: dict) -> Calibration:
    C_X = p.get("C_X")
    if C_X is None:
        C_X = cube_to_norm(P.d, norm)
    return calibrate(P.problem, mechanism, eps, d=P.d, norm=norm, constants=p["constants"], tau=p["tau"],
                     B=p["B"], C_X=C_X, radius=P.data.get("radius", 1.0), width=P.width)


# ----------------------------------------------------------------------------- sample
def sample(problem: str, data: Any, *, mechanism: str, epsilon: Optional[float], norm: str = "linf",
           size: int = 1, rng: RNGLike = None, sampler: str = "auto", n_sweeps: Optional[int] = None,
           burn_in: Optional[int] = None, progress: Optional[Callable[[int, int], Any]] = None,
           **params) -> KNGResult:
    """Draw ``size`` private estimates for ``problem`` with ``mechanism`` (Reimherr & Awan 2019).

    Parameters
    ----------
    problem : {"mean", "median", "quantile", "linear_regression", "quantile_regression"}
        "median" with d ≥ 2 columns is the geometric median.
    data : array (n,) or (n, d); a tuple (X, y) for the regressions.
    mechanism : {"kng", "exponential", "objective_perturbation", "nonprivate"}
    epsilon : float > 0 (ignored for "nonprivate")
    norm : {"l1", "l2", "linf"}
        The K-norm of KNG's gradient (and of objective perturbation's noise).
    size : int
        Number of independent draws; the release costs size·ε.
    rng : seed or Generator
    sampler : {"auto", "exact", "mcmc"}
        "auto": exact where available (mean KNG, 1-D median/quantile, the 1-D/ℓ∞ mean exponential
        mechanism), MCMC otherwise. "mcmc" forces MCMC (e.g. to compare it with the exact law).
    n_sweeps, burn_in : MCMC length (defaults per problem; burn-in n_sweeps // 2).
    progress : callable(done, total) -> bool, optional; forwarded to the MCMC sampler.
    **params
        ``bounds=(lo, hi)`` public range of the data and of Θ (median, quantile, geometric median;
        or the mean's box); ``radius`` (mean: ‖x_i − center‖_K ≤ radius) and ``center``;
        ``tau`` (quantile, quantile regression); ``B`` (‖θ‖₁ ≤ B for the regressions, in scaled
        units); ``C_X`` (quantile regression: ‖x‖_K ≤ C_X, default implied by ‖x‖∞ ≤ 1);
        ``x_bound``, ``y_bound`` (regressions: public bounds |x_ij| ≤ x_bound_j, |y| ≤ y_bound;
        the data are divided by them and the estimates multiplied back — post-processing);
        ``constants`` = "calibrated" (spec §3) or "paper" (the paper's printed constants; refused
        where they are not private: τ > 1/2 for quantile KNG).

    Returns
    -------
    KNGResult

    Notes
    -----
    Records outside the public domain are clipped to it and counted in ``clipped``/``message``.
    See the module docstring for the privacy statement and the MCMC release rule.
    """
    problem = check_choice(problem, "problem", PROBLEMS)
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    norm = check_norm(norm)
    size = check_int(size, "size (number of draws)", lo=1, hi=MAX_SIZE)
    sampler = check_choice(sampler, "sampler", ("auto", "exact", "mcmc"))
    p = _check_params(problem, params)
    eps = None if mechanism == "nonprivate" else check_epsilon(epsilon)
    P = _prepare(problem, data, mechanism, norm, p)
    scale = P.scale_out if P.scale_out is not None else 1.0
    nonpriv = P.nonprivate * scale
    base = dict(problem=problem, mechanism=mechanism, nonprivate=nonpriv, norm=norm, epsilon=eps, n=P.n, d=P.d,
                clipped=P.clipped, params=tuple(sorted((k, _plain(v)) for k, v in params.items())))
    if mechanism == "nonprivate":
        return KNGResult(samples=np.tile(nonpriv, (size, 1)), cost=None, sensitivity=None, density_constant=None,
                         exact=True, diagnostics=None, released=True,
                         message=("NOT private: the non-private estimate, for comparison only. " + P.clip_note).strip(),
                         statement="No privacy: this is the estimate computed directly from the data.", **base)
    cal = _calibrate(P, mechanism, eps, norm, p)
    g = as_generator(rng)
    draws, diag, exact = _draw(P, cal, mechanism, size, g, sampler, n_sweeps, burn_in, progress)
    released = True
    msgs = []
    if diag is not None and not diag.mixed(RHAT_MAX, ESS_MIN):
        released = False
        msgs.append(f"Draw withheld: the MCMC chains have not mixed (max R-hat {diag.max_rhat:.3g} > {RHAT_MAX} or "
                    f"min ESS {diag.min_ess:.3g} < {ESS_MIN:g}); increase the number of sweeps. The cost is still "
                    "charged: the chains ran on the data.")
        draws = np.full_like(draws, np.nan)
    if P.clip_note:
        msgs.append(P.clip_note)
    note = EXACT_NOTE if exact else MCMC_NOTE
    if size > 1:
        note += f"; {size} independent draws at ε = {eps:g} each (basic composition)"
    cost = PrivacyCost.pure(eps * size, note=note)
    statement = (f"{'ε-DP' if exact else 'ε-DP for the exact target law (the MCMC draw is approximately private)'} "
                 f"with ε = {eps:g} per draw; neighbours: replace one record (n = {P.n} fixed). "
                 f"Sensitivity: {cal.statement}")
    return KNGResult(samples=draws * scale, cost=cost, sensitivity=cal.sensitivity, density_constant=cal.density_constant,
                     exact=exact, diagnostics=diag, released=released, message=" ".join(msgs), statement=statement,
                     **base)


def _plain(v):
    if isinstance(v, np.ndarray):
        return tuple(v.ravel().tolist())
    if isinstance(v, (list, tuple)):
        return tuple(_plain(u) for u in v)
    return v


def _draw(P: Prepared, cal: Calibration, mechanism: str, size: int, g: np.random.Generator, sampler: str,
          n_sweeps, burn_in, progress):
    """Returns (draws (size, d) in scaled units, diagnostics or None, exact?)."""
    prob = P.problem
    one_d = P.d == 1 and prob in ("median", "quantile")
    has_exact = ((prob == "mean" and (mechanism == "kng" or P.d == 1 or cal.norm == "linf"))
                 or (one_d and mechanism in ("kng", "exponential"))
                 or mechanism == "objective_perturbation")
    if sampler == "exact" and not has_exact:
        raise DPValueError(f"no exact sampler for problem={prob!r} with mechanism={mechanism!r} (d = {P.d}); "
                           "use sampler='auto' or 'mcmc'.")
    if sampler == "mcmc" and mechanism == "objective_perturbation":
        raise DPValueError("objective perturbation is an optimisation, not a sampler: use sampler='auto'.")
    if has_exact and sampler != "mcmc":
        return _draw_exact(P, cal, mechanism, size, g), None, True
    return _draw_mcmc(P, cal, mechanism, size, g, n_sweeps, burn_in, progress)


def _draw_exact(P: Prepared, cal: Calibration, mechanism: str, size: int, g: np.random.Generator) -> np.ndarray:
    c = cal.density_constant
    if P.problem == "mean":
        xbar = P.data["xbar"]
        if mechanism == "kng":
            # f ∝ exp(−c‖∇ℓ‖) = exp(−2nc‖θ − x̄‖_K): the K-norm mechanism, exact (Gamma radius × uniform ball)
            return xbar + knorm_noise(P.d, 2.0 * P.n * c, cal.norm, size, g)
        # exponential: N(x̄, 1/(2nc)) truncated to the ball = box (1-D or ℓ∞)
        ctr, r = P.data["center"], P.data["radius"]
        return sample_truncated_normal(xbar, 1.0 / math.sqrt(2.0 * P.n * c), ctr - r, ctr + r, size, g)
    if mechanism == "objective_perturbation":
        return _objective_perturbation(P.data["A"][None], P.data["b"][None], cal, P.l1_radius, spawn(g, size))
    y = P.data["y"]
    lo, hi = P.data["lo"], P.data["hi"]
    tau = P.tau
    # the median's constants refer to Σ|x − θ| and #{<} − #{>} = 2(#{≤} − n/2) a.e.: c_quantile = 2c
    cq = 2.0 * c if P.problem == "median" else c
    if mechanism == "kng":
        return sample_quantile_kng(y, lo, hi, tau, cq, size, g)[:, None]
    return quantile_exponential_pieces(P.sorted_y(), lo, hi, tau, cq).sample(size, g)[:, None]


def exact_pieces(P: Prepared, cal: Calibration, mechanism: str):
    """The exact 1-D law (``Pieces``) of the median/quantile mechanisms (tests and plots)."""
    c = cal.density_constant
    cq = 2.0 * c if P.problem == "median" else c
    f = quantile_kng_pieces if mechanism == "kng" else quantile_exponential_pieces
    return f(P.sorted_y(), P.data["lo"], P.data["hi"], P.tau, cq)


def _objective_perturbation(A, b, cal: Calibration, B: float, gens) -> np.ndarray:
    """One release per generator: θ = argmin_{‖θ‖₁≤B} θᵀAθ − 2θᵀb + (γ/2)θᵀθ + θᵀβ, β ∝ exp(−c‖β‖_K).

    A (R or 1, d, d), b (R or 1, d); gens: R generators (replicate/draw r uses gens[r] only).
    """
    d = b.shape[-1]
    R = len(gens)
    A = np.broadcast_to(A, (R, d, d))
    b = np.broadcast_to(b, (R, d))
    out = np.empty((R, d))
    eye = np.eye(d)
    for r in range(R):
        noise = knorm_noise(d, cal.density_constant, cal.norm, 1, gens[r])[0]
        out[r] = l1_constrained_qp(2.0 * A[r] + cal.gamma * eye, 2.0 * b[r] - noise, B)
    return out


def _draw_mcmc(P: Prepared, cal: Calibration, mechanism: str, size: int, g: np.random.Generator,
               n_sweeps, burn_in, progress):
    if size > MAX_CHAINS:
        raise DPValueError(f"size = {size} MCMC draws (one chain each) exceeds the limit {MAX_CHAINS}; "
                           "request fewer draws.")
    n_sweeps = check_int(DEFAULT_SWEEPS[P.problem] if n_sweeps is None else n_sweeps, "n_sweeps", lo=2,
                         hi=MAX_SWEEPS)
    C = max(size, MIN_CHAINS)
    if (P.problem == "median" and P.d > 1) or P.problem == "quantile_regression":
        work = C * P.n * (P.d if P.problem == "median" else 1)
        if work > MAX_MCMC_WORK:
            raise DPValueError(f"this MCMC would hold {work:,} values per step (chains × records); the limit is "
                               f"{MAX_MCMC_WORK:,}: request fewer draws or use fewer records.")
    gens = spawn(g, C)
    init = np.tile(P.centre, (C, 1))
    step = _initial_step(P, cal, mechanism)
    lower, upper = P.lower, P.upper
    inc = None
    logp = None
    if P.problem == "linear_regression":
        inc = LinearRegressionTarget(P.data["A"][None], P.data["b"][None], mechanism, cal.density_constant, cal.norm)
    elif P.problem == "quantile_regression":
        inc = quantile_regression_target(P.data["X"][None], P.data["y"][None], P.tau, mechanism,
                                         cal.density_constant, cal.norm)
    elif P.problem == "median" and P.d > 1:
        inc = GeometricMedianTarget(P.data["x"], mechanism, cal.density_constant, cal.norm)
    else:
        if P.kball is not None:  # mean, exponential mechanism: Θ = K-ball ⊂ box of half-width r
            ctr, r, _ = P.kball
            lower, upper = ctr - r, ctr + r
        logp = lambda th: _logpdf(P, cal, mechanism, th)  # noqa: E731
    burn = n_sweeps // 2 if burn_in is None else check_int(burn_in, "burn_in", lo=0, hi=n_sweeps - 1)
    thin = _thin(n_sweeps - burn, C, P.d, 1000)
    res = metropolis_within_gibbs(logp, init, n_sweeps=n_sweeps, rng=gens, step_size=step, burn_in=burn,
                                  lower=lower, upper=upper, l1_radius=P.l1_radius, incremental=inc, thin=thin,
                                  keep_trace=False, progress=progress)
    return res.final[:size].copy(), res.diagnostics, False


def _thin(post: int, chains: int, d: int, keep: int) -> int:
    """Thinning that keeps about ``keep`` post-burn-in states per chain and ≤ 2e7 stored values."""
    return max(1, post // keep, math.ceil(post * chains * d / 2e7))


# ----------------------------------------------------------------------------- batched (simulations)
def _batch_gens(rng, R: int):
    """A list of R generators (chain r uses only rng[r]) when one is given, else one Generator for all
    chains (much faster for tens of thousands of chains; chains are still independent)."""
    if isinstance(rng, (list, tuple)):
        return generators_for(rng, R)
    return as_generator(rng)


def _gen_list(gens, R: int) -> list:
    return gens if isinstance(gens, list) else spawn(gens, R)


def _per_replicate_diagnostics(trace: np.ndarray, base: MCMCDiagnostics):
    """Rank-normalised split R-hat (bulk and tail) and bulk ESS of each replicate's single chain
    (Vehtari et al. 2021, applied per chain), and the worst replicate per coordinate."""
    T, R, d = trace.shape
    if T >= 8:
        rh, es = per_chain_rhat_ess(trace)
    else:
        rh = es = np.full((R, d), np.nan)
    summary = MCMCDiagnostics(acceptance=base.acceptance, acceptance_per_coord=base.acceptance_per_coord,
                              rhat=np.max(rh, axis=0), ess=np.min(es, axis=0), n_chains=R,
                              n_sweeps=base.n_sweeps, burn_in=base.burn_in)
    mixed = np.all(rh <= RHAT_MAX, axis=1) & np.all(es >= ESS_MIN, axis=1)
    return summary, rh, es, mixed


def _run_batch_mcmc(inc, R, d, init, step, B, n_sweeps, burn_in, gens, keep_trace, replicate_diagnostics=True):
    if init is None:
        init = np.zeros((R, d))
        start_note = "chains start at the centre of Θ (θ = 0)"
    else:
        init = np.asarray(init, dtype=float)
        if init.shape != (R, d):
            raise DPValueError(f"init must have shape ({R}, {d}) (one start per replicate); got {init.shape}.")
        start_note = ("chains start at caller-supplied points (a data-dependent start such as the projected "
                      "non-private estimate is allowed in simulations only)")
    burn = n_sweeps // 2 if burn_in is None else check_int(burn_in, "burn_in", lo=0, hi=n_sweeps - 1)
    thin = _thin(n_sweeps - burn, R, d, 1000 if replicate_diagnostics else 10)
    res = metropolis_within_gibbs(None, init, n_sweeps=n_sweeps, rng=gens, step_size=step, burn_in=burn,
                                  l1_radius=B, incremental=inc, thin=thin, keep_trace=True)
    if replicate_diagnostics:
        summary, rh, es, mixed = _per_replicate_diagnostics(res.trace, res.diagnostics)
    else:
        summary, rh, es, mixed = None, None, None, None
    return res.final.copy(), summary, rh, es, mixed, (res.trace if keep_trace else None), start_note


def sample_linear_regression_suffstats(XtX, Xty, n, *, mechanism: str, epsilon: float, B: float = 1.0,
                                       norm: str = "linf", constants: str = "calibrated", n_sweeps: int = 10_000,
                                       rng=None, init=None, burn_in=None, keep_trace: bool = False,
                                       replicate_diagnostics: bool = True) -> BatchResult:
    """Linear regression on sufficient statistics, batched over R independent replicates.

    Parameters
    ----------
    XtX : (R, d, d), Xty : (R, d)
        Sufficient statistics of R datasets already scaled to |y| ≤ 1, ‖x‖∞ ≤ 1 (the caller's
        responsibility: the sensitivities assume it).
    n : int or (R,) ints — sample sizes (public; set the initial proposal scales).
    mechanism : {"kng", "exponential", "objective_perturbation", "nonprivate"}
    rng : list of R Generators (replicate r uses rng[r] only) or a seed/Generator (then one stream
        drives all chains: faster for very many replicates, and the chains are still independent).
    init : (R, d) start states inside {‖θ‖₁ < B}; None = centre of Θ (zeros).
    n_sweeps, burn_in : MCMC length (burn-in n_sweeps // 2 by default; adaptation only then).
    keep_trace : return the (thinned, ≤ 1000 draws per chain) post-burn-in trace.
    replicate_diagnostics : compute each replicate's split R-hat/ESS (False: diagnostics None; for
        audits with tens of thousands of chains).

    Returns
    -------
    BatchResult — one chain per replicate; KNG and the exponential mechanism cost O(d) per
    coordinate update (independent of n).
    """
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    norm = check_norm(norm)
    B = check_positive(B, "B")
    constants = check_choice(constants, "constants", CONSTANTS)
    A = np.asarray(XtX, dtype=float)
    b = np.asarray(Xty, dtype=float)
    if A.ndim != 3 or b.ndim != 2 or A.shape[0] != b.shape[0] or A.shape[1:] != (b.shape[1], b.shape[1]):
        raise DPValueError(f"XtX must be (R, d, d) and Xty (R, d); got {A.shape} and {b.shape}.")
    if not (np.isfinite(A).all() and np.isfinite(b).all()):
        raise DPValueError("XtX and Xty must be finite.")
    R, d = b.shape
    nn = np.broadcast_to(np.asarray(n, dtype=float), (R,))
    if not (np.all(nn >= 1) and np.all(nn == np.round(nn))):
        raise DPValueError(f"n must be whole numbers >= 1; got {n!r}.")
    nonpriv = ols(A, b)
    if mechanism == "nonprivate":
        return BatchResult(nonpriv.copy(), nonpriv, None, None, None, None, mechanism,
                           note="non-private OLS (not private)")
    eps = check_epsilon(epsilon)
    n_sweeps = check_int(n_sweeps, "n_sweeps", lo=2, hi=10 * MAX_SWEEPS)
    cal = calibrate("linear_regression", mechanism, eps, d=d, norm=norm, constants=constants, B=B)
    gens = _batch_gens(rng, R)
    if mechanism == "objective_perturbation":
        theta = _objective_perturbation(A, b, cal, B, _gen_list(gens, R))
        cost = PrivacyCost.pure(eps, note=f"{EXACT_NOTE} (exact constrained minimiser); per replicate")
        return BatchResult(theta, nonpriv, cost, cal.sensitivity, cal.density_constant, None, mechanism,
                           note="objective perturbation: exact QP, KKT residual checked")
    inc = LinearRegressionTarget(A, b, mechanism, cal.density_constant, norm)
    width = 2.0 * cal.sensitivity / (eps * nn) if mechanism == "kng" else np.sqrt(2.0 * cal.sensitivity / (eps * nn))
    step = initial_step_rule(width, B)[:, None] * np.ones((1, d))
    theta, summary, rh, es, mixed, trace, start = _run_batch_mcmc(inc, R, d, init, step, B, n_sweeps, burn_in,
                                                                  gens, keep_trace, replicate_diagnostics)
    cost = PrivacyCost.pure(eps, note=f"{MCMC_NOTE}; per replicate")
    return BatchResult(theta, nonpriv, cost, cal.sensitivity, cal.density_constant, summary, mechanism, rh, es,
                       mixed, trace, note=start)


def sample_quantile_regression_batch(X, y, *, tau: float, mechanism: str, epsilon: float, B: float = 1.0,
                                     C_X: float = 1.0, norm: str = "linf", constants: str = "calibrated",
                                     n_sweeps: int = 1_000, rng=None, init=None, burn_in=None,
                                     nonprivate=None, keep_trace: bool = False) -> BatchResult:
    """Quantile regression, batched over R replicates (one chain each); banded O(√n) moves for large n.

    Parameters
    ----------
    X : (R, n, d), y : (R, n)
        Data with ‖x_i‖_K ≤ C_X (KNG) or ‖x_i‖∞ ≤ 1 and |y_i| ≤ 1 (exponential); violations raise
        (the caller rescales; nothing is clipped silently).
    nonprivate : (R, d), optional
        Precomputed non-private estimates (else solved by linear programming here).
    Other parameters as in :func:`sample_linear_regression_suffstats`.
    """
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    norm = check_norm(norm)
    tau = check_probability_level(tau, "tau")
    B = check_positive(B, "B")
    C_X = check_positive(C_X, "C_X")
    constants = check_choice(constants, "constants", CONSTANTS)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 3 or y.shape != X.shape[:2]:
        raise DPValueError(f"X must be (R, n, d) and y (R, n); got {X.shape} and {y.shape}.")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise DPValueError("X and y must be finite.")
    R, n, d = X.shape
    if nonprivate is None:
        nonpriv = nonprivate_quantile_regression(X, y, tau)
    else:
        nonpriv = np.asarray(nonprivate, dtype=float)
        if nonpriv.shape != (R, d):
            raise DPValueError(f"nonprivate must have shape ({R}, {d}); got {nonpriv.shape}.")
    if mechanism == "nonprivate":
        return BatchResult(nonpriv.copy(), nonpriv, None, None, None, None, mechanism,
                           note="non-private quantile regression (not private)")
    eps = check_epsilon(epsilon)
    n_sweeps = check_int(n_sweeps, "n_sweeps", lo=2, hi=10 * MAX_SWEEPS)
    cal = calibrate("quantile_regression", mechanism, eps, d=d, norm=norm, constants=constants, tau=tau, B=B,
                    C_X=C_X)
    tol = 1e-12
    if mechanism == "kng":
        worst = float(np.max(_norm_rows(X.reshape(-1, d), norm)))
        if worst > C_X * (1 + tol):
            raise DPValueError(f"X has a row with ‖x‖_{norm} = {worst:.6g} > C_X = {C_X:g}; rescale X (or raise C_X).")
    else:
        if np.max(np.abs(X)) > 1 + tol or np.max(np.abs(y)) > 1 + tol:
            raise DPValueError("the exponential mechanism assumes ‖x‖∞ ≤ 1 and |y| ≤ 1; rescale the data first.")
    gens = _batch_gens(rng, R)
    inc = quantile_regression_target(X, y, tau, mechanism, cal.density_constant, norm)
    width = 2.0 * cal.sensitivity / (eps * n) if mechanism == "kng" else math.sqrt(2.0 * cal.sensitivity / (eps * n))
    step = np.full((R, d), float(initial_step_rule(width, B)))
    theta, summary, rh, es, mixed, trace, start = _run_batch_mcmc(inc, R, d, init, step, B, n_sweeps, burn_in,
                                                                  gens, keep_trace)
    cost = PrivacyCost.pure(eps, note=f"{MCMC_NOTE}; per replicate")
    return BatchResult(theta, nonpriv, cost, cal.sensitivity, cal.density_constant, summary, mechanism, rh, es,
                       mixed, trace, note=start)

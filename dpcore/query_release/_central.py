"""Central mechanisms for the mean point problem under ρ-zCDP (Błasiok, Bun, Nikolov & Steinke 2019).

Gaussian baseline, projection mechanism (Nikolov, Talwar & Zhang 2016), coarse projection (BBNS
Thm 1.2), chaining (BBNS Lemma 4.2 / Thm 1.3) and private multiplicative weights in MWEM form
(Hardt & Rothblum 2010; Hardt, Ligett & McSherry 2012) for worst-case error.

Privacy, common to the Gaussian-based mechanisms (replace-one neighbours, n public):
the mean point x̄ = (1/n) Σ x_{u_i} changes by (x − x')/n when one record is replaced, so its
ℓ2-sensitivity is Δ₂ = diam₂(X)/n with diam₂ the exact (un-normalised) Euclidean diameter of the
PUBLIC universe; adding N(0, σ²I) with σ = Δ₂/√(2ρ) is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6).
Projection, rounding to a public net and summing levels are post-processing. A level of a
decomposition with a single point is a public constant and costs nothing.

Data flow: the data (universe indices) are read ONCE, into the histogram h; the noise step uses h;
everything after the noise step sees only the noisy vectors and public objects.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._rng import RNGLike, as_generator, spawn
from .._validation import check_choice, check_int, check_positive, check_rho
from ..errors import DPValueError
from ..mechanism import Calibration, Diagnostics, Note, Release
from ..privacy import gaussian_sigma_zcdp, zcdp_to_approx
from ..privacy.accounting import approx_to_zcdp_rho
from .geometry import decompose_workload, mean_width, net_of_workload
from .projection import pairwise_frank_wolfe, pairwise_frank_wolfe_batch
from .workloads import Workload, WorkloadSpec, check_indices, mean_point

__all__ = [
    "BUDGET_SPLITS",
    "DIAMETER_RULES",
    "ChainingConfig",
    "CoarseConfig",
    "GaussianConfig",
    "PMWConfig",
    "Plan",
    "ProjectionConfig",
    "approx_guarantee",
    "chaining_release",
    "coarse_release",
    "gaussian_release",
    "max_error",
    "nonprivate_answers",
    "plan_for",
    "pmw_release",
    "projection_release",
    "rho_for_approx",
    "rms_error",
]

REF = "Błasiok, Bun, Nikolov & Steinke (2019), Towards Instance-Optimal Private Query Release, SODA"
#: How σ's diameter is computed: only "l2" is correct; the others exist for the audits' mutants and tests.
DIAMETER_RULES = ("l2", "normalised", "l1")
BUDGET_SPLITS = ("uniform", "optimised (our addition)")


def _check_workload(w: Any) -> None:
    if not isinstance(w, WorkloadSpec):
        raise DPValueError(f"workload must be a declared workload (Marginals, Thresholds, RandomSigns or Cone); "
                           f"got {type(w).__name__}.")


def _check_tol(tol: float) -> float:
    tol = check_positive(tol, "tol (projection duality gap)")
    if tol > 1e-2:
        raise DPValueError(f"tol = {tol:g} is too loose for an exact projection; use at most 1e-2 (e.g. 1e-9).")
    return tol


def _check_alpha(alpha: float) -> float:
    alpha = check_positive(alpha, "alpha (target RMS error, normalised scale)")
    if alpha < 1e-3 or alpha > 2.0:
        raise DPValueError(f"alpha = {alpha:g} must lie in [0.001, 2] (normalised RMS error; e.g. 0.1).")
    return alpha


@dataclass(frozen=True)
class GaussianConfig:
    """Gaussian baseline x̄ + N(0, σ²I), σ = diam₂(X)/(n√(2ρ))."""

    workload: WorkloadSpec
    rho: float

    def __post_init__(self) -> None:
        _check_workload(self.workload)
        check_rho(self.rho)


@dataclass(frozen=True)
class ProjectionConfig:
    """Projection mechanism: Gaussian noise, then the exact projection onto conv(X) to duality gap ``tol``."""

    workload: WorkloadSpec
    rho: float
    tol: float = 1e-9

    def __post_init__(self) -> None:
        _check_workload(self.workload)
        check_rho(self.rho)
        _check_tol(self.tol)


@dataclass(frozen=True)
class CoarseConfig:
    """Coarse projection: round to a greedy (α/2)-net Y, Gaussian noise scaled to diam₂(Y), project onto conv(Y)."""

    workload: WorkloadSpec
    rho: float
    alpha: float
    tol: float = 1e-9

    def __post_init__(self) -> None:
        _check_workload(self.workload)
        check_rho(self.rho)
        _check_alpha(self.alpha)
        _check_tol(self.tol)


@dataclass(frozen=True)
class ChainingConfig:
    """Chaining: telescoping levels at scales 2^{−i}, i = 0..T, T = ⌈log₂(2/α)⌉, projection on each.

    ``budget`` = "uniform" (the paper: ρ/(number of non-constant levels) each) or
    "optimised (our addition)": ρ_i ∝ c_i^{4/5}, c_i = (diam₂(X_i) w(X_i)/k)^{1/2} (not from the paper).
    """

    workload: WorkloadSpec
    rho: float
    alpha: float
    budget: str = "uniform"
    tol: float = 1e-9

    def __post_init__(self) -> None:
        _check_workload(self.workload)
        check_rho(self.rho)
        _check_alpha(self.alpha)
        check_choice(self.budget, "budget", BUDGET_SPLITS)
        _check_tol(self.tol)


@dataclass(frozen=True)
class PMWConfig:
    """Private multiplicative weights (MWEM form) for worst-case error; ``rounds`` = 0 picks T* (public rule)."""

    workload: WorkloadSpec
    rho: float
    rounds: int = 0

    def __post_init__(self) -> None:
        _check_workload(self.workload)
        check_rho(self.rho)
        check_int(self.rounds, "rounds (PMW rounds, 0 = automatic)", lo=0, hi=10_000)


# -- accounting helpers (through dpcore.privacy) ----------------------------------------------------------
def approx_guarantee(rho: float, delta: float = 1e-6) -> dict:
    """The (ε, δ)-DP implied by ρ-zCDP at δ: simple (Bun & Steinke 2016) and tight (Canonne, Kamath & Steinke 2020)."""
    return {"rho": float(rho), "delta": float(delta), "epsilon_simple": zcdp_to_approx(rho, delta, tight=False),
            "epsilon_tight": zcdp_to_approx(rho, delta, tight=True)}


@functools.lru_cache(maxsize=64)
def rho_for_approx(epsilon: float, delta: float) -> float:
    """The largest ρ whose tight (ε, δ) conversion gives at most ``epsilon`` (for audits;
    :func:`dpcore.privacy.accounting.approx_to_zcdp_rho`)."""
    return approx_to_zcdp_rho(epsilon, delta)


def rms_error(value: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(1/k ‖value − truth‖²)^{1/2} along the last axis (the paper's normalised RMS error)."""
    d = np.asarray(value, dtype=float) - np.asarray(truth, dtype=float)
    return np.sqrt(np.mean(d * d, axis=-1))


def max_error(value: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """‖value − truth‖_∞ along the last axis (worst-case error)."""
    return np.abs(np.asarray(value, dtype=float) - np.asarray(truth, dtype=float)).max(axis=-1)


def nonprivate_answers(data: Any, config: Any) -> np.ndarray:
    """The exact answers x̄ (NOT private)."""
    wl = config.workload.build()
    return mean_point(check_indices(data, wl), wl)


# -- plans: the public levels a mechanism releases ----------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Plan:
    """The public structure of a Gaussian-based mechanism: levels (points, index map X → level, diam₂,
    structured projector), the constant sum of single-point levels, and the per-level budgets."""

    levels: tuple            # of (points, index, diam2, projector or None)
    constant: np.ndarray     # Σ of single-point (public) levels
    rhos: tuple              # budgets of the active levels, summing to ρ
    residual_note: str = ""


def _identity_level(wl: Workload):
    return (wl.points, np.arange(wl.size), wl.diam2, wl.projector)


def plan_for(config: Any) -> Plan:
    """The public plan of a config (depends only on the declared workload and public parameters)."""
    wl = config.workload.build()
    k = wl.k
    if isinstance(config, (GaussianConfig, ProjectionConfig)):
        return Plan(levels=(_identity_level(wl),), constant=np.zeros(k), rhos=(float(config.rho),))
    if isinstance(config, CoarseConfig):
        net = net_of_workload(config.workload, config.alpha / 2.0)
        Y = wl.points[net.centers]
        from .geometry import diameter
        lvl = (Y, net.assign, diameter(Y), None)
        if net.size == 1:
            return Plan(levels=(), constant=Y[0].copy(), rhos=(),
                        residual_note="the (α/2)-net has one point: the output is that public point")
        return Plan(levels=(lvl,), constant=np.zeros(k), rhos=(float(config.rho),),
                    residual_note=f"rounding to the (α/2)-net (|Y| = {net.size}) adds a bias of at most α/2 = {config.alpha / 2:g}")
    if isinstance(config, ChainingConfig):
        dec = decompose_workload(config.workload, float(config.alpha))
        const = np.zeros(k)
        active = []
        for lv in dec.levels:
            if lv.size == 1:
                const += lv.points[0]
            else:
                active.append((lv.points, lv.index, lv.diam2, None))
        m = len(active)
        rhos: tuple[float, ...]
        if m == 0:
            rhos = ()
        elif config.budget == "uniform":
            rhos = tuple([float(config.rho) / m] * m)
        else:   # ρ_i ∝ c_i^{4/5} minimises Σ c_i ρ_i^{-1/4} (our addition, labelled as such)
            c = np.array([math.sqrt(max(d2, 1e-300) * max(mean_width(P, 400, rng=i)[0], 1e-12) / k)
                          for i, (P, _, d2, _) in enumerate(active)])
            wts = c ** 0.8
            rhos = tuple(float(config.rho) * wts / wts.sum())
        return Plan(levels=tuple(active), constant=const, rhos=rhos,
                    residual_note=f"levels 0..{dec.T} (T = ⌈log₂(2/α)⌉); the residual x − π_T(x) is answered by 0 "
                                  f"(error ≤ 2^−T = {2.0 ** -dec.T:g})")
    raise DPValueError(f"no plan for a {type(config).__name__}.")


def _rule_diameter(points: np.ndarray, diam2: float, rule: str) -> float:
    if rule == "l2":
        return float(diam2)
    if rule == "normalised":
        return float(diam2) / math.sqrt(points.shape[1])
    # ℓ1 diameter, brute force (small sets only: tests and mutants)
    return float(max(np.abs(points[i] - points).sum(axis=1).max() for i in range(points.shape[0])))


def _calibrate(name: str, config: Any, plan: Plan, n: int, title: str) -> Calibration:
    sig = [gaussian_sigma_zcdp(r, max(d2, 1e-300) / n) for (_, _, d2, _), r in zip(plan.levels, plan.rhos)]
    diam = max([lv[2] for lv in plan.levels], default=0.0)
    return Calibration(
        mechanism=name, notion="zcdp", rho=float(config.rho),
        sensitivity=max(diam, 1e-300) / n,
        constant=max(sig, default=0.0) if sig else 1e-300,
        constant_name="σ = diam₂/(n√(2ρ_level))" + (" (largest level shown)" if len(sig) > 1 else ""),
        derivation=(f"{title}: replacing one of the n = {n} records moves each released level mean by at most "
                    f"diam₂(level)/n in ℓ2 (diam₂ of the PUBLIC level set, exact); Gaussian noise σ = Δ₂/√(2ρ_i) is "
                    f"ρ_i-zCDP and the level budgets sum to ρ (zCDP composition); projection and sums are "
                    f"post-processing."),
        reference=REF + ", §2.2 (Gaussian/zCDP), Lemma 3.3 (decomposition); Bun & Steinke (2016), Prop. 1.6",
        params={"diameter_rule": "l2", "rhos": tuple(plan.rhos), "sigmas": tuple(sig), "n": n},
    )


def _sigmas(cal: Calibration, plan: Plan, n: int) -> list[float]:
    rule = cal.params.get("diameter_rule", "l2")
    check_choice(rule, "diameter_rule", DIAMETER_RULES)
    rhos = cal.params.get("rhos", plan.rhos)
    return [gaussian_sigma_zcdp(r, max(_rule_diameter(P, d2, rule), 1e-300) / n)
            for (P, _, d2, _), r in zip(plan.levels, rhos)]


def _noise_step(hist: np.ndarray, plan: Plan, sigmas: list, rng: RNGLike, reps: int) -> list[np.ndarray]:
    """The only step that reads the data (through h): noisy level means, each (reps, k)."""
    gens = spawn(rng, max(len(plan.levels), 1))
    out = []
    for (P, index, _, _), s, g in zip(plan.levels, sigmas, gens):
        level_mean = np.bincount(index, weights=hist, minlength=P.shape[0]) @ P
        out.append(level_mean[None, :] + s * g.standard_normal((reps, P.shape[1])))
    return out


def _postprocess(noisy: list, plan: Plan, project: bool, tol: float) -> tuple[np.ndarray, list]:
    """Projection of each noisy level onto its public hull and the sum (never sees the data)."""
    k = plan.constant.size
    reps = noisy[0].shape[0] if noisy else 1
    total = np.broadcast_to(plan.constant, (reps, k)).copy()
    gaps = []
    for (P, _, _, projector), Z in zip(plan.levels, noisy):
        if not project:
            total += Z
            continue
        if projector is not None:
            total += np.array([projector(z) for z in Z])
            gaps.append(0.0)
        elif reps > 1 and P.shape[0] <= 64:
            Yp, gap = pairwise_frank_wolfe_batch(P, Z, tol=tol)
            total += Yp
            gaps.append(gap)
        else:
            for r, z in enumerate(Z):
                res = pairwise_frank_wolfe(P, z, tol=tol)
                total[r] += res.y
                gaps.append(res.gap)
    return total, gaps


def _histogram(data: Any, wl: Workload) -> tuple[np.ndarray, int]:
    idx = check_indices(data, wl)
    return np.bincount(idx, minlength=wl.size) / idx.size, int(idx.size)


def _gaussian_family(name: str, title: str, data: Any, config: Any, rng: RNGLike, project: bool) -> Release:
    wl = config.workload.build()
    hist, n = _histogram(data, wl)          # the only read of the data
    plan = plan_for(config)
    cal = _calibrate(name, config, plan, n, title)
    noisy = _noise_step(hist, plan, _sigmas(cal, plan, n), as_generator(rng), reps=1)
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
    return Release(mechanism=name, value=value[0], cost=cal.cost(1), calibration=cal, notes=tuple(notes),
                   diagnostics=Diagnostics(values={"noisy answers before projection (private, post-noise)": noisy_sum}),
                   config=config)


def gaussian_release(data: Any, config: GaussianConfig, *, rng: RNGLike = None) -> Release:
    """Gaussian baseline M_G(D) = x̄ + N(0, σ²I_k), σ = diam₂(X)/(n√(2ρ)): ρ-zCDP, err₂ = σ exactly (BBNS §5.1)."""
    return _gaussian_family("query_release/gaussian", "Gaussian mechanism", data, config, rng, project=False)


def projection_release(data: Any, config: ProjectionConfig, *, rng: RNGLike = None) -> Release:
    """Projection mechanism ŷ = Proj_{conv X}(x̄ + N(0, σ²I)) (Nikolov, Talwar & Zhang 2016): ρ-zCDP.

    Error bound (RECONSTRUCTED, explicit constants ours): E‖ŷ − x̄‖² ≤ σ·w(X), so
    err₂ ≤ (diam₂(X) w(X)/(k n √(2ρ)))^{1/2}, and never worse than the raw noise: ‖ŷ − x̄‖ ≤ ‖ỹ − x̄‖.
    """
    return _gaussian_family("query_release/projection", "Projection mechanism", data, config, rng, project=True)


def coarse_release(data: Any, config: CoarseConfig, *, rng: RNGLike = None) -> Release:
    """Coarse projection (BBNS Thm 1.2; steps from the paper's §4.1, parameters RECONSTRUCTED).

    Y = greedy maximal (α/2)-separated subset of X in d₂ (public), records rounded to π(x) ∈ Y, then the
    projection mechanism on Y with σ_Y = diam₂(Y)/(n√(2ρ)). Explicit bound (RECONSTRUCTED):
    err₂ ≤ α/2 + (diam₂(Y) w(Y)/(k n √(2ρ)))^{1/2}; the α/2 rounding bias does not vanish with n.
    """
    return _gaussian_family("query_release/coarse", "Coarse projection", data, config, rng, project=True)


def chaining_release(data: Any, config: ChainingConfig, *, rng: RNGLike = None) -> Release:
    """Chaining mechanism (BBNS Lemma 4.2 and Thm 1.3; construction from the paper, constants RECONSTRUCTED).

    x = Σ_{i=0}^{T} f_i(x) + (x − π_T(x)) with f_0 = π_0, f_i = π_i − π_{i−1} (greedy 2^{−i}-nets in d₂);
    the projection mechanism runs on each non-constant level X_i = f_i(X) with ρ_i (uniform ρ/(#levels),
    or the labelled optimised split), and the residual level is answered by 0 (error ≤ 2^{−T} ≤ α/2).
    Explicit bound (RECONSTRUCTED): err₂ ≤ Σ_i (diam₂(X_i) w(X_i)/(k n √(2ρ_i)))^{1/2} + 2^{−T}.
    """
    return _gaussian_family("query_release/chaining", "Chaining mechanism", data, config, rng, project=True)


# -- PMW -----------------------------------------------------------------------------------------------------
def pmw_rounds(n: int, rho: float, N: int, k: int) -> int:
    """T* ≈ n√ρ √(ln N)/ln(2k), clipped to [1, 10⁴] (RECONSTRUCTED heuristic; public: n, ρ, X)."""
    t = n * math.sqrt(rho) * math.sqrt(math.log(max(N, 2))) / math.log(2 * k)
    return int(min(10_000, max(1, round(t))))


def _pmw_calibration(config: PMWConfig, wl: Workload, n: int) -> Calibration:
    T = config.rounds or pmw_rounds(n, config.rho, wl.size, wl.k)
    R = float(np.abs(wl.points).max())
    rho_t = float(config.rho) / T
    sens = 2.0 * R / n                              # selection ε0 = 2√ρ_t: ε0²/8 = ρ_t/2
    sigma_m = sens / math.sqrt(rho_t)               # (2R/n)²/(2σ²) = ρ_t/2
    return Calibration(
        mechanism="query_release/pmw", notion="zcdp", rho=float(config.rho), sensitivity=sens, constant=sigma_m,
        constant_name="measurement σ_m = (2R/n)/√(ρ/T)",
        derivation=(f"R = max|x_j| = {R:g} over the public X; a query answer a_j and the score ±(a_j − b_j) change "
                    f"by ≤ 2R/n when one record is replaced. Each of T = {T} rounds spends ρ/T: half on the "
                    f"exponential mechanism with ε0 = 2√(ρ/T) (ε0²/8-zCDP, bounded range, Cesar & Rogers 2021), "
                    f"half on a Gaussian measurement ((2R/n)²/(2σ_m²) = ρ/(2T)); zCDP composition gives ρ."),
        reference=("Hardt & Rothblum (2010); Hardt, Ligett & McSherry (2012, MWEM); " + REF +
                   ", Lemma 2.3 (rate RECONSTRUCTED)"),
        params={"rounds": T, "rho_per_round": rho_t, "R": R, "n": n},
    )


def _pmw_run(answers: np.ndarray, X: np.ndarray, cal: Calibration, rng: np.random.Generator, reps: int,
             transcript: bool = False) -> np.ndarray:
    """MWEM rounds vectorised over ``reps``; ``answers`` = true answers a (the data enter only here).

    ``transcript`` returns the private transcript instead: (reps, 2T) = selected signed queries, measurements.
    """
    T = int(cal.params["rounds"])
    rho_t = float(cal.params["rho_per_round"])
    R = float(cal.params["R"])
    n = int(cal.params["n"])
    eps0 = 2.0 * math.sqrt(rho_t)
    sens = 2.0 * R / n
    sigma_m = sens / math.sqrt(rho_t)
    N, k = X.shape
    logp = np.full((reps, N), -math.log(N))
    pbar = np.zeros((reps, N))
    rows = np.arange(reps)
    picks, meas = np.empty((reps, T)), np.empty((reps, T))
    for t in range(T):
        p = np.exp(logp - logp.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        b = p @ X                                          # (reps, k) synthetic answers
        diff = answers[None, :] - b
        scores = np.concatenate([diff, -diff], axis=1)     # signed queries (j, +1), (j, −1)
        gumbel = rng.gumbel(size=scores.shape)
        pick = np.argmax(eps0 * scores / (2.0 * sens) + gumbel, axis=1)   # exponential mechanism
        j = pick % k
        m = answers[j] + sigma_m * rng.standard_normal(reps)
        picks[:, t], meas[:, t] = pick, m
        logp = logp + X[:, j].T * ((m - b[rows, j]) / (2.0 * R * R))[:, None]
        if not transcript:
            pn = np.exp(logp - logp.max(axis=1, keepdims=True))
            pbar += pn / pn.sum(axis=1, keepdims=True)
    if transcript:
        return np.concatenate([picks, meas], axis=1)
    return (pbar / T) @ X


def pmw_release(data: Any, config: PMWConfig, *, rng: RNGLike = None) -> Release:
    """Private multiplicative weights, offline MWEM form, for worst-case error (ρ-zCDP).

    T rounds (a parameter of PMW alone, never the chaining depth): select a signed query by the
    exponential mechanism, measure it with Gaussian noise, multiplicative-weights update of a
    distribution over the PUBLIC universe; release the average distribution's answers. Rate
    (RECONSTRUCTED): err_∞ ≲ R (√(ln|X|) ln(2k)/(√ρ n))^{1/2}.
    """
    wl = config.workload.build()
    hist, n = _histogram(data, wl)
    answers = hist @ wl.points
    del hist
    cal = _pmw_calibration(config, wl, n)
    value = _pmw_run(answers, wl.points, cal, as_generator(rng), reps=1)[0]
    notes = (Note("info", f"T = {cal.params['rounds']} rounds, each ρ/T = {cal.params['rho_per_round']:.3g}-zCDP."),)
    return Release(mechanism="query_release/pmw", value=value, cost=cal.cost(1), calibration=cal, notes=notes,
                   config=config)


# -- vectorised samplers (audits and figures) ------------------------------------------------------------------
def sample_outputs(data: Any, config: Any, reps: int, rng: RNGLike, *, override=None, stage: str = "output") -> np.ndarray:
    """``reps`` independent outputs of a central mechanism on ``data`` (optionally with a calibration override).

    ``stage`` = "noisy" returns the concatenated noisy level means (the noise step); "output" the release.
    """
    wl = config.workload.build()
    hist, n = _histogram(data, wl)
    g = as_generator(rng)
    if isinstance(config, PMWConfig):
        cal = _pmw_calibration(config, wl, n)
        cal = override(cal) if override else cal
        return _pmw_run(hist @ wl.points, wl.points, cal, g, reps, transcript=(stage == "noisy"))
    plan = plan_for(config)
    name = {GaussianConfig: "gaussian", ProjectionConfig: "projection", CoarseConfig: "coarse",
            ChainingConfig: "chaining"}[type(config)]
    cal = _calibrate(f"query_release/{name}", config, plan, n, name)
    cal = override(cal) if override else cal
    noisy = _noise_step(hist, plan, _sigmas(cal, plan, n), g, reps)
    if stage == "noisy":
        return np.concatenate(noisy, axis=1)
    value, _ = _postprocess(noisy, plan, not isinstance(config, GaussianConfig), getattr(config, "tol", 1e-9))
    return value

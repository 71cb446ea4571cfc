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
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from .._rng import RNGLike, spawn
from .._validation import check_choice
from ..errors import DPValueError
from ..exact import discrete_gaussian, to_grid
from ..mechanism import Calibration
from ..privacy import gaussian_sigma_zcdp, zcdp_to_approx
from ..privacy.accounting import approx_to_zcdp_rho
from ._geometry import decompose_workload, mean_width, net_of_workload
from ._projection import pairwise_frank_wolfe, pairwise_frank_wolfe_batch
from ._workloads import Workload, check_indices, mean_point
from .configs import ChainingConfig, CoarseConfig, GaussianConfig, ProjectionConfig

__all__ = ["DIAMETER_RULES", "Plan", "approx_guarantee", "max_error", "nonprivate_answers", "plan_for", "pmw_rounds",
           "rho_for_approx", "rms_error"]

REF = "Błasiok, Bun, Nikolov & Steinke (2019), Towards Instance-Optimal Private Query Release, SODA"
#: How σ's diameter is computed: only "l2" is correct; the others exist for the audits' mutants and tests.
DIAMETER_RULES = ("l2", "normalised", "l1")


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
        from ._geometry import diameter
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


def _sigmas(cal: Calibration, plan: Plan, n: int) -> list[float]:
    rule = cal.params.get("diameter_rule", "l2")
    check_choice(rule, "diameter_rule", DIAMETER_RULES)
    rhos = cal.params.get("rhos", plan.rhos)
    return [gaussian_sigma_zcdp(r, max(_rule_diameter(P, d2, rule), 1e-300) / n)
            for (P, _, d2, _), r in zip(plan.levels, rhos)]


def _grid(cal: Calibration, plan: Plan, n: int) -> Optional[tuple[float, Fraction]]:
    """(γ, σ_g²) of a hardened grid calibration (``sampler="grid"``, :func:`dpcore.query_release.calibrate_gaussian`),
    σ_g² scaled by (σ_rule/σ_ℓ2)² for an audit mutant's diameter rule (× 1 for a real release); None when float."""
    if cal.params.get("sampler") != "grid":
        return None
    ratio = _sigmas(cal, plan, n)[0] / _sigmas(cal.replace(params={"diameter_rule": "l2"}), plan, n)[0]
    return cal.params["grid"], cal.params["grid_variance"] * Fraction(ratio) ** 2


def _noise_step(hist: np.ndarray, plan: Plan, sigmas: list, rng: RNGLike, reps: int,
                grid: Optional[tuple[float, Fraction]] = None) -> list[np.ndarray]:
    """The only step that reads the data (through h): noisy level means, each (reps, k); with ``grid`` = (γ, σ_g²)
    (one level) the mean rounded to γℤ^k plus exact discrete Gaussian noise of variance σ_g² grid units²."""
    gens = spawn(rng, max(len(plan.levels), 1))
    out = []
    for (P, index, _, _), s, g in zip(plan.levels, sigmas, gens):
        level_mean = np.bincount(index, weights=hist, minlength=P.shape[0]) @ P
        if grid is not None:
            gamma, s2 = grid
            z = to_grid(level_mean, gamma)[None, :] + discrete_gaussian(s2, (reps, P.shape[1]), g)
            out.append(gamma * z.astype(float))
        else:
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


# -- PMW -----------------------------------------------------------------------------------------------------
def pmw_rounds(n: int, rho: float, N: int, k: int) -> int:
    """T* ≈ n√ρ √(ln N)/ln(2k), clipped to [1, 10⁴] (RECONSTRUCTED heuristic; public: n, ρ, X)."""
    t = n * math.sqrt(rho) * math.sqrt(math.log(max(N, 2))) / math.log(2 * k)
    return int(min(10_000, max(1, round(t))))


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


# -- vectorised samplers (audits and figures) ------------------------------------------------------------------

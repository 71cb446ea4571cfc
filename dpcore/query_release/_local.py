"""Local ε-LDP protocols for the mean point problem (Błasiok, Bun, Nikolov & Steinke 2019, §5).

The point randomizer (Definition 5.5 of the paper; a Duchi–Jordan–Wainwright variant with a
Gaussian direction; formulas RECONSTRUCTED and checked): for ‖x‖₂ ≤ 1,

1. x̃ = +x/‖x‖ with probability (1 + ‖x‖)/2, else −x/‖x‖ (x = 0: ±e₁ with probability ½ each), so E x̃ = x;
2. g ~ N(0, I_k); s = sign⟨g, x̃⟩; b = s with probability p = e^ε/(e^ε + 1), else −s;
3. Z = C_ε b g with C_ε = √(π/2)·(e^ε + 1)/(e^ε − 1).

Unbiased: E[b⟨g, x̃⟩] = E|N(0,1)|(2p − 1) = √(2/π)(e^ε − 1)/(e^ε + 1), and g's component orthogonal
to x̃ is independent of b with mean 0, so E[Z | x̃] = x̃ and E Z = x. ε-LDP: the density of Z at z is
2φ_C(z)·p if ⟨z, x̃⟩ > 0 and 2φ_C(z)·(1 − p) otherwise (φ_C the N(0, C_ε²I) density), so the ratio
between any two inputs is ≤ p/(1 − p) = e^ε; mixing over x̃ keeps the bound. A party with x ∈ X sends
c + R·Z_ε((x − c)/R), with c the bounding-box centre of the PUBLIC X and R = max_{x∈X} ‖x − c‖.

Protocols (non-interactive; each party sends one report per level): local projection (Thm 5.1:
average the reports, project onto conv X), local coarse and local chaining (Thm 1.6: per-level
ε_i = ε/(number of non-constant levels), pure-DP composition). Error ∝ n^{−1/4} for the
projection (RECONSTRUCTED heuristic constant), versus n^{−1/2} for the raw average's RMS error.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import RNGLike, as_generator, spawn
from .._validation import check_epsilon
from ..errors import DPValueError
from ._central import Plan, plan_for
from .configs import (ChainingConfig, CoarseConfig, LocalChainingConfig, LocalCoarseConfig, LocalProjectionConfig,
                      ProjectionConfig)

__all__ = ["MAX_LOCAL_WORK", "c_epsilon", "randomize", "report_density_ratio", "nonprivate_local"]

#: Cap on parties × k × levels entries of randomizer noise drawn by one release.
MAX_LOCAL_WORK = 400_000_000


def c_epsilon(epsilon: float) -> float:
    """C_ε = √(π/2)(e^ε + 1)/(e^ε − 1) (≈ √(2π)/ε for small ε); E‖Z‖² = C_ε² k."""
    e = math.exp(-check_epsilon(epsilon))
    return math.sqrt(math.pi / 2.0) * (1.0 + e) / (1.0 - e)


def randomize(V: np.ndarray, epsilon: float, rng: RNGLike, *, flip_epsilon: float | None = None) -> np.ndarray:
    """The local point randomizer applied to each row of V (‖row‖₂ ≤ 1). ``flip_epsilon`` (default ε)
    sets p = e^ε/(e^ε + 1); it differs from ε only in audits' mutants."""
    g = as_generator(rng)
    V = np.atleast_2d(np.asarray(V, dtype=float))
    m, k = V.shape
    nrm = np.linalg.norm(V, axis=1)
    if np.any(nrm > 1.0 + 1e-9):
        raise DPValueError(f"randomizer input has norm {nrm.max():.6g} > 1; scale inputs by the public radius R.")
    nrm = np.minimum(nrm, 1.0)
    U = np.zeros_like(V)
    pos = nrm > 0
    U[pos] = V[pos] / nrm[pos, None]
    U[~pos, 0] = 1.0
    sign = np.where(g.random(m) < (1.0 + nrm) / 2.0, 1.0, -1.0)
    Xt = U * sign[:, None]
    G = g.standard_normal((m, k))
    s = np.where(np.einsum("ij,ij->i", G, Xt) >= 0, 1.0, -1.0)
    fe = epsilon if flip_epsilon is None else flip_epsilon
    p = 1.0 / (1.0 + math.exp(-fe))
    b = np.where(g.random(m) < p, s, -s)
    return c_epsilon(epsilon) * b[:, None] * G


def report_density_ratio(z: np.ndarray, x: np.ndarray, x2: np.ndarray, epsilon: float) -> np.ndarray:
    """Exact density ratio f(z | x)/f(z | x2) of the randomizer's report (analytic formula above).

    f(z | x) = 2φ_C(z)·[q₊(x)·P(b agrees | ⟨z, x̂⟩) + q₋(x)·P(b agrees | −⟨z, x̂⟩)], q± = (1 ± ‖x‖)/2;
    the Gaussian factor cancels, so the ratio depends only on the signs of ⟨z, x̂⟩ and ⟨z, x̂₂⟩.
    """
    p = 1.0 / (1.0 + math.exp(-epsilon))

    def h(z, x):
        x = np.asarray(x, dtype=float)
        r = float(np.linalg.norm(x))
        u = x / r if r > 0 else np.eye(1, x.size, 0)[0]
        plus = np.atleast_2d(z) @ u > 0
        return (1 + r) / 2 * np.where(plus, p, 1 - p) + (1 - r) / 2 * np.where(plus, 1 - p, p)

    return h(z, x) / h(z, x2)


_NAMES = {LocalProjectionConfig: ("local-projection", "Local projection"),
          LocalCoarseConfig: ("local-coarse", "Local coarse projection"),
          LocalChainingConfig: ("local-chaining", "Local chaining")}


def _plan(config: Any) -> Plan:
    if isinstance(config, LocalProjectionConfig):
        return plan_for(ProjectionConfig(config.workload, 1.0, config.tol))
    if isinstance(config, LocalCoarseConfig):
        return plan_for(CoarseConfig(config.workload, 1.0, config.alpha, config.tol))
    return plan_for(ChainingConfig(config.workload, 1.0, config.alpha, "uniform", config.tol))


def _centres(plan: Plan) -> list[tuple[np.ndarray, float]]:
    out = []
    for P, _, _, _ in plan.levels:
        c = 0.5 * (P.min(axis=0) + P.max(axis=0))
        out.append((c, float(np.sqrt(((P - c) ** 2).sum(axis=1).max()))))
    return out


def _level_reports_sum(P, index, idx, centre, radius, eps_i, flip_eps, rng, chunk=8192) -> np.ndarray:
    tot = np.zeros(P.shape[1])
    gens = spawn(rng, (idx.size + chunk - 1) // chunk)
    for j, lo in enumerate(range(0, idx.size, chunk)):
        V = (P[index[idx[lo:lo + chunk]]] - centre) / radius
        tot += randomize(V, eps_i, gens[j], flip_epsilon=flip_eps).sum(axis=0)
    return tot


def nonprivate_local(data: Any, config: Any) -> np.ndarray:
    """The exact answers x̄ (NOT private)."""
    from ._workloads import check_indices, mean_point
    wl = config.workload.build()
    return mean_point(check_indices(data, wl), wl)


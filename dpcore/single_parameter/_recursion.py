"""Count statistics, their inverses via a precomputed ladder, and the private bounds (Asi, Duchi &
Talwar 2025, §6; Algorithms 6-L, 2 and 4).

[DERIVED] For a nondecreasing recursion R with R(λ) ≤ λ and the one-step guarantee
R(f(P_n)) ≤ f(P_n') for every ordered neighbour pair, the count K(λ) = min{k ≥ 0 : R^{(k)}(λ) ≤ 0}
has sensitivity 1 (f' ≥ R(f) gives R^{(k)}(f') ≥ R^{(k+1)}(f)). Its inverse is read off the
data-independent **ladder** B₁ = 0, B₂ = λ_c, B_{j+1} = min{λ ≥ λ_c : R(λ) ≥ B_j}, stopped once
B_j ≥ Λ_cap: K(λ) = #{j : B_j ≤ λ} and K⁻¹(k) = B_k. Each rung is computed from the closed-form
inverse of R and then stepped upward with ``np.nextafter`` until R(B_{j+1}) ≥ B_j holds for the
*same code* that evaluates R (the floating-point invariant that privacy needs).

Algorithm 6-L: K̃ = K + Lap(1/ε), k̂ = ⌈K̃ − log(1/(2δ))/ε⌉, λ̂ = K⁻¹(k̂). ε-DP; P(λ̂ ≤ f) ≥ 1 − δ
exactly, since P(Lap(1/ε) > log(1/(2δ))/ε) = δ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DPValueError
from ..exact import discrete_laplace, rational_at_least
from ._stability import Constants

__all__ = ["Ladder", "lower_ladder", "generic_ladder", "alg6l", "upper_count", "alg4", "MAX_RUNGS"]

#: Largest ladder (≈ n·Λ_cap/(c r₂ D + M1) rungs for the GLM recursion).
MAX_RUNGS = 5_000_000


@dataclass(frozen=True)
class Ladder:
    """The rungs B (B[0] = 0, B[1] = λ_c, …, B[-1] ≥ Λ_cap) of a recursion: K⁻¹(k) = B[k−1]."""

    B: np.ndarray
    kind: str

    def __len__(self):
        return len(self.B)

    def count(self, lam) -> np.ndarray:
        """K(λ) = #{j : B_j ≤ λ} for λ > 0 (1 on (0, λ_c)), K(0) = 0. A non-finite or negative λ is an error, never a count."""
        lam = np.asarray(lam, dtype=float)
        if not np.all(np.isfinite(lam)):
            raise DPValueError("λ_min is not finite (NaN or infinite): the fit failed, so nothing can be "
                               "certified; check the design for collinear or constant columns.")
        if np.any(lam < 0):
            raise DPValueError(f"λ_min = {float(np.min(lam)):.3g} < 0: the Hessian is not positive semidefinite; "
                               "the loss must be convex.")
        return np.where(lam > 0, np.searchsorted(self.B, lam, side="right"), 0)

    def inverse(self, k) -> np.ndarray:
        """K⁻¹(k) = B_k (0 for k ≤ 1, the top rung beyond the ladder)."""
        k = np.asarray(k)
        idx = np.clip(k - 1, 0, len(self.B) - 1)
        return np.where(k <= 1, 0.0, self.B[idx])


def _next_up(R1, prev: float, b: float) -> float:
    """Smallest float λ ≥ ``prev`` with R1(λ) ≥ prev, searched from the estimate ``b``."""
    step = 1
    hi = b
    while not R1(hi) >= prev:                        # gallop up until the invariant holds
        hi = b + step * math.ulp(b)
        step *= 2
    lo = math.nextafter(hi, -math.inf)
    if not R1(lo) >= prev:
        return hi
    step = 1
    while R1(lo) >= prev and lo > prev:              # gallop down until it fails
        lo = max(prev, hi - step * math.ulp(hi))
        step *= 2
    while True:                                      # bisection between a failing lo and a valid hi
        if math.nextafter(lo, math.inf) >= hi:
            return hi
        mid = 0.5 * (lo + hi)
        if R1(mid) >= prev:
            hi = mid
        else:
            lo = mid


def _build(R, R1, R_inv, start: float, cap: float, kind: str) -> Ladder:
    """Ladder of a recursion: ``R`` (vectorised, the one code path), ``R1`` its bit-identical scalar
    twin (for speed), ``R_inv`` the closed-form inverse used as the starting estimate of each rung."""
    b0 = float(start)
    while not R1(b0) > 0:                            # B[1]: first λ with R(λ) > 0, as the code evaluates it
        b0 = math.nextafter(b0, math.inf)
    while R1(math.nextafter(b0, -math.inf)) > 0:
        b0 = math.nextafter(b0, -math.inf)
    rungs = [0.0, b0]
    b = b0
    while b < cap:
        if len(rungs) >= MAX_RUNGS:
            raise DPValueError(f"the ladder needs more than {MAX_RUNGS:,} rungs (n too large for this cap); "
                               "lower n.")
        b = _next_up(R1, b, float(R_inv(b)))
        rungs.append(b)
    B = np.array(rungs)
    # the floating-point invariant R(B_{j+1}) ≥ B_j, checked with the very code that evaluates R
    if not (np.all(R(B[2:]) >= B[1:-1]) and np.all(np.diff(B) > 0) and R(B[1]) > 0):
        raise DPValueError("could not build a valid ladder (floating-point invariant failed).")
    return Ladder(B, kind)


def lower_ladder(k: Constants) -> Ladder:
    """Ladder of the GLM recursion (10) from λ_c up to Λ_cap = M1 + ρ."""
    M1, beta, n = k.M1, k.beta, k.n
    c0 = beta * beta + 2.0 * beta * M1
    return _build(k.R, k.R_scalar, lambda b: (M1 + beta + math.sqrt(c0 + (n * b) ** 2)) / n, k.lam_c, k.cap, "glm")


def generic_ladder(k: Constants) -> Ladder:
    """Ladder of the generic recursion R₁ (Algorithm 7) from the (C2) floor up to Λ_cap."""
    a, b4 = k.M1p / k.n, 8.0 * k.D * k.M2 / k.n
    return _build(k.R1, k.R1_scalar, lambda b: 0.5 * ((a + b) + math.sqrt((a + b) ** 2 + b4)), k.lam_c2, k.cap,
                  "generic")


def _count_noise(rng, size, scale):
    """Exact discrete Laplace noise of scale 1/ε (× an audit mutant's factor) on an integer count: ε-DP for a count
    of sensitivity 1 (PMF ratio ≤ exp(1/t) at scale t ≥ 1/ε), drawn by :func:`dpcore.exact.discrete_laplace`
    (integer arithmetic; no floating-point support gaps). Returned as floats (integers). Scale 0: no noise (an
    audit mutant only)."""
    return discrete_laplace(scale, size, rng).astype(float) if scale > 0 else np.zeros(size)


def count_shift(epsilon: float, delta: float) -> int:
    """The integer shift t with P(Z > t) ≤ δ for Z discrete Laplace of scale 1/ε: t = m − 1 with
    m = ⌈log(1/(δ(1 + e^{−ε′})))/ε′⌉, ε′ = 1/t′ ≤ ε the rate of the scale t′ ≥ 1/ε the sampler uses.

    Derivation: P(Z ≥ m) = e^{−ε′m}/(1 + e^{−ε′}) ≤ δ ⟺ m ≥ log(1/(δ(1 + e^{−ε′})))/ε′ (a ⌈·⌉ with a 10⁻⁹ margin
    for the floating-point log), so k̂ = K̃ − t exceeds the count K with probability ≤ δ — the role
    log(1/(2δ))/ε plays for continuous Laplace noise (P(L > t) = ½e^{−εt}).
    """
    e = 1.0 / float(rational_at_least(1.0 / epsilon))
    return max(0, int(math.ceil(math.log(1.0 / (delta * (1.0 + math.exp(-e)))) / e * (1 + 1e-9))) - 1)


def alg6l(K, ladder: Ladder, epsilon: float, delta: float, size: int, rng, *, noise_scale: float = 1.0,
          shift: bool = True):
    """Algorithm 6-L on the integer count K: (λ̂, K̃) arrays of ``size`` draws.

    K̃ = K + Z with Z exact discrete Laplace(1/ε) (ε-DP, the count has sensitivity 1), k̂ = K̃ − t with the integer
    shift :func:`count_shift` (P(k̂ > K) ≤ δ; the paper's continuous Laplace uses log(1/(2δ))/ε).
    ``noise_scale`` multiplies the noise scale 1/ε and ``shift=False`` drops the shift: both only for audit
    mutants.
    """
    Kt = K + _count_noise(rng, size, noise_scale / epsilon)
    t = count_shift(epsilon, delta) if shift else 0
    khat = np.ceil(Kt - t).astype(np.int64)
    return ladder.inverse(khat), Kt


def upper_count(k: Constants, Lam, lo) -> np.ndarray:
    """K↑ = min{k ≥ 0 : R↑^{(k)}(Λ) ≥ Λ_cap}, checked by iterating R↑ (not only by the closed form)."""
    Lam = np.asarray(Lam, dtype=float)
    psi = np.asarray(k.psi(lo), dtype=float)
    a = k.M1 / k.n
    A = a / psi
    with np.errstate(divide="ignore", invalid="ignore"):
        Ku = np.ceil(np.log((k.cap + A) / (Lam + A)) / np.log1p(psi))
    Ku = np.maximum(0, np.where(np.isfinite(Ku), Ku, 0)).astype(np.int64)
    # verify: R↑^{(K)}(Λ) ≥ cap (geometric closed form of the iterate, evaluated as the recursion does);
    # bump where rounding left it short, and step down while K−1 steps already suffice.
    for _ in range(4):
        it = (Lam + A) * (1.0 + psi) ** Ku - A
        short = it < k.cap
        if not short.any():
            break
        Ku = Ku + short
    prev = (Lam + A) * (1.0 + psi) ** np.maximum(Ku - 1, 0) - A
    Ku = np.where((Ku > 0) & (prev >= k.cap), Ku - 1, Ku)
    return Ku


def alg4(k: Constants, Lam: float, lam_hat, epsilon: float, delta: float, rng, *, noise_scale: float = 1.0,
         shift: bool = True):
    """Algorithm 4: private upper bound Λ̂ ≥ λ_max given the private λ̂ ≤ λ_min (vectorised over λ̂).

    ℓo = λ̂ (sound because the eigenvalue perturbation bound is symmetric in the pair and only needs
    λ̂ ≤ λ_min(P_n)); ψ = c r₂ Δ_n(λ̂), a = M1/n, R↑(Λ) = (1+ψ)Λ + a. Count K↑, K̃↑ = K↑ + Lap(1/ε),
    k_u = ⌈K̃↑ − log(1/(2δ))/ε⌉, Λ̂ = (Λ_cap + a/ψ)(1+ψ)^{−(k_u−1)} − a/ψ for k_u ≥ 1, else Λ_cap;
    Λ̂ ≤ Λ_cap. Where (C1) fails at λ̂, Λ̂ = Λ_cap. Coverage P(Λ̂ ≥ λ_max) ≥ 1 − δ (the Laplace tail
    alone: P(Z > t) ≤ δ) [DERIVED].
    """
    lam_hat = np.atleast_1d(np.asarray(lam_hat, dtype=float))
    size = lam_hat.shape[0]
    ok = k.C1(lam_hat) & (lam_hat > 0)
    lo = np.where(ok, lam_hat, k.cap)  # placeholder where not certified (output is the cap there)
    psi = np.where(ok, k.psi(lo), 1.0)
    A = (k.M1 / k.n) / psi
    Ku = upper_count(k, Lam, np.where(ok, lo, k.cap))
    Kt = Ku + _count_noise(rng, size, noise_scale / epsilon)
    t = count_shift(epsilon, delta) if shift else 0
    ku = np.ceil(Kt - t)
    ku = np.where(np.isfinite(ku), ku, 0.0)
    expo = np.clip(ku - 1.0, 0.0, 1e6)
    with np.errstate(over="ignore", invalid="ignore"):
        Lh = (k.cap + A) * (1.0 + psi) ** (-expo) - A
    Lh = np.where(ku >= 1, np.minimum(Lh, k.cap), k.cap)
    return np.where(ok, Lh, k.cap), Kt

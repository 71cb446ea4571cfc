"""Stability bounds and recursions for quasi-self-concordant GLMs (Asi, Duchi & Talwar 2025, §5–6, §8).

All formulas here are **[DERIVED]**: the paper's displayed formulas were not available, and these are
re-derived, provably valid versions (the paper's constants may be tighter). Notation: n samples,
covariate radius r₂, gradient-set diameter D, M1 = r₂²·sup h'', self-bounding constants (c, s̄),
ℓ2-regularisation ρ; λ = λ_min(H), Λ = λ_max(H) with H = ∇²L_n(θ̂).

* (C1): nλ ≥ 4·max{M1, c·r₂·D, r₂·D/s̄}  (certified region; monotone in λ).
* Parameter change (9): Δ_n(λ) = 2D / (a + √(a² − 2c·r₂·D·nλ)), a = nλ − M1: under (C1),
  ‖θ̂(P_n') − θ̂(P_n)‖₂ ≤ Δ_n(λ_min) for every neighbour (Corollary 3.1).
* Lower recursion (10): R(λ) = (1 − c·r₂·Δ_n(λ))·λ − M1/n on (C1), 0 elsewhere. Writing β = c·r₂·D
  and u = nλ, one has c·r₂·Δ_n = (a − s)/u with s = √(a² − 2βu), so **nR(λ) = √((u − M1)² − 2βu)**
  exactly, with the closed-form inverse u = M1 + β + √(β² + 2βM1 + (nB)²). Guarantee (Corollary 5.2):
  λ_min(H(P_n')) ≥ R(λ_min(H(P_n))) for every ordered neighbour pair.
* Upper recursion (12): R↑(Λ) = (1 + c·r₂·Δ_n(ℓo))·Λ + M1/n for a public ℓo ≤ λ_min(P_n).
* Constants (13): ψ̂ = c r₂ Δ_n(λ̂), κ̂ = Λ̂/λ̂, m̂ = M1/(nλ̂), α = 1 − ψ̂ − m̂, ᾱ = 1 − ψ̂/2 − m̂,
  τ = (ψ̂√κ̂ + m̂)/α, τ̄ = ((ψ̂/2)√κ̂ + m̂)/ᾱ.
* Variance change (14): ε_var(τ; δ') = −log(1 − τ) + (z²/2)((1 − τ)^{−2} − 1), z = Φ⁻¹(1 − δ'/2)
  [DERIVED from Lemma A.1(iii)].
* Generic smooth losses (Algorithm 7): (C2): nλ² ≥ 4·D·M2 and nλ ≥ 8·M1'; Δ_gen(λ) =
  2LS/(B + √(B² − 2M2·LS/λ)) with LS = D/(nλ), B = 1 − M1'/(nλ) (Prop. 5.2); recursion
  R₁(λ) = λ − M1'/n − 2D·M2/(nλ) on (C2), 0 elsewhere (Lemma 6.2), with inverse
  λ = ((a + B) + √((a + B)² + 4b))/2.

Every function is vectorised over λ (numpy arrays).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri_exp

from .._validation import check_int, check_positive
from ..errors import DPValueError
from ._losses import Loss, get_loss

__all__ = ["Constants", "eps_var", "constants_for"]


@dataclass(frozen=True)
class Constants:
    """The public constants of one problem: everything the recursions and tests use.

    Attributes
    ----------
    n : int
        Sample size (public).
    r2 : float
        ℓ2 radius of the covariate domain.
    D, M0, M1, M2 : float
        Gradient-set diameter and Lipschitz constants (from the loss and r₂).
    c, sbar : float
        Linear self-bounding constants: ψ(s) ≤ c·s on [0, s̄] (defaults 2 and 1).
    rho : float
        ℓ2-regularisation weight ρ ≥ 0 (the paper's λ in (1)).
    convex : bool
        Every ℓ_θ convex (M1' = M1); otherwise M1' = 2M1.
    """

    n: int
    r2: float
    D: float
    M0: float
    M1: float
    M2: float
    c: float = 2.0
    sbar: float = 1.0
    rho: float = 0.0
    convex: bool = True

    def __post_init__(self):
        check_int(self.n, "n", lo=1)
        for name in ("r2", "D", "M0", "M1", "M2", "c", "sbar"):
            check_positive(getattr(self, name), name)
        check_positive(self.rho, "rho", allow_zero=True)

    # --- caps ---------------------------------------------------------------------------
    @property
    def cap(self) -> float:
        """Λ_cap = M1 + ρ ≥ λ_max(H) for every dataset."""
        return self.M1 + self.rho

    @property
    def beta(self) -> float:
        return self.c * self.r2 * self.D

    @property
    def lam_c(self) -> float:
        """Start of the certified region: (C1) holds iff λ ≥ λ_c = 4·max{M1, c r₂ D, r₂ D/s̄}/n."""
        return 4.0 * max(self.M1, self.beta, self.r2 * self.D / self.sbar) / self.n

    @property
    def M1p(self) -> float:
        return self.M1 if self.convex else 2.0 * self.M1

    # --- (C1), Δ_n, R, R↑ ---------------------------------------------------------------
    def C1(self, lam):
        """Condition (C1) at λ (array)."""
        lam = np.asarray(lam, dtype=float)
        return np.isfinite(lam) & (self.n * lam >= 4.0 * max(self.M1, self.beta, self.r2 * self.D / self.sbar))

    def Delta_n(self, lam):
        """Parameter-change bound (9); +inf where undefined (outside (C1) or λ not finite)."""
        lam = np.asarray(lam, dtype=float)
        u = self.n * lam
        a = u - self.M1
        disc = a * a - 2.0 * self.beta * u
        ok = self.C1(lam) & (a > 0) & (disc >= 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(ok, 2.0 * self.D / (a + np.sqrt(np.where(ok, disc, 0.0))), np.inf)
        return out

    def R(self, lam):
        """Lower recursion (10): R(λ) = √((nλ − M1)² − 2c r₂ D nλ)/n on (C1), else 0 (the one code path)."""
        lam = np.asarray(lam, dtype=float)
        u = self.n * lam
        w = u - self.M1
        disc = w * w - 2.0 * self.beta * u
        ok = self.C1(lam) & (disc > 0)
        return np.where(ok, np.sqrt(np.where(ok, disc, 0.0)) / self.n, 0.0)

    def R_scalar(self, lam: float) -> float:
        """:meth:`R` for one float, with the same operations in the same order (bit-identical)."""
        if not (math.isfinite(lam) and self.n * lam >= 4.0 * max(self.M1, self.beta, self.r2 * self.D / self.sbar)):
            return 0.0
        u = self.n * lam
        w = u - self.M1
        disc = w * w - 2.0 * self.beta * u
        return math.sqrt(disc) / self.n if disc > 0 else 0.0

    def R_inv(self, B):
        """Smallest λ in (C1) with R(λ) ≥ B, by the closed form (before the floating-point fix-up)."""
        B = np.asarray(B, dtype=float)
        u = self.M1 + self.beta + np.sqrt(self.beta ** 2 + 2 * self.beta * self.M1 + (self.n * B) ** 2)
        return np.maximum(u / self.n, self.lam_c)

    def psi(self, lo):
        """ψ = c·r₂·Δ_n(ℓo) (inf outside (C1))."""
        return self.c * self.r2 * self.Delta_n(lo)

    def R_up(self, Lam, lo):
        """Upper recursion (12): (1 + c r₂ Δ_n(ℓo))·Λ + M1/n."""
        return (1.0 + self.psi(lo)) * np.asarray(Lam, dtype=float) + self.M1 / self.n

    def tau_pair(self, lam_hat, Lam_hat):
        """(τ, τ̄) of (13) from the private bounds; +inf where undefined (α ≤ 0, outside (C1))."""
        lam_hat = np.asarray(lam_hat, dtype=float)
        Lam_hat = np.asarray(Lam_hat, dtype=float)
        ok = self.C1(lam_hat) & (lam_hat > 0)
        safe = np.where(ok, lam_hat, 1.0)
        psi = np.where(ok, self.psi(safe), np.inf)
        m = self.M1 / (self.n * safe)
        k = np.sqrt(np.maximum(Lam_hat, safe) / safe)
        alpha = 1.0 - psi - m
        alphab = 1.0 - psi / 2.0 - m
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = np.where(ok & (alpha > 0), (psi * k + m) / np.where(alpha > 0, alpha, 1.0), np.inf)
            taub = np.where(ok & (alphab > 0), (psi / 2 * k + m) / np.where(alphab > 0, alphab, 1.0), np.inf)
        return tau, taub

    # --- generic smooth losses (Algorithm 7) ---------------------------------------------
    def C2(self, lam):
        lam = np.asarray(lam, dtype=float)
        return (np.isfinite(lam) & (self.n * (lam * lam) >= 4.0 * self.D * self.M2)
                & (self.n * lam >= 8.0 * self.M1p))

    @property
    def lam_c2(self) -> float:
        """Start of the (C2) region."""
        return max(math.sqrt(4.0 * self.D * self.M2 / self.n), 8.0 * self.M1p / self.n)

    def Delta_gen(self, lam):
        """Prop. 5.2 bound with LS ≤ D/(nλ); +inf outside (C2)."""
        lam = np.asarray(lam, dtype=float)
        ok = self.C2(lam)
        safe = np.where(ok, lam, 1.0)
        LS = self.D / (self.n * safe)
        B = 1.0 - self.M1p / (self.n * safe)
        disc = B * B - 2.0 * self.M2 * LS / safe
        good = ok & (disc >= 0)
        return np.where(good, 2.0 * LS / (B + np.sqrt(np.where(good, disc, 0.0))), np.inf)

    def R1(self, lam):
        """Generic recursion R₁(λ) = λ − M1'/n − 2D·M2/(nλ) on (C2), else 0 (Lemma 6.2)."""
        lam = np.asarray(lam, dtype=float)
        ok = self.C2(lam)
        safe = np.where(ok, lam, 1.0)
        return np.where(ok, np.maximum(0.0, safe - self.M1p / self.n - 2.0 * self.D * self.M2 / (self.n * safe)), 0.0)

    def R1_scalar(self, lam: float) -> float:
        """:meth:`R1` for one float (bit-identical)."""
        if not (math.isfinite(lam) and self.n * (lam * lam) >= 4.0 * self.D * self.M2
                and self.n * lam >= 8.0 * self.M1p):
            return 0.0
        return max(0.0, lam - self.M1p / self.n - 2.0 * self.D * self.M2 / (self.n * lam))

    def R1_inv(self, B):
        B = np.asarray(B, dtype=float)
        a = self.M1p / self.n
        b = 2.0 * self.D * self.M2 / self.n
        return np.maximum(0.5 * ((a + B) + np.sqrt((a + B) ** 2 + 4.0 * b)), self.lam_c2)


def constants_for(loss: Loss | str, n: int, r2: float, *, c: float = 2.0, sbar: float = 1.0,
                  rho: float = 0.0) -> Constants:
    """The :class:`Constants` of a GLM loss on covariates with ‖x‖₂ ≤ r₂."""
    loss = get_loss(loss) if isinstance(loss, str) else loss
    k = loss.constants(r2)
    return Constants(n=int(n), r2=float(r2), D=k["D"], M0=k["M0"], M1=k["M1"], M2=k["M2"], c=float(c),
                     sbar=float(sbar), rho=float(rho))


def eps_var(tau, delta_prime: float | None = None, *, log_delta: float | None = None):
    """ε_var(τ; δ') = −log(1−τ) + (z²/2)((1−τ)^{−2} − 1), z = Φ⁻¹(1 − δ'/2); +inf for τ ≥ 1 [DERIVED].

    N(μ, s₀²) and N(μ, s₁²) with s₁/s₀ ∈ [1 − τ, 1 + τ] are (ε_var, δ')-close (Lemma A.1(iii)).
    ``log_delta`` = log δ' may be given instead (for δ' below the smallest float, e.g. δ₄ = δ/e^{ε₃}).
    """
    if log_delta is None:
        if delta_prime is None or not 0 < delta_prime < 1:
            raise DPValueError(f"delta = {delta_prime} must lie in (0, 1).")
        log_delta = math.log(delta_prime)
    if not log_delta < 0:
        raise DPValueError(f"log δ = {log_delta} must be < 0.")
    tau = np.asarray(tau, dtype=float)
    z = -float(ndtri_exp(log_delta - math.log(2.0)))
    ok = np.isfinite(tau) & (tau < 1) & (tau >= 0)
    t = np.where(ok, tau, 0.0)
    val = -np.log1p(-t) + 0.5 * z * z * ((1.0 - t) ** -2 - 1.0)
    return np.where(ok, val, np.inf)

"""Preconditioned random-walk Metropolis moves, with windowed covariance adaptation and parallel tempering.

``per_direction=True``: a sweep moves chain c along each column ℓ_k of its preconditioner L_c in
turn, θ′ = θ + s_{c,k}·z·ℓ_k, z ~ N(0, 1) — Metropolis-within-Gibbs in the whitened coordinates
(where L_cL_cᵀ matches the target's covariance they are nearly independent, and for a
well-conditioned target this is the coordinate-wise sampler again; measured ESS ≈ 3× that of
full-vector moves there).  ``per_direction=False``: θ′ = θ + s_c·L_c·z, z ~ N(0, I_d) (adaptive
Metropolis).  One sweep is ``d`` proposals either way.  With a ladder of inverse temperatures
1 = β₀ > … > β_{K−1} every chain is K rows targeting f^β_k, and neighbouring rows propose to swap
states after every sweep (Geyer 1991; Earl & Deem 2005).

Why: one-at-a-time moves cannot travel along a thin tilted ridge — on a regression whose
predictors are correlated (KNG's law θ = θ̂ + (2XᵀX)⁻¹g has axis ratio cond(XᵀX) ≈ 260 on the
diabetes design with bmi scaled by its public bound) they need O(cond²) moves per independent
draw. Proposals shaped like the target (L_cL_cᵀ ∝ its covariance) make every direction equally
easy (Haario, Saksman & Tamminen 2001; Roberts & Rosenthal 2009, adaptive Metropolis).

Where the preconditioner comes from, and what that means for privacy:

* Initially ``precond`` (a public (d, d) covariance shape, or the diagonal ``step_size²``):
  in a release this is built from public quantities only — the data are divided by their
  public bounds (the data-independent scaling) and the scale is the public width 2Δw/(εn).
* During burn-in, when ``adapt_covariance``, each chain re-estimates L_c from **its own**
  past states (windowed, Stan-like; see :func:`window_ends`), shrunk towards its current
  proposal (:func:`update_covariance`), then freezes it. The data enter the proposal only
  through the target's values along the chain's own path — the information every MCMC on this
  target uses, and the same as the step-size adaptation — and each chain adapts on
  its own, so chains (hence released draws) stay independent. After burn-in the chain is an
  ordinary time-homogeneous Metropolis chain whose stationary law is exactly the target.
* Rejected alternatives: a preconditioner computed directly from the private XᵀX leaves the
  target (and its ε-DP) unchanged too, but adds a second function of the data to the finite
  chain's law, outside any accounting; a separately charged private estimate of XᵀX would be
  accountable but splits ε and makes the cost of a release depend on the sampler.

Either way an MCMC draw is only approximately distributed as the ε-DP target: a sampler within
total variation η of the target on every dataset gives (ε, (1 + e^ε)η)-DP, with η judged (not
certified) by the R-hat/ESS release rule.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..driver import StepAdapter

#: Sweeps per step-scale adaptation batch (at most).
PRECOND_BATCH = 10


def window_ends(burn_in: int) -> list[int]:
    """Sweeps (1-based, inclusive) at which the proposal covariance is re-estimated during burn-in.

    Stan-like schedule scaled to the burn-in: a first 15 % with step-scale adaptation only, then
    windows of doubling length (the first 5 % of the burn-in, at least 5 sweeps) up to 90 %, the last
    window stretched to end there; the final 10 % re-tune the scale to the last covariance.

    >>> window_ends(1000)
    [200, 300, 500, 900]
    """
    start, stop = int(0.15 * burn_in), int(0.9 * burn_in)
    w = max(5, int(0.05 * burn_in))
    ends = []
    e = start + w
    while e <= stop:
        nxt = e + 2 * w
        if nxt > stop:
            e = stop
        ends.append(e)
        w *= 2
        e = nxt if nxt <= stop else stop + 1
    return ends


def update_covariance(L: np.ndarray, log_s: np.ndarray, k: int, s1: np.ndarray, s2: np.ndarray,
                      s_opt: float) -> tuple[np.ndarray, np.ndarray]:
    """New Cholesky factors from each chain's window moments, shrunk towards its current proposal.

    Σ = w·S + (1 − w)·Σ₀ + 10⁻⁶·(tr S/d)·I with S the window's sample covariance (k states),
    Σ₀ = (s/s_opt)²·LLᵀ the covariance the current proposal is tuned for, and w = k/(k + 10d): a short
    or highly autocorrelated first window (a noisy S) cannot collapse the proposal. Chains whose
    window is degenerate keep theirs.
    """
    C, d, _ = L.shape
    m = s1 / k
    S = (s2 - k * m[:, :, None] * m[:, None, :]) / max(k - 1, 1)
    tr = np.einsum("cii->c", S) / d
    w = k / (k + 10.0 * d)
    D = np.broadcast_to(np.exp(log_s - s_opt), (d, C)).T                           # (C, d) column scales
    LD = L * D[:, None, :]
    S0 = np.einsum("cij,ckj->cik", LD, LD)
    Sig = w * S + (1.0 - w) * S0 + (1e-6 * tr)[:, None, None] * np.eye(d)
    L = L.copy()
    log_s = log_s.copy()
    for c in range(C):
        if not (np.isfinite(tr[c]) and tr[c] > 0 and np.isfinite(Sig[c]).all()):
            continue
        try:
            Lc = np.linalg.cholesky(0.5 * (Sig[c] + Sig[c].T))
        except np.linalg.LinAlgError:
            continue
        L[c] = Lc
        log_s[:, c] = s_opt
    return L, log_s


class PreconditionedMove:
    """Preconditioned Metropolis over C chains × K temperatures (see the module docstring).

    Row ``c*K + k`` is ladder ``c`` at inverse temperature ``betas[k]``; only the β = 1 rows
    (``cold``) are recorded.  ``lpb`` holds the untempered log density of every row.
    """

    def __init__(self, log_density: Callable[[np.ndarray], np.ndarray], theta0: np.ndarray, lp0: np.ndarray,
                 L: np.ndarray, gens: np.random.Generator | list[np.random.Generator], *, betas: np.ndarray,
                 lo: np.ndarray, hi: np.ndarray, radius: float | None, per_direction: bool, burn_in: int,
                 adapt: bool, adapt_covariance: bool, target: float) -> None:
        C, d = theta0.shape
        K = betas.size
        M = C * K
        self.n_chains, self.dim, self.K = C, d, K
        self.log_density, self.gens = log_density, gens
        self.betas, self.beta = betas, np.tile(betas, C)
        self.theta = np.repeat(theta0, K, axis=0)
        self.L = np.repeat(L, K, axis=0)
        self.lpb = np.repeat(lp0, K)
        self.lo, self.hi, self.radius = lo, hi, radius
        self.box = bool(np.isfinite(lo).any() or np.isfinite(hi).any())
        self.per_dir = per_direction
        Rs = d if per_direction else 1                  # one proposal scale per direction (or one per chain)
        self.log_s = np.zeros((Rs, M))
        self.adapter = StepAdapter((Rs, M), target)
        self.burn_in = burn_in
        self.do_adapt = bool(adapt) and burn_in > 0
        self.batch = max(1, min(PRECOND_BATCH, burn_in // 40))
        self.ends = set(window_ends(burn_in)) if (adapt_covariance and self.do_adapt) else set()
        self.s_opt = math.log(2.4) if per_direction else math.log(2.38 / math.sqrt(d))
        self.w_n = 0
        self.w_s1 = np.zeros((M, d))
        self.w_s2 = np.zeros((M, d, d))
        self.cnt = np.zeros((Rs, M))
        self.acc_post = np.zeros(M)
        self.swaps = np.zeros(max(K - 1, 1))
        self.swap_tries = np.zeros(max(K - 1, 1))
        self.block = max(4, min(64, (1 << 14) // (d * d * K)))
        self.cold = np.arange(C) * K

    def draw(self) -> None:
        """Normals (block·d, M, d), log-uniforms for the proposals and log-uniforms for the swaps."""
        block, d, C, K = self.block, self.dim, self.n_chains, self.K
        if isinstance(self.gens, list):
            Z = np.empty((block * d, C, K, d))
            U = np.empty((block * d, C, K))
            S = np.empty((block, C, K))
            for c, g in enumerate(self.gens):
                Z[:, c] = g.standard_normal((block * d, K, d))
                U[:, c] = g.random((block * d, K))
                S[:, c] = g.random((block, K))
        else:
            Z = self.gens.standard_normal((block * d, C, K, d))
            U = self.gens.random((block * d, C, K))
            S = self.gens.random((block, C, K))
        self.Z = Z.reshape(block * d, C * K, d)
        self.LU = np.log(U).reshape(block * d, C * K)
        self.LS = np.log(S)

    def sweep(self, t: int, s1: int) -> None:
        """``d`` proposals for every row, then (with K > 1) the temperature swaps."""
        s = np.exp(self.log_s)
        for k in range(self.dim):
            self._propose(t * self.dim + k, k, s)
        if self.K > 1:
            self._swap(t, s1)

    def _propose(self, i: int, k: int, s: np.ndarray) -> None:
        theta, L, lpb = self.theta, self.L, self.lpb
        if self.per_dir:
            prop = theta + (s[k] * self.Z[i][:, k])[:, None] * L[:, :, k]
        else:
            prop = theta + s[0][:, None] * np.einsum("cij,cj->ci", L, self.Z[i])
        ok = np.ones(theta.shape[0], dtype=bool)
        if self.box:
            ok &= np.all((prop >= self.lo) & (prop <= self.hi), axis=1)
        if self.radius is not None:
            ok &= np.abs(prop).sum(axis=1) <= self.radius
        lpn = np.full(theta.shape[0], -np.inf)
        if ok.any():
            lpn[ok] = np.asarray(self.log_density(prop[ok]), dtype=float)
        acc = ok & (self.LU[i] < self.beta * (lpn - lpb))
        theta[acc] = prop[acc]
        lpb[acc] = lpn[acc]
        self.cnt[k if self.per_dir else 0] += acc

    def _swap(self, t: int, s1: int) -> None:
        """Swap states between neighbouring temperatures (even/odd pairs alternate between sweeps)."""
        theta, lpb, betas, cold = self.theta, self.lpb, self.betas, self.cold
        for k in range((s1 % 2), self.K - 1, 2):
            a, b = cold + k, cold + k + 1
            la = (betas[k] - betas[k + 1]) * (lpb[b] - lpb[a])
            sw = self.LS[t, :, k] < la
            self.swap_tries[k] += self.n_chains
            self.swaps[k] += sw.sum()
            ia, ib = a[sw], b[sw]
            theta[ia], theta[ib] = theta[ib].copy(), theta[ia].copy()
            lpb[ia], lpb[ib] = lpb[ib].copy(), lpb[ia].copy()

    def tune(self, s1: int) -> None:
        """Window moments, step-scale batches and covariance updates during burn-in."""
        if self.ends:
            self.w_n += 1
            self.w_s1 += self.theta
            self.w_s2 += self.theta[:, :, None] * self.theta[:, None, :]
        if self.do_adapt and (s1 % self.batch == 0 or s1 == self.burn_in):
            self.adapter.update(self.log_s, self.cnt, self.batch if self.per_dir else self.batch * self.dim)
            self.cnt[...] = 0.0
        if s1 in self.ends:
            self.L, self.log_s = update_covariance(self.L, self.log_s, self.w_n, self.w_s1, self.w_s2, self.s_opt)
            self.adapter.restart()
            self.w_n = 0
            self.w_s1[...] = 0.0
            self.w_s2[...] = 0.0
        if s1 == self.burn_in:
            self.cnt[...] = 0.0

    def settle(self) -> None:
        self.acc_post += self.cnt.sum(axis=0)
        self.cnt[...] = 0.0

    def current(self) -> np.ndarray:
        return self.theta[self.cold]

    def acceptance(self, n_post: int) -> tuple[float, np.ndarray]:
        """Post-burn-in acceptance of the β = 1 chains (one rate, repeated per coordinate)."""
        rate = float(self.acc_post[self.cold].sum() / (self.n_chains * n_post * self.dim))
        return rate, np.full(self.dim, rate)

    def step_sizes(self) -> np.ndarray:
        """Per-coordinate proposal sd of the β = 1 chains, s_c·√diag(L_cL_cᵀ)."""
        M = self.theta.shape[0]
        sc = np.broadcast_to(np.exp(self.log_s), (self.dim, M)).T                 # (M, d) scale per direction
        sd: np.ndarray = np.sqrt(np.einsum("cjk,ck->cj", self.L * self.L, sc * sc))
        return sd[self.cold]

    def swap_rates(self) -> np.ndarray | None:
        return self.swaps / np.maximum(self.swap_tries, 1) if self.K > 1 else None

"""Exact samplers for linear regression: KNG and the exponential mechanism (Reimherr & Awan 2019, §4.3, §7.1).

Setting (scaled units, :mod:`dpcore.kng._regression`): A = XᵀX, b = Xᵀy, Θ = {‖θ‖₁ ≤ B}; when A is
positive definite, θ̂ = A⁻¹b is the OLS fit.

**KNG** (Thm 3.1). The target is f(θ) ∝ exp(−c‖∇ℓ(θ)‖_K) 1{θ ∈ Θ} with c = ε/(2Δ) and
∇ℓ(θ) = 2(Aθ − b) = 2A(θ − θ̂): the gradient is *affine* in θ. The map θ ↦ g = 2A(θ − θ̂) is a linear
bijection of R^d with constant Jacobian |det 2A|, so under f restricted to nothing (on all of R^d)
g has density ∝ exp(−c‖g‖_K), the K-norm law, and θ = θ̂ + (2A)⁻¹g. That law is drawn exactly
(Hardt & Talwar 2010): polar coordinates give ‖g‖_K a density ∝ r^{d−1}e^{−cr}, Gamma(d, 1/c),
with an independent direction from the cone measure; equivalently g = R·U with R ~ Gamma(d + 1, 1/c)
and U uniform in the unit K-ball (‖U‖_K ~ Beta(d, 1), and Gamma(d+1)·Beta(d, 1) = Gamma(d)), which is
vectorised for ℓ1, ℓ2 and ℓ∞ in :func:`dpcore.noise.knorm_noise`. (The sign of the map is
immaterial: the K-norm law is symmetric.)

**Exponential mechanism** (Prop. 2.2). f(θ) ∝ exp(−c(θᵀAθ − 2θᵀb)) = exp(−c(θ − θ̂)ᵀA(θ − θ̂)) · const
on Θ: the Gaussian N(θ̂, (2cA)⁻¹) restricted to Θ. With A = LLᵀ (Cholesky), θ = θ̂ + L⁻ᵀz/√(2c),
z ~ N(0, I_d).

**Restriction to Θ by rejection.** Draw from the unrestricted law p on R^d and keep the draws with
‖θ‖₁ ≤ B. Because the target is p·1_Θ/p(Θ), an accepted draw has exactly the target law
(rejection sampling with envelope p/p(Θ) and acceptance 1_Θ). Trials are i.i.d. and the decision to
continue, or to stop and fall back, looks only at the accept/reject *indicators* (never at the
accepted values), so every accepted draw is an independent draw from the exact target whatever the
stopping rule.

**Guarantee.** The released draws then follow KNG's (resp. the exponential mechanism's) law exactly,
so each is **ε-DP** (replace-one neighbours, n fixed) by Thm 3.1 (resp. Prop. 2.2) with the
sensitivities derived in :mod:`dpcore.kng._regression`: no MCMC approximation, no diagnostics, no
withholding. Floating point aside (Mironov 2012), the only approximation left is none.

**When the law is wide (small n) or XᵀX is singular**, a second exact rejection sampler proposes
uniformly on Θ (uniform in the ℓ1 ball: :func:`dpcore.norms.sample_unit_ball`) and accepts with
probability f(θ)/M, M ≥ sup_Θ f (:func:`_log_f_uniform`): again the accepted draws follow f·1_Θ
exactly.

**When rejection is too slow.** The acceptance rate of the first sampler is p(Θ), small when θ̂ lies
far outside Θ (or A is nearly singular and the law is wide). After each batch the sampler estimates
it from the indicators; once the expected number of trials for the remaining draws exceeds
``max_trials`` (or A is not positive definite: the unrestricted law is improper), it moves on to the
uniform proposals, which stop by the same rule; then it reports which draws are missing.
The caller then fills them by MCMC on the same target (:func:`dpcore.mcmc.preconditioned_metropolis`
in a release): those draws are only approximately ε-DP. Whether the fallback ran depends on the data,
so a release never publishes it: with ``sampler="auto"`` its public statement is always the one that
covers both branches (``dpcore.kng.calibration.FALLBACK_NOTE``) and the branch goes to the non-private
diagnostics only (see :mod:`dpcore.kng.release._engine`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..noise import knorm_noise

__all__ = ["ExactDraws", "LinearLaw", "linear_law", "sample_linear_exact", "MAX_TRIALS"]

#: Default trial budget of one dataset's rejection sampler (≈ 0.3 s at d = 2).
MAX_TRIALS = 2_000_000
#: Largest batch of trials drawn at once (memory: batch × d values).
MAX_BATCH = 200_000


@dataclass(frozen=True)
class ExactDraws:
    """Draws of an exact sampler that may stop early: ``values`` (size, d), NaN rows where ``missing``.

    ``trials`` and ``accepted`` count the rejection sampler's proposals (non-private by-products);
    ``from_uniform`` how many draws the second (uniform-on-Θ) phase gave.
    ``reason`` says why draws are missing ("" when none are).
    """

    values: np.ndarray
    missing: np.ndarray
    trials: int
    accepted: int
    reason: str = ""
    from_uniform: int = 0       # draws accepted from the uniform-on-Θ proposal (the second phase)

    @property
    def acceptance(self) -> float:
        return self.accepted / self.trials if self.trials else float("nan")


@dataclass(frozen=True)
class LinearLaw:
    """The unrestricted law of θ for one dataset: θ = θ̂ + M·w, w the mechanism's noise (see module docstring)."""

    mechanism: str
    theta_hat: np.ndarray
    M: np.ndarray           # KNG: (2A)⁻¹; exponential: L⁻ᵀ/√(2c)
    c: float
    norm: str

    def draw(self, m: int, g: np.random.Generator) -> np.ndarray:
        d = self.theta_hat.size
        if self.mechanism == "kng":
            w = knorm_noise(d, self.c, self.norm, m, g)
        else:
            w = g.standard_normal((m, d))
        return self.theta_hat[None, :] + w @ self.M.T


def linear_law(A: np.ndarray, b: np.ndarray, mechanism: str, c: float, norm: str) -> Optional[LinearLaw]:
    """The unrestricted law of KNG / the exponential mechanism for A = XᵀX, b = Xᵀy; None if A is not
    (numerically) positive definite, where that law is improper and only MCMC on Θ applies."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    d = b.size
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return None
    dg = np.diag(L)
    if not np.all(dg > 0) or dg.min() < 1e-6 * max(dg.max(), 1e-300):  # cond(A) > 1e12: numerically singular
        return None
    eye = np.eye(d)
    Linv = np.linalg.solve(L, eye)                  # L⁻¹
    theta_hat = Linv.T @ (Linv @ b)                 # A⁻¹b
    if not np.all(np.isfinite(theta_hat)):
        return None
    if mechanism == "kng":
        M: np.ndarray = 0.5 * (Linv.T @ Linv)       # (2A)⁻¹
        M = 0.5 * (M + M.T)
    elif mechanism == "exponential":
        M = Linv.T / math.sqrt(2.0 * c)             # cov M Mᵀ = A⁻¹/(2c)
    else:
        raise ValueError(f"no exact rejection sampler for mechanism {mechanism!r}")
    return LinearLaw(mechanism, theta_hat, M, float(c), norm)


def _log_f_uniform(A, b, mechanism, c, norm, B, law):
    """log f(θ) − log M ≤ 0 on Θ for the uniform-on-Θ proposal: the unnormalised target and a bound M of it.

    KNG: log f = −c‖2(Aθ − b)‖_K ≤ 0, so M = 1. Exponential mechanism: log f = −c(θᵀAθ − 2bᵀθ) ≤
    c·max_θ(2bᵀθ − θᵀAθ), and max_θ ≤ min(2B‖b‖∞ (θᵀAθ ≥ 0, bᵀθ ≤ ‖b‖∞‖θ‖₁ ≤ B‖b‖∞ on Θ), bᵀA⁻¹b (the
    unconstrained maximum, when A is positive definite)).
    """
    from ..norms import norm as knorm

    if mechanism == "kng":
        return lambda th: -c * knorm(2.0 * (th @ A - b), norm)
    top = 2.0 * B * float(np.max(np.abs(b)))
    if law is not None:
        top = min(top, float(b @ law.theta_hat))
    return lambda th: -c * (np.einsum("mi,ij,mj->m", th, A, th) - 2.0 * th @ b) - c * top


def sample_linear_exact(A: np.ndarray, b: np.ndarray, mechanism: str, c: float, norm: str, B: float, size: int,
                        g: np.random.Generator, *, max_trials: int = MAX_TRIALS, progress=None) -> ExactDraws:
    """Exact draws from KNG's / the exponential mechanism's law on {‖θ‖₁ ≤ B} (see the module docstring).

    Two exact rejection samplers, tried in turn: (1) the unrestricted law (K-norm noise mapped back, or the
    Gaussian), kept when it lands in Θ — efficient when the law is narrow compared with Θ and θ̂ is inside;
    (2) when (1) gives up, uniform proposals on Θ accepted with probability f(θ)/M
    (:func:`_log_f_uniform`) — efficient when the law is wide compared with Θ (small n), and valid for a
    singular XᵀX too. Each phase stops on its own indicators only, so accepted draws of both are i.i.d.
    from the exact target.

    Parameters
    ----------
    A : (d, d), b : (d,) — XᵀX and Xᵀy of the scaled data.
    mechanism : "kng" or "exponential"; c : the calibrated density constant; norm : KNG's K-norm.
    B : ℓ1 radius of Θ; size : draws wanted; g : Generator (the only source of randomness).
    max_trials : budget of proposals per phase; a phase stops early once the expected number of trials
        for the remaining draws, at its observed acceptance rate, would exceed it.
    progress : callable(done, total) -> bool, optional (between batches).

    Returns
    -------
    ExactDraws — accepted draws are i.i.d. from the exact target; the rest are marked missing.
    """
    from ..norms import sample_unit_ball

    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    d = b.size
    out = np.full((size, d), np.nan)
    law = linear_law(A, b, mechanism, c, norm)
    state = {"got": 0, "trials": 0, "hits": 0}
    if law is not None:
        def unrestricted(m):
            th = law.draw(m, g)
            return th, np.abs(th).sum(axis=1) <= B
        _rejection(unrestricted, out, state, size, max_trials, progress)
    first = state["got"]
    if state["got"] < size:
        logf = _log_f_uniform(A, b, mechanism, c, norm, B, law)

        def uniform(m):
            th = B * sample_unit_ball("l1", d, m, g)
            return th, np.log(g.random(m)) < logf(th)
        _rejection(uniform, out, state, size, max_trials, progress)
    got, trials, hits = state["got"], state["trials"], state["hits"]
    missing = np.zeros(size, dtype=bool)
    missing[got:] = True
    reason = "" if got == size else (f"the law puts too little mass on Θ = {{‖θ‖₁ ≤ {B:g}}}: the fit lies far "
                                     "outside Θ or the law is much wider than Θ")
    return ExactDraws(out, missing, trials, hits, reason, got - first)


def _rejection(propose, out, state, size, max_trials, progress):
    """One rejection phase: fill ``out[state.got:]`` from ``propose(m) -> (θ, accept)`` within ``max_trials``."""
    got, trials, hits = state["got"], 0, 0
    while got < size:
        need = size - got
        rate = (hits + 1.0) / (trials + 2.0)        # estimate from this phase's indicators only
        if trials > 0 and trials + need / rate > max_trials:
            break
        m = int(min(MAX_BATCH, max_trials - trials, max(1024, math.ceil(1.2 * need / rate))))
        if m <= 0:
            break
        th, ok = propose(m)
        hits += int(ok.sum())
        acc = th[ok][:need]
        out[got:got + acc.shape[0]] = acc
        got += acc.shape[0]
        trials += m
        if progress is not None and progress(got, size) is False:
            from ..errors import Cancelled
            raise Cancelled(f"exact sampler cancelled after {got} of {size} draws.", done=got, total=size)
    state["got"], state["trials"], state["hits"] = got, state["trials"] + trials, state["hits"] + hits

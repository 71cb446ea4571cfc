"""Algorithm 5 of Asi, Duchi & Talwar (2025), propose-test-release of ⟨v, θ̂⟩:
(ε₁ + ε₂ + ε₃ + ε₄, δ₁ + δ₂ + δ₃ + e^{ε₃}δ₄)-DP (Corollary 3.6; Lemma 2.2 applied in two nested steps, then the
shift (Lemma 2.3) chained before the variance change (Lemma A.1(iii))), calibrated by
:func:`~dpcore.single_parameter.calibration.calibrate_functional`. ``data = (X, y)``.

:func:`oracle_functional` — ⟨v, θ̂⟩ + σ(ε, δ)·LS_v(P_n)·Z with the exact, non-privately computed local
sensitivity: the best-case benchmark the paper calls "non-private". **Not private**: its noise scale depends on
the data. A plain function, never a registered mechanism.
"""
from __future__ import annotations

import numpy as np

from ..._rng import RNGLike, as_generator
from ...errors import DPValueError
from ...mechanism import Note, Release
from ...privacy import analytic_gaussian_sigma
from .._analysis import (BOTTOM, Analysis, analyse, analysis_diagnostics, clip_note, gaussian_sigma, laplace_params,
                         local_sensitivity)
from .._recursion import alg4, alg6l
from .._stability import eps_var
from ..calibration import calibrate_functional
from ..configs import FunctionalConfig
from .theta import nonprivate as nonprivate_theta

__all__ = ["release", "nonprivate", "sample_functional", "oracle_functional"]


def sample_functional(an: Analysis, cfg: FunctionalConfig, size: int, rng, cal=None) -> dict:
    """``size`` independent runs of Algorithm 5 (vectorised). Returns arrays: ``value`` (NaN = ⊥),
    ``lam_hat``, ``Lam_hat``, ``tau``, ``taub``, ``eps_var``, ``c1`` (bool) and ``passed`` (bool)."""
    g = as_generator(rng)
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    lp = laplace_params(cal)
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
        value[passed] = v @ an.fit.theta + gaussian_sigma(e3, d3, cal) * (1.0 + an.nu * taub[passed]) * S * Z[passed]
    return dict(value=value, lam_hat=lam_hat, Lam_hat=Lam_hat, tau=tau, taub=taub, eps_var=ev, c1=c1, passed=passed)


def release(data, cfg: FunctionalConfig, *, rng: RNGLike = None) -> Release:
    """Algorithm 5: propose-test-release of ⟨v, θ̂⟩ (value NaN for ⊥; the cost is charged either way)."""
    an = analyse(data, cfg)
    cal = calibrate_functional(cfg, an.X.shape)
    v = cfg.vector(an.X.shape[1])
    out = sample_functional(an, cfg, 1, rng, cal)
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    lh, Lh, tau, ev = (float(out[k][0]) for k in ("lam_hat", "Lam_hat", "tau", "eps_var"))
    notes = list(clip_note(an, cfg))
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
                   analysis_diagnostics(an, **extra), cfg)


def nonprivate(data, cfg: FunctionalConfig) -> float:
    """⟨v, θ̂⟩ (NON-PRIVATE)."""
    theta = nonprivate_theta(data, cfg)
    return float(cfg.vector(theta.shape[0]) @ theta)


def oracle_functional(data, cfg: FunctionalConfig, *, rng: RNGLike = None) -> tuple[float, float]:
    """NOT PRIVATE: ⟨v, θ̂⟩ + σ(ε, δ)·LS_v·Z with the exact local sensitivity (the paper's "non-private"
    benchmark). Returns (value, noise sd)."""
    an = analyse(data, cfg)
    if an.fit is None:
        raise DPValueError(f"θ̂ is undefined: {an.degenerate}.")
    v = cfg.vector(an.X.shape[1])
    sd = analytic_gaussian_sigma(cfg.epsilon, cfg.delta) * local_sensitivity(an, v)
    return float(v @ an.fit.theta + sd * as_generator(rng).standard_normal()), sd

"""Additive noise mechanisms and the exponential mechanism.

Every mechanism states its guarantee, neighbouring relation and the sensitivity it needs;
callers pass the sensitivity of *their* query under *their* neighbouring relation
(replace-one unless said). References: Dwork et al. (2006) Laplace; Balle & Wang (2018)
analytic Gaussian; Bun & Steinke (2016) zCDP Gaussian; Hardt & Talwar (2010) K-norm;
McSherry & Talwar (2007) exponential mechanism; spec/kng.md §2.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from . import norms as _norms
from ._rng import RNGLike, as_generator
from ._validation import (DPValueError, check_delta, check_epsilon, check_int, check_norm,
                          check_positive, check_rho)
from .privacy import PrivacyCost, analytic_gaussian_sigma, gaussian_sigma_zcdp


@dataclass(frozen=True)
class NoiseRelease:
    """A noisy release: the value, its privacy cost, the sensitivity and noise scale used."""

    value: np.ndarray
    cost: PrivacyCost
    sensitivity: float
    scale: float
    mechanism: str


# -- raw noise ---------------------------------------------------------------------
def laplace_noise(scale: float, size=None, rng: RNGLike = None) -> np.ndarray:
    """iid Laplace(0, scale) noise, density exp(−|z|/b)/(2b)."""
    scale = check_positive(scale, "scale")
    return as_generator(rng).laplace(0.0, scale, size=size)


def gaussian_noise(sigma: float, size=None, rng: RNGLike = None) -> np.ndarray:
    """iid N(0, σ²) noise."""
    sigma = check_positive(sigma, "sigma")
    return as_generator(rng).normal(0.0, sigma, size=size)


def knorm_noise(d: int, c: float, norm: str = "l2", size: int = 1, rng: RNGLike = None) -> np.ndarray:
    """Draws from the K-norm density ∝ exp(−c‖z‖_K) on R^d, shape (size, d).

    Exact sampler (spec/kng.md §2): R ~ Gamma(shape d+1, scale 1/c), U uniform in the unit
    K-ball, Z = R·U. (Polar decomposition: ‖Z‖_K has density ∝ r^{d−1}e^{−cr}, i.e. Gamma(d, 1/c),
    and Z/‖Z‖_K follows the cone measure; R·‖U‖_K with ‖U‖_K ~ Beta(d, 1) gives exactly that.)
    """
    d = check_int(d, "d", lo=1)
    c = check_positive(c, "c (K-norm rate)")
    size = check_int(size, "size", lo=0)
    g = as_generator(rng)
    r = g.gamma(shape=d + 1.0, scale=1.0 / c, size=(size, 1))
    return r * _norms.sample_unit_ball(norm, d, size, g)


# -- mechanisms --------------------------------------------------------------------
def laplace_mechanism(value, sensitivity: float, epsilon: float, rng: RNGLike = None,
                      neighbours: str = "replace-one") -> NoiseRelease:
    """value + Laplace(Δ₁/ε) per coordinate: ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁.

    Proof: the density ratio at any z is exp(ε(‖z − f(D')‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the
    triangle inequality.
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    v = np.asarray(value, dtype=float)
    scale = sensitivity / epsilon
    out = v + laplace_noise(scale, size=v.shape, rng=rng)
    return NoiseRelease(out, PrivacyCost.pure(epsilon, neighbours=neighbours), sensitivity, scale, "laplace")


def gaussian_mechanism(value, sensitivity: float, *, epsilon: float | None = None, delta: float | None = None,
                       rho: float | None = None, rng: RNGLike = None,
                       neighbours: str = "replace-one") -> NoiseRelease:
    """value + N(0, σ²I) with ℓ2-sensitivity Δ₂ ≥ sup ‖f(D) − f(D')‖₂.

    Give either (ε, δ) — σ is the analytic Gaussian calibration (Balle & Wang 2018), (ε, δ)-DP —
    or ρ — σ = Δ₂/√(2ρ), ρ-zCDP (Bun & Steinke 2016).
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    v = np.asarray(value, dtype=float)
    if rho is not None:
        if epsilon is not None or delta is not None:
            raise DPValueError("give either rho (zCDP) or (epsilon, delta), not both.")
        rho = check_rho(rho)
        sigma = gaussian_sigma_zcdp(rho, sensitivity)
        cost = PrivacyCost.zcdp(rho, neighbours=neighbours)
    else:
        if epsilon is None or delta is None:
            raise DPValueError("the Gaussian mechanism needs (epsilon, delta) or rho; delta was not given.")
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
        cost = PrivacyCost.approx(epsilon, delta, neighbours=neighbours)
    out = v + gaussian_noise(sigma, size=v.shape, rng=rng)
    return NoiseRelease(out, cost, sensitivity, sigma, "gaussian")


def knorm_mechanism(value, sensitivity: float, epsilon: float, norm: str = "l2", size: int = 1,
                    rng: RNGLike = None, neighbours: str = "replace-one") -> NoiseRelease:
    """value + Z with Z ∝ exp(−(ε/Δ_K)‖z‖_K): ε-DP when Δ_K ≥ sup ‖f(D) − f(D')‖_K (Hardt & Talwar 2010).

    ``size`` independent releases cost ``size``·ε (basic composition); the returned value has
    shape (size, d).
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    norm = check_norm(norm)
    v = np.atleast_1d(np.asarray(value, dtype=float))
    if v.ndim != 1:
        raise DPValueError(f"value must be a vector; got shape {v.shape}.")
    size = check_int(size, "size", lo=1)
    z = knorm_noise(v.shape[0], epsilon / sensitivity, norm, size, rng)
    cost = PrivacyCost.pure(epsilon * size, neighbours=neighbours,
                            note="" if size == 1 else f"{size} independent draws at ε = {epsilon:g} each")
    return NoiseRelease(v + z, cost, sensitivity, sensitivity / epsilon, f"knorm-{norm}")


def exponential_mechanism_logits(utilities, epsilon: float, sensitivity: float, monotone: bool = False) -> np.ndarray:
    """Normalised log-probabilities ε·u/(2Δ_u) − logsumexp (ε·u/Δ_u when ``monotone``)."""
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise DPValueError(f"utilities must be a non-empty 1-D array; got shape {u.shape}.")
    if np.isnan(u).any() or np.isposinf(u).any():
        raise DPValueError("utilities contain NaN or +inf; every candidate needs a finite utility (−inf excludes it).")
    factor = epsilon / (sensitivity if monotone else 2.0 * sensitivity)
    logits = factor * u
    if not np.isfinite(logits).any():
        raise DPValueError("every candidate has utility −inf; at least one must be finite.")
    return logits - logsumexp(logits)


def exponential_mechanism(utilities, epsilon: float, sensitivity: float, size: int = 1, rng: RNGLike = None,
                          monotone: bool = False) -> np.ndarray:
    """Indices drawn with P(i) ∝ exp(ε u_i / (2Δ_u)) over finite candidates (McSherry & Talwar 2007).

    ε-DP (each draw) when Δ_u ≥ sup_i sup_{D~D'} |u_i(D) − u_i(D')|; with ``monotone`` utilities
    (all move in the same direction between neighbours) the factor 2 may be dropped.
    Sampling is Gumbel-max in log space: argmax_i(ε u_i/(2Δ) + G_i), exact and free of
    overflow even for utilities ~ 1e6.
    """
    logits = exponential_mechanism_logits(utilities, epsilon, sensitivity, monotone)
    size = check_int(size, "size", lo=0)
    gumbel = as_generator(rng).gumbel(size=(size, logits.size))
    return np.argmax(logits[None, :] + gumbel, axis=1)

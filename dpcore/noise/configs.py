"""The noise mechanisms in the one-mechanism template: frozen configs, calibrations, pure releases.

``data`` is the exact answer f(D) of the caller's query (a number or a vector), or the utilities
u_i(D) of the candidates for the exponential mechanism; the caller states the sensitivity of
*their* query under *their* neighbouring relation (replace-one unless said). ``override``
replaces the calibration (an audit's mutant; never used by a real release).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from .._rng import RNGLike, as_generator
from .._validation import (DPValueError, check_delta, check_epsilon, check_int, check_norm, check_positive,
                           check_rho)
from ..mechanism import Calibration, Release
from ..privacy import analytic_gaussian_sigma, gaussian_sigma_zcdp
from ._raw import gaussian_noise, knorm_noise, laplace_noise

Override = Optional[Callable[[Calibration], Calibration]]


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _common(cfg: Any) -> None:
    _set(cfg, "sensitivity", check_positive(cfg.sensitivity, "sensitivity"))
    if not isinstance(cfg.neighbours, str) or not cfg.neighbours:
        raise DPValueError(f"neighbours must name the neighbouring relation (e.g. 'replace-one'); got "
                           f"{cfg.neighbours!r}.")


def _release(cal: Calibration, value: Any, config: Any, size: int = 1) -> Release:
    return Release(mechanism=cal.mechanism, value=value, cost=cal.cost(size), calibration=cal, config=config)


# ----------------------------------------------------------------------------- Laplace
@dataclass(frozen=True)
class LaplaceConfig:
    """value + Laplace(Δ₁/ε) per coordinate."""

    epsilon: float
    sensitivity: float = 1.0
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _common(self)

    def calibration(self) -> Calibration:
        """ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁: the density ratio at any z is
        exp(ε(‖z − f(D')‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the triangle inequality."""
        return Calibration(
            mechanism="noise/laplace", notion="pure", epsilon=self.epsilon, sensitivity=self.sensitivity,
            constant=self.sensitivity / self.epsilon, constant_name="Laplace scale b = Δ₁/ε",
            derivation=("the density ratio at any z is exp(ε(‖z − f(D′)‖₁ − ‖z − f(D)‖₁)/Δ₁) ≤ e^ε by the triangle "
                        f"inequality, with Δ₁ = {self.sensitivity:g} the caller's ℓ1-sensitivity."),
            reference="Dwork, McSherry, Nissim & Smith (2006), Calibrating noise to sensitivity",
            neighbours=self.neighbours)


def laplace_release(data: Any, config: LaplaceConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + Laplace(b) per coordinate, b = Δ₁/ε (one release, ε-DP)."""
    cal = config.calibration() if override is None else override(config.calibration())
    v = np.asarray(data, dtype=float)
    return _release(cal, v + laplace_noise(cal.constant, size=v.shape, rng=rng), config)


def laplace_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None,
                      neighbours: str = "replace-one") -> Release:
    """value + Laplace(Δ₁/ε) per coordinate: ε-DP when Δ₁ ≥ sup_{D~D'} ‖f(D) − f(D')‖₁."""
    epsilon = check_epsilon(epsilon)
    return laplace_release(value, LaplaceConfig(epsilon, sensitivity, neighbours), rng=rng)


# ----------------------------------------------------------------------------- Gaussian
@dataclass(frozen=True)
class GaussianConfig:
    """value + N(0, σ²I), σ the analytic Gaussian calibration for (ε, δ)."""

    epsilon: float
    delta: float
    sensitivity: float = 1.0
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _set(self, "delta", check_delta(self.delta))
        _common(self)

    def calibration(self) -> Calibration:
        sigma = analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)
        return Calibration(
            mechanism="noise/gaussian", notion="approx", epsilon=self.epsilon, delta=self.delta,
            sensitivity=self.sensitivity, constant=sigma, constant_name="Gaussian σ (analytic calibration)",
            derivation=("the smallest σ with Φ(Δ₂/(2σ) − εσ/Δ₂) − e^ε Φ(−Δ₂/(2σ) − εσ/Δ₂) ≤ δ, the exact privacy "
                        f"profile of the Gaussian mechanism, with Δ₂ = {self.sensitivity:g} the caller's "
                        "ℓ2-sensitivity."),
            reference="Balle & Wang (2018), Improving the Gaussian mechanism, Thm 8", neighbours=self.neighbours)


@dataclass(frozen=True)
class GaussianZCDPConfig:
    """value + N(0, σ²I), σ = Δ₂/√(2ρ): ρ-zCDP."""

    rho: float
    sensitivity: float = 1.0
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "rho", check_rho(self.rho))
        _common(self)

    def calibration(self) -> Calibration:
        return Calibration(
            mechanism="noise/gaussian-zcdp", notion="zcdp", rho=self.rho, sensitivity=self.sensitivity,
            constant=gaussian_sigma_zcdp(self.rho, self.sensitivity), constant_name="Gaussian σ = Δ₂/√(2ρ)",
            derivation=(f"the Rényi divergence of order α between N(f(D), σ²) and N(f(D′), σ²) is α‖f(D) − f(D′)‖₂²/"
                        f"(2σ²) ≤ αρ with σ = Δ₂/√(2ρ), Δ₂ = {self.sensitivity:g}."),
            reference="Bun & Steinke (2016), Concentrated differential privacy, Prop. 1.6", neighbours=self.neighbours)


def _gaussian(data: Any, config: Any, rng: RNGLike, override: Any) -> Release:
    cal = config.calibration() if override is None else override(config.calibration())
    v = np.asarray(data, dtype=float)
    return _release(cal, v + gaussian_noise(cal.constant, size=v.shape, rng=rng), config)


def gaussian_release(data: Any, config: GaussianConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """f(D) + N(0, σ²I) with the analytic σ: (ε, δ)-DP."""
    return _gaussian(data, config, rng, override)


def gaussian_zcdp_release(data: Any, config: GaussianZCDPConfig, *, rng: RNGLike = None,
                          override: Override = None) -> Release:
    """f(D) + N(0, σ²I), σ = Δ₂/√(2ρ): ρ-zCDP."""
    return _gaussian(data, config, rng, override)


def gaussian_mechanism(value: ArrayLike, sensitivity: float, *, epsilon: float | None = None, delta: float | None = None,
                       rho: float | None = None, rng: RNGLike = None, neighbours: str = "replace-one") -> Release:
    """value + N(0, σ²I) with ℓ2-sensitivity Δ₂ ≥ sup ‖f(D) − f(D')‖₂.

    Give either (ε, δ) — σ is the analytic Gaussian calibration (Balle & Wang 2018), (ε, δ)-DP —
    or ρ — σ = Δ₂/√(2ρ), ρ-zCDP (Bun & Steinke 2016).
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    if rho is not None:
        if epsilon is not None or delta is not None:
            raise DPValueError("give either rho (zCDP) or (epsilon, delta), not both.")
        return gaussian_zcdp_release(value, GaussianZCDPConfig(rho, sensitivity, neighbours), rng=rng)
    if epsilon is None or delta is None:
        raise DPValueError("the Gaussian mechanism needs (epsilon, delta) or rho; delta was not given.")
    return gaussian_release(value, GaussianConfig(epsilon, delta, sensitivity, neighbours), rng=rng)


# ----------------------------------------------------------------------------- K-norm
@dataclass(frozen=True)
class KNormConfig:
    """value + Z, Z ∝ exp(−(ε/Δ_K)‖z‖_K); ``size`` independent draws."""

    epsilon: float
    sensitivity: float = 1.0
    norm: str = "l2"
    size: int = 1
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _common(self)
        _set(self, "norm", check_norm(self.norm))
        _set(self, "size", check_int(self.size, "size", lo=1))

    def calibration(self) -> Calibration:
        return Calibration(
            mechanism="noise/knorm", notion="pure", epsilon=self.epsilon, sensitivity=self.sensitivity,
            constant=self.epsilon / self.sensitivity, constant_name="rate c in exp(−c‖z‖_K), c = ε/Δ_K",
            derivation=("the density ratio at any z is exp(c(‖z − f(D′)‖_K − ‖z − f(D)‖_K)) ≤ exp(cΔ_K) = e^ε by the "
                        f"triangle inequality of the {self.norm} norm, with Δ_K = {self.sensitivity:g}."),
            reference="Hardt & Talwar (2010), On the geometry of differential privacy", neighbours=self.neighbours,
            params={"norm": self.norm})


def knorm_release(data: Any, config: KNormConfig, *, rng: RNGLike = None, override: Override = None) -> Release:
    """``size`` independent draws f(D) + Z, shape (size, d); each ε-DP (cost: size draws)."""
    cal = config.calibration() if override is None else override(config.calibration())
    v = np.atleast_1d(np.asarray(data, dtype=float))
    if v.ndim != 1:
        raise DPValueError(f"value must be a vector; got shape {v.shape}.")
    z = knorm_noise(v.shape[0], cal.constant, config.norm, config.size, rng)
    return _release(cal, v + z, config, config.size)


def knorm_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, norm: str = "l2", size: int = 1,
                    rng: RNGLike = None, neighbours: str = "replace-one") -> Release:
    """value + Z with Z ∝ exp(−(ε/Δ_K)‖z‖_K): ε-DP per draw when Δ_K ≥ sup ‖f(D) − f(D')‖_K.

    ``size`` independent releases cost ``size`` draws at ε each (the release's ``cost.count``);
    the returned value has shape (size, d).
    """
    return knorm_release(value, KNormConfig(epsilon, sensitivity, norm, size, neighbours), rng=rng)


# ----------------------------------------------------------------------------- exponential mechanism
@dataclass(frozen=True)
class ExponentialConfig:
    """P(i) ∝ exp(ε u_i / (2Δ_u)) over finite candidates (ε u_i/Δ_u when ``monotone``)."""

    epsilon: float
    sensitivity: float = 1.0
    monotone: bool = False
    size: int = 1
    neighbours: str = "replace-one"

    def __post_init__(self) -> None:
        _set(self, "epsilon", check_epsilon(self.epsilon))
        _common(self)
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise DPValueError(f"monotone must be True or False; got {self.monotone!r}.")
        _set(self, "size", check_int(self.size, "size", lo=1))

    def calibration(self) -> Calibration:
        factor = self.epsilon / (self.sensitivity if self.monotone else 2.0 * self.sensitivity)
        why = ("monotone utilities (all move the same way between neighbours): the normaliser moves with them, so "
               "ε/Δ_u" if self.monotone else
               "a utility moves by at most Δ_u and the normaliser by at most e^{ε/2}: ε/(2Δ_u)")
        return Calibration(
            mechanism="noise/exponential", notion="pure", epsilon=self.epsilon, sensitivity=self.sensitivity,
            constant=factor, constant_name="c in P(i) ∝ exp(c·u_i)",
            derivation=f"Δ_u = {self.sensitivity:g} ≥ sup_i sup_{{D~D′}} |u_i(D) − u_i(D′)|; {why}.",
            reference="McSherry & Talwar (2007), Mechanism design via differential privacy, Thm 6",
            neighbours=self.neighbours, params={"monotone": bool(self.monotone)})


def _utilities(utilities: Any) -> np.ndarray:
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise DPValueError(f"utilities must be a non-empty 1-D array; got shape {u.shape}.")
    if np.isnan(u).any() or np.isposinf(u).any():
        raise DPValueError("utilities contain NaN or +inf; every candidate needs a finite utility (−inf excludes it).")
    return u


def _logits(u: np.ndarray, factor: float) -> np.ndarray:
    logits = factor * u
    if not np.isfinite(logits).any():
        raise DPValueError("every candidate has utility −inf; at least one must be finite.")
    return logits - logsumexp(logits)


def exponential_mechanism_logits(utilities: ArrayLike, epsilon: float, sensitivity: float, monotone: bool = False) -> np.ndarray:
    """Normalised log-probabilities ε·u/(2Δ_u) − logsumexp (ε·u/Δ_u when ``monotone``)."""
    cal = ExponentialConfig(epsilon, sensitivity, monotone).calibration()
    return _logits(_utilities(utilities), cal.constant)


def exponential_release(data: Any, config: ExponentialConfig, *, rng: RNGLike = None,
                        override: Override = None) -> Release:
    """``size`` indices drawn with P(i) ∝ exp(c·u_i), ``data`` the utilities; each draw ε-DP.

    Sampling is Gumbel-max in log space: argmax_i(c·u_i + G_i), exact and free of overflow even for
    utilities ~ 1e6.
    """
    cal = config.calibration() if override is None else override(config.calibration())
    logits = _logits(_utilities(data), cal.constant)
    gumbel = as_generator(rng).gumbel(size=(config.size, logits.size))
    return _release(cal, np.argmax(logits[None, :] + gumbel, axis=1), config, config.size)


def exponential_mechanism(utilities: ArrayLike, epsilon: float, sensitivity: float, size: int = 1, rng: RNGLike = None,
                          monotone: bool = False) -> Release:
    """Indices drawn with P(i) ∝ exp(ε u_i / (2Δ_u)) over finite candidates (McSherry & Talwar 2007).

    ε-DP (each draw) when Δ_u ≥ sup_i sup_{D~D'} |u_i(D) − u_i(D')|; with ``monotone`` utilities
    (all move in the same direction between neighbours) the factor 2 may be dropped. Returns a
    :class:`~dpcore.mechanism.Release` whose ``value`` holds the ``size`` indices and whose cost
    counts ``size`` draws.
    """
    return exponential_release(utilities, ExponentialConfig(epsilon, sensitivity, monotone, size), rng=rng)

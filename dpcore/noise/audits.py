"""The numerics of the noise audits: worst-case neighbouring answers, vectorised samplers, events, mutants.

Each audit's datasets are the query answers f(D), f(D′) of a worst-case neighbouring pair (a record
moved to the boundary, so the answers differ by exactly the sensitivity); each mutant is a
calibration override (half the noise scale, the missing factor 2 of the exponential mechanism).
The samplers call the releases themselves (with ``override``), never a parallel copy.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..audit import llr_events
from ..norms import norm
from ..privacy import zcdp_to_approx
from .calibration import calibrate_gaussian, calibrate_gaussian_zcdp
from .configs import ExponentialConfig, GaussianConfig, GaussianZCDPConfig, KNormConfig, LaplaceConfig
from .release import exponential, gaussian, gaussian_zcdp, knorm, laplace

RHO = 0.5
ZCDP_DELTA = 0.05
ZCDP_EPSILON = zcdp_to_approx(RHO, ZCDP_DELTA)  # the (ε, δ) that ρ-zCDP implies: the claim audited
KNORM_SHIFT = np.array([1.0, 0.0])  # ‖shift‖_K = 1 = the sensitivity in all three norms


def _broadcast_sampler(release: Callable, make: Callable) -> Callable:
    """n independent draws of a coordinate-wise mechanism on the 1-D answer f(D) (vectorised)."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        return release(np.full(n, float(np.asarray(data).reshape(-1)[0])), make(epsilon, delta), rng=rng,
                       override=override).value
    return sampler


def scale(factor: float) -> Callable:
    """A mutant's override: the calibration's constant (noise scale or rate) times ``factor``."""
    return lambda c: c.replace(constant=c.constant * factor)


def _gaussian_llr(sigma_of: Callable) -> Callable:
    def events(a, b, eps, dlt):
        s0 = sigma_of(eps, dlt)  # the CLAIMED law
        return llr_events(lambda x: -(x ** 2) / (2 * s0 ** 2), lambda x: -((x - 1.0) ** 2) / (2 * s0 ** 2),
                          np.linspace(-2, 2, 9) * eps)
    return events


def gaussian_sigma(epsilon: float, delta: float) -> float:
    """The analytic σ of the audited Gaussian mechanism (Δ₂ = 1)."""
    return calibrate_gaussian(GaussianConfig(epsilon, delta, 1.0), (1,)).constant


def zcdp_sigma(epsilon: float, delta: float) -> float:
    """σ = Δ₂/√(2ρ) of the audited ρ-zCDP Gaussian mechanism (ρ = RHO, Δ₂ = 1; the (ε, δ) it implies unused)."""
    return calibrate_gaussian_zcdp(GaussianZCDPConfig(RHO, 1.0), (1,)).constant


laplace_sampler = _broadcast_sampler(laplace.release, lambda e, d: LaplaceConfig(e, 1.0))
laplace_float_sampler = _broadcast_sampler(laplace.release, lambda e, d: LaplaceConfig(e, 1.0, sampler="float"))
gaussian_sampler = _broadcast_sampler(gaussian.release, lambda e, d: GaussianConfig(e, d, 1.0))
gaussian_events = _gaussian_llr(gaussian_sigma)
zcdp_events = _gaussian_llr(zcdp_sigma)


def zcdp_sampler(data, n, rng, *, epsilon, delta, override, sampler="grid"):
    """n draws of the ρ = RHO Gaussian mechanism on f(D) (audited at the (ε, δ) that ρ implies); the default
    (hardened grid) sampler, or ``sampler="float"``."""
    return gaussian_zcdp.release(np.full(n, float(data[0])), GaussianZCDPConfig(RHO, 1.0, sampler=sampler), rng=rng,
                                 override=override).value


def zcdp_float_sampler(data, n, rng, *, epsilon, delta, override):
    """:func:`zcdp_sampler` with numpy's float normal (the un-hardened option)."""
    return zcdp_sampler(data, n, rng, epsilon=epsilon, delta=delta, override=override, sampler="float")


def knorm_sampler(name: str) -> Callable:
    """n draws of the K-norm mechanism in the ``name`` norm (Δ = 1) on the 2-D answer f(D)."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = KNormConfig(epsilon, 1.0, name, size=n)
        return knorm.release(data, cfg, rng=rng, override=override).value
    return sampler


def knorm_events(name: str) -> Callable:
    """Privacy-loss events of the K-norm mechanism: llr = ε·(‖x − b‖_K − ‖x − a‖_K), in [−ε, ε]."""
    def events(a, b, eps, dlt):
        g = lambda x: norm(x - b, name) - norm(x - a, name)  # noqa: E731  in [−1, 1]; llr = ε·g
        return llr_events(lambda x: eps * g(x), lambda x: np.zeros(len(x)), np.array([0.0, 0.5, 0.8, 0.95]) * eps)
    return events


def exponential_sampler(data, n, rng, *, epsilon, delta, override):
    return exponential.release(data, ExponentialConfig(epsilon, 1.0, size=n), rng=rng, override=override).value


def exponential_pair(k: int = 200) -> tuple[np.ndarray, np.ndarray]:
    # worst case: u(D) = (0, Δ, ..., Δ), u(D′) = (Δ, 0, ..., 0): the privacy loss on candidate 0 tends to ε
    ua = np.ones(k)
    ua[0] = 0.0
    ub = np.zeros(k)
    ub[0] = 1.0
    return ua, ub

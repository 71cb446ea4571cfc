"""Topic "noise": the basic noise mechanisms and their audits (read by :mod:`dpcore.registry`).

Each audit's datasets are the query answers f(D), f(D′) of a worst-case neighbouring pair (a record
moved to the boundary, so the answers differ by exactly the sensitivity); each mutant is a
calibration override (half the noise scale, the missing factor 2 of the exponential mechanism).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from dpcore.audit import Audit, Mutant, halfline_events, llr_events, singleton_events
from dpcore.mechanism import MechanismSpec
from dpcore.norms import NORMS
from dpcore.norms import norm as knorm
from dpcore.privacy import zcdp_to_approx
from dpcore.registry import Topic

from ._mechanisms import (ExponentialConfig, GaussianConfig, GaussianZCDPConfig, KNormConfig, LaplaceConfig,
                          exponential_release, gaussian_release, gaussian_zcdp_release, knorm_release,
                          laplace_release)


def _identity(data: Any, config: Any) -> np.ndarray:
    return np.asarray(data, dtype=float)


def _argmax(data: Any, config: Any) -> np.ndarray:
    return np.array([float(np.argmax(data))])


def _broadcast_sampler(release: Callable, make: Callable) -> Callable:
    """n independent draws of a coordinate-wise mechanism on the 1-D answer f(D) (vectorised)."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        return release(np.full(n, float(np.asarray(data).reshape(-1)[0])), make(epsilon, delta), rng=rng,
                       override=override).value
    return sampler


def _scale(factor: float) -> Callable:
    return lambda c: c.replace(constant=c.constant * factor)


def _gaussian_llr(sigma_of: Callable) -> Callable:
    def events(a, b, eps, dlt):
        s0 = sigma_of(eps, dlt)  # the CLAIMED law
        return llr_events(lambda x: -(x ** 2) / (2 * s0 ** 2), lambda x: -((x - 1.0) ** 2) / (2 * s0 ** 2),
                          np.linspace(-2, 2, 9) * eps)
    return events


RHO = 0.5
ZCDP_DELTA = 0.05
ZCDP_EPSILON = zcdp_to_approx(RHO, ZCDP_DELTA)  # the (ε, δ) that ρ-zCDP implies: the claim audited

MECHANISMS = (
    MechanismSpec("noise/laplace", "Laplace mechanism", LaplaceConfig, laplace_release, _identity,
                  lambda: (np.array([1.5, -2.0]), {"epsilon": 1.0, "sensitivity": 1.0}), atol=1e-6),
    MechanismSpec("noise/gaussian", "Gaussian mechanism (analytic, (ε, δ))", GaussianConfig, gaussian_release,
                  _identity, lambda: (np.array([1.5, -2.0]), {"epsilon": 1.0, "delta": 1e-5}),
                  budget=("epsilon", "delta"), huge={"epsilon": 1e6}, atol=1e-2),
    MechanismSpec("noise/gaussian-zcdp", "Gaussian mechanism (ρ-zCDP)", GaussianZCDPConfig, gaussian_zcdp_release,
                  _identity, lambda: (np.array([1.5, -2.0]), {"rho": 0.5}), budget=("rho",), huge={"rho": 1e12},
                  atol=1e-3),
    MechanismSpec("noise/knorm", "K-norm mechanism", KNormConfig, knorm_release, _identity,
                  lambda: (np.array([1.5, -2.0]), {"epsilon": 1.0, "norm": "l1", "size": 3}), atol=1e-6),
    MechanismSpec("noise/exponential", "Exponential mechanism (finite candidates)", ExponentialConfig,
                  exponential_release, _argmax, lambda: (np.array([0.0, 3.0, 1.0]), {"epsilon": 1.0, "size": 5}),
                  atol=0.0),
)


def _knorm_audit(name: str) -> Audit:
    shift = np.array([1.0, 0.0])  # ‖shift‖_K = 1 = the sensitivity in all three norms

    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = KNormConfig(epsilon, 1.0, name, size=n)
        return knorm_release(data, cfg, rng=rng, override=override).value

    def events(a, b, eps, dlt):
        g = lambda x: knorm(x - b, name) - knorm(x - a, name)  # noqa: E731  in [−1, 1]; llr = ε·g
        return llr_events(lambda x: eps * g(x), lambda x: np.zeros(len(x)), np.array([0.0, 0.5, 0.8, 0.95]) * eps)

    return Audit(id=f"noise/knorm-{name}", mechanism="noise/knorm", title=f"K-norm mechanism ({name}), d = 2",
                 datasets=(np.zeros(2), shift), neighbours="f(D′) = f(D) + (1, 0): ‖·‖_K = Δ = 1",
                 sampler=sampler, events=events, epsilon=1.0,
                 mutant=Mutant("half scale", "noise at half the calibrated scale (rate × 2)", _scale(2.0)),
                 n_samples=200_000, seed=4, output_label="f(D) + Z (2-D)")


def _exponential_sampler(data, n, rng, *, epsilon, delta, override):
    return exponential_release(data, ExponentialConfig(epsilon, 1.0, size=n), rng=rng, override=override).value


def _exponential_pair(k: int = 200) -> tuple[np.ndarray, np.ndarray]:
    # worst case: u(D) = (0, Δ, ..., Δ), u(D′) = (Δ, 0, ..., 0): the privacy loss on candidate 0 tends to ε
    ua = np.ones(k)
    ua[0] = 0.0
    ub = np.zeros(k)
    ub[0] = 1.0
    return ua, ub


AUDITS = (
    Audit(id="noise/laplace", mechanism="noise/laplace", title="Laplace mechanism, counting query (Δ = 1)",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1 (one record added to the count)",
          sampler=_broadcast_sampler(laplace_release, lambda e, d: LaplaceConfig(e, 1.0)),
          events=lambda a, b, e, d: halfline_events(np.linspace(-2, 3, 11)), epsilon=1.0,
          mutant=Mutant("half scale", "Laplace scale Δ/(2ε)", _scale(0.5)), n_samples=200_000, seed=1,
          output_label="f(D) + noise"),
    Audit(id="noise/gaussian", mechanism="noise/gaussian", title="Analytic Gaussian mechanism at δ = 0.05 (Δ₂ = 1)",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1",
          sampler=_broadcast_sampler(gaussian_release, lambda e, d: GaussianConfig(e, d, 1.0)),
          events=_gaussian_llr(lambda e, d: GaussianConfig(e, d, 1.0).calibration().constant), epsilon=1.0,
          delta=0.05, mutant=Mutant("half σ", "σ half the analytic calibration", _scale(0.5)), n_samples=200_000,
          seed=3, output_label="f(D) + noise",
          gdp_mu=lambda e, d: 1.0 / GaussianConfig(e, d, 1.0).calibration().constant),
    Audit(id="noise/gaussian-zcdp", mechanism="noise/gaussian-zcdp",
          title=f"Gaussian mechanism, ρ = {RHO}-zCDP, audited at the implied (ε, δ = {ZCDP_DELTA})",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1",
          sampler=lambda data, n, rng, *, epsilon, delta, override: gaussian_zcdp_release(
              np.full(n, float(data[0])), GaussianZCDPConfig(RHO, 1.0), rng=rng, override=override).value,
          events=_gaussian_llr(lambda e, d: GaussianZCDPConfig(RHO, 1.0).calibration().constant),
          epsilon=ZCDP_EPSILON, delta=ZCDP_DELTA,
          mutant=Mutant("half σ", "σ = Δ₂/(2√(2ρ))", _scale(0.5)), n_samples=200_000, seed=7,
          output_label="f(D) + noise", gdp_mu=lambda e, d: 1.0 / GaussianZCDPConfig(RHO, 1.0).calibration().constant),
    *(_knorm_audit(name) for name in NORMS),
    Audit(id="noise/exponential", mechanism="noise/exponential",
          title="Exponential mechanism over 200 candidates (Δ_u = 1)", datasets=_exponential_pair(),
          neighbours="u(D) = (0, 1, …, 1), u(D′) = (1, 0, …, 0)", sampler=_exponential_sampler,
          events=lambda a, b, e, d: singleton_events([0, 1]), epsilon=1.0,
          mutant=Mutant("missing factor 2", "non-monotone utilities treated as monotone: ε/Δ_u instead of "
                        "ε/(2Δ_u)", _scale(2.0)),
          n_samples=200_000, seed=5, output_label="index"),
)

TOPIC = Topic(name="noise", title="Basic noise mechanisms",
              reference="Dwork et al. (2006); Balle & Wang (2018); Bun & Steinke (2016); Hardt & Talwar (2010); "
                        "McSherry & Talwar (2007)",
              mechanisms=MECHANISMS, audits=AUDITS)

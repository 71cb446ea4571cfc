"""Topic "noise": the basic noise mechanisms and their audits (read by :mod:`dpcore.registry`).

The numerics of the audits (worst-case pairs, samplers, events, mutant overrides) are in
:mod:`dpcore.noise.audits`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpcore.audit import Audit, Mutant, halfline_events, singleton_events
from dpcore.mechanism import MechanismSpec, NoiseStep
from dpcore.norms import NORMS
from dpcore.registry import Topic

from . import audits
from .calibration import (calibrate_exponential, calibrate_gaussian, calibrate_gaussian_zcdp, calibrate_knorm,
                          calibrate_laplace)
from .configs import ExponentialConfig, GaussianConfig, GaussianZCDPConfig, KNormConfig, LaplaceConfig
from .release import exponential, gaussian, gaussian_zcdp, knorm, laplace


def _identity(data: Any, config: Any) -> np.ndarray:
    return np.asarray(data, dtype=float)


def _argmax(data: Any, config: Any) -> np.ndarray:
    return np.array([float(np.argmax(data))])


MECHANISMS = (
    MechanismSpec("noise/laplace", "Laplace mechanism", LaplaceConfig, laplace.release, _identity,
                  lambda: (np.array([1.5, -2.0]), {"epsilon": 1.0, "sensitivity": 1.0}), atol=1e-6,
                  calibrate=calibrate_laplace,
                  noise=(NoiseStep("f(D) on a public grid: exact discrete Laplace (sampler='grid', default; 'float': numpy's "
                                   "Laplace)", "grid-discrete"),)),
    MechanismSpec("noise/gaussian", "Gaussian mechanism (analytic, (ε, δ))", GaussianConfig, gaussian.release,
                  _identity, lambda: (np.array([1.5, -2.0]), {"epsilon": 1.0, "delta": 1e-5}),
                  budget=("epsilon", "delta"), huge={"epsilon": 1e6}, atol=1e-2, calibrate=calibrate_gaussian,
                  noise=(NoiseStep("f(D): Gaussian noise (numpy)", "float"),)),
    MechanismSpec("noise/gaussian-zcdp", "Gaussian mechanism (ρ-zCDP)", GaussianZCDPConfig, gaussian_zcdp.release,
                  _identity, lambda: (np.array([1.5, -2.0]), {"rho": 0.5}), budget=("rho",), huge={"rho": 1e12},
                  atol=1e-3, calibrate=calibrate_gaussian_zcdp,
                  noise=(NoiseStep("f(D) on a public grid: exact discrete Gaussian (sampler='grid', default; 'float': "
                                   "numpy's normal)", "grid-discrete"),)),
    MechanismSpec("noise/knorm", "K-norm mechanism", KNormConfig, knorm.release, _identity,
                  lambda: (np.array([1.5, -2.0]), {"epsilon": 1.0, "norm": "l1", "size": 3}), atol=1e-6,
                  calibrate=calibrate_knorm,
                  noise=(NoiseStep("f(D): K-norm noise (float Gamma and uniform-ball draws)", "float"),)),
    MechanismSpec("noise/exponential", "Exponential mechanism (finite candidates)", ExponentialConfig,
                  exponential.release, _argmax, lambda: (np.array([0.0, 3.0, 1.0]), {"epsilon": 1.0, "size": 5}),
                  atol=0.0, calibrate=calibrate_exponential,
                  noise=(NoiseStep("candidate index: exponential mechanism (float probabilities)", "float"),)),
)

AUDITS = (
    Audit(id="noise/laplace", mechanism="noise/laplace", title="Laplace mechanism, counting query (Δ = 1)",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1 (one record added to the count)",
          sampler=audits.laplace_sampler,
          events=lambda a, b, e, d: halfline_events(np.linspace(-2, 3, 11)), epsilon=1.0,
          mutant=Mutant("half scale", "Laplace scale Δ/(2ε)", audits.scale(0.5)), n_samples=200_000, seed=1,
          output_label="f(D) + noise"),
    Audit(id="noise/laplace-float", mechanism="noise/laplace",
          title="Laplace mechanism with numpy's float sampler (sampler='float'), counting query (Δ = 1)",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1 (one record added to the count)",
          sampler=audits.laplace_float_sampler,
          events=lambda a, b, e, d: halfline_events(np.linspace(-2, 3, 11)), epsilon=1.0,
          mutant=Mutant("half scale", "Laplace scale Δ/(2ε)", audits.scale(0.5)), n_samples=200_000, seed=1,
          output_label="f(D) + noise"),
    Audit(id="noise/gaussian", mechanism="noise/gaussian", title="Analytic Gaussian mechanism at δ = 0.05 (Δ₂ = 1)",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1",
          sampler=audits.gaussian_sampler, events=audits.gaussian_events, epsilon=1.0,
          delta=0.05, mutant=Mutant("half σ", "σ half the analytic calibration", audits.scale(0.5)), n_samples=200_000,
          seed=3, output_label="f(D) + noise", gdp_mu=lambda e, d: 1.0 / audits.gaussian_sigma(e, d)),
    Audit(id="noise/gaussian-zcdp", mechanism="noise/gaussian-zcdp",
          title=f"Gaussian mechanism, ρ = {audits.RHO}-zCDP, audited at the implied (ε, δ = {audits.ZCDP_DELTA})",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1",
          sampler=audits.zcdp_sampler, events=audits.zcdp_events,
          epsilon=audits.ZCDP_EPSILON, delta=audits.ZCDP_DELTA,
          mutant=Mutant("half σ", "σ = Δ₂/(2√(2ρ))", audits.scale(0.5)), n_samples=200_000, seed=7,
          output_label="f(D) + noise", gdp_mu=lambda e, d: 1.0 / audits.zcdp_sigma(e, d)),
    Audit(id="noise/gaussian-zcdp-float", mechanism="noise/gaussian-zcdp",
          title=f"Gaussian mechanism with numpy's float sampler, ρ = {audits.RHO}-zCDP, at (ε, δ = {audits.ZCDP_DELTA})",
          datasets=(np.array([0.0]), np.array([1.0])), neighbours="f(D) = 0, f(D′) = 1",
          sampler=audits.zcdp_float_sampler, events=audits.zcdp_events,
          epsilon=audits.ZCDP_EPSILON, delta=audits.ZCDP_DELTA,
          mutant=Mutant("half σ", "σ = Δ₂/(2√(2ρ))", audits.scale(0.5)), n_samples=200_000, seed=7,
          output_label="f(D) + noise", gdp_mu=lambda e, d: 1.0 / audits.zcdp_sigma(e, d)),
    *(Audit(id=f"noise/knorm-{name}", mechanism="noise/knorm", title=f"K-norm mechanism ({name}), d = 2",
            datasets=(np.zeros(2), audits.KNORM_SHIFT), neighbours="f(D′) = f(D) + (1, 0): ‖·‖_K = Δ = 1",
            sampler=audits.knorm_sampler(name), events=audits.knorm_events(name), epsilon=1.0,
            mutant=Mutant("half scale", "noise at half the calibrated scale (rate × 2)", audits.scale(2.0)),
            n_samples=200_000, seed=4, output_label="f(D) + Z (2-D)") for name in NORMS),
    Audit(id="noise/exponential", mechanism="noise/exponential",
          title="Exponential mechanism over 200 candidates (Δ_u = 1)", datasets=audits.exponential_pair(),
          neighbours="u(D) = (0, 1, …, 1), u(D′) = (1, 0, …, 0)", sampler=audits.exponential_sampler,
          events=lambda a, b, e, d: singleton_events([0, 1]), epsilon=1.0,
          mutant=Mutant("missing factor 2", "non-monotone utilities treated as monotone: ε/Δ_u instead of "
                        "ε/(2Δ_u)", audits.scale(2.0)),
          n_samples=200_000, seed=5, output_label="index"),
)

TOPIC = Topic(name="noise", title="Basic noise mechanisms",
              reference="Dwork et al. (2006); Balle & Wang (2018); Bun & Steinke (2016); Hardt & Talwar (2010); "
                        "McSherry & Talwar (2007)",
              mechanisms=MECHANISMS, audits=AUDITS,
    audit_seconds={
        "noise/laplace": 3.9e-05,
        "noise/laplace-float": 8.32e-06,
        "noise/gaussian-zcdp-float": 6.41e-06,
        "noise/gaussian": 6.79e-06,
        "noise/gaussian-zcdp": 1.8e-04,
        "noise/knorm-l1": 9.92e-06,
        "noise/knorm-l2": 1.14e-05,
        "noise/knorm-linf": 1.13e-05,
        "noise/exponential": 1.72e-04,
    },
)

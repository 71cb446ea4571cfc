"""Single-parameter topic declaration: mechanisms and audits (read by :mod:`dpcore.registry`)."""
from __future__ import annotations

import dataclasses
import functools

from dpcore.audit import Audit, Mutant
from dpcore.mechanism import MechanismSpec, NoiseStep
from dpcore.registry import Style, Topic

from . import audits
from . import calibration
from . import figures
from .configs import (EigenBoundsConfig, FunctionalConfig, GenericConfig, LambdaMinConfig, NoisyGDConfig,
                      ObjectivePerturbationConfig, OutputPerturbationConfig, ThetaConfig)
from .designs import example_data
from .release import (eigen_bounds, functional, lambda_min, noisy_gd, objective_perturbation, output_perturbation,
                      theta, theta_generic)
from ._preview import error_law

REFERENCE = ("Asi, Duchi & Talwar (2025), On Privately Estimating a Single Parameter, arXiv:2503.17252; "
             "Asi & Duchi (2020), Instance-optimality in differential privacy via approximate inverse "
             "sensitivity mechanisms, NeurIPS")


def _example(**kw):
    def ex():
        return example_data(), dict(kw)
    return ex


#: Algorithms 3, 5 and 7 restate the noised λ̂ (and Λ̂, τ) in notes of kind "output", and their ⊥ (kind
#: "withheld") is decided on those noised statistics: both are part of the private output.
_PRIVATE = ("notes:output", "notes:withheld")

# rung spacing at the example's n bounds |λ̂ − λ_min| at a huge ε: (c r₂ D + M1)/n ≈ 4.5/20 000
_RUNG = 2 * 4.5 / 20_000

MECHANISMS: tuple[MechanismSpec, ...] = (
    MechanismSpec("single_parameter/lambda-min", "Certified lower bound on λ_min (Algorithm 2)", LambdaMinConfig,
                  lambda_min.release, lambda_min.nonprivate, _example(epsilon=1.0, delta=1e-5),
                  budget=("epsilon", "delta"), atol=_RUNG, calibrate=calibration.calibrate_lambda_min,
                  noise=(NoiseStep("rung counts of the certified-bounds recursion: discrete Laplace", "exact-discrete", integer=True),)),
    MechanismSpec("single_parameter/eigen-bounds", "Certified bounds on λ_min and λ_max (Algorithms 2 and 4)",
                  EigenBoundsConfig, eigen_bounds.release, eigen_bounds.nonprivate,
                  _example(epsilon=1.0, delta=1e-5), budget=("epsilon", "delta"), atol=_RUNG,
                  calibrate=calibration.calibrate_eigen_bounds,
                  noise=(NoiseStep("rung counts of the certified-bounds recursion: discrete Laplace", "exact-discrete", integer=True),)),
    MechanismSpec("single_parameter/theta", "Local output perturbation of θ (Algorithm 3)", ThetaConfig,
                  theta.release, theta.nonprivate, _example(epsilon=1.0, delta=1e-5),
                  budget=("epsilon", "delta"), private_fields=_PRIVATE, neighbours=audits.surface_pairs,
                  calibrate=calibration.calibrate_theta,
                  noise=(NoiseStep("rung counts of the certified-bounds recursion: discrete Laplace", "exact-discrete", integer=True), NoiseStep("θ: Gaussian noise (numpy)", "float"),)),
    MechanismSpec("single_parameter/theta-generic", "Output perturbation for generic smooth losses (Algorithm 7)",
                  GenericConfig, theta_generic.release, theta_generic.nonprivate, _example(epsilon=1.0, delta=1e-5),
                  budget=("epsilon", "delta"), private_fields=_PRIVATE, neighbours=audits.surface_pairs,
                  calibrate=calibration.calibrate_theta_generic,
                  noise=(NoiseStep("rung counts of the certified-bounds recursion: discrete Laplace", "exact-discrete", integer=True), NoiseStep("θ: Gaussian noise (numpy)", "float"),)),
    MechanismSpec("single_parameter/output-perturbation", "Naive output perturbation of the ridge estimator",
                  OutputPerturbationConfig, output_perturbation.release, output_perturbation.nonprivate,
                  _example(epsilon=1.0, delta=1e-5, rho=0.05), budget=("epsilon", "delta"),
                  calibrate=calibration.calibrate_output_perturbation,
                  noise=(NoiseStep("θ: Gaussian noise (numpy)", "float"),)),
    MechanismSpec("single_parameter/objective-perturbation", "Objective perturbation (Chaudhuri et al. 2011)",
                  ObjectivePerturbationConfig, objective_perturbation.release, objective_perturbation.nonprivate,
                  _example(epsilon=1.0, rho=0.05), budget=("epsilon",),
                  calibrate=calibration.calibrate_objective_perturbation,
                  noise=(NoiseStep("objective's linear term: float noise (numpy)", "float"),)),
    MechanismSpec("single_parameter/noisy-gd", "Full-batch noisy gradient descent (zCDP)", NoisyGDConfig,
                  noisy_gd.release, noisy_gd.nonprivate, _example(epsilon=1.0, delta=1e-5, steps=50),
                  budget=("epsilon", "delta"), calibrate=calibration.calibrate_noisy_gd,
                  noise=(NoiseStep("gradients: Gaussian noise (numpy)", "float"),)),
    MechanismSpec("single_parameter/functional", "Propose-test-release of ⟨v, θ⟩ (Algorithm 5)",
                  FunctionalConfig, functional.release, functional.nonprivate,
                  _example(epsilon=1.0, delta=1e-5, coordinate=0), budget=("epsilon", "delta"),
                  private_fields=_PRIVATE, neighbours=audits.surface_pairs, calibrate=calibration.calibrate_functional,
                  noise=(NoiseStep("rung counts of the certified-bounds recursion: discrete Laplace", "exact-discrete", integer=True), NoiseStep("⟨v, θ⟩: Gaussian noise (numpy)", "float"),)),
)

# every mechanism of the topic is compared on the same public-surface pairs
MECHANISMS = tuple(m if m.neighbours is not None else dataclasses.replace(m, neighbours=audits.surface_pairs)
                   for m in MECHANISMS)

# ------------------------------------------------------------------------------------------------
# audits (datasets built once, deterministically)
# ------------------------------------------------------------------------------------------------
_CURV = audits.pair(200, 2, 3, "curvature")          # K(D) = 8, K(D′) = 7: the count's sensitivity attained
_FLIP = audits.pair(2000, 2, 0, "flip")              # ‖θ̂ − θ̂′‖ = 0.995·Δ_n(λ_min)
_DIR = audits.moving_direction(_FLIP)
_PTR_EPS, _PTR_DELTA = 4.0, 0.02
_PTR_SPLIT, _ = audits.tune_ptr_split(*_CURV, _PTR_EPS, _PTR_DELTA)


_HALF_COUNT = Mutant("half Laplace scale", "the count gets Laplace noise of scale 1/(2ε) instead of 1/ε",
                     lambda cal: cal.replace(params={"count_noise": 0.5}))
_QUARTER_COUNT = Mutant("quarter Laplace scale", "both counts get Laplace noise of scale 1/(4ε_i) instead of 1/ε_i",
                        lambda cal: cal.replace(params={"count_noise": 0.25}))
_HALF_SIGMA = Mutant("half σ", "the Gaussian step uses σ(ε₂, δ₂)/2",
                     lambda cal: cal.replace(params={"gauss_scale": 0.5}))
_UNNOISED = Mutant("test on the un-noised statistic",
                   "propose-test-release decides on the exact counts (no Laplace noise, no shift): the test's "
                   "outcome then reveals which side of the threshold λ_min lies",
                   lambda cal: cal.replace(params={"count_noise": 0.0, "count_shift": False}))

AUDITS: tuple[Audit, ...] = (
    Audit("single_parameter/lambda-min", "single_parameter/lambda-min",
          "Algorithm 2: λ̂ on neighbours whose counts differ by one", _CURV,
          "one observation replaced: the point with most curvature along u_min becomes r·u_min with residual 50 "
          "(K drops from 8 to 7)", audits.lambda_min_sampler, audits.ladder_events, epsilon=1.0, mutant=_HALF_COUNT,
          output_label="λ̂"),
    Audit("single_parameter/eigen-bounds", "single_parameter/eigen-bounds",
          "Algorithms 2 + 4: (λ̂, Λ̂) on neighbours whose counts differ by one", _CURV,
          "as for Algorithm 2", audits.eigen_bounds_sampler, audits.eigen_events, epsilon=4.0, delta=0.01,
          mutant=_QUARTER_COUNT, output_label="λ̂"),
    Audit("single_parameter/theta", "single_parameter/theta",
          "Algorithm 3: θ̃ on neighbours whose θ̂ differ by 0.995·Δ_n(λ_min)", _FLIP,
          "observation 0 at x = u_min has residual +50 in D and −50 in D′",
          functools.partial(audits.theta_sampler, share=0.25), audits.theta_events, epsilon=4.0, delta=0.02,
          mutant=_HALF_SIGMA, output_label="θ̃₁"),
    Audit("single_parameter/theta-generic", "single_parameter/theta-generic",
          "Algorithm 7: θ̃ on neighbours whose θ̂ differ the most", _FLIP,
          "observation 0 at x = u_min has residual +50 in D and −50 in D′",
          functools.partial(audits.theta_sampler, share=0.25, generic=True), audits.theta_events, epsilon=4.0,
          delta=0.02, mutant=_HALF_SIGMA, output_label="θ̃₁"),
    Audit("single_parameter/functional-gaussian", "single_parameter/functional",
          "Algorithm 5: the Gaussian release of ⟨v, θ⟩ (v along θ̂ − θ̂′) on neighbours whose θ̂ differ the most", _FLIP,
          "observation 0 at x = u_min has residual +50 in D and −50 in D′",
          audits.functional_sampler_factory((0.08, 0.08, 0.7, 0.14), direction=_DIR),
          functools.partial(audits.functional_events, direction=_DIR), epsilon=4.0, delta=0.02,
          mutant=_HALF_SIGMA, output_label="⟨e₁, θ⟩ (NaN = ⊥)"),
    Audit("single_parameter/functional-ptr", "single_parameter/functional",
          "Algorithm 5: P(release) on neighbours straddling the test's threshold", _CURV,
          "as for Algorithm 2; the ε split puts ε₄ between the two datasets' un-noised test statistics",
          audits.functional_sampler_factory(_PTR_SPLIT), audits.functional_events, epsilon=_PTR_EPS, delta=_PTR_DELTA,
          mutant=_UNNOISED, output_label="⟨e₁, θ⟩ (NaN = ⊥)"),
)

_TINY = audits.tiny_pair()
_TINY_NB = "observation 0 (x = 1, on the ball's boundary) has y = +30 in D and −30 in D′ (|h′| ≈ 1: gradient flipped)"
AUDITS = AUDITS + (
    Audit("single_parameter/output-perturbation", "single_parameter/output-perturbation",
          "Naive output perturbation on neighbours whose ridge estimates differ the most", _TINY, _TINY_NB,
          audits.baseline_sampler("output", rho=1.0), audits.shift_events("output", rho=1.0), epsilon=1.0, delta=0.01,
          mutant=_HALF_SIGMA, output_label="θ̃"),
    Audit("single_parameter/objective-perturbation", "single_parameter/objective-perturbation",
          "Objective perturbation on neighbours with a flipped gradient", _TINY, _TINY_NB,
          audits.baseline_sampler("objective", rho=0.5), audits.shift_events("objective", rho=0.5), epsilon=1.0,
          mutant=Mutant("quarter noise", "‖b‖ drawn at a quarter of its Gamma scale",
                        lambda cal: cal.replace(params={"noise_scale": 0.25})),
          n_samples=30_000, output_label="θ̃"),
    Audit("single_parameter/noisy-gd", "single_parameter/noisy-gd",
          "Noisy gradient descent on neighbours with a flipped gradient", _TINY, _TINY_NB,
          audits.baseline_sampler("gd", steps=1), audits.shift_events("gd", steps=1), epsilon=1.0, delta=0.01,
          mutant=_HALF_SIGMA, output_label="θ̃"),
)

TOPIC = Topic(
    name="single_parameter",
    title="Certified eigenvalue bounds and single-parameter release",
    reference=REFERENCE,
    mechanisms=MECHANISMS,
    audits=AUDITS,
    experiments=figures.EXPERIMENTS,
    paper="Asi, Duchi & Talwar, “On Privately Estimating a Single Parameter”, 2025",
    url="https://arxiv.org/abs/2503.17252",
    preview=error_law,
    styles={
        "alg5": Style("Algorithm 5 (propose-test-release)", "blue"),
        "oracle": Style("Local-sensitivity oracle (NOT private)", "black"),
        "output_perturbation": Style("Output perturbation (ridge)", "reddish_purple"),
        "noisy_gd": Style("Noisy gradient descent", "orange"),
        "lambda_min": Style("true λ_min (non-private)", "black"),
        "lambda_max": Style("true λ_max (non-private)", "dark_grey"),
        "lam_hat": Style("certified λ̂ ≤ λ_min", "blue"),
        "Lam_hat": Style("certified Λ̂ ≥ λ_max", "vermillion"),
    },
    audit_seconds={
        "single_parameter/lambda-min": 1.31e-05,
        "single_parameter/eigen-bounds": 2.04e-05,
        "single_parameter/theta": 5.55e-05,
        "single_parameter/theta-generic": 4.38e-05,
        "single_parameter/functional-gaussian": 7.39e-05,
        "single_parameter/functional-ptr": 2.92e-05,
        "single_parameter/output-perturbation": 3.82e-05,
        "single_parameter/objective-perturbation": 2.75e-04,
        "single_parameter/noisy-gd": 2.64e-05,
    },
)

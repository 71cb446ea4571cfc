"""Certified eigenvalue bounds and single-parameter release (Asi, Duchi & Talwar 2025, §3, §6–8), with the §4
baselines. Every mechanism takes ``data = (X, y)``; its config lives in :mod:`~dpcore.single_parameter.configs`,
its calibration ``calibrate_<family>(config, data_shape)`` in :mod:`~dpcore.single_parameter.calibration` and its
``release(data, config, *, rng)`` (with ``nonprivate`` and the vectorised sampler the audits and figures share) in
the family's module of :mod:`dpcore.single_parameter.release`:

* ``lambda_min`` — **Algorithm 2** (= Algorithm 6-L on the count of recursion (10)): a private lower bound
  λ̂ ≤ λ_min(H) with probability ≥ 1 − δ; ε-DP.
* ``eigen_bounds`` — Algorithms 2 + **4**: (λ̂, Λ̂) with λ̂ ≤ λ_min w.p. ≥ 1 − δ₁ and Λ̂ ≥ λ_max w.p. ≥ 1 − δ₂;
  (ε₁ + ε₂, δ₁)-DP (Lemma 2.2 with the good set {λ̂ ≤ λ_min}).
* ``theta`` — **Algorithm 3**, local output perturbation θ̃ = θ̂ + σ(ε₂, δ₂)·Δ_n(λ̂)·Z, or ⊥ when (C1) fails at λ̂;
  (ε₁ + ε₂, δ₁ + δ₂)-DP (Observation 2.4).
* ``functional`` — **Algorithm 5**, propose-test-release of ⟨v, θ̂⟩ (ε₁ + ε₂ + ε₃ + ε₄, δ₁ + δ₂ + δ₃ + e^{ε₃}δ₄)-DP
  (Corollary 3.6); with ``oracle_functional``, the local-sensitivity benchmark (NOT private).
* ``theta_generic`` — **Algorithm 7**, generic smooth losses (recursion R₁, (C2)); (ε₁ + ε₂, δ₁ + δ₂)-DP
  (Proposition 7.1).
* ``output_perturbation``, ``objective_perturbation``, ``noisy_gd`` — the baselines of §4.

Also public: the "what would certify" closed forms (``predict``, ``n_to_certify``, ``min_lambda_to_certify``,
``certified_floor``, ``public_cap``; private module ``_certify``), the page's datasets and the public preparation
of a user's columns (``prepare_xy``, ``coefficient_units``, ...; ``_explore``), the coverage study
``eigen_bounds_vs_n``, the simulators (:mod:`~dpcore.single_parameter.designs`), the declared figures
(:mod:`~dpcore.single_parameter.figures`) and their plotly drawings (:mod:`~dpcore.single_parameter.plots`).
Private: the non-private analysis (``_analysis``), the fit (``_fit``), the losses (``_losses``), the stability
bounds (``_stability``) and the ladders and private counts (``_recursion``).
"""
from ._analysis import BOTTOM, check_functional_data
from ._certify import (BUDGET_SPLITS, Prediction, abstention_floor, budget_split, certification_outlook, certified_floor,
                       domain_radius, floor_sentence,
                       min_lambda_to_certify, n_to_certify, predict, public_cap)
from ._explore import (breast_cancer_dataset, coefficient_units, diabetes_dataset, eigen_bounds_vs_n,
                       preparation_note, prepare_xy, simulated_dataset)
from .calibration import (calibrate_eigen_bounds, calibrate_functional, calibrate_lambda_min, calibrate_noisy_gd,
                          calibrate_objective_perturbation, calibrate_output_perturbation, calibrate_theta,
                          calibrate_theta_generic)
from ._texts import (COVERAGE_CAPTION, PAGE_INTRO, SHARE_HELP, SPLIT_HELP, SPLIT_LABELS, abstention_caption,
                     simulated_domain_caption)
from .configs import (GEOMETRIES, EigenBoundsConfig, FunctionalConfig, GenericConfig, LambdaMinConfig, NoisyGDConfig,
                      ObjectivePerturbationConfig, OutputPerturbationConfig, ThetaConfig)
from .designs import breast_cancer, census_like, robust_regression
from .release import (eigen_bounds, functional, lambda_min, noisy_gd, objective_perturbation, output_perturbation,
                      theta, theta_generic)
from .release.functional import oracle_functional

__all__ = ["LambdaMinConfig", "EigenBoundsConfig", "ThetaConfig", "GenericConfig", "FunctionalConfig",
           "OutputPerturbationConfig", "ObjectivePerturbationConfig", "NoisyGDConfig", "GEOMETRIES",
           "calibrate_lambda_min", "calibrate_eigen_bounds", "calibrate_theta", "calibrate_theta_generic",
           "calibrate_functional", "calibrate_output_perturbation", "calibrate_objective_perturbation",
           "calibrate_noisy_gd", "lambda_min", "eigen_bounds", "theta", "theta_generic", "functional",
           "output_perturbation", "objective_perturbation", "noisy_gd", "oracle_functional", "check_functional_data",
           "BOTTOM", "BUDGET_SPLITS", "Prediction", "predict", "n_to_certify", "min_lambda_to_certify",
           "certified_floor", "abstention_floor", "floor_sentence", "public_cap", "domain_radius", "certification_outlook", "budget_split",
           "simulated_dataset", "breast_cancer_dataset",
           "diabetes_dataset", "prepare_xy", "preparation_note", "coefficient_units", "eigen_bounds_vs_n", "robust_regression",
           "census_like", "breast_cancer", "COVERAGE_CAPTION", "PAGE_INTRO", "SHARE_HELP", "SPLIT_HELP",
           "SPLIT_LABELS", "abstention_caption", "simulated_domain_caption"]

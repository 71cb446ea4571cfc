"""Private LASSO topic declaration: mechanisms, audits and figures (read by :mod:`dpcore.registry`)."""
from __future__ import annotations

from typing import cast

from dpcore.audit import Audit, Mutant
from dpcore.mechanism import MechanismSpec, NoiseStep
from dpcore.registry import Style, Topic

from . import audits
from . import figures
from .calibration import REFERENCE, calibrate, calibrate_noisy_gradient
from .configs import LassoConfig, NoisyGradientConfig
from .designs import sparse_regression
from .release import noisy_gradient, private_fw
from ._preview import error_law


def _example():
    X, y, _ = sparse_regression(400, 20, 3, rng=20151207)
    return (X, y), {"epsilon": 1.0, "delta": 1e-6, "steps": 40}


def _example_intercept():
    X, y, _ = sparse_regression(400, 20, 3, rng=20151209)
    return (X, 0.5 + 0.5 * y), {"epsilon": 1.0, "delta": 1e-6, "steps": 40, "intercept": True}


def _example_general():
    X, y, _ = sparse_regression(400, 20, 3, rng=20151208)
    return (X, y), {"epsilon": 1.0, "delta": 1e-6, "steps": 40, "constraint": "simplex"}


MECHANISMS = (
    MechanismSpec("lasso/private-fw", "Private Frank–Wolfe LASSO (Algorithm 2)", LassoConfig, private_fw.release,
                  private_fw.nonprivate, _example, budget=("epsilon", "delta"), atol=1e-9, calibrate=calibrate,
                  noise=(NoiseStep("vertex choice: report-noisy-max with Laplace noise (numpy)", "float"),)),
    MechanismSpec("lasso/private-fw-intercept", "Private Frank–Wolfe LASSO with an intercept (private centring means)",
                  LassoConfig, private_fw.release, private_fw.nonprivate, _example_intercept,
                  budget=("epsilon", "delta"), atol=1e-6, calibrate=calibrate,
                  noise=(NoiseStep("vertex choice and centring means: Laplace noise (numpy)", "float"),)),
    MechanismSpec("lasso/noisy-gradient-fw", "Noisy-gradient Frank–Wolfe for general C (Theorem 2.6)",
                  NoisyGradientConfig, noisy_gradient.release, noisy_gradient.nonprivate,
                  _example_general, budget=("epsilon", "delta"), atol=1e-9, calibrate=calibrate_noisy_gradient,
                  noise=(NoiseStep("gradients: Gaussian noise (numpy)", "float"),)),
)

_HALF = Mutant("half noise scale", "Gumbel scale Δ_s/ε₀ instead of 2Δ_s/ε₀ (the score sensitivity halved: "
               "O(L1‖C‖₁/n) read as L1‖C‖₁/n) — each step is then about 2ε₀-DP",
               lambda cal: cal.replace(constant=cal.constant / 2))
_NO_COMPOSITION = Mutant("per-step noise without composition",
                         "each of the T steps calibrated to the whole ε (ε₀ = ε): the composition over T is forgotten",
                         lambda cal: cal.replace(constant=2 * cal.sensitivity
                                                 / cast(float, cal.epsilon)))
_LAPLACE_NO_2 = Mutant("Laplace without the factor 2", "Lap(Δ_s/ε₀): the monotone-scores scale, but moving one "
                       "record lowers some scores and raises others", lambda cal: cal.replace(constant=cal.constant / 2))
_WRONG_SIGN = Mutant("argmin of α + Gumbel", "argmin_s (α_s + b·G_s) instead of argmin_s (α_s − b·G_s): not the "
                     "exponential mechanism (its privacy loss grows with the number of vertices)",
                     lambda cal: cal.replace(params={"gumbel_sign": 1.0}))

_NB = ("record 0 has y·x₁ = −1 in D and +1 in D′ (x = ±e₁, |y| = 1): every score ⟨±r e₁, ∇L(θ)⟩ moves by "
       "4r/n at every θ, 91 % of Δ_s = 4r(r + 1)/n at r = 0.1")
_PAIR = audits.pair()
_PAIR6 = audits.pair(p=6)

AUDITS: tuple[Audit, ...] = (
    Audit("lasso/one-step", "lasso/private-fw", "One step (T = 1): the chosen vertex, exponential mechanism", _PAIR,
          _NB, audits.vertex_sampler(1), audits.sequence_events(1), epsilon=1.0, delta=1e-6, mutant=_HALF,
          output_label="chosen vertex (0 = +r e₁, 1 = −r e₁)"),
    Audit("lasso/three-steps", "lasso/private-fw", "T = 3 steps: the sequence of chosen vertices", _PAIR, _NB,
          audits.vertex_sampler(3), audits.sequence_events(3), epsilon=1.0, delta=1e-6, mutant=_NO_COMPOSITION,
          output_label="vertex sequence (base-2 code)"),
    Audit("lasso/eight-steps", "lasso/private-fw", "T = 8 steps: the vertex sequence under the zCDP route "
          "(ρ₀ = ε₀²/8 per step, the default composition)", _PAIR, _NB, audits.vertex_sampler(8),
          audits.sequence_events(8), epsilon=1.0, delta=1e-6, mutant=_NO_COMPOSITION, output_label="vertex sequence (base-2 code)"),
    Audit("lasso/one-step-laplace", "lasso/private-fw", "One step (T = 1): report-noisy-min with Laplace noise",
          _PAIR, _NB, audits.vertex_sampler(1, "laplace"), audits.sequence_events(1), epsilon=1.0, delta=1e-6,
          mutant=_LAPLACE_NO_2, output_label="chosen vertex"),
    Audit("lasso/one-step-12-vertices", "lasso/private-fw", "One step among 12 vertices (p = 6): the Gumbel sign",
          _PAIR6, _NB + "; the other 5 covariates are 0", audits.vertex_sampler(1), audits.sequence_events(1, 6),
          epsilon=1.0, delta=1e-6, mutant=_WRONG_SIGN, output_label="chosen vertex (j: +r e_j, 6 + j: −r e_j)"),
)

_MEANS_NO_P = Mutant("means without the (p + 1)", "Laplace scale 2/(nε_m): the sensitivity of ONE mean, "
                     "forgetting that replacing a record moves all p + 1 means", lambda cal: cal.replace(
                         params={"mean_scale": cal.params["mean_scale"] / (cal.params["p"] + 1)}))
AUDITS = AUDITS + (
    Audit("lasso/intercept-means", "lasso/private-fw-intercept",
          "Intercept, stage 1: the released centring means (p = 1, n = 20), at their own ε_m", audits.mean_pair(),
          "record 0 is (x, y) = (−1, −1) in D and (1, 1) in D′: both means move by 2/n (ℓ1: 2(p + 1)/n)",
          audits.mean_sampler, audits.mean_events, epsilon=1.0, mutant=_MEANS_NO_P,
          output_label="released means (x̄, ȳ)"),
)

_SQRT_P = Mutant("√p dropped", "σ from the ℓ∞ bound 4(R₁ + 1)/n instead of the ℓ2 bound 4(R₁ + 1)√p/n "
                 "(p = 16: σ/4)", lambda cal: cal.replace(constant=cal.constant / 4))
AUDITS = AUDITS + (
    Audit("lasso/noisy-gradient-one-step", "lasso/noisy-gradient-fw",
          "Noisy-gradient Frank–Wolfe on the ℓ∞ ball (p = 16), one step: the signs of the chosen vertex",
          audits.dense_pair(), "record 0 has y = −x₁ in D and y = +x₁ in D′, every covariate = x₁ = ±1: ∇L moves by "
          "4√p/n in ℓ2 (86 % of Δ₂ = 4(R₁ + 1)√p/n at r = 0.01, R₁ = pr)", audits.noisy_gradient_sampler,
          audits.count_events(16), epsilon=1.0, delta=1e-6, mutant=_SQRT_P,
          output_label="coordinates with s₁ = +r"),
)

TOPIC = Topic(
    name="lasso",
    title="Private LASSO by private Frank–Wolfe",
    reference=REFERENCE,
    mechanisms=MECHANISMS,
    audits=AUDITS,
    experiments=figures.EXPERIMENTS,
    paper="Talwar, Thakurta & Zhang, “Nearly Optimal Private LASSO”, NeurIPS 2015",
    url="https://proceedings.neurips.cc/paper_files/paper/2015/hash/52d080a3e172c33fd6886a37e7288491-Abstract.html",
    preview=error_law,
    styles={
        "private_fw": Style("Private Frank–Wolfe", "vermillion"),
        "nonprivate_fw": Style("Non-private Frank–Wolfe (same T)", "blue"),
        "optimum": Style("Constrained optimum θ* (non-private)", "black"),
        "truth": Style("True θ (simulation)", "bluish_green"),
    },
    audit_seconds={
        "lasso/one-step": 3.93e-05,
        "lasso/three-steps": 5.76e-05,
        "lasso/eight-steps": 1.35e-04,
        "lasso/one-step-laplace": 2.34e-05,
        "lasso/one-step-12-vertices": 4.39e-05,
        "lasso/intercept-means": 3.91e-05,
        "lasso/noisy-gradient-one-step": 4.40e-05,
    },
)

"""The certified-bounds page's fixed texts (Asi, Duchi & Talwar 2025): its introduction, the budget splits' labels
and help, and the captions of its simulation tabs — kept here so the page stays thin (issue 30). Plain strings;
what they state is derived in :mod:`dpcore.single_parameter.calibration` and ``_certify``."""
from __future__ import annotations

__all__ = ["PAGE_INTRO", "SPLIT_LABELS", "SPLIT_HELP", "SHARE_HELP", "COVERAGE_CAPTION", "simulated_domain_caption",
           "abstention_caption"]

PAGE_INTRO = ("For an M-estimator θ̂ = argmin (1/n)Σ h(xᵢ, yᵢ; θ), the noise needed to release one coefficient "
              "⟨v, θ̂⟩ is governed by the Hessian's **smallest eigenvalue λ_min** (and its condition number). "
              "Algorithm 2 privately certifies a lower bound λ̂ ≤ λ_min (Laplace noise on an integer count of "
              "recursion steps), Algorithm 4 an upper bound Λ̂ ≥ λ_max; Algorithm 5 then *tests* whether these "
              "bounds make the local sensitivity stable and, if so, releases ⟨v, θ̂⟩ with Gaussian noise at that "
              "local scale — otherwise it returns ⊥ (abstains). ⊥ is an answer too: its cost is charged.")

SPLIT_LABELS = {"quarters": "quarters (¼, ¼, ¼, ¼)", "gaussian-heavy": "Gaussian-heavy (0.1, 0.1, 0.7, 0.1)",
                "custom": "custom: a share for the bounds"}

SPLIT_HELP = ("Quarters: the default of our implementation notes. Gaussian-heavy: most of the budget on the Gaussian "
              "step, so less noise once the test passes, but ε₄ = 0.1ε makes the test need more rows (the paper "
              "itself composed with a privacy-loss accountant and a split it did not state).")

SHARE_HELP = "The rest goes to the Gaussian step and the variance-change test (half each)."

COVERAGE_CAPTION = ("Simulation on synthetic robust-regression data (covariates on the unit sphere, t₃ noise): not a "
                    "release, nothing is charged. The true eigenvalues are non-private; each band shows 10–90 % of the "
                    "certified bounds over datasets and noise draws; hover for the empirical coverage.")


def simulated_domain_caption(provenance: str) -> str:
    """The simulated source's caption: its (public) provenance, one sentence (:func:`dpcore.data.sentence`), and
    domain."""
    return f"{provenance} Public domain: ‖x‖₂ ≤ 1. Simulated data: not charged to the ledger."


def abstention_caption(abstained: dict) -> str:
    """The Error-vs-n tabs' caption: how often Algorithm 5 abstained with each split (``abstained``: method → share)."""
    return (f"Algorithm 5 abstained (⊥ → objective perturbation with its unspent ε₃ + ε₄) in "
            f"{abstained.get('alg5', 0):.0%} of its runs with quarters and {abstained.get('alg5_gaussian', 0):.0%} "
            "with the Gaussian-heavy split (0.1, 0.1, 0.7, 0.1), on the same data: the heavy split adds less noise "
            "once it passes but its test needs more rows (ε₄ = 0.1ε).")

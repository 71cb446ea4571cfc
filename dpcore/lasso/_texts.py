"""The LASSO page's fixed texts (Talwar, Thakurta & Zhang 2015): the introduction, the help of its step rules and
intercept, and the captions of its simulation tabs — kept here so the page stays thin (issue 30). Plain strings,
no computation; everything a text states is derived in :mod:`dpcore.lasso.calibration`."""
from __future__ import annotations

__all__ = ["PAGE_INTRO", "STEP_RULE_LABELS", "STEP_RULE_HELP", "INTERCEPT_HELP", "VIEW_HELP", "WIDTH_TEXT",
           "RISK_VS_N_CAPTION"]

PAGE_INTRO = ("Least squares over the **ℓ1 ball** ‖θ‖₁ ≤ r, solved by **Frank–Wolfe**: each step moves θ toward one "
              "of the 2p vertices ±r e_j, the one with the smallest score ⟨s, ∇L(θ)⟩. The private version chooses "
              "that vertex with the **exponential mechanism** (or Laplace report-noisy-min), so it only ever chooses "
              "among 2p candidates — the risk grows like log p, not p. Records lie in ‖x‖∞ ≤ 1, |y| ≤ 1 (each column "
              "is mapped into [−1, 1] by its *public* bounds; values beyond are clipped).")

#: The page's step-rule choices: label → (LassoConfig.step_rule, what the page asks for next: None, "c" or "T").
STEP_RULE_LABELS = {"Theorem 2.5": ("theorem2.5", None), "risk bound (converges as ε grows)": ("risk-bound", None),
                    "c·(nε)^(2/3)": ("theorem2.5", "c"), "set T": ("theorem2.5", "T")}

STEP_RULE_HELP = (
    "Theorem 2.5: T = (8r²)^(2/3)(nε)^(2/3)/(2(r + 1)r)^(2/3) — the theorem drops log factors, so T is large and each "
    "step gets little ε; at a small n and a huge ε (n = 442, ε = 10⁵) the selection noise then keeps θ far from "
    "the optimum. Risk bound: the T minimising a bound on the expected excess risk that holds for every dataset, "
    "max(16r², 2)/(T + 2) + b(T)·ln(2p) — the same rate at moderate ε, but fewer, sharper steps when nε is large, "
    "so the release converges as ε grows (on the diabetes table at ε = 10⁵: ‖θ̂ − θ*‖₂ 0.013 instead of 0.11); "
    "little difference at nε ≲ 10⁴. c·(nε)^(2/3): Theorem 2.5's rate with a public constant c (0.05 leaves the "
    "plateau at θ = 0 about ten times earlier in n). Set: a T of your choice. Every rule uses public inputs only.")

INTERCEPT_HELP = ("The model of the paper has no intercept, so on real columns the coefficients absorb the columns' "
                  "offsets from the centres of their bounds (they can even flip sign). With an intercept the means of "
                  "the columns are released first (Laplace, 10 % of ε, shown in the accounting), the data centred at "
                  "them, and Frank–Wolfe gets the other 90 %.")

VIEW_HELP = ("Release: only the released coefficients and the public calibration. Teaching view: the same release "
             "beside the non-private constrained fit and scikit-learn's Lasso and OLS with an intercept, computed "
             "from your data — NOT private, recorded in the ledger as not DP.")

WIDTH_TEXT = ("Why the ℓ1 ball is special: the exponential mechanism chooses among its **2p vertices**, so the noise "
              "costs log p. The general-C variant (Theorem 2.6) perturbs the whole gradient, and its risk grows with "
              "the **Gaussian width** of C — √log p for the ℓ1 ball and the simplex, but p for the ℓ∞ ball.")

RISK_VS_N_CAPTION = ("Reference: slope −2/3 (Corollary 2.7, Theorem 3.1). Columns: excess_zero = risk of θ = 0; "
                     "excess_fw = non-private Frank–Wolfe with the same T (optimisation error alone). Below n ≈ "
                     "3·10⁴ (p = 100, ε = 1) the private risk stays near excess_zero — the Gumbel noise of 2p scores "
                     "hides the gradient — and then falls steeply: the −2/3 law is asymptotic.")

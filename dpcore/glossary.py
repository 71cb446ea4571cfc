"""The words the app uses, defined once (the Glossary page shows them; issue 32, for teachers).

Each entry is (term, Markdown text). The definitions follow Dwork & Roth (2014), "The algorithmic foundations of
differential privacy" (ε, δ, sensitivity, composition), Bun & Steinke (2016), "Concentrated differential privacy"
(ρ-zCDP and its conversions) and Kairouz, Oh & Viswanath (2015) / Dong, Roth & Su (2022) (the hypothesis-testing
reading). The box and ledger labels are the app's own (``ui.nonprivate``, the ledger panel).
"""
from __future__ import annotations

__all__ = ["TERMS", "term"]

#: (term, definition in Markdown), in reading order: the guarantee, its parameters, what it protects, how a
#: mechanism meets it, how releases add up, then the app's labels.
TERMS: tuple[tuple[str, str], ...] = (
    ("Differential privacy (DP)",
     "A promise about a *mechanism* (a randomised computation), not about a number: whatever one person's record "
     "is, the law of the output barely changes. Formally M is (ε, δ)-DP if for every pair of **neighbouring** "
     "datasets D, D′ and every set S of outputs, P[M(D) ∈ S] ≤ e^ε · P[M(D′) ∈ S] + δ."),
    ("ε (epsilon)",
     "The privacy-loss parameter: how much one record may change the probability of any output, by a factor of at "
     "most e^ε. ε = 1 allows a factor e ≈ 2.7; ε = 0.1 about 1.1. Smaller ε: more privacy, more noise. Above ε ≈ 10 "
     "the factor (e^10 ≈ 22 000) says almost nothing, and the app warns; a huge ε is useful only to check that a "
     "mechanism reaches the non-private answer."),
    ("δ (delta)",
     "The small probability with which the e^ε bound may fail ((ε, δ)-DP, “approximate DP”). Keep δ well below 1/n: "
     "a mechanism that publishes one random record in full is (0, 1/n)-DP, so δ ≥ 1/n protects nobody; the app "
     "refuses δ ≥ 1/n on your data unless you override it. δ = 0 is **pure** ε-DP."),
    ("ρ (rho) and zCDP",
     "ρ-zero-concentrated DP bounds every Rényi divergence between the output laws on neighbours: "
     "D_α(M(D) ‖ M(D′)) ≤ ρα for all α > 1. The Gaussian mechanism with ℓ2 sensitivity Δ₂ and noise σ is "
     "ρ = Δ₂²/(2σ²)-zCDP. An ε-DP release is (ε²/2)-zCDP, and ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP for every "
     "δ > 0 (the app also uses the tighter exact conversion)."),
    ("Neighbouring datasets",
     "Two datasets that differ in one person's record: the unit the guarantee protects. The app's default is "
     "**replace-one** (same n, one record replaced by any other), under which the number of rows n is public; some "
     "mechanisms state **add/remove-one** (one record more or less). Each cost in the ledger names its relation."),
    ("Sensitivity",
     "The most a statistic can move between neighbouring datasets, Δ = max ‖f(D) − f(D′)‖ in a norm (ℓ1 for "
     "Laplace noise, ℓ2 for Gaussian). It is computed from the **public bounds**, never from the data: the mean of "
     "n values clipped to [a, b] has sensitivity (b − a)/n under replace-one. The noise is scaled to Δ/ε."),
    ("Public bounds",
     "A range declared for each column without looking at the data (a codebook, domain knowledge). Values outside "
     "are clipped to it. Bounds read from the data (its minimum and maximum) depend on the records, so releases "
     "that use them are listed as **not DP**."),
    ("⊥ (bottom: no answer)",
     "What a mechanism outputs when it abstains. Propose-test-release (the certified eigenvalue bounds) first tests, "
     "on noisy statistics, whether the data are safe for a low-noise answer and outputs ⊥ if not. The ⊥ is part of "
     "the private output: it is decided on noised values, and the click is charged whether or not an answer comes."),
    ("Composition",
     "Releases on the same data add up. **Basic composition**: k releases at (ε, δ) cost (kε, kδ). **zCDP "
     "composition**: the ρ's add (k ε-DP draws give kε²/2), which is tighter for many releases once converted back "
     "to (ε, δ). Every draw is a release: a click of 3 methods × 10 draws at ε costs 30ε by basic composition."),
    ("Notions of a budget",
     "**pure ε-DP** (δ = 0, ε's add); **(ε, δ)-DP** (ε's and δ's add); **ρ-zCDP** (ρ's add, the total converted to "
     "(ε, δ) at the budget's δ); **ε-LDP** (local DP: each person randomises their own record before it leaves "
     "them, as in the query-release page's local protocols; no trusted curator)."),
    ("Privacy budget and ledger",
     "A dataset you load gets a total (ε, δ) (set on the Data page). Every release is checked against what remains "
     "*before* anything is computed and refused if it does not fit. The ledger (sidebar) lists every release with "
     "its cost; clearing its list, reloading or loading the same file again gives nothing back."),
    ("“Right at most … %” (the trade-off reading)",
     "DP as a test: an adversary who sees the output and must say whether one person is in the data. Under ε-DP, if "
     "they wrongly accuse at most a fraction α of the time, they are right at most min(e^ε α, 1 − e^(−ε)(1 − α)) of "
     "the time — at ε = 1 and α = 5 %, 13.6 % (random guessing: 5 %). A release button says it for its click; the "
     "ledger says it for all listed releases together."),
    ("Not private (the labelled boxes)",
     "A box marked **Not private** (e.g. “Non-private diagnostics”) shows numbers computed directly from your data — "
     "the non-private estimate θ̂, clipping and imputation counts, sampler diagnostics — to help you learn and "
     "check. They are not part of any release and have no privacy guarantee: do not publish them."),
    ("Teaching view and “not DP” releases",
     "A **teaching view** runs a mechanism on your data next to the non-private answer, for learning; it is recorded "
     "in the ledger apart, as **not DP**, in no total and no budget — as are releases with bounds read from the "
     "data and releases with the reproducible-demo seed (anyone who knows the seed can recompute them)."),
)


def term(name: str) -> str:
    """The definition of ``name`` (the term as written in :data:`TERMS`, or its start, case-insensitive).

    >>> term("sensitivity").startswith("The most a statistic")
    True
    """
    key = name.strip().lower()
    for t, text in TERMS:
        if t.lower() == key or t.lower().startswith(key):
            return text
    raise KeyError(f"no glossary entry {name!r}; entries: {', '.join(t for t, _ in TERMS)}")

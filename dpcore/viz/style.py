"""Labels, colours and layout shared by every figure of the app (the one definition).

Colours are the Okabe–Ito palette (colour-blind safe). A topic adds its mechanisms' labels
and colours here, keyed by the short mechanism name used in its frames and results.

>>> label("kng"), label("unknown_method")
('KNG', 'unknown_method')
"""
from __future__ import annotations

from types import MappingProxyType

LABELS = MappingProxyType({
    "nonprivate": "Non-private",
    "kng": "KNG",
    "exponential": "Exponential mechanism",
    "objective_perturbation": "Objective perturbation",
    # single_parameter (Asi, Duchi & Talwar 2025)
    "alg5": "Algorithm 5 (propose-test-release)",
    "oracle": "Local-sensitivity oracle (NOT private)",
    "output_perturbation": "Output perturbation (ridge)",
    "noisy_gd": "Noisy gradient descent",
    "lambda_min": "true λ_min (non-private)",
    "lambda_max": "true λ_max (non-private)",
    "lam_hat": "certified λ̂ ≤ λ_min",
    "Lam_hat": "certified Λ̂ ≥ λ_max",
    # query release (Błasiok, Bun, Nikolov & Steinke 2019)
    "gaussian": "Gaussian only",
    "projection": "Projection",
    "coarse": "Coarse projection",
    "chaining": "Chaining",
    "pmw": "PMW (MWEM form)",
    "local-average": "Local: raw average",
    "local-projection": "Local projection",
    "local-coarse": "Local coarse projection",
    "local-chaining": "Local chaining",
    # lasso (Talwar, Thakurta & Zhang 2015)
    "private_fw": "Private Frank–Wolfe",
    "nonprivate_fw": "Non-private Frank–Wolfe (same T)",
    "optimum": "Constrained optimum θ* (non-private)",
    "truth": "True θ (simulation)",
    # density (Hall 2012; Hall, Rinaldo & Wasserman 2013)
    "gp": "GP (RKHS) KDE",
    "fourier-laplace": "Fourier + Laplace",
    "knorm": "K-norm (orbitope)",
    "svm-private": "Private kernel SVM (GP noise)",
    # histograms (Hall 2012, Part 1)
    "laplace": "Laplace",
    "laplace-clip-round": "Laplace + clip/round",
    "threshold": "Thresholded (τ = (2/ε) log p)",
    "oracle-threshold": "Threshold, oracle q (NOT private)",
    "all-zeros": "All-zeros output",
})

COLOURS = MappingProxyType({
    "nonprivate": "#000000",
    "kng": "#0072B2",
    "exponential": "#D55E00",
    "objective_perturbation": "#009E73",
    "alg5": "#0072B2",
    "oracle": "#000000",
    "output_perturbation": "#CC79A7",
    "noisy_gd": "#E69F00",
    "lambda_min": "#000000",
    "lambda_max": "#555555",
    "lam_hat": "#0072B2",
    "Lam_hat": "#D55E00",
    "gaussian": "#999999",
    "projection": "#0072B2",
    "coarse": "#D55E00",
    "chaining": "#009E73",
    "pmw": "#CC79A7",
    "local-average": "#999999",
    "local-projection": "#56B4E9",
    "local-coarse": "#E69F00",
    "local-chaining": "#F0E442",
    "private_fw": "#D55E00",
    "nonprivate_fw": "#0072B2",
    "optimum": "#000000",
    "truth": "#009E73",
    "gp": "#0072B2",
    "fourier-laplace": "#D55E00",
    "knorm": "#009E73",
    "svm-private": "#0072B2",
    "laplace": "#D55E00",
    "laplace-clip-round": "#E69F00",
    "threshold": "#0072B2",
    "oracle-threshold": "#999999",
    "all-zeros": "#000000",
})

#: Extra colours for methods without an assigned one (Okabe–Ito, in order).
PALETTE = ("#E69F00", "#56B4E9", "#CC79A7", "#F0E442", "#999999")

NORM_LABELS = MappingProxyType({"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞"})

LAYOUT = MappingProxyType(dict(template="plotly_white", margin=dict(l=60, r=20, t=60, b=50)))


def label(method: str) -> str:
    """Plain-words label of a method (its name if none is registered)."""
    return LABELS.get(method, method)


def colour(method: str, index: int = 0) -> str:
    """Colour of a method (a palette colour by ``index`` if none is assigned)."""
    return COLOURS.get(method, PALETTE[index % len(PALETTE)])

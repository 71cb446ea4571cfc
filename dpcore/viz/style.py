"""Labels, colours and layout shared by every figure of the app (the one definition).

Colours are the Okabe–Ito palette (colour-blind safe), defined once in :data:`OKABE_ITO`; where a figure
compares methods with lines, :func:`line_style` also gives each its own dash and marker. A topic adds its
mechanisms' labels and colours here, keyed by the short mechanism name used in its frames and results.

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

#: The Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"): eight colours told apart under
#: protanopia, deuteranopia and tritanopia. The one place colours are defined; a topic picks from it.
OKABE_ITO = MappingProxyType({
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7",
})
#: Neutral grey for baselines and reference lines: 4.5:1 on white (Okabe–Ito's usual #999999 is 2.8:1, under
#: WCAG 2.1's 3:1 for graphics). Okabe–Ito's yellow (1.3:1 on white) is never used for a line or marker.
GREY = "#767676"
DARK_GREY = "#505050"

_O = OKABE_ITO
COLOURS = MappingProxyType({
    "nonprivate": _O["black"],
    "kng": _O["blue"],
    "exponential": _O["vermillion"],
    "objective_perturbation": _O["bluish_green"],
    "alg5": _O["blue"],
    "oracle": _O["black"],
    "output_perturbation": _O["reddish_purple"],
    "noisy_gd": _O["orange"],
    "lambda_min": _O["black"],
    "lambda_max": DARK_GREY,
    "lam_hat": _O["blue"],
    "Lam_hat": _O["vermillion"],
    "gaussian": GREY,
    "projection": _O["blue"],
    "coarse": _O["vermillion"],
    "chaining": _O["bluish_green"],
    "pmw": _O["reddish_purple"],
    # local (ε-LDP) versions: the central method's colour; their lines are dotted with open markers
    "local-average": GREY,
    "local-projection": _O["blue"],
    "local-coarse": _O["vermillion"],
    "local-chaining": _O["bluish_green"],
    "private_fw": _O["vermillion"],
    "nonprivate_fw": _O["blue"],
    "optimum": _O["black"],
    "truth": _O["bluish_green"],
    "gp": _O["blue"],
    "fourier-laplace": _O["vermillion"],
    "knorm": _O["bluish_green"],
    "svm-private": _O["blue"],
    "laplace": _O["vermillion"],
    "laplace-clip-round": _O["orange"],
    "threshold": _O["blue"],
    "oracle-threshold": GREY,
    "all-zeros": _O["black"],
})

#: Extra colours for methods without an assigned one (Okabe–Ito, in order; no yellow).
PALETTE = (_O["orange"], _O["sky_blue"], _O["reddish_purple"], _O["bluish_green"], _O["vermillion"], GREY)

#: Line dashes and marker symbols by a trace's position in its figure, so that lines compared in one chart
#: differ in shape as well as colour (for any colour vision, and in greyscale print). "dot" is kept for the
#: local (ε-LDP) methods.
DASHES = ("solid", "dash", "longdash", "dashdot", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "star", "cross")

NORM_LABELS = MappingProxyType({"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞"})

LAYOUT = MappingProxyType(dict(template="plotly_white", margin=dict(l=60, r=20, t=60, b=50)))


def label(method: str) -> str:
    """Plain-words label of a method (its name if none is registered)."""
    return LABELS.get(method, method)


def colour(method: str, index: int = 0) -> str:
    """Colour of a method (a palette colour by ``index`` if none is assigned)."""
    return COLOURS.get(method, PALETTE[index % len(PALETTE)])


def line_style(method: str, index: int, *, width: float = 2) -> dict:
    """``line`` and ``marker`` arguments of a ``go.Scatter`` for the ``index``-th method compared in a figure:
    the method's colour, the index's dash and marker symbol; local (ε-LDP) methods are dotted with open
    markers, whatever their index.

    >>> line_style("local-coarse", 1)["line"]["dash"], line_style("kng", 1)["marker"]["symbol"]
    ('dot', 'square')
    """
    local = method.startswith("local")
    symbol = SYMBOLS[index % len(SYMBOLS)]
    return dict(line=dict(color=colour(method, index), width=width, dash="dot" if local else DASHES[index % len(DASHES)]),
                marker=dict(color=colour(method, index), size=8, symbol=f"{symbol}-open" if local and symbol not in
                            ("x", "cross") else symbol))

"""Labels, colours and layout shared by every figure of the app (the one definition).

Colours are the Okabe–Ito palette (colour-blind safe), defined once in :data:`OKABE_ITO`; where a figure
compares methods with lines, :func:`line_style` also gives each its own dash and marker. Labels and colours
of a topic's methods are DECLARED by the topic (``Topic.styles`` in ``dpcore/<topic>/declare.py``, read
through :func:`dpcore.registry.styles`): this module lists no topic. A name is looked up in the given
topic first, then in the shared styles, then in the one topic that declares it.

>>> label("kng"), label("laplace", topic="histograms"), label("unknown_method")
('KNG', 'Laplace', 'unknown_method')
"""
from __future__ import annotations

import functools
import json
from types import MappingProxyType
from typing import Optional

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

#: Every colour a topic's :class:`~dpcore.registry.Style` may name (the Okabe–Ito names and the two greys).
COLOUR_NAMES = MappingProxyType({**OKABE_ITO, "grey": GREY, "dark_grey": DARK_GREY})

#: Styles shared by every topic (a topic's own declaration of the same name wins within that topic).
SHARED = MappingProxyType({"nonprivate": ("Non-private", "black")})

_O = OKABE_ITO
#: Extra colours for methods without an assigned one (Okabe–Ito, in order; no yellow).
PALETTE = (_O["orange"], _O["sky_blue"], _O["reddish_purple"], _O["bluish_green"], _O["vermillion"], GREY)

#: Line dashes and marker symbols by a trace's position in its figure, so that lines compared in one chart
#: differ in shape as well as colour (for any colour vision, and in greyscale print). "dot" is kept for the
#: local (ε-LDP) methods.
DASHES = ("solid", "dash", "longdash", "dashdot", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "star", "cross")

NORM_LABELS = MappingProxyType({"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞"})

LAYOUT = MappingProxyType(dict(margin=dict(l=60, r=20, t=60, b=50)))

#: The plotly template of every figure (white background, light grid). It is not in :data:`LAYOUT`: plotly
#: validates a template by deep-copying its ≈ 7 KB tree of plotly objects, ≈ 15 ms a figure on the 2-core
#: machine — three times the rest of building a typical figure, on every rerun of every page (py-spy of
#: benchmarks/load.py, issue 21). Figures are built without it and it is added where a figure is drawn:
#: to the JSON a page sends (:func:`template_json`, ui.charts.plot) or to a figure written to a file
#: (:func:`themed`).
TEMPLATE = "plotly_white"


@functools.lru_cache(maxsize=1)
def _template_text() -> str:
    import plotly.io as pio
    from plotly.utils import PlotlyJSONEncoder

    return json.dumps(pio.templates[TEMPLATE].to_plotly_json(), cls=PlotlyJSONEncoder)


def template_json() -> dict:
    """The JSON of :data:`TEMPLATE` (a fresh copy), for ``layout.template`` of a figure's JSON."""
    return json.loads(_template_text())


def themed(fig):
    """``fig`` with :data:`TEMPLATE` set (for a figure written to a file or shown outside the app)."""
    fig.update_layout(template=TEMPLATE)
    return fig


def _style(method: str, topic: Optional[str]) -> Optional[tuple[str, str]]:
    """(label, colour name) of ``method``: the topic's own, the shared one, or the single topic declaring it."""
    from dpcore import registry

    table = registry.styles()
    if topic is not None and method in table.get(topic, {}):
        st = table[topic][method]
        return st.label, st.colour
    if method in SHARED:
        return SHARED[method]
    owners = [t for t, styles in table.items() if method in styles]
    if len(owners) > 1:
        raise ValueError(f"method name {method!r} is declared by topics {owners}: pass topic=... to say which.")
    if owners:
        st = table[owners[0]][method]
        return st.label, st.colour
    return None


def label(method: str, topic: Optional[str] = None) -> str:
    """Plain-words label of a method (its name if no topic declares it)."""
    found = _style(method, topic)
    return found[0] if found else method


def colour(method: str, index: int = 0, topic: Optional[str] = None) -> str:
    """Colour (hex) of a method (a palette colour by ``index`` if no topic declares one)."""
    found = _style(method, topic)
    return COLOUR_NAMES[found[1]] if found else PALETTE[index % len(PALETTE)]


def line_style(method: str, index: int, *, width: float = 2, topic: Optional[str] = None) -> dict:
    """``line`` and ``marker`` arguments of a ``go.Scatter`` for the ``index``-th method compared in a figure:
    the method's colour, the index's dash and marker symbol; local (ε-LDP) methods are dotted with open
    markers, whatever their index.

    >>> line_style("local-coarse", 1)["line"]["dash"], line_style("kng", 1)["marker"]["symbol"]
    ('dot', 'square')
    """
    local = method.startswith("local")
    symbol = SYMBOLS[index % len(SYMBOLS)]
    c = colour(method, index, topic)
    return dict(line=dict(color=c, width=width, dash="dot" if local else DASHES[index % len(DASHES)]),
                marker=dict(color=c, size=8, symbol=f"{symbol}-open" if local and symbol not in
                            ("x", "cross") else symbol))

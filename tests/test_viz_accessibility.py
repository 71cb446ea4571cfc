"""Issue 23, the figures: colours told apart under the common colour-vision deficiencies, lines compared in one
chart told apart by dash and marker too, and a text alternative of every figure (dpcore.viz.describe)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dpcore import registry
from dpcore.viz import style
from dpcore.viz.describe import describe

#: Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color vision
#: deficiency", severity 1.0 matrices on linear RGB.
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    "normal vision": np.eye(3).tolist(),
}
MIN_DELTA_E = 10.0  # CIE76 ΔE between any two colours of the palette, under each simulation


def _linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ np.clip(
        linear_rgb, 0, 1)
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _closest_pair(colours) -> tuple[float, str, str, str]:
    """(ΔE, a, b, vision) of the least distinguishable pair of ``colours`` over the simulated visions."""
    return min((float(np.linalg.norm(_lab(np.array(m) @ _linear(a)) - _lab(np.array(m) @ _linear(b)))), a, b, v)
               for v, m in CVD.items() for a, b in itertools.combinations(sorted(set(colours)), 2))


def _contrast_on_white(hex_colour: str) -> float:
    y = float(np.array([0.2126, 0.7152, 0.0722]) @ _linear(hex_colour))
    return 1.05 / (y + 0.05)


def _declared_colours() -> set:
    """Hex colours of every method style the topics declare (and the shared ones)."""
    names = {c for _, c in style.SHARED.values()}
    names |= {st.colour for styles in registry.styles().values() for st in styles.values()}
    unknown = names - set(style.COLOUR_NAMES)
    assert not unknown, f"styles name colours outside dpcore.viz.style.COLOUR_NAMES: {unknown}"
    return {style.COLOUR_NAMES[n] for n in names}


def test_the_palette_is_told_apart_under_protanopia_deuteranopia_and_tritanopia():
    colours = _declared_colours() | set(style.PALETTE)
    d, a, b, vision = _closest_pair(colours)
    assert d >= MIN_DELTA_E, f"{a} and {b} look alike under {vision} (ΔE {d:.1f})"
    # the same check rejects plotly's default red/green and orange/green pairs (ΔE 7 and 5)
    assert _closest_pair(["#D62728", "#2CA02C"])[0] < MIN_DELTA_E
    assert _closest_pair(["#FF7F0E", "#2CA02C"])[0] < MIN_DELTA_E


def test_palette_colours_are_okabe_ito_or_the_greys_and_lines_have_contrast_on_white():
    allowed = set(style.OKABE_ITO.values()) - {style.OKABE_ITO["yellow"]} | {style.GREY, style.DARK_GREY}
    used = _declared_colours() | set(style.PALETTE)
    assert used <= allowed, used - allowed
    assert _contrast_on_white(style.GREY) >= 4.5 and _contrast_on_white(style.DARK_GREY) >= 4.5
    assert _contrast_on_white(style.OKABE_ITO["yellow"]) < 1.5  # why yellow is left out


def _sweep(methods) -> pd.DataFrame:
    rows = [{"method": m, "n": n, "rep": r, "error": (k + 1) / np.sqrt(n) * (1 + 0.1 * r)}
            for k, m in enumerate(methods) for n in (100, 1000, 10_000) for r in range(3)]
    f = pd.DataFrame(rows)
    f.attrs.update(axis="n", axis_label="sample size n (records)", scale="log", reference_slope=-0.5)
    return f


def _shapes(fig: go.Figure) -> list[tuple]:
    return [(t.line.dash, t.marker.symbol) for t in fig.data if t.mode and "markers" in t.mode]


@pytest.mark.parametrize("methods", [["nonprivate", "kng", "exponential", "objective_perturbation"],
                                     ["gaussian", "projection", "local-projection", "local-coarse", "chaining"]])
def test_methods_compared_in_a_line_chart_differ_by_dash_and_marker(methods):
    from dpcore.viz.experiments import error_vs_x_figure
    from dpcore.query_release.plots import error_vs_n_figure

    fig = error_vs_x_figure(_sweep(methods))
    shapes = _shapes(fig)
    assert len(shapes) == len(methods)
    assert len({s[1] for s in shapes}) == len(methods), shapes  # each its own marker
    assert len({s[0] for s in shapes if s[0] != "dot"}) == sum(s[0] != "dot" for s in shapes), shapes  # and dash
    errors = pd.DataFrame([{"method": m, "n": n, "rep": r, "rms": 1 / np.sqrt(n) + 0.01 * r, "max": 2 / np.sqrt(n)}
                           for m in methods for n in (10, 100) for r in range(2)])
    qr = _shapes(error_vs_n_figure(errors))
    assert len(set(qr)) == len(methods), qr
    for m, (dash, symbol) in zip(methods, qr):  # local (ε-LDP) methods: dotted, open markers
        assert (dash == "dot" and symbol.endswith("-open")) == m.startswith("local"), (m, dash, symbol)


def test_describe_states_the_title_axes_and_each_series_headline():
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[10, 100, 1000], y=[1.0, 0.3, 0.1], mode="lines+markers", name="KNG"))
    fig.add_trace(go.Scatter(x=[10, 100, 1000], y=[2.0, 0.7, 0.25], mode="lines+markers", name="Exponential"))
    fig.add_trace(go.Scatter(x=[10, 1000], y=[0.5, 0.6], mode="lines", name="repeat", showlegend=False))
    fig.add_hline(y=0.2, annotation_text="target α = 0.2")
    fig.update_layout(title="Error vs <b>n</b>", xaxis_title="sample size n (records)", yaxis_title="mean error",
                      xaxis_type="log")
    text = describe(fig)
    assert text == ("Chart: Error vs n. x: sample size n (records), log scale; y: mean error. "
                    "KNG: 0.1 at sample size n = 1000 (from 1 at 10); "
                    "Exponential: 0.25 at sample size n = 1000 (from 2 at 10). Marked on the chart: target α = 0.2.")
    box = go.Figure(go.Box(y=[1, 2, 3, 40], name="Laplace"))
    assert "Laplace: median 2.5 over 4 values" in describe(box)
    bars = go.Figure(go.Bar(x=["a", "b"], y=[3, 7], name="counts"))
    assert "counts: 2 bars, largest 7 at b" in describe(bars)
    dens = go.Figure(go.Scatter(x=[0, 1, 2], y=[0.1, 0.8, 0.1], mode="lines", name="KNG density"))
    dens.update_layout(yaxis_title="density", xaxis_title="θ")
    assert "KNG density: peak 0.8 at θ = 1" in describe(dens)
    a = np.linspace(0, 1, 11)  # curves sharing both ends (trade-off curves): their middle values are stated
    tradeoff = go.Figure([go.Scatter(x=a, y=a, mode="lines", name="guessing"),
                          go.Scatter(x=a, y=np.sqrt(a), mode="lines", name="bound")])
    tradeoff.update_layout(xaxis_title="false-positive rate α: wrongly accuses D")
    assert "guessing: 1 at false-positive rate α = 1 (from 0 at 0), 0.5 at 0.5" in describe(tradeoff)
    assert "bound: 1 at false-positive rate α = 1 (from 0 at 0), 0.7071 at 0.5" in describe(tradeoff)
    horizontal = go.Figure(go.Scatter(x=[0.126], y=["Algorithm 5"], mode="markers", name="Algorithm 5"))
    assert "Algorithm 5: 0.126" in describe(horizontal)

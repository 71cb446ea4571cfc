"""The accuracy preview: before the click, the law of the error a release will add, from public inputs only.

Owns this session's last few previews. Must never: take data (only ε, n, d, public bounds and settings reach
dpcore.preview), or key the shared cache (ui.cache.preview_laws) with configs that may carry a setting read from
the data (dpcore.privacy.shareable: bounds filled from the data, categories present, sizes counted) — such a
session computes its preview itself (ui.cache.preview) and draws it in the non-private box.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from dpcore import data as dpdata
from dpcore import preview_check as PC
from dpcore import privacy as P
from dpcore.kng import PREVIEW_DESIGNS
from ui import cache
from ui.charts import plot
from ui.widgets import nonprivate, persist, show_error
from ui.workspace import get_dataset

PREVIEW_CACHE_KEY, MAX_CACHED_PREVIEWS = "_dp_previews", 16
#: Whether the accuracy preview is open when a page is first shown (its toggle remembers the user's choice).
PREVIEW_DEFAULT = True


def _preview_entry(items: tuple, public: tuple, share: bool = True) -> tuple:
    """(laws, figure, frame): dpcore.preview.previews of ``items`` at the public shape ``public`` and its figure,
    shared by every session (ui.cache.preview_laws: its arguments are public — registry names, configs, n,
    d — never data, and it is seeded): a new visitor's first view of the LASSO or density page no longer
    recomputes its default preview (0.5–1 s of CPU), and no rerun rebuilds its figure (plotly's figure building
    was a third of the preview's time on every rerun). Kept per session too (its last few settings), so a
    rerun draws the same picture even after the shared cache dropped it."""
    kept = st.session_state.setdefault(PREVIEW_CACHE_KEY, {})
    key = repr((items, public, share))
    if key not in kept:
        with st.spinner("Computing the accuracy preview…"):
            # settings read from the data (dpcore.privacy.shareable) never key a cache shared by sessions
            kept[key] = (cache.preview_laws if share else cache.preview)(items, public)
        while len(kept) > MAX_CACHED_PREVIEWS:
            kept.pop(next(iter(kept)))
    return kept[key]


def _remember(toggle_key: str) -> None:
    st.session_state[f"_keep::{toggle_key}"] = st.session_state[toggle_key]


def _design_picker(key: str) -> dict[str, Any]:
    """The public design the regression preview simulates on (dpcore.kng.preview_designs): the user's declaration
    of how x spreads inside its bounds, never read from the data; ρ only for the correlated design."""
    persist(**{f"{key}_preview_design": "box", f"{key}_preview_rho": 0.5})
    designs = PREVIEW_DESIGNS
    c1, c2 = st.columns([3, 1])
    design = c1.selectbox("Public design of x for the preview (your declaration of how x spreads in its bounds)",
                          list(designs), format_func=designs.get, key=f"{key}_preview_design",
                          help="The preview simulates releases on synthetic data of this shape, and shows its spread "
                               "over the other designs too. A declaration from domain knowledge — never the data.")
    rho = c2.number_input("ρ (declared correlation of the x)", -0.95, 0.95, step=0.1, format="%g",
                          key=f"{key}_preview_rho", disabled=design != "correlated")
    return {"design": design, "rho": float(rho)}


@st.fragment  # its toggle, design picker and check rerun the preview only, with the page's last arguments (issue 35)
def accuracy_preview(items: dict[str, tuple[str, Any]], *, key: str, requests: Any = None, designs: bool = False,
                     **public: Any) -> None:
    """Accuracy before the click: for each ``{label: (registry name, config)}`` the law of the error one draw
    adds (dpcore.preview), drawn with its 50 %/90 % intervals (and, where simulated on public designs, its
    spread over them). ``public``: n, d and other public shape only — this function takes no data, so the
    picture is the same on neighbouring datasets. ``designs``: offer the regression's public design picker.
    ``requests``: the release request(s) the preview is for; when one has settings read from the data (bounds
    filled from the data, categories present, a size counted in the data: dpcore.privacy.shareable, the one
    rule), the preview is computed in this session only and drawn inside the non-private box. "Check the
    preview" runs releases on a simulated twin (dpcore.preview_check: synthetic, free) beside the bands."""
    if not items:
        return
    toggle_key = f"{key}_accuracy_preview_on"
    # Given to the widget on every run (issue 32 §5): a toggle that was not drawn in a run (a column removed,
    # a first release) came back without its value in the browser, which then showed — and sent — "off".
    ss = st.session_state
    ss[toggle_key] = ss[toggle_key] if toggle_key in ss else ss.get(f"_keep::{toggle_key}", PREVIEW_DEFAULT)
    if not st.toggle("Accuracy before the click: the error this release will add", key=toggle_key,
                     on_change=_remember, args=(toggle_key,),
                     help="Computed from ε, n, the public bounds and the settings above — never from the data — and "
                          "redrawn as they change. Exact where the noise law is known; otherwise simulated on a "
                          "public design (seeded)."):
        return
    if designs:
        public.update(_design_picker(key))
    share = P.shareable(requests, dataset=get_dataset() if requests is None else None)
    try:
        laws, fig, frame = _preview_entry(tuple(items.items()), tuple(sorted(public.items())), share)
    except ValueError as exc:
        show_error(exc)
        return
    with st.container(border=True) if share else nonprivate("Accuracy before the click, from settings read from "
                                                            "the data"):
        checks = _checked(items, laws, public, key)
        if checks:
            from dpcore.viz.preview import preview_figure

            fig, frame = preview_figure(laws, checks=checks)
        if any(law.available for law in laws):
            plot(fig, frame, f"{key}_accuracy_preview", caption=" ".join(law.describe() for law in laws))
        else:
            st.caption(dpdata.literal(" ".join(law.describe() for law in laws)))
        for c in checks:
            st.caption(dpdata.literal(c.describe()))
        if share:
            st.caption("Computed before anything is released, from ε, n, the public bounds and the settings above "
                       "— never from the data; the same picture on any dataset of this shape. Per draw.")
        _check_button(items, laws, public, key)


def _check_key(items: dict, public: dict) -> str:
    return repr((tuple(items.items()), tuple(sorted(public.items()))))


def _checked(items: dict, laws: Any, public: dict, key: str) -> tuple:
    """The last check of these very settings (an older check is not drawn against a new preview)."""
    kept = st.session_state.get(f"{key}_preview_checks")
    return kept[1] if kept and kept[0] == _check_key(items, public) else ()


def _check_button(items: dict, laws: Any, public: dict, key: str) -> None:
    """"Check the preview": N releases of each mechanism on a simulated twin drawn from the preview's public
    design (synthetic data: free, no budget, never the user's data), drawn as dots beside the bands."""
    names = [name for name, _ in items.values()]
    if not all(PC.has_twin(name) for name in names):
        return
    ss = st.session_state
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    reps = c1.number_input("Releases on the twin", 5, PC.MAX_CHECK_REPS, PC.CHECK_REPS, step=5, key=f"{key}_check_reps")
    if not c2.button("Check the preview on a simulated twin (free: synthetic data, no budget)", key=f"{key}_check",
                     icon=":material/fact_check:",
                     help="Runs the releases on synthetic data drawn afresh from the preview's public design and "
                          "draws their errors (○) beside the preview's bands: about half inside the thick bar, nine "
                          "in ten inside the thin one, if the preview is honest."):
        return
    ss[f"{key}_check_count"] = ss.get(f"{key}_check_count", 0) + 1   # a fresh twin per click, explicit seed
    checks = []
    with st.spinner("Releasing on the simulated twin…"):
        for i, (law, (label, (name, cfg))) in enumerate(zip(laws, items.items())):
            try:
                checks.append(PC.check_preview(name, cfg, reps=int(reps), rng=np.random.SeedSequence([ss[f"{key}_check_count"], i]),
                                               law=law,
                                               label=label, **public))
            except ValueError as exc:
                show_error(exc)
    ss[f"{key}_preview_checks"] = (_check_key(items, public), tuple(checks))
    if len(checks) == len(items):
        st.rerun()                        # redraw the preview above with the twin's releases

"""The accuracy preview: before the click, the law of the error a release will add, from public inputs only.

Owns this session's last few previews. Must never: take data (only ε, n, d, public bounds and settings reach
dpcore.preview), or key the shared cache (ui.cache.preview_laws) with configs that may carry a setting read from
the data (dpcore.privacy.shareable: bounds filled from the data, categories present, sizes counted) — such a
session computes its preview itself (ui.cache.preview) and draws it in the non-private box.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from ui import cache
from ui.charts import plot
from ui.widgets import nonprivate, show_error
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


@st.fragment  # its toggle reruns the preview only, with the arguments of the page's last run (issue 35)
def accuracy_preview(items: dict[str, tuple[str, Any]], *, key: str, requests: Any = None, **public: Any) -> None:
    """Accuracy before the click: for each ``{label: (registry name, config)}`` the law of the error one draw
    adds (dpcore.preview), drawn with its 50 %/90 % intervals. ``public``: n, d and other public shape only —
    this function takes no data, so the picture is the same on neighbouring datasets. ``requests``: the
    release request(s) the preview is for; when one has settings read from the data (bounds filled from the
    data, categories present, a size counted in the data: dpcore.privacy.shareable, the one rule), the preview
    is computed in this session only and drawn inside the non-private box."""
    if not items:
        return
    ss = st.session_state
    toggle_key = f"{key}_accuracy_preview_on"
    ss.setdefault(toggle_key, PREVIEW_DEFAULT)
    if not st.toggle("Accuracy before the click: the error this release will add", key=toggle_key,
                     help="Computed from ε, n, the public bounds and the settings above — never from the data — and "
                          "redrawn as they change. Exact where the noise law is known; otherwise simulated on a "
                          "public design (seeded)."):
        return
    share = P.shareable(requests, dataset=get_dataset() if requests is None else None)
    try:
        laws, fig, frame = _preview_entry(tuple(items.items()), tuple(sorted(public.items())), share)
    except ValueError as exc:
        show_error(exc)
        return
    with st.container(border=True) if share else nonprivate("Accuracy before the click, from settings read from "
                                                            "the data"):
        if any(law.available for law in laws):
            plot(fig, frame, f"{key}_accuracy_preview", caption=" ".join(law.describe() for law in laws))
        else:
            st.caption(dpdata.literal(" ".join(law.describe() for law in laws)))
        if share:
            st.caption("Computed before anything is released, from ε, n, the public bounds and the settings above "
                       "— never from the data; the same picture on any dataset of this shape. Per draw.")

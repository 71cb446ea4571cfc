"""The accuracy preview: before the click, the law of the error a release will add, from public inputs only.

Owns this session's last few previews. Must never: take data (only ε, n, d, public bounds and settings reach
dpcore.preview), or key the shared cache (ui.cache.preview_laws) with configs that may carry bounds filled from
the loaded data — such a session computes its preview itself (ui.cache.preview).
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from dpcore import data as dpdata
from ui import cache
from ui.charts import plot
from ui.widgets import show_error
from ui.workspace import get_dataset

PREVIEW_CACHE_KEY, MAX_CACHED_PREVIEWS = "_dp_previews", 16
#: Whether the accuracy preview is open when a page is first shown (its toggle remembers the user's choice).
PREVIEW_DEFAULT = True


def _preview_entry(items: tuple, public: tuple) -> tuple:
    """(laws, figure, frame): dpcore.preview.previews of ``items`` at the public shape ``public`` and its figure,
    shared by every session (ui.cache.preview_laws: its arguments are public — registry names, configs, n,
    d — never data, and it is seeded): a new visitor's first view of the LASSO or density page no longer
    recomputes its default preview (0.5–1 s of CPU), and no rerun rebuilds its figure (plotly's figure building
    was a third of the preview's time on every rerun). Kept per session too (its last few settings), so a
    rerun draws the same picture even after the shared cache dropped it."""
    kept = st.session_state.setdefault(PREVIEW_CACHE_KEY, {})
    key = repr((items, public))
    if key not in kept:
        with st.spinner("Computing the accuracy preview (public inputs only)…"):
            # Bounds filled from the data ("Fill from data" on the Data page) are numbers of the user's data: a
            # preview whose configs may carry them is computed in this session, never keyed in a shared cache.
            share = _no_bounds_from_data(get_dataset())
            kept[key] = (cache.preview_laws if share else cache.preview)(items, public)
        while len(kept) > MAX_CACHED_PREVIEWS:
            kept.pop(next(iter(kept)))
    return kept[key]


def _no_bounds_from_data(ds: dpdata.Dataset | None) -> bool:
    """True unless ``ds`` has a column whose bounds were filled from its own values (not public)."""
    return ds is None or all(ds.bound_source(c) != dpdata.FROM_DATA for c in ds.bounds)


def accuracy_preview(items: dict[str, tuple[str, Any]], *, key: str, **public: Any) -> None:
    """Accuracy before the click: for each ``{label: (registry name, config)}`` the law of the error one draw
    adds (dpcore.preview), drawn with its 50 %/90 % intervals. ``public``: n, d and other public shape only —
    this function takes no data, so the picture is the same on neighbouring datasets."""
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
    try:
        laws, fig, frame = _preview_entry(tuple(items.items()), tuple(sorted(public.items())))
    except ValueError as exc:
        show_error(exc)
        return
    with st.container(border=True):
        if any(law.available for law in laws):
            plot(fig, frame, f"{key}_accuracy_preview", caption=" ".join(law.describe() for law in laws))
        else:
            st.caption(dpdata.literal(" ".join(law.describe() for law in laws)))
        st.caption("Computed before anything is released, from ε, n, the public bounds and the settings above — "
                   "never from the data; the same picture on any dataset of this shape. Per draw.")

"""Pickers several pages share, moved out of the pages (issue 30): a widget that keeps one value per view, the
columns of a regression or a location problem, and how each column of a histogram becomes cells.

Owns the remembered copies of the values it keeps per view (the session keys the page names). Must never: read
the data to offer a choice beyond its column names and declared bounds (a histogram's categories are offered
as a mode, and said to be read from the data, by dpcore.histograms), or decide what is private.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import streamlit as st

from dpcore import histograms
from ui.widgets import kept, offered, plain_label

MODE_NAMES = {"integers": "one cell per integer", "bins": "equal bins", "categories": "categories (from the data)"}


def per_view(key: str, store: str) -> Callable[[], None]:
    """ONE widget (``key``) that keeps a value per view in ``store`` (e.g. the KNG page's draws: 100 in the teaching
    view, 1 in the release view): ``store``'s value is given to the widget, and the returned ``on_change`` keeps the
    user's change there. A widget whose key changed with the view was re-created by the browser holding the other
    view's value (teaching 100 → release 1 → 1)."""
    st.session_state[key] = st.session_state[store]
    return lambda: st.session_state.__setitem__(store, st.session_state[key])


def regression_columns(prefix: str, bounded: Sequence[str], problem: str,
                       regressions: Sequence[str]) -> tuple[Any, list[str], bool]:
    """(response or None, predictor or location columns, intercept) for ``problem``, among the ``bounded`` columns
    (declared public bounds): a response and predictors for a regression, one column for a quantile, several
    (one per coordinate) otherwise. Keys ``<prefix>_y``, ``_x``, ``_intercept``, ``_col``, ``_cols``."""
    y_col, intercept = None, True
    if problem in regressions:
        r1, r2, r3 = st.columns([2, 3, 1])
        y_col = r1.selectbox("Response y", offered(f"{prefix}_y", bounded, bounded[-1]), key=f"{prefix}_y")
        others = [c for c in bounded if c != y_col]
        xs = r2.multiselect("Predictors x", offered(f"{prefix}_x", others, others), key=f"{prefix}_x")
        intercept = r3.checkbox("Intercept", key=f"{prefix}_intercept")
    elif problem == "quantile":
        xs = [st.selectbox("Column", offered(f"{prefix}_col", bounded, bounded[0]), key=f"{prefix}_col")]
    else:
        xs = st.multiselect("Columns (one per coordinate of θ)", offered(f"{prefix}_cols", bounded, bounded[:1]),
                            key=f"{prefix}_cols")
    return y_col, xs, intercept


def histogram_modes(ds: Any, prefix: str = "h") -> tuple[list[str], dict[str, str], dict[str, int]]:
    """(columns, {column: how it becomes cells}, {column: bins}) for a histogram of one column of ``ds`` or two
    crossed (key ``<prefix>_cols``; the page stops, saying why, until one is chosen): one cell per integer (the
    default when the column's PUBLIC bounds are whole numbers at most histograms.INTEGER_MAX_LEVELS apart — a rule
    on the bounds, never on the data), equal bins over the public bounds, or the categories present (read from
    the data: dpcore.histograms says so). Keys ``<prefix>_mode_<column>`` and ``<prefix>_bins_<column>``."""
    allc = list(ds.frame.columns)
    first = ([c for c in allc if c in ds.bounds] or [c for c in allc if c not in ds.numeric_columns])[:1]
    cols = st.multiselect("One column, or two (crossed)", offered(f"{prefix}_cols", allc, first), max_selections=2,
                          key=f"{prefix}_cols")
    if not cols:
        st.info("Choose a categorical column (or a numeric one to bin over its public bounds).")
        st.stop()
    modes, bins = {}, {}
    for c in cols:
        m1, m2 = st.columns(2)
        opts = ((("integers",) if histograms.default_mode(ds.bounds[c]) == "integers" else ())
                + ("bins", "categories")) if c in ds.bounds else ("categories",)
        modes[c] = m1.radio(**plain_label(f"{c} as", m1), options=offered(kept(f"{prefix}_mode_{c}"), opts, opts[0]),
                            horizontal=True, key=f"{prefix}_mode_{c}", format_func=MODE_NAMES.get, help=(
                                "Default: one cell per integer when the column's public bounds are whole numbers at "
                                f"most {histograms.INTEGER_MAX_LEVELS} apart (a rule on the bounds, never on the data: "
                                "survey codes, counts); choose equal bins for a continuous column."))
        if modes[c] == "bins":
            bins[c] = m2.number_input(**plain_label(f"bins of {c} over its public bounds", m2), min_value=1,
                                      max_value=10_000, value=10, key=kept(f"{prefix}_bins_{c}"))
    return cols, modes, bins

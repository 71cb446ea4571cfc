"""Widgets and their state: the ε input, settings kept across pages (persist, kept, offered), parameter names
as users read them (greek), user-facing errors (show_error) and the educational banner.

Owns the ``_keep::<key>`` copies of the pages' widget values and the page-this-run keys (:func:`note_page`).
Must never: draw a release, a budget or a chart, hold anything at module level that changes, or use
``st.cache_*`` (a widget's value may be a user's choice about their data).
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore.numbers import number
from dpcore.links import EPSILON_CHOICES  # the one definition (log-spaced, 0.01 … 10⁶)

PAGE_KEY, PREV_PAGE_KEY = "_dp_page", "_dp_prev_page"  # the page this run shows, and the previous run's


BANNER_TEXT = (
    "**Educational / research tool.** DP Mechanism Explorer shows how differential-privacy "
    "mechanisms behave. Integer releases and the Laplace/Gaussian noise mechanisms use exact discrete "
    "samplers; the other floating-point samplers, MCMC draws and timing side channels are not hardened "
    "for production releases (the list, per mechanism, is in the docs' “What is hardened”): do not use "
    "its outputs to publish statistics about real people."
)


def epsilon_input(label: str = "ε", *, key: str, default: float = 1.0, help: str | None = None,
                  typed: bool = False) -> float:
    """ε as a log-scale slider over :data:`EPSILON_CHOICES` (0.01 … 10⁶); with ``typed=True`` also a
    number field (``key + "_typed"``, any ε > 0) kept in step with the slider — the typed value wins.

    ``typed=True`` uses widget callbacks, so it cannot sit inside an ``st.form``. Warns when ε > 10.
    Returns a Python float.
    """
    ss = st.session_state
    # kept while not drawn (a view or source switch: issue 20); real defaults, so that persist's type check replaces
    # a remembered value of another type (a session file's ``_keep::h_eps_typed = "boom"``)
    typed_key = f"{key}_typed"
    persist(**{key: _nearest_choice(default), typed_key: float(default)})
    if ss[key] not in EPSILON_CHOICES:          # a number, but not one the slider offers
        ss[key] = _nearest_choice(ss[key])
    if not 1e-6 <= float(ss[typed_key]) <= 1e9:    # outside the typed field's range
        ss[typed_key] = float(default)
    tip = help or "Privacy-loss parameter (log scale). Smaller ε: more privacy, more noise."
    if not typed:
        eps = st.select_slider(label, options=EPSILON_CHOICES, key=key, format_func=number, help=tip)
    else:
        def slid():
            ss[typed_key] = float(ss[key])

        def retyped():
            ss[key] = _nearest_choice(ss[typed_key])

        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")   # room for the typed ε (e.g. 100000)
        c1.select_slider(label, options=EPSILON_CHOICES, key=key, format_func=number, on_change=slid,
                         help=tip)
        eps = c2.number_input(f"{label} (typed)", min_value=1e-6, max_value=1e9, key=typed_key, format="%g",
                              on_change=retyped, help="Type any ε > 0.")
    warning = P.epsilon_warning(float(eps))
    if warning:
        st.warning(greek(warning))
    return float(eps)


def _nearest_choice(x: float) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 1.0
    if not np.isfinite(x) or x <= 0:
        return 1.0
    return min(EPSILON_CHOICES, key=lambda c: abs(np.log(c) - np.log(x)))


GREEK = {"epsilon": "ε", "delta": "δ", "rho": "ρ", "tau": "τ", "theta": "θ"}


def greek(text: str) -> str:
    """Parameter names as users read them: ``epsilon`` → ε, ``delta`` → δ, ``rho`` → ρ, ``tau`` → τ,
    ``theta`` → θ (whole words only)."""
    return re.sub(r"\b(epsilon|delta|rho|tau|theta)\b", lambda m: GREEK[m.group(1)], text)


def show_error(exc: BaseException) -> None:
    """A user-facing error (``st.error``): the message of a ValueError (DPValueError, DataError), never
    a traceback. Other exception types get a generic message with their type."""
    if isinstance(exc, ValueError):
        msg = greek(str(exc) or type(exc).__name__)
    else:
        msg = f"Unexpected error ({type(exc).__name__}). Please report it with the steps that led here."
    st.error(dpdata.escape_markdown(msg), icon=":material/error:")
    if getattr(exc, "nonprivate", None):          # values read from the data (DataError): in the labelled box only
        with nonprivate("What the data hold (why this was refused)"):
            for what, value in exc.nonprivate.items():  # type: ignore[union-attr]
                st.caption(dpdata.literal(f"{what}: {value}"))


@contextmanager
def errors_shown(stop: bool = True) -> Iterator[None]:
    """Show a ValueError raised in the block as :func:`show_error` does and, with ``stop`` (default), stop the page
    there (``st.stop()``); without it the page goes on after the block. Other exceptions pass through.

    The pages' ``try: … except ValueError as exc: ui.show_error(exc); st.stop()``: a bad setting (a DPValueError
    naming the field, the value and the fix) or a file that cannot be read is said where it happened."""
    try:
        yield
    except ValueError as exc:
        show_error(exc)
        if stop:
            st.stop()



def educational_banner(compact: bool = False) -> None:
    """The 'educational/research tool' notice (compact: one caption line, e.g. for the sidebar)."""
    if compact:
        st.caption("Educational/research tool: floating-point samplers are not hardened for production releases.")
    else:
        st.warning(BANNER_TEXT, icon=":material/school:")


def note_page(name: str) -> None:
    """Record which page this run shows (app.py calls it every run; :func:`persist` reads it)."""
    ss = st.session_state
    ss[PREV_PAGE_KEY], ss[PAGE_KEY] = ss.get(PAGE_KEY), name


def persist(**defaults: Any) -> None:
    """Keep widgets' values when the user leaves the page and comes back (Streamlit forgets the state
    of widgets a run does not draw). Call before drawing them, with each key's default (None: none);
    then draw the widgets WITHOUT ``value=``/``index=`` (the default lives in the session state).
    """
    ss = st.session_state
    came_back = ss.get(PREV_PAGE_KEY) != ss.get(PAGE_KEY)  # the widgets' states are stale
    for k, default in defaults.items():
        store = f"_keep::{k}"
        if store in ss and default is not None and not _same_kind(ss[store], default):
            ss[store] = default            # e.g. a resumed session file naming a value of another type
        if store in ss and (came_back or k not in ss):
            ss[k] = ss[store]
        elif k not in ss and default is not None:
            ss[k] = default
        if k in ss:
            ss[store] = ss[k]


def _same_kind(value: Any, default: Any) -> bool:
    """Whether a remembered value can stand for ``default`` in its widget (bool, whole number, number, text, list)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, (int, np.integer)):
        return isinstance(value, (int, np.integer))
    if isinstance(default, (float, np.floating)):
        return isinstance(value, (int, float, np.integer, np.floating)) and bool(np.isfinite(value))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def kept(key: str) -> str:
    """``key``, for a widget drawn only under some choice (a view, a data source, a simulator, a mechanism):
    Streamlit forgets the state of a widget a run does not draw, so switching away and back would re-create it
    at its default (issue 20: the KNG draws). Its value is remembered (:func:`persist`) and given back when it
    is drawn again. Use as ``st.number_input(..., key=ui.kept(f"x_{choice}"))``."""
    persist(**{key: None})
    return key


def offered(key: str, options: Sequence[Any], default: Any) -> Sequence[Any]:
    """For a selectbox/multiselect drawn with ``key``: drop a remembered choice that is no longer among
    ``options`` (``default`` instead: a value, or a list for a multiselect). Returns ``options``."""
    ss = st.session_state
    v = ss.get(key)
    if isinstance(default, list):
        kept = [x for x in v if x in options] if isinstance(v, list) else []
        ss[key] = kept if kept or v == [] else list(default)  # (an empty choice made by the user stays empty)
    elif v not in options:
        ss[key] = default
    return options


NONPRIVATE = "Not private"


@contextmanager
def nonprivate(title: str = "Non-private diagnostics") -> Iterator[Any]:
    """A bordered box, labelled NOT PRIVATE, for anything computed from the data that is not part of
    a release (θ̂, clipping and imputation counts, MCMC diagnostics, densities)."""
    box = st.container(border=True)
    with box:
        st.markdown(f"**{title}** · :orange-badge[{NONPRIVATE}]")
        st.caption("Computed from the data and shown as is: not part of any release, not differentially "
                   "private.")
        yield box


def plain_label(text: str, where: Any = None) -> dict[str, Any]:
    """A widget label holding user text (a column name): shown literally just above the widget (Markdown-escaped, in
    ``where``: the widget's column, default the current container) and given to the widget as plain text — its
    accessible name — with the widget's own label collapsed (issue 32: an escaped label read "threshold for
    my\\_column" to a screen reader). Use as ``st.number_input(**ui.plain_label(f"threshold for {c}"), key=...)``."""
    (where or st).markdown(dpdata.literal(text))
    return {"label": text, "label_visibility": "collapsed"}


def workload_picker() -> Any:
    """The query-release lab's workload (kind and its sizes; keys ``qr_kind``, ``qr_d``, ``qr_w``, ``qr_N``, ``qr_k``,
    ``qr_U``, ``qr_ck``, ``qr_r``): a :mod:`dpcore.query_release` workload declaration, not yet built."""
    from dpcore import query_release as Q

    c1, c2, c3 = st.columns(3)
    kind = c1.selectbox("Workload", list(Q.WORKLOAD_KINDS), format_func=Q.WORKLOAD_KINDS.get, key="qr_kind")
    with errors_shown():
        if kind == "marginals":
            return Q.Marginals(c2.number_input("d (attributes)", 2, 11, key="qr_d", help=Q.MAX_D_HELP),
                               c3.number_input("w (order)", 1, 3, key="qr_w"))
        if kind == "thresholds":
            return Q.Thresholds(c2.number_input("N (domain size)", 2, 4096, key="qr_N"))
        if kind == "signs":
            return Q.RandomSigns(c2.number_input("k (queries)", 2, 512, key="qr_k"),
                                 c3.number_input("|U|", 2, 4096, key="qr_U"))
        return Q.Cone(c2.number_input("k (dimension)", 10, 2000, key="qr_ck"),
                      r=c3.number_input("r (cone radius)", 0.01, 0.05, key="qr_r", help=Q.MAX_CONE_R_HELP))


def schema_rules(ds: dpdata.Dataset, columns: Sequence[str]) -> list[Any] | None:
    """The public schema of a marginals release, one :class:`dpcore.query_release.ColumnRule` per column: a typed
    threshold for a numeric column (key ``qr_t_<column>``), typed categories for a text one (``qr_c_<column>``).
    Labels are plain text (:func:`plain_label`). None (with a note) while a text column has no category yet."""
    from dpcore import query_release as Q

    rules = []
    for c in columns:
        if c in ds.numeric_columns:
            rules.append(Q.ColumnRule(c, threshold=st.number_input(**plain_label(f"threshold for {c}"), value=0.0,
                                                                   key=f"qr_t_{c}")))
            continue
        typed = st.text_input(**plain_label(f"categories of {c} mapped to 1 (comma-separated)"), key=f"qr_c_{c}")
        cats = tuple(x.strip() for x in typed.split(",") if x.strip())
        if not cats:
            st.info(dpdata.literal(f"Type the public categories of {c} that map to 1."))
            return None
        rules.append(Q.ColumnRule(c, categories=cats))
    return rules

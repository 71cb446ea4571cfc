"""The Data page's declaration of public bounds: ONE form for every chosen column (lower, upper, imputation value),
submitted once — one rerun for the whole table instead of one per typed bound (issue 32 item 6) — and the
conveniences that fill it: a codebook (a built-in table's documented ranges, or the user's codebook CSV: source
"codebook", a declaration) and, only after the user ticks that it leaks, a column's min/max (source "from data").

Owns the bound widgets' keys (``data_{lo,hi,imp}_<load>_<column hash>``), the load counter that renews them
(:data:`LOAD_ID`), the codebook uploader and the pending imputation value. Must never: change a declared bound
(a value the form refuses stays in its field, with an error naming the field, the value and the fix, and the
dataset keeps its previous bounds), fill a bound from the data unless the user ticked "Allow filling bounds from
the data", mark data-derived bounds as anything but "from data", or write into a codebook-filled field anything but
the codebook's value.
"""
from __future__ import annotations

import hashlib

import streamlit as st

from dpcore import data as dpdata
from dpcore.data import codebook as dpcodebook
from ui.widgets import errors_shown, show_error
from ui.workspace import get_dataset, set_dataset

LOAD_ID = "data_load_id"                # bumped when a new dataset is loaded: fresh bound widgets
IMPUTE_PENDING = "data_impute_pending"  # (column, released private mean) to put in its imputation field
COLUMNS_KEY = "data_columns"            # the multiselect of the columns to use
FILL_ERROR = "data_fill_error"
FILL_NOTE = "data_fill_note"
SUBMIT_KEY = "data_bounds_submit"
esc = dpdata.escape_markdown


def _load_id() -> int:
    return st.session_state.get(LOAD_ID, 0)


def keys_of(col: str) -> tuple[str, str, str]:
    """The widget keys (lower, upper, imputation value) of ``col``'s row for the dataset loaded now."""
    tag = hashlib.sha256(col.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return tuple(f"data_{w}_{_load_id()}_{tag}" for w in ("lo", "hi", "imp"))   # type: ignore[return-value]


def _show_filled(ds: dpdata.Dataset, columns) -> None:
    """Put the dataset's bounds of ``columns`` into their fields (callbacks: before the widgets are drawn)."""
    ss = st.session_state
    for col in columns:
        (ss[keys_of(col)[0]], ss[keys_of(col)[1]]), ss[keys_of(col)[2]] = ds.bounds[col], None
    ss[COLUMNS_KEY] = list(dict.fromkeys([*ss.get(COLUMNS_KEY, []), *columns]))


def _fill_from_data(col: str) -> None:
    """Button callback: ``col``'s bounds read off its min/max, marked "from data" (the user ticked the leak)."""
    try:
        set_dataset(ds := get_dataset().with_bounds_from_data(col))     # type: ignore[union-attr]
        _show_filled(ds, [col])
    except ValueError as exc:
        st.session_state[FILL_ERROR] = str(exc)


def _fill_from_codebook(codebook_of) -> None:
    """Button callback: every column the codebook names declared at exactly its range (source "codebook")."""
    ss = st.session_state
    try:
        ds, filled, unknown = dpcodebook.apply_codebook(get_dataset(), cb := codebook_of())   # type: ignore[arg-type]
    except ValueError as exc:
        ss[FILL_ERROR] = str(exc)
        return
    if not filled:
        ss[FILL_ERROR] = (f"{cb.origin} names none of this dataset's numeric columns (it names "
                          f"{', '.join(map(repr, unknown))}); check the spelling of the column names.")
        return
    set_dataset(ds)
    _show_filled(ds, filled)
    ss[FILL_NOTE] = " ".join([f"Filled {len(filled)} column(s) from {cb.origin}: {', '.join(filled)} (source "
                              "“codebook”: declared, not read from the data)."]
                             + ([f"Not columns of this dataset, left out: {', '.join(unknown)}."] if unknown else [])
                             + list(cb.notes))


def _uploaded_codebook(key: str):
    up = st.session_state.get(key)
    if up is None:
        raise ValueError("no codebook file chosen; choose a CSV with the columns column, lower, upper first.")
    return dpcodebook.read_codebook(up.getvalue(), name=up.name)


def codebook_panel(ds: dpdata.Dataset) -> None:
    """"Fill from the codebook": a built-in table's documented ranges, or an uploaded codebook CSV."""
    ss, name = st.session_state, dpcodebook.builtin_name(ds)
    if name is not None:
        st.button("Fill from the codebook (the table's documented public ranges)", key="data_codebook_builtin",
                  icon=":material/menu_book:", on_click=_fill_from_codebook,
                  args=(lambda: dpcodebook.builtin_codebook(name),))
    else:
        with st.expander("Fill from a codebook (CSV: column, lower, upper)"):
            st.caption("A codebook states each column's possible range from what it measures (a survey's "
                       "documentation, a data dictionary), written without looking at the values. Its ranges are "
                       "filled in exactly as written, marked “codebook” (a declaration); columns it does not name "
                       "are left as they are — never filled from the data.")
            key = f"data_codebook_file_{_load_id()}"
            st.file_uploader("Codebook file (CSV, header as above)", type=["csv", "txt", "tsv"], key=key,
                             max_upload_size=1)
            st.button("Fill from this codebook", key="data_codebook_go", icon=":material/menu_book:",
                      on_click=_fill_from_codebook, args=(lambda: _uploaded_codebook(key),))
    if FILL_NOTE in ss:
        st.success(esc(ss.pop(FILL_NOTE)), icon=":material/menu_book:")


def leak_option(columns: list[str]) -> None:
    """"Allow filling bounds from the data (leaks!)" and, once ticked, a column's "Fill from data" button."""
    if not st.checkbox("Allow filling bounds from the data (leaks!)", key=f"data_allow_leak_{_load_id()}"):
        return
    st.warning("Bounds filled from the data are the values of single records (the smallest and the largest); "
               "such columns are marked **from data**, and releases using them are **not** differentially "
               "private. Use this only to explore.", icon=":material/warning:")
    if columns:
        c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
        col = c1.selectbox("Column to fill from its min and max", columns, key=f"data_fill_col_{_load_id()}")
        c2.button("Fill from data", key="data_fill_go", on_click=_fill_from_data, args=(col,))


def _row(ds: dpdata.Dataset, col: str) -> dpdata.Dataset:
    ss, keys = st.session_state, keys_of(col)
    pending = ss.get(IMPUTE_PENDING)
    if pending is not None and pending[0] == col:   # a private mean just released for this column: fill with it
        ss[keys[2]] = ss.pop(IMPUTE_PENDING)[1]
    if col in ds.bounds:  # prefill from the dataset (e.g. coming back from another page)
        (lo, hi), imp = ds.bounds[col], ds.impute_value(col)
        for key, v in zip(keys, (lo, hi, None if imp == lo + (hi - lo) / 2 else imp)):
            ss.setdefault(key, v)
    c_name, c_lo, c_hi, c_imp = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    lo = c_lo.number_input("lower", value=None, key=keys[0], format="%g", placeholder="public lower bound")
    hi = c_hi.number_input("upper", value=None, key=keys[1], format="%g", placeholder="public upper bound")
    imp = c_imp.number_input("impute missing with", value=None, key=keys[2], format="%g", placeholder="midpoint")
    with errors_shown(stop=False):       # an invalid entry: its error here, the dataset keeps its previous bounds
        if (new := ds.edit_bounds(col, lo, hi, imp)) is not ds:
            set_dataset(ds := new)
    source = ds.bound_source(col)              # (after this run's declaration)
    c_name.markdown(f"**{esc(col)}**" + (f"  \n:gray[{esc(source)}]" if source else ""))
    if col not in ds.bounds:
        st.caption(f"Enter both bounds for {esc(col)} to use it in a mechanism.")
    elif warning := dpdata.bounds_warning(ds, col):
        st.warning(esc(warning), icon=":material/warning:")
    return ds


def bounds_form(ds: dpdata.Dataset, columns: list[str]) -> dpdata.Dataset:
    """Every chosen column's bounds and imputation value in one form: "Declare these bounds" (or Enter in a field)
    submits them all in one rerun. Returns the dataset with the bounds the form declares."""
    ss = st.session_state
    if FILL_ERROR in ss:
        show_error(ValueError(ss.pop(FILL_ERROR)))
    if not columns:
        return ds
    with st.form(f"data_bounds_form_{_load_id()}"):
        st.caption("Type the bounds of every column, then declare them together (one click, or Enter in a field). "
                   "A bound is a declaration: a value the form cannot accept stays in its field with a message, "
                   "and the column keeps its previous bounds. Under each name: where its bounds came from.")
        for col in columns:
            ds = _row(ds, col)
        st.form_submit_button("Declare these bounds", key=SUBMIT_KEY, type="primary", icon=":material/check:")
    return ds

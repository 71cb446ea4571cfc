"""Data: upload or simulate a dataset, choose columns, declare public bounds, see clipping.

The dataset lives in this browser session only (``ui.set_dataset`` → ``st.session_state``);
no cache, no module-level mutable state. Column names are user input: they are shown through
``st.dataframe``/widgets or escaped Markdown, never as HTML.
"""
import dataclasses
import hashlib

import pandas as pd
import streamlit as st

from dpcore import data as dpdata
from pages import _components as ui

ss = st.session_state
esc = dpdata.escape_markdown
LOAD_ID = "data_load_id"          # bumped when a new dataset is loaded: fresh bound widgets
UPLOAD_SEEN = "data_upload_seen"  # (file_id, error message or None) of the last upload handled
MAX_UPLOAD_MB = 50                # = server.maxUploadSize and load_csv's max_bytes
MAX_SIM_N = 200_000               # per-session memory cap for simulated data
MAX_SIM_D = 20


def _new_dataset(ds: dpdata.Dataset) -> None:
    ui.set_dataset(ds)
    ss[LOAD_ID] = ss.get(LOAD_ID, 0) + 1
    ss["data_columns"] = [c for c in ds.numeric_columns if c in ds.bounds] or list(ds.numeric_columns[:1])


def _upload() -> None:
    up = st.file_uploader("CSV file: comma, semicolon, tab or | separated; UTF-8, UTF-16 or Windows-1252",
                          type=["csv", "txt", "tsv"], key="data_upload", max_upload_size=MAX_UPLOAD_MB)
    if up is None:
        return
    seen = ss.get(UPLOAD_SEEN)
    if seen is None or seen[0] != up.file_id:  # a new file: load it once
        try:
            ds = dpdata.load_csv(up.getvalue(), name=up.name, max_bytes=MAX_UPLOAD_MB * 2**20)
        except ValueError as exc:  # DataError
            ss[UPLOAD_SEEN] = (up.file_id, str(exc))
        else:
            ss[UPLOAD_SEEN] = (up.file_id, None)
            _new_dataset(ds)
    if ss[UPLOAD_SEEN][1]:
        ui.show_error(ValueError(ss[UPLOAD_SEEN][1]))


def _simulate() -> None:
    kind = st.selectbox("Simulator", list(dpdata.SIMULATORS), key="data_sim_kind",
                        format_func=lambda k: dpdata.SIMULATORS[k].label)
    info = dpdata.SIMULATORS[kind]
    st.caption(esc(info.description))
    widgets = [("n", 1000)] + [(k, v) for k, v in info.defaults.items() if v is not None]
    params = {}
    for col, (name, default) in zip(st.columns(len(widgets)), widgets):
        with col:
            if name == "n":
                n = st.number_input("n (rows)", 1, MAX_SIM_N, default, step=100, key="data_sim_n")
            elif isinstance(default, int):
                params[name] = st.number_input(name, 2, MAX_SIM_D, default, key=f"data_sim_{kind}_{name}")
            else:
                params[name] = st.number_input(name, value=float(default), format="%g",
                                               key=f"data_sim_{kind}_{name}")
    seed = ui.current_seed("simulate", kind, int(n), tuple(sorted(params.items())))
    if st.button("Generate dataset", key="data_sim_go", type="primary", icon=":material/casino:"):
        try:
            _new_dataset(dpdata.simulate_dataset(kind, int(n), rng=seed, **params))
        except ValueError as exc:
            ui.show_error(exc)
    st.caption(f"Uses seed {seed} (sidebar). Simulated data is synthetic; its bounds come from the "
               "simulator's design, not from the sample.")


def _fill_from_data(ds: dpdata.Dataset, col: str, lo_key: str, hi_key: str) -> None:
    """Button callback (runs before the widgets are drawn, so it may set their values)."""
    try:
        values, _ = dpdata.column_values(ds, col, min_rows=1)
        lo, hi, warning = dpdata.bounds_from_data(values, column=col)
    except ValueError as exc:
        ss["data_fill_error"] = str(exc)
        return
    ss[lo_key], ss[hi_key] = lo, hi
    ui.mark_leaky_bounds(ds, col, lo, hi, warning)


def _bounds_editor(ds: dpdata.Dataset, columns: list[str]) -> dpdata.Dataset:
    load_id = ss.get(LOAD_ID, 0)
    allow_leak = st.checkbox("Allow filling bounds from the data (leaks!)", key=f"data_allow_leak_{load_id}")
    if allow_leak:
        st.warning("Bounds computed from the data are the values of single records (the smallest and "
                   "the largest). Releases that use them are **not** differentially private. Use this "
                   "only to explore, never for a real release.", icon=":material/warning:")
    if "data_fill_error" in ss:
        ui.show_error(ValueError(ss.pop("data_fill_error")))
    for col in columns:
        tag = hashlib.sha256(col.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        lo_key, hi_key = f"data_lo_{load_id}_{tag}", f"data_hi_{load_id}_{tag}"
        stored = ds.bounds.get(col)
        if stored is not None:  # prefill from the dataset (e.g. coming back from another page)
            ss.setdefault(lo_key, float(stored[0]))
            ss.setdefault(hi_key, float(stored[1]))
        c_name, c_lo, c_hi, c_fill = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
        c_name.markdown(f"**{esc(col)}**")
        lo = c_lo.number_input("lower", value=None, key=lo_key, format="%g", placeholder="public lower bound")
        hi = c_hi.number_input("upper", value=None, key=hi_key, format="%g", placeholder="public upper bound")
        if allow_leak:
            c_fill.button("Fill from data", key=f"data_fill_{load_id}_{tag}", on_click=_fill_from_data,
                          args=(ds, col, lo_key, hi_key))
        if lo is None or hi is None:
            if stored is not None:  # the user cleared a bound: the column has none any more
                ds = dataclasses.replace(ds, bounds={c: b for c, b in ds.bounds.items() if c != col})
                ui.set_dataset(ds)
            st.caption(f"Enter both bounds for {esc(col)} to use it in a mechanism.")
            continue
        if stored is None or (float(stored[0]), float(stored[1])) != (float(lo), float(hi)):
            try:
                ds = ds.with_bounds(col, lo, hi)
            except ValueError as exc:
                ui.show_error(exc)
                continue
            ui.set_dataset(ds)
        leak = ui.leaky_bounds_warning(ds, col)
        if leak:
            st.warning(esc(leak), icon=":material/warning:")
    return ds


def _clip_reports(ds: dpdata.Dataset, columns: list[str]) -> None:
    rows = []
    for col in columns:
        if col not in ds.bounds:
            continue
        try:
            values, messages = dpdata.column_values(ds, col, min_rows=1)
            _, rep = dpdata.clip_to_bounds(values, *ds.bounds[col], column=col)
        except ValueError as exc:
            ui.show_error(exc)
            continue
        for m in messages:
            st.info(esc(m))
        rows.append({"column": col, "lower": rep.lower, "upper": rep.upper, "values": rep.n_total,
                     "below lower": rep.n_below, "above upper": rep.n_above, "clipped": rep.fraction})
    if rows:
        st.markdown("**Clipping report**")
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={"clipped": st.column_config.NumberColumn(format="percent")})
        st.caption("Values outside the public bounds are clipped to them before any mechanism runs "
                   "(never dropped, never used to move the bounds). Heavy clipping biases estimates: "
                   "widen the bounds only for reasons that do not come from this data.")


def _show_dataset(ds: dpdata.Dataset) -> None:
    st.subheader("Current dataset")
    st.markdown(f"**{esc(ds.name or 'unnamed')}**: {ds.n_rows:,} rows × {ds.frame.shape[1]} columns, "
                f"{len(ds.numeric_columns)} numeric.")
    st.caption(esc(ds.provenance))
    if ds.notes:
        st.info("  \n".join(esc(n) for n in ds.notes), icon=":material/info:")
    st.dataframe(ds.frame.head(200), width="stretch")
    if ds.n_rows > 200:
        st.caption(f"First 200 of {ds.n_rows:,} rows.")

    st.subheader("Columns and public bounds")
    if not ds.numeric_columns:
        st.error("This dataset has no numeric column, and the mechanisms need numbers. Check the "
                 "file's separator and decimal mark, or mark missing cells as empty or NA.")
        return
    if "data_columns" in ss:  # keep the user's choice, minus columns this dataset lacks
        ss["data_columns"] = [c for c in ss["data_columns"] if c in ds.numeric_columns]
    else:  # first visit, or back from another page: the columns that have bounds
        ss["data_columns"] = [c for c in ds.numeric_columns if c in ds.bounds] or list(ds.numeric_columns[:1])
    columns = st.multiselect("Numeric columns to use", list(ds.numeric_columns), key="data_columns")
    with st.expander("Why must the bounds be public?", expanded=not ds.bounds):
        st.markdown(
            "A mechanism's noise is calibrated to its **sensitivity**: how much one person's record "
            "can move the statistic. Once values are clipped to a range [lower, upper] fixed in "
            "advance, one record moves a mean by at most (upper − lower)/n, whoever that person is. "
            "Bounds read off the data (its minimum and maximum) are themselves values of individual "
            "records: a release calibrated to them reveals the extreme records and voids the "
            "guarantee. Take bounds from domain knowledge (age in [0, 120]), a codebook or a "
            "separate public dataset."
        )
    ds = _bounds_editor(ds, columns)
    _clip_reports(ds, columns)


st.title("Data")
st.markdown("Load a dataset for this session, by uploading a CSV or simulating one, then choose "
            "numeric columns and declare their **public bounds**. The data stays in your browser "
            "session: other users never see it, and it is not written to disk.")

source = st.radio("Source", ["Upload a CSV", "Simulate a dataset"], key="data_source", horizontal=True)
if source == "Upload a CSV":
    _upload()
else:
    _simulate()

current = ui.get_dataset()
if current is None:
    st.info("No dataset loaded yet.")
else:
    _show_dataset(current)

"""Data: a built-in example, an upload (CSV/xlsx) or a simulation; public bounds and imputation values. The dataset
lives in this session (on the server only if "keep my data" is ticked); its budget in the workspace. Text escaped."""
# nav: title="Data" icon=":material/table_chart:" order=10
import hashlib

import numpy as np
import streamlit as st

from dpcore import data as dpdata
from dpcore import export
from dpcore import kng
from dpcore import privacy as P
from dpcore.data import impute
import ui

ss = st.session_state
esc = dpdata.escape_markdown
LOAD_ID = "data_load_id"          # bumped when a new dataset is loaded: fresh bound widgets
UPLOAD_SEEN = "data_upload_seen"  # (file_id, error message or None) of the last upload handled
MAX_UPLOAD_MB = 50                # = server.maxUploadSize and the loaders' max_bytes
# Per-session memory caps for simulated data, and the simulators offered (dpcore.data's univariate laws and the KNG
# paper's regression designs): declared beside the page's links, which check a link's values against them.
from ui.links import MAX_SIM_D, MAX_SIM_N, SIMULATORS  # noqa: E402
IMPUTE_PENDING = "data_impute_pending"  # (column, released private mean) to put in its imputation field


def _new_dataset(ds: dpdata.Dataset | None) -> None:
    ui.set_dataset(ds)
    ui.open_budget(ds)  # a user's data: its budget in the workspace (the same people loaded before: its spending)
    ss[LOAD_ID] = ss.get(LOAD_ID, 0) + 1
    ss.pop("data_columns", None)


def _upload() -> None:
    up = st.file_uploader("CSV (comma, semicolon, tab or | separated) or Excel workbook (.xlsx)",
                          key="data_upload", max_upload_size=MAX_UPLOAD_MB)
    if up is not None and ss.get(UPLOAD_SEEN, (None,))[0] != up.file_id:  # a new file: load it once
        bar = st.empty()  # progress: each update is where a newer rerun stops a stale load
        try:
            _new_dataset(dpdata.load_file(up.getvalue(), name=up.name, max_bytes=MAX_UPLOAD_MB * 2**20,
                                          progress=ui.progress(bar, "Reading the file")))
            ss[UPLOAD_SEEN] = (up.file_id, None)
        except ValueError as exc:  # DataError: shown, the previous dataset stays
            ss[UPLOAD_SEEN] = (up.file_id, str(exc))
        bar.empty()
    if up is not None and ss[UPLOAD_SEEN][1]:
        ui.show_error(ValueError(ss[UPLOAD_SEEN][1]))


def _simulate() -> None:
    kind = st.selectbox("Simulator", list(SIMULATORS), key="data_sim_kind", format_func=lambda k: SIMULATORS[k].label)
    info = SIMULATORS[kind]
    st.caption(esc(info.description))
    widgets = [("n", 1000)] + [(k, v) for k, v in info.defaults.items() if v is not None]
    params = {}
    for col, (name, default) in zip(st.columns(len(widgets)), widgets):
        if name == "n":
            ui.persist(data_sim_n=default)       # (defaults in the session state, not value=: a link may set them)
            n = col.number_input("n (rows)", 1, MAX_SIM_N, step=100, key="data_sim_n")
        elif isinstance(default, int):
            ui.persist(**{f"data_sim_{kind}_{name}": default})
            params[name] = col.number_input(name, 2, MAX_SIM_D, key=f"data_sim_{kind}_{name}")
        else:
            ui.persist(**{f"data_sim_{kind}_{name}": float(default)})
            params[name] = col.number_input(name, format="%g", key=f"data_sim_{kind}_{name}")
    seed = ui.current_seed("simulate", kind, int(n), tuple(sorted(params.items())))
    if st.button("Generate dataset", key="data_sim_go", type="primary", icon=":material/casino:"):
        with ui.errors_shown(stop=False):
            simulate = kng.simulate_regression_dataset if kind in kng.REGRESSION_SIMULATORS else dpdata.simulate_dataset
            _new_dataset(simulate(kind, int(n), rng=seed, **params))
    st.caption(f"Uses seed {seed} (sidebar). Simulated data is synthetic; its bounds come from the "
               "simulator's design, not from the sample.")


def _fill_from_data(col: str, keys: tuple[str, str, str]) -> None:
    """Button callback (runs before the widgets are drawn, so it may set their values)."""
    try:
        ui.set_dataset(ds := ui.get_dataset().with_bounds_from_data(col))
        (ss[keys[0]], ss[keys[1]]), ss[keys[2]] = ds.bounds[col], None
    except ValueError as exc:
        ss["data_fill_error"] = str(exc)


def _bounds_row(ds: dpdata.Dataset, col: str, allow_leak: bool) -> dpdata.Dataset:
    tag = hashlib.sha256(col.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    keys = tuple(f"data_{w}_{ss.get(LOAD_ID, 0)}_{tag}" for w in ("lo", "hi", "imp"))
    pending = ss.get(IMPUTE_PENDING)
    if pending is not None and pending[0] == col:   # a private mean just released for this column: fill with it
        ss[keys[2]] = ss.pop(IMPUTE_PENDING)[1]
    if col in ds.bounds:  # prefill from the dataset (e.g. coming back from another page)
        (lo, hi), imp = ds.bounds[col], ds.impute_value(col)
        for key, v in zip(keys, (lo, hi, None if imp == lo + (hi - lo) / 2 else imp)):
            ss.setdefault(key, v)
    c_name, c_lo, c_hi, c_imp, c_fill = st.columns([3, 2, 2, 2, 2], vertical_alignment="bottom")
    c_name.markdown(f"**{esc(col)}**")
    lo = c_lo.number_input("lower", value=None, key=keys[0], format="%g", placeholder="public lower bound")
    hi = c_hi.number_input("upper", value=None, key=keys[1], format="%g", placeholder="public upper bound")
    imp = c_imp.number_input("impute missing with", value=None, key=keys[2], format="%g", placeholder="midpoint")
    if allow_leak:
        c_fill.button("Fill from data", key=f"data_fill_{keys[0]}", on_click=_fill_from_data, args=(col, keys))
    with ui.errors_shown(stop=False):
        if (new := ds.edit_bounds(col, lo, hi, imp)) is not ds:
            ui.set_dataset(ds := new)
    if col not in ds.bounds:
        st.caption(f"Enter both bounds for {esc(col)} to use it in a mechanism.")
    elif warning := dpdata.bounds_warning(ds, col):
        st.warning(esc(warning), icon=":material/warning:")
    return ds


def _diagnostics(ds: dpdata.Dataset, columns: list[str]) -> None:
    try:
        frame, messages = dpdata.diagnostics_frame(ds, columns)
    except ValueError as exc:
        return ui.show_error(exc)
    if len(frame):
        with st.container(border=True):
            st.markdown(f"**{dpdata.NON_PRIVATE_LABEL}** (computed from the data: not private, never released)")
            st.dataframe(frame, hide_index=True, width="stretch")
            st.caption((" ".join(map(esc, messages)) + " Mechanisms use all n rows: missing cells replaced by "
                        "the imputation value, values clipped to the bounds.").strip())


def _imputation(ds: dpdata.Dataset, columns: list[str]) -> None:
    """Per column: fill missing cells with the midpoint of the bounds (public, free — the default) or with a
    private mean of the observed cells (charged to this dataset's budget, the cost on the button); then the
    labelled non-private view of what the filling does to the column's mean."""
    cols = [c for c in columns if c in ds.bounds]
    if not cols:
        return
    st.subheader("Missing cells: the midpoint or a private mean")
    st.caption("Mechanisms read all n rows (n is public): a missing cell takes its column's imputation value. The "
               "midpoint of the public bounds is free but pulls the column toward the middle of its range; a "
               "private mean of the observed cells costs ε (Laplace noise on the observed count and sum, "
               "ℓ1-sensitivity 3/2) and is then used as the imputation value.")
    c1, c2 = st.columns([2, 3], vertical_alignment="bottom")
    col = c1.selectbox("Column", ui.offered("data_imp_col", cols, cols[0]), key="data_imp_col")
    with c2:
        eps = ui.epsilon_input("ε for its private mean", key="data_imp_eps", typed=True)
    lo, hi = ds.bounds[col]
    raw = ds.frame[col].to_numpy(dtype=float)
    try:
        cal = impute.mean_imputation_config(eps)
        req = ui.request((ds.fingerprint(include_bounds=False), "data/impute-mean", col, (lo, hi), float(eps)),
                         P.release_label("Private mean to fill missing cells", data=ds.name, columns=[col],
                                         epsilon=eps), ds, [col], cost=cal.cost(1))
    except ValueError as exc:
        ui.show_error(exc)
        return
    ui.accuracy_preview({"Private mean (Laplace)": ("data/impute-mean", float(eps))}, key="data_imp",
                        n=len(ds.frame), bounds=(float(lo), float(hi)))
    button = "Release the private mean"
    clicked, slot = ui.release_button(button, key="data_imp_go", requests=req)
    out = ui.run_release(req, lambda rng: impute.release_mean_imputation(raw, (lo, hi), eps, rng=rng),
                         submitted=clicked)
    mean = None
    if out is not None:
        if ss.pop("data_imp_just", None) != req.key:     # (just released: the rerun below shows it as released)
            ui.show_outcome(out, button=button)
        if out.ready:
            ui.export_code(lambda: export.imputation_script(
                export.from_dataset(ds, [col]), release=impute.release_mean_imputation, column=col, bounds=(lo, hi),
                epsilon=float(eps), stream=ui.stream(req)), "data_imputation")
            mean = float(out.result.value)
            st.success(f"**Released** private mean of {esc(col)}: {mean:.6g} (within its bounds [{lo:g}, {hi:g}]).")
            st.caption(esc(out.result.calibration.statement() + " " + " ".join(out.result.notes_of("info"))))
            if out.status == "released" and ds.impute_value(col) != mean:
                ss[IMPUTE_PENDING] = (col, mean)    # the column's imputation field takes it on the next run
                ss["data_imp_just"] = req.key
                st.rerun()
    current = ds.impute_value(col)
    st.caption(f"{esc(col)}: missing cells are filled with {current:.6g}"
               + (" (the midpoint of the bounds)." if current == (lo + hi) / 2 else "."))
    with ui.nonprivate(f"What filling the missing cells does to the mean of {esc(col)}"):
        fills = {"the midpoint": (lo + hi) / 2, "the current value": current}
        if mean is not None:
            fills["the private mean"] = mean
        effect = impute.imputation_effect(raw, (lo, hi), fills)
        st.dataframe(effect, hide_index=True, width="stretch")
        st.caption(f"{int(np.isnan(raw).sum())} of {len(raw):,} cells of this column are missing. Values are "
                   "clipped to the bounds, as every mechanism reads them.")


def _show_dataset(ds: dpdata.Dataset) -> None:
    c_head, c_unload = st.columns([5, 1], vertical_alignment="bottom")
    c_head.subheader(f"Current dataset: {esc(ds.name or 'unnamed')}")
    if c_unload.button("Unload dataset", key="data_unload", icon=":material/delete:"):
        _new_dataset(None)
        st.rerun()
    st.markdown(f"{ds.n_rows:,} rows × {ds.frame.shape[1]} columns, {len(ds.numeric_columns)} numeric.")
    st.caption(esc(ds.provenance))
    if ds.notes:
        st.info("  \n".join(esc(n) for n in ds.notes), icon=":material/info:")
    st.dataframe(ds.frame.head(200), width="stretch")
    st.caption(f"Preview: the first {min(ds.n_rows, 200)} of {ds.n_rows:,} rows.")
    if P.data_kind(ds) == P.USER:
        ui.budget_editor(ds)
        ui.keep_data_option(ds)
    else:
        st.caption("Public demo data: no budget. Releases on it use the sidebar's seed and are recorded as not "
                   "counted as DP; simulations are free.")
    st.subheader("Columns, public bounds and imputation values")
    if not ds.numeric_columns:
        st.error("This dataset has no numeric column, and the mechanisms need numbers. Check the file's "
                 "separator and decimal mark, or mark missing cells as empty or NA.")
        return
    bounded = list(ds.bounded_columns or ds.numeric_columns[:1])
    ss["data_columns"] = [c for c in ss.get("data_columns", bounded) if c in ds.numeric_columns]
    columns = st.multiselect("Numeric columns to use", list(ds.numeric_columns), key="data_columns")
    with st.expander("Why must the bounds be public?", expanded=not ds.bounds):
        st.markdown(dpdata.WHY_PUBLIC_BOUNDS)
    allow_leak = st.checkbox("Allow filling bounds from the data (leaks!)", key=f"data_allow_leak_{ss.get(LOAD_ID, 0)}")
    if allow_leak:
        st.warning("Bounds filled from the data are the values of single records (the smallest and the largest); "
                   "such columns are marked **from data**, and releases using them are **not** differentially "
                   "private. Use this only to explore.", icon=":material/warning:")
    if "data_fill_error" in ss:
        ui.show_error(ValueError(ss.pop("data_fill_error")))
    for col in columns:
        ds = _bounds_row(ds, col, allow_leak)
    _diagnostics(ds, columns)
    _imputation(ds, columns)


st.title("Data")
ui.share_link("data")   # the simulation settings only: never a bound, a column, the budget or the data
st.markdown("Start with a real example, upload a file or simulate data; then declare each column's **public "
            "bounds**. The data stays in this browser tab (other users never see it) unless you keep it on the "
            "server; its budget, spending and ledger are kept in your workspace, across reloads and restarts.")
ui.workspace_panel()
st.markdown("**Real examples** (shipped with scikit-learn; public bounds from domain knowledge):")
for c, (name, info) in zip(st.columns(len(dpdata.BUILTIN_DATASETS)), dpdata.BUILTIN_DATASETS.items()):
    if c.button(info.label, key=f"data_builtin_{name}", icon=":material/dataset:", width="stretch"):
        _new_dataset(dpdata.builtin_dataset(name))
source = st.radio("Or", ["Upload a file", "Simulate a dataset"], key="data_source", horizontal=True)
(_upload if source == "Upload a file" else _simulate)()
if (current := ui.get_dataset()) is None:
    st.info("No dataset loaded yet.")
else:
    _show_dataset(current)

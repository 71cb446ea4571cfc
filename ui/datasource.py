"""Where the Data page's dataset comes from: a built-in example (one click), an uploaded file (CSV or .xlsx) or a
simulation, and what loading one does (the session's dataset, its budget opened in the workspace, fresh bound
widgets).

Owns the upload's "already handled" marker (:data:`UPLOAD_SEEN`) and the simulator widgets' keys
(``data_sim_*``). Must never: read bounds from the data (a built-in table's bounds are its documented ranges, a
simulation's its design's; an upload has none until the user declares them), keep the data outside this session
(the workspace holds its budget only, unless the user ticks "keep my data"), or give the simulation a seed other
than the sidebar's (simulated data is public).
"""
from __future__ import annotations

import streamlit as st

from dpcore import data as dpdata
from dpcore import kng
from ui.bounds import COLUMNS_KEY, LOAD_ID
from ui.links import MAX_SIM_D, MAX_SIM_N, SIMULATORS
from ui.release import progress
from ui.widgets import errors_shown, persist, show_error
from ui.workspace import current_seed, open_budget, set_dataset

UPLOAD_SEEN = "data_upload_seen"  # (file_id, error message or None) of the last upload handled
MAX_UPLOAD_MB = 50                # = server.maxUploadSize and the loaders' max_bytes
esc = dpdata.escape_markdown


def new_dataset(ds: dpdata.Dataset | None) -> None:
    """Make ``ds`` the session's dataset (None: unload): a user's data gets its budget in the workspace (the same
    people loaded before: its spending), and the bound widgets start afresh."""
    ss = st.session_state
    set_dataset(ds)
    open_budget(ds)
    ss[LOAD_ID] = ss.get(LOAD_ID, 0) + 1
    ss.pop(COLUMNS_KEY, None)


def builtin_buttons() -> None:
    """One button per built-in example (public records, documented public bounds)."""
    st.markdown("**Real examples** (shipped with scikit-learn; public bounds from domain knowledge):")
    for c, (name, info) in zip(st.columns(len(dpdata.BUILTIN_DATASETS)), dpdata.BUILTIN_DATASETS.items()):
        if c.button(info.label, key=f"data_builtin_{name}", icon=":material/dataset:", width="stretch"):
            new_dataset(dpdata.builtin_dataset(name))


def upload_panel() -> None:
    """The file uploader: a new file is loaded once; an error is shown and the previous dataset stays."""
    ss = st.session_state
    up = st.file_uploader("CSV (comma, semicolon, tab or | separated) or Excel workbook (.xlsx)",
                          key="data_upload", max_upload_size=MAX_UPLOAD_MB)
    if up is not None and ss.get(UPLOAD_SEEN, (None,))[0] != up.file_id:  # a new file: load it once
        bar = st.empty()  # progress: each update is where a newer rerun stops a stale load
        try:
            new_dataset(dpdata.load_file(up.getvalue(), name=up.name, max_bytes=MAX_UPLOAD_MB * 2**20,
                                         progress=progress(bar, "Reading the file")))
            ss[UPLOAD_SEEN] = (up.file_id, None)
        except ValueError as exc:  # DataError: shown, the previous dataset stays
            ss[UPLOAD_SEEN] = (up.file_id, str(exc))
        bar.empty()
    if up is not None and ss[UPLOAD_SEEN][1]:
        show_error(ValueError(ss[UPLOAD_SEEN][1]))


def simulate_panel() -> None:
    """A simulator (dpcore.data's univariate laws and the KNG paper's regression designs), its parameters (kept in
    the session state, so that a link may set them) and "Generate dataset" with the sidebar's seed."""
    kind = st.selectbox("Simulator", list(SIMULATORS), key="data_sim_kind", format_func=lambda k: SIMULATORS[k].label)
    info = SIMULATORS[kind]
    st.caption(esc(info.description))
    widgets = [("n", 1000)] + [(k, v) for k, v in info.defaults.items() if v is not None]
    params, n = {}, 1000
    for col, (name, default) in zip(st.columns(len(widgets)), widgets):
        if name == "n":
            persist(data_sim_n=default)
            n = col.number_input("n (rows)", 1, MAX_SIM_N, step=100, key="data_sim_n")
        elif isinstance(default, int):
            persist(**{f"data_sim_{kind}_{name}": default})
            params[name] = col.number_input(name, 2, MAX_SIM_D, key=f"data_sim_{kind}_{name}")
        else:
            persist(**{f"data_sim_{kind}_{name}": float(default)})
            params[name] = col.number_input(name, format="%g", key=f"data_sim_{kind}_{name}")
    seed = current_seed("simulate", kind, int(n), tuple(sorted(params.items())))
    if st.button("Generate dataset", key="data_sim_go", type="primary", icon=":material/casino:"):
        with errors_shown(stop=False):
            simulate = kng.simulate_regression_dataset if kind in kng.REGRESSION_SIMULATORS else dpdata.simulate_dataset
            new_dataset(simulate(kind, int(n), rng=seed, **params))
    st.caption(f"Uses seed {seed} (sidebar). Simulated data is synthetic; its bounds come from the "
               "simulator's design, not from the sample.")

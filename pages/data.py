"""Data: a built-in example, a classroom scenario, an upload (CSV/xlsx) or a simulation; public bounds (one form,
filled by typing or from a codebook) and imputation values. The dataset lives in this session (on the server only
if "keep my data" is ticked); its budget in the workspace. Text escaped. The pieces are ui modules by concern:
ui.datasource (loading), ui.scenarios (teachers), ui.bounds (the bounds form), ui.imputation (missing cells)."""
# nav: title="Data" icon=":material/table_chart:" order=10
import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
import ui

ss = st.session_state
esc = dpdata.escape_markdown


def _show_dataset(ds: dpdata.Dataset) -> None:
    c_head, c_unload = st.columns([5, 1], vertical_alignment="bottom")
    c_head.subheader(f"Current dataset: {esc(ds.name or 'unnamed')}")
    if c_unload.button("Unload dataset", key="data_unload", icon=":material/delete:"):
        ui.new_dataset(None)
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
    ui.codebook_panel(ds)
    ui.leak_option(columns)
    ds = ui.bounds_form(ds, columns)
    ui.diagnostics_panel(ds, columns)
    ui.imputation_panel(ds, columns)


st.title("Data")
ui.share_link("data")   # the simulation settings only: never a bound, a column, the budget or the data
st.markdown("Start with a real example, upload a file or simulate data; then declare each column's **public "
            "bounds**. The data stays in this browser tab (other users never see it) unless you keep it on the "
            "server; its budget, spending and ledger are kept in your workspace, across reloads and restarts.")
ui.workspace_panel()
ui.builtin_buttons()
ui.classroom_panel()
source = st.radio("Or", ["Upload a file", "Simulate a dataset"], key="data_source", horizontal=True)
(ui.upload_panel if source == "Upload a file" else ui.simulate_panel)()
if (current := ui.get_dataset()) is None:
    st.info("No dataset loaded yet.")
else:
    _show_dataset(current)

"""DP Mechanism Explorer — entry point and router.

Run with ``streamlit run app.py``. Sets the page config, draws the shared sidebar (randomness,
the session's privacy ledger) and runs the selected page. Pages are found by
:func:`ui.nav.discover` from a header line in each file (see docs/architecture.md, "Pages"):
a new page plugs in by existing.
"""
import sys

import streamlit as st

from dpcore import data as dpdata
import ui

# The favicon is an emoji (drawn by the browser): a ":material/…:" icon is fetched from an external font host, which a
# classroom behind a firewall cannot reach (issue 32; tests/browser/test_offline.py).
st.set_page_config(page_title="DP Mechanism Explorer", page_icon="🔒", layout="wide",
                   initial_sidebar_state="expanded")
ui.init_session()

entries = ui.nav.discover()
page = st.navigation([st.Page(e.path, title=e.title, icon=e.icon, default=e.default) for e in entries])
no_workspace = {e.path.rsplit("/", 1)[-1].removesuffix(".py") for e in entries if not e.workspace}
ui.session_guard(block=page.url_path not in no_workspace)  # a restart or a reload is said before anything else
ui.note_page(page.url_path)  # pages keep their settings across navigation (ui.persist)

with st.sidebar:
    ui.workspace_cookie()  # the browser's workspace cookie, when this session's workspace changed
    ui.randomness_sidebar()
    st.divider()
    ui.ledger_sidebar()  # a fragment (its Clear button reruns it only); redrawn by every release, also before a st.stop
    _session = ui.release_session()
    st.download_button("Download ledger (JSON)", data=lambda: _session.to_json().encode("utf-8"),
                       file_name="privacy_ledger.json", mime="application/json", key="dp_ledger_json",
                       on_click="ignore", icon=":material/download:", width="stretch",
                       help="Your record: budgets, spending, every release with its time, cost and released value "
                            "(no hash of the data). The workspace keeps all of it on this server; upload the file "
                            "to continue counting on another server.")
    st.download_button("Download ledger (CSV)", data=lambda: dpdata.to_safe_csv(_session.ledger_frame()),
                       file_name="privacy_ledger.csv", mime="text/csv", key="dp_ledger_csv",
                       on_click="ignore", icon=":material/download:", width="stretch",
                       help="Every release of this workspace: time, dataset name, cost, released value.")
    with st.expander("Continue a saved ledger"):
        ui.ledger_upload()
    with st.expander("Save or resume the session"):
        ui.session_file_panel()
    st.caption("Budgets, spending and the ledger are kept in this browser's workspace on the server (Data page: "
               "“Your workspace”): a reload, another tab or a server restart finds them. The page address holds "
               "no key to it: copying it gives nothing away.")
    st.divider()
    ui.educational_banner(compact=True)

page.run()
ui.redraw_ledger()
with st.sidebar:
    ui.workspace_cookie()  # a workspace the page made in this run (the first data load)
ui.server.freeze_module_heap(len(sys.modules))  # the imported modules: out of every collection's walk
ui.server.collector().maybe_collect()  # instead of Streamlit's collection after every run (config: postScriptGC)

"""DP Mechanism Explorer — entry point and router.

Run with ``streamlit run app.py``. Sets the page config, draws the shared sidebar (randomness,
the session's privacy ledger) and runs the selected page. Pages are found by
:func:`pages._nav.discover` from a header line in each file (see docs/architecture.md, "Pages"):
a new page plugs in by existing.
"""
import streamlit as st

from dpcore import data as dpdata
from pages import _components as ui
from pages import _nav

st.set_page_config(page_title="DP Mechanism Explorer", page_icon=":material/lock:", layout="wide",
                   initial_sidebar_state="expanded")
ui.init_session()

page = st.navigation([st.Page(e.path, title=e.title, icon=e.icon, default=e.default) for e in _nav.discover()])

with st.sidebar:
    ui.randomness_sidebar()
    st.divider()
    ui.ledger_slot(st.empty())  # redrawn by every release, so also when a page st.stop()s after it
    st.button("Clear ledger", key="dp_clear_ledger", on_click=ui.clear_ledger, icon=":material/delete_sweep:",
              width="stretch",
              help="Start a new account. Releases already shown stay cached and are not counted again.")
    _ledger = ui.get_ledger()
    st.download_button("Download ledger (CSV)", data=lambda: dpdata.to_safe_csv(_ledger.to_frame()),
                       file_name="privacy_ledger.csv", mime="text/csv", key="dp_ledger_csv",
                       on_click="ignore", icon=":material/download:", width="stretch")
    st.caption("Refreshing the browser page ends this session: the data, the releases and the ledger are lost.")
    st.divider()
    ui.educational_banner(compact=True)

page.run()
ui.redraw_ledger()

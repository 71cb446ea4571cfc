"""DP Mechanism Explorer — entry point and router.

Run with ``streamlit run app.py``. This script sets the page config, draws the shared sidebar
(seed, fresh-randomness toggle, the session's privacy ledger) and runs the selected page.
To add a page, add one ``st.Page`` line to ``PAGES``.
"""
import streamlit as st

from dpcore import data as dpdata
from pages import _components as ui

st.set_page_config(page_title="DP Mechanism Explorer", page_icon=":material/lock:", layout="wide",
                   initial_sidebar_state="expanded")
ui.init_session()

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/data.py", title="Data", icon=":material/table_chart:"),
    st.Page("pages/kng.py", title="KNG explorer", icon=":material/insights:"),
    st.Page("pages/error_vs_n.py", title="Error vs n", icon=":material/show_chart:"),
]

page = st.navigation(PAGES)

with st.sidebar:
    st.subheader("Randomness")
    fresh = st.toggle(
        "Fresh randomness", key=ui.FRESH_WIDGET_KEY,
        help="On: each new release draws its seed from OS entropy (the seed used is shown below, "
             "so the release can be reproduced by entering it as the seed with this switched off). "
             "Off: every release uses the seed below.",
    )
    st.number_input(
        "Seed", min_value=0, max_value=ui.SEED_MAX, value=0, step=1, key=ui.SEED_WIDGET_KEY,
        disabled=fresh, help="Same seed and same parameters give the same release.",
    )
    if fresh:
        st.button("New draw", key="dp_new_draw", on_click=ui.new_fresh_draw, icon=":material/casino:",
                  help="Forget the fresh seeds: the next release of every kind draws new entropy.")
    seeds_box = st.container()
    st.divider()
    ledger_box = st.empty()
    with ledger_box.container():
        ui.ledger_panel()
    st.button("Clear ledger", key="dp_clear_ledger", on_click=ui.clear_ledger, icon=":material/delete_sweep:",
              width="stretch",
              help="Start a new account. Releases already shown stay cached and are not counted again.")
    _ledger = ui.get_ledger()
    st.download_button("Download ledger (CSV)", data=lambda: dpdata.to_safe_csv(_ledger.to_frame()),
                       file_name="privacy_ledger.csv", mime="text/csv", key="dp_ledger_csv",
                       on_click="ignore", icon=":material/download:", width="stretch")
    st.divider()
    ui.educational_banner(compact=True)

page.run()

# Redraw the ledger with the releases this run made (if the page called st.stop(), the
# version drawn above stays).
with ledger_box.container():
    ui.ledger_panel()
if fresh:
    used = st.session_state.get(ui.SEEDS_THIS_RUN_KEY, [])
    if used:
        seeds_box.caption("Seed(s) used on this page: " + ", ".join(str(s) for s in used)
                          + ". Enter one as the seed with fresh randomness off to reproduce.")

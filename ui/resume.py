"""Continuing a session across a reload or a server restart: the session token in the URL and the notice that the
old session is gone (session_guard), the ledger file and the session file (download and upload).

Owns the token, the restart notice and which uploaded file was already read. Must never: give budget back (an
older file's spending never lowers what is counted here: dpcore.privacy.ReleaseSession.restore), keep an
uploaded file anywhere but this session, or put the raw data into a session file unless the user ticks it.
"""
from __future__ import annotations

import secrets

import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from ui.widgets import show_error
from ui.workspace import get_dataset, open_budget, release_session, set_dataset

SESSION_PARAM = "session"        # the URL query parameter holding this browser tab's session token
TOKEN_KEY = "_dp_session_token"  # the token of this session (absent: a fresh session_state)
RESTART_KEY = "_dp_restarted"    # "restart" / "reload" while the notice is shown
LEDGER_UPLOAD_SEEN = "_dp_ledger_upload_seen"
SESSION_UPLOAD_SEEN = "_dp_session_upload_seen"
#: Immutable per server process: a session token from another process means the server restarted.
BOOT_ID = secrets.token_hex(4)


def session_guard() -> None:
    """Say it when this browser tab's session is not the one its page came from — before anything else.

    The URL keeps a token (``?session=…``) naming this session and the server process (:data:`BOOT_ID`).
    A fresh, empty ``session_state`` that arrives with a token means the old session is gone: the
    server restarted (another process id) or the page was reloaded / opened in a new tab (same
    process). The page then says that the data, releases and budgets of the old session are gone,
    offers to upload a saved ledger, and stops until the user continues.
    """
    ss = st.session_state
    if TOKEN_KEY not in ss:
        old = st.query_params.get(SESSION_PARAM)
        ss[TOKEN_KEY] = f"{BOOT_ID}-{secrets.token_hex(6)}"
        if old:
            ss[RESTART_KEY] = "reload" if str(old).split("-")[0] == BOOT_ID else "restart"
    if st.query_params.get(SESSION_PARAM) != ss[TOKEN_KEY]:
        st.query_params[SESSION_PARAM] = ss[TOKEN_KEY]
    why = ss.get(RESTART_KEY)
    if not why:
        return
    head = ("**The server restarted.**" if why == "restart" else
            "**This is a new session** (the page was reloaded or opened again).")
    st.error(f"{head} The data you had loaded, your releases and the privacy budgets of the previous session are "
             "gone: the server keeps nothing on disk, and anything the page still showed belonged to the old "
             "session. To keep counting against the same budgets, upload the session file or the ledger (JSON) you "
             "downloaded, then load the same data again on the Data page (a session file saved with the data "
             "loads it for you).", icon=":material/restart_alt:")
    ledger_upload(key="dp_ledger_upload_restart")
    session_upload(key="dp_session_upload_restart")
    st.button("Continue with a new session", key="dp_restart_ack", type="primary",
              on_click=lambda: ss.pop(RESTART_KEY, None), icon=":material/arrow_forward:")
    st.stop()


def ledger_upload(key: str = "dp_ledger_upload") -> None:
    """Upload a saved ledger (JSON) to continue counting its datasets' spending against their budgets."""
    up = st.file_uploader("Saved ledger (JSON) to continue counting", type=["json"], key=key,
                          max_upload_size=max(1, P.MAX_LEDGER_BYTES // 2**20),
                          help="The file from “Download ledger (JSON)”: the budgets and spending of your datasets. "
                               "Load the same data again afterwards; its budget continues where it was.")
    if up is None:
        return
    seen = st.session_state.get(LEDGER_UPLOAD_SEEN, {})
    if seen.get(key, (None,))[0] != up.file_id:
        try:
            names = release_session().restore(P.ledger_from_json(up.getvalue()))
            seen[key] = (up.file_id, None, names)
        except ValueError as exc:
            seen[key] = (up.file_id, str(exc), [])
        st.session_state[LEDGER_UPLOAD_SEEN] = seen
    _, error, names = seen[key]
    if error:
        show_error(ValueError(error))
    else:
        st.success("Ledger read: " + (", ".join(f"“{dpdata.escape_markdown(n)}”" for n in names) or "no dataset")
                   + " — its spending and budget continue when the same data is loaded.", icon=":material/check:")


def session_file_panel() -> None:
    """Save the session (ledger, budgets, the pages' settings; the raw data only if ticked) and resume one."""
    from dpcore.privacy import sessionfile

    ss = st.session_state
    include = st.checkbox("Include my data in the file", key="dp_session_include_data",
                          help="Off (default): the file holds the ledger, the budgets and the pages' settings, and "
                               "names the data by its fingerprint — load the same file again on the Data page to "
                               "continue its budget. On: the file also holds every record of the loaded dataset.")
    if include:
        st.caption("The file will contain the raw data: anyone who has it sees every record.")
    settings = {k: ss[k] for k in list(ss.keys()) if str(k).startswith("_keep::")}
    session, ds = release_session(), get_dataset()   # read now: the file is written later, outside this run
    st.download_button("Download session (JSON)", data=lambda: sessionfile.session_to_json(
        session, settings, ds, include_data=include).encode("utf-8"),
        file_name="dp_session.json", mime="application/json", key="dp_session_json", on_click="ignore",
        icon=":material/save:", width="stretch",
        help="Budgets, spending, releases and the pages' settings" + (" and the data." if include else
                                                                       " (not the data)."))
    session_upload()


def session_upload(key: str = "dp_session_upload") -> None:
    """Upload a saved session: its ledger continues (never giving budget back), its settings come back and,
    if the file holds the data, the data is loaded again (its budget re-attached by its fingerprint)."""
    from dpcore.privacy import sessionfile

    up = st.file_uploader("Resume a saved session (JSON)", type=["json"], key=key,
                          max_upload_size=max(1, sessionfile.MAX_SESSION_BYTES // 2**20),
                          help="The file from “Download session”. Spending already counted here is kept: an older "
                               "file never gives budget back.")
    if up is None:
        return
    ss = st.session_state
    seen = ss.get(SESSION_UPLOAD_SEEN, {})
    if seen.get(key, (None,))[0] != up.file_id:
        try:
            f = sessionfile.session_from_json(up.getvalue())
            names = release_session().restore(f.ledger)
            for k, v in f.settings.items():
                if k.startswith("_keep::"):
                    ss[k] = v
                    ss.pop(k.split("::", 1)[1], None)   # the page's widget takes the saved value (ui.persist)
            if f.dataset is not None:
                set_dataset(f.dataset)
                open_budget(f.dataset)
            data = (f"the data “{dpdata.escape_markdown(f.dataset.name)}” is loaded again" if f.dataset is not None else
                    f"load “{dpdata.escape_markdown(f.dataset_name)}” again on the Data page to continue its budget"
                    if f.dataset_name else "no dataset was loaded")
            msg = ("Session resumed: budgets of " + (", ".join(f"“{dpdata.escape_markdown(n)}”" for n in names) or
                                                     "no dataset") + f"; {sum(k.startswith('_keep::') for k in f.settings)} "
                   f"page settings; {data}.")
            seen[key] = (up.file_id, None, msg)
        except ValueError as exc:
            seen[key] = (up.file_id, str(exc), "")
        ss[SESSION_UPLOAD_SEEN] = seen
    _, error, msg = seen[key]
    if error:
        show_error(ValueError(error))
    else:
        st.success(msg, icon=":material/check:")

"""Continuing a session across a reload or a server restart: the session token in the URL and the notice that says what
a new session of the page finds (session_guard: the workspace's budgets, spending and ledger, kept data), the ledger
and the session files (download, upload).

Owns the token, the restart notice and which uploaded file was already read. Must never: give budget back (an
older file's spending never lowers what is counted here: dpcore.privacy.ReleaseSession.restore), tell a tab something
false about another tab of the same workspace (a duplicated tab's budgets are alive and shared), keep an uploaded
file anywhere but this session, or put the raw data into a session file unless the user ticks it.
"""
from __future__ import annotations

import secrets

import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from ui.keeping import kept_list, restored_data_note, summary
from ui.widgets import show_error
from ui.workspace import (GONE_KEY, check_workspace, get_dataset, open_budget, release_session, set_dataset, store,
                          workspace)

SESSION_PARAM = "session"        # the URL query parameter holding this browser tab's session token
TOKEN_KEY = "_dp_session_token"  # the token of this session (absent: a fresh session_state)
RESTART_KEY = "_dp_restarted"    # "restart" / "reload" while the notice is shown
MOVED_SAID_KEY = "_dp_reconnect_said"   # a page that uses no workspace said "reconnected" (once)
LEDGER_UPLOAD_SEEN = "_dp_ledger_upload_seen"
SESSION_UPLOAD_SEEN = "_dp_session_upload_seen"
#: Immutable per server process: a session token from another process means the server restarted.
BOOT_ID = secrets.token_hex(4)
#: What a tab whose websocket reconnected to another server process is told first (issue 35): after a server restart,
#: or when the proxy moved it to another replica because its own died (scripts/serve.py). Its session is new, but the
#: workspace its cookie names is found in the shared database.
RECONNECTED = ("**Reconnected to the server; your workspace and budgets were restored from the database.** The server "
               "restarted, or this tab moved to another of its server processes.")
#: The same, said briefly (a toast) by a page that uses no workspace and plays on (the classroom: a student's tab).
RECONNECTED_HERE = "Reconnected to the server: this page continues from the database."


def restart_notice(why: str) -> str:
    """The notice a new session of an open page gets (``why``: "restart" or "reload"), true whatever other tab of
    the same workspace is still open: it speaks of this session and of the workspace, never of "the old session"."""
    head = ("**The server restarted.**" if why == "restart" else
            "**This is a new session of this page** (it was reloaded, or opened in another tab).")
    if workspace() is not None and why == "restart":   # the browser's cookie found its workspace in the database
        head = RECONNECTED
    if workspace() is not None:
        return (f"{head} Your workspace is intact: budgets, their spending and the ledger are kept in it on this "
                f"server, so nothing needs uploading. {summary()} The data is not loaded in this session. "
                f"{restored_data_note()}")
    if store() is None:
        return (f"{head} The server's database cannot be opened: budgets and the ledger live in this tab only. To "
                "continue counting, upload the session file or the ledger (JSON) you downloaded.")
    gone = ("The workspace this browser had was deleted (here or in another tab): its budgets, ledger and kept data "
            "are gone." if st.session_state.get(GONE_KEY) else
            "No workspace was found for this browser: none was made yet (one is made when you first load your own "
            "data), its cookie expired, or this browser does not keep cookies.")
    return (f"{head} {gone} A session file or a ledger (JSON) you downloaded can be uploaded: its spending is added "
            "when the same data is loaded, and never gives budget back.")


def session_guard(block: bool = True) -> None:
    """Say what a new session of an open page finds — before anything else.

    The URL keeps a token (``?session=…``) naming this session and the server process (:data:`BOOT_ID`). A fresh,
    empty ``session_state`` that arrives with a token is a new session of a page that was open: the server restarted
    (another process id) or the page was reloaded or duplicated (same process). The page then says what this session
    has: the browser's workspace (budgets, spending, ledger: kept) and the data (only if kept on the server), offers
    the kept tables and the saved files, and stops until the user continues. ``block=False`` (a page that uses no
    workspace, e.g. the classroom: a student back after a restart plays on): a toast says it reconnected, and the
    notice waits for the next page that does.
    """
    ss = st.session_state
    check_workspace()
    if TOKEN_KEY not in ss:
        old = st.query_params.get(SESSION_PARAM)
        ss[TOKEN_KEY] = f"{BOOT_ID}-{secrets.token_hex(6)}"
        if old:
            ss[RESTART_KEY] = "reload" if str(old).split("-")[0] == BOOT_ID else "restart"
    if st.query_params.get(SESSION_PARAM) != ss[TOKEN_KEY]:
        st.query_params[SESSION_PARAM] = ss[TOKEN_KEY]
    why = ss.get(RESTART_KEY)
    if why and not block:
        if why == "restart" and not ss.get(MOVED_SAID_KEY):      # said once; the full notice waits as above
            ss[MOVED_SAID_KEY] = True
            st.toast(RECONNECTED_HERE, icon=":material/restart_alt:")
        return
    if not why:
        if ss.pop(GONE_KEY, None):
            st.info("The workspace this browser had was deleted (here or in another tab): a new one is made when you "
                    "load your data.", icon=":material/info:")
        return
    st.info(restart_notice(why), icon=":material/restart_alt:")
    kept_list("dp_restart_kept")
    if (ds := get_dataset()) is not None:
        st.success(f"“{dpdata.escape_markdown(ds.name or 'dataset')}” is loaded again.", icon=":material/check:")
    with st.expander("Upload a saved ledger or session file (e.g. from another server)", expanded=workspace() is None):
        ledger_upload(key="dp_ledger_upload_restart")
        session_upload(key="dp_session_upload_restart")
    st.button("Continue", key="dp_restart_ack", type="primary",
              on_click=lambda: (ss.pop(RESTART_KEY, None), ss.pop(GONE_KEY, None)), icon=":material/arrow_forward:")
    st.stop()


def ledger_upload(key: str = "dp_ledger_upload") -> None:
    """Upload a saved ledger (JSON) to continue counting its datasets' spending against their budgets."""
    up = st.file_uploader("Saved ledger (JSON) to continue counting", type=["json"], key=key,
                          max_upload_size=max(1, P.MAX_LEDGER_BYTES // 2**20),
                          help="The file from “Download ledger (JSON)”: your record of budgets and spending (e.g. "
                               "from another server). Its spending is added when data with the same name, row count "
                               "and columns is loaded; it never gives budget back.")
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
                   + " — its spending is added when data with the same name, row count and columns is loaded (it "
                   "never gives budget back).", icon=":material/check:")


def session_file_panel() -> None:
    """Save the session (ledger, budgets, the pages' settings; the raw data only if ticked) and resume one."""
    from dpcore.privacy import sessionfile

    ss = st.session_state
    include = st.checkbox("Include my data in the file", key="dp_session_include_data",
                          help="Off (default): the file holds the ledger, the budgets and the pages' settings, and "
                               "names the data by its name and row count (no hash of it) — your own record, e.g. to "
                               "move to another server. On: the file also holds every record of the loaded dataset.")
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
    if the file holds the data, the data is loaded again (its budget found again by its rows)."""
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

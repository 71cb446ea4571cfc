"""The workspace as the user sees it: what a workspace is, starting a new one or deleting it, "keep my data on this
server" (with its retention and a delete button) and the tables kept there.

Owns which kept table holds the loaded dataset and the delete confirmation. Must never: keep a table on the server
unless the user ticked it, keep one past its expiry (the store deletes expired tables), show the workspace token, or
give budget back (a new workspace is a new, empty one; deleting one deletes its spending and its data together).
"""
from __future__ import annotations

from datetime import datetime, timezone

import streamlit as st

from dpcore import data as dpdata
from dpcore import store as dpstore
from dpcore.privacy import sessionfile
from ui.widgets import show_error
from ui.workspace import ensure_workspace, open_budget, release_session, set_dataset, start_workspace, workspace

KEPT_KEY = "_dp_kept"               # (kept table id, content fingerprint, full fingerprint) of the loaded dataset
CONFIRM_KEY = "_dp_confirm_delete_workspace"
KEEP_WIDGET = "data_keep_on_server"
ERROR_KEY = "_dp_keep_error"
WHAT_IT_IS = (
    "Your budgets, their spending and the ledger live in a **workspace** on this server: every tab of this browser "
    "shares it, and it outlives a reload or a server restart. This browser keeps the workspace's key in a cookie, "
    "never in the page address: copying or sharing the address gives nothing away. The data itself stays only in "
    "this tab, unless you tick “Keep my data on this server”.")


def when(ts: float) -> str:
    """A time as the page shows it (UTC, to the minute)."""
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def load_kept(kept_id: int) -> None:
    """Load a table kept in the workspace (button callback): it becomes the dataset, its budget found again."""
    ws = workspace()
    try:
        table = None if ws is None else ws.kept_table(kept_id)
        if table is None:
            raise ValueError("that table is no longer kept on this server (deleted or expired): upload it again.")
        ds = sessionfile.dataset_from_dict(table)
        set_dataset(ds)
        open_budget(ds)
        st.session_state[KEPT_KEY] = (int(kept_id), ds.fingerprint(include_bounds=False), ds.fingerprint())
    except ValueError as exc:
        st.session_state[ERROR_KEY] = str(exc)


def _kept_now(ds: dpdata.Dataset) -> dpstore.KeptData | None:
    """The kept table holding ``ds`` (this tab ticked it, or loaded it from there), if it is still kept."""
    got, ws = st.session_state.get(KEPT_KEY), workspace()
    if ws is None or not got or got[1] != ds.fingerprint(include_bounds=False):
        return None
    return next((k for k in ws.kept() if k.id == got[0]), None)


def _keep(ds: dpdata.Dataset, days: float = dpstore.DEFAULT_KEEP_DAYS) -> None:
    ws = ensure_workspace()
    if ws is None:
        raise ValueError("the server's database cannot be opened: the data cannot be kept there.")
    k = ws.keep_table(ds.name or "dataset", sessionfile.dataset_to_dict(ds), days=days)
    st.session_state[KEPT_KEY] = (k.id, ds.fingerprint(include_bounds=False), ds.fingerprint())


def _toggled(ds: dpdata.Dataset) -> None:
    ss, ws = st.session_state, workspace()
    try:
        if ss[KEEP_WIDGET]:
            _keep(ds)
        elif (k := _kept_now(ds)) is not None and ws is not None:
            ws.delete_kept(k.id)
    except ValueError as exc:
        ss[ERROR_KEY] = str(exc)


def keep_data_option(ds: dpdata.Dataset) -> None:
    """The "Keep my data on this server" checkbox of a user's dataset, its retention and a delete button."""
    ss = st.session_state
    kept = _kept_now(ds)
    if kept is not None and ss.get(KEPT_KEY, (0, "", ""))[2] != ds.fingerprint():   # bounds edited: keep them too
        workspace().delete_kept(kept.id)     # type: ignore[union-attr]
        _keep(ds, days=max((kept.expires - datetime.now(timezone.utc).timestamp()) / 86400, 1e-3))
        kept = _kept_now(ds)
    ss[KEEP_WIDGET] = kept is not None
    st.checkbox(f"Keep my data on this server ({dpstore.DEFAULT_KEEP_DAYS} days)", key=KEEP_WIDGET,
                on_change=_toggled, args=(ds,),
                help="On: this table (with its bounds) is stored in your workspace on the server, so that a reload, "
                     "another tab or a server restart finds it. It is deleted after "
                     f"{dpstore.DEFAULT_KEEP_DAYS} days, when you untick this or press Delete. Off (default): the "
                     "data stays only in this tab; load the same file again and its spending is found.")
    if kept is not None:
        c1, c2 = st.columns([3, 2], vertical_alignment="center")
        c1.caption(f"Kept on this server until {when(kept.expires)}; it is deleted then.")
        c2.button("Delete my data from the server", key="data_keep_delete", icon=":material/delete_forever:",
                  on_click=lambda: (workspace().delete_kept(kept.id), ss.pop(KEPT_KEY, None)))  # type: ignore
    if ERROR_KEY in ss:
        show_error(ValueError(ss.pop(ERROR_KEY)))


def kept_list(prefix: str) -> None:
    """The tables kept in this workspace, each with Load and Delete buttons (keys: ``<prefix>_load_<id>``)."""
    ws = workspace()
    for k in ([] if ws is None else ws.kept()):
        c1, c2, c3 = st.columns([4, 1, 1], vertical_alignment="center")
        c1.markdown(f"“{dpdata.escape_markdown(k.name)}”, kept until {when(k.expires)}")
        c2.button("Load", key=f"{prefix}_load_{k.id}", on_click=load_kept, args=(k.id,), icon=":material/upload:")
        c3.button("Delete", key=f"{prefix}_delete_{k.id}", on_click=ws.delete_kept,   # type: ignore[union-attr]
                  args=(k.id,), icon=":material/delete:")
    if ERROR_KEY in st.session_state:
        show_error(ValueError(st.session_state.pop(ERROR_KEY)))


def summary() -> str:
    """One sentence on this browser's workspace: what it holds (names and counts only)."""
    ws = workspace()
    if ws is None:
        return ("No workspace yet: one is made when you first load your own data (built-in and simulated data "
                "need none).")
    accounts = list(release_session().accounts.values())
    n_rel = sum(len(a.entries) for a in accounts) + len(release_session().demo_entries)
    kept = ws.kept()
    return (f"This browser's workspace holds the budgets of {len(accounts)} dataset{'s' if len(accounts) != 1 else ''}"
            f" and {n_rel} release{'s' if n_rel != 1 else ''}"
            + (f"; {len(kept)} table{'s' if len(kept) != 1 else ''} kept on the server" if kept else "") + ".")


def workspace_panel() -> None:
    """What a workspace is, what this one holds, its kept tables, and the two one-click actions (delete asks once)."""
    ss = st.session_state
    with st.expander("Your workspace: where budgets, spending and the ledger are kept", expanded=False):
        st.markdown(WHAT_IT_IS)
        st.caption(summary())
        kept_list("dp_ws_kept")
        c1, c2 = st.columns(2)
        c1.button("Start a new workspace", key="dp_ws_new", icon=":material/add_box:", width="stretch",
                  on_click=start_workspace,
                  help="This browser moves to a new, empty workspace (the dataset is unloaded). The current one "
                       "stays on the server, unreachable from this browser.")
        if not ss.get(CONFIRM_KEY):
            c2.button("Delete this workspace and everything in it", key="dp_ws_delete", icon=":material/delete:",
                      width="stretch", disabled=workspace() is None,
                      on_click=lambda: ss.__setitem__(CONFIRM_KEY, True))
        else:
            c2.warning("Delete every budget, its spending, the ledger and the kept data of this workspace?",
                       icon=":material/warning:")
            c2.button("Yes, delete it all", key="dp_ws_delete_yes", type="primary", width="stretch",
                      on_click=lambda: (ss.pop(CONFIRM_KEY, None), start_workspace(delete_current=True)))
            c2.button("Cancel", key="dp_ws_delete_no", width="stretch", on_click=lambda: ss.pop(CONFIRM_KEY, None))


def restored_data_note() -> str:
    """What the restart notice says about the data: kept tables (name, expiry) or "load the same file again"."""
    ws = workspace()
    kept = [] if ws is None else ws.kept()
    if kept:
        return ("You kept " + ", ".join(f"“{dpdata.escape_markdown(k.name)}” (until {when(k.expires)})" for k in kept)
                + " on this server: load it below.")
    return ("No data was kept on this server (“Keep my data on this server” was not ticked): load the same file "
            "again on the Data page and its spending is found.")


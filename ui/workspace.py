"""The workspace of one browser session: its release session (cache + ledger), its dataset, the dataset's budget
account, the database workspace its budgets live in, and the sidebar's randomness (seed, reproducible demo, new draw).

Budgets, spending and the ledger live in a :mod:`dpcore.store` workspace (shared by every tab of the browser and kept
across server restarts), named by a capability token kept in the browser's cookie :data:`WORKSPACE_COOKIE`
(SameSite=Strict, path=/, :data:`COOKIE_DAYS` days) — never in the URL, so copying the page address gives nothing
away. The workspace is made lazily, at the first user data load or budget. The store is opened once per server
process (:func:`store`, from :func:`ui.server.database`: a connection pool; it holds nothing of a session in memory).
The cookie is written by the one script of the app (:func:`workspace_cookie`): fixed text with the token
JSON-quoted (URL-safe base64), never user text.

**Test hook.** AppTest has no cookies: a test sets ``st.session_state[WORKSPACE_TOKEN_KEY]`` to a token before the
session's first run, so that two AppTest sessions share one workspace. The key is this session's own record of its
token (server-side state: a browser cannot write it), not a second way in.

Owns ``st.session_state``'s release session, dataset and workspace-token slots. Must never: keep a session's data or
releases anywhere but that session's ``st.session_state`` and its workspace (no module-level state, no
``st.cache_*``; the one
process-wide resource is the store, ui.server.database, keyed by the data folder and database address), put the workspace token into a
URL, a download, an export or a log, or give a seed to a release on a user's data unless the user switched
"reproducible demo" on (dpcore.privacy.randomness_for decides). The release rules themselves are
:mod:`dpcore.privacy.session`.
"""
from __future__ import annotations

import json
import os
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import streamlit as st
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore import store as dpstore
from ui import server

# Session-state keys (namespaced so that widget keys chosen by pages cannot collide).
SESSION_KEY = "dp_releases"      # the ReleaseSession (cache + ledger)
LEDGER_KEY = "dp_ledger"         # the same session's ledger (tests and older callers read it here)
DATASET_KEY = "dp_dataset"
SEED_WIDGET_KEY = "dp_seed"
DEMO_WIDGET_KEY = "dp_reproducible"
SEED_MAX = 2**32 - 1
MAX_CACHED_RELEASES = 32
WORKSPACE_COOKIE = "dpx_ws"        # the browser's cookie naming its workspace (the capability token)
WORKSPACE_TOKEN_KEY = "_dp_workspace_token"   # this session's token (None: no workspace); the tests' hook
COOKIE_KEY = "_dp_workspace_cookie"   # a cookie value to write on the next drawing ("" deletes it)
GONE_KEY = "_dp_workspace_gone"     # the cookie named a workspace that no longer exists (deleted)
MATCH_KEY = "_dp_data_match"        # (content fingerprint, dpcore.store.Match) of the last data load
COOKIE_DAYS = 30
DATA_DIR_ENV = "DPX_DATA_DIR"
#: Where the SQLite database and its secret live unless DPX_DATA_DIR says otherwise: beside app.py.
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1] / ".dpx-data"


def data_dir() -> Path:
    """The folder of the SQLite database: env ``DPX_DATA_DIR``, else ``.dpx-data`` beside app.py."""
    return Path(os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR)


def database() -> dpstore.Store:
    """The server's store (``DPX_DATABASE_URL``, else SQLite in :func:`data_dir`); raises if it cannot be opened."""
    return server.database(str(data_dir()), os.environ.get("DPX_DATABASE_URL", ""))


def database_engine() -> Engine:
    """The connection pool of the server's one database (the classroom's: its tables are the store's version 6)."""
    return database().engine


def store() -> dpstore.Store | None:
    """The server's store, or None if the database cannot be opened (budgets then live in the tab only)."""
    try:
        return database()
    except (ValueError, OSError, SQLAlchemyError):
        return None


def _cookie_token() -> str | None:
    try:
        token = st.context.cookies.get(WORKSPACE_COOKIE)
    except (AttributeError, RuntimeError):
        return None
    return token if isinstance(token, str) and token else None


def _find_workspace() -> dpstore.Workspace | None:
    """The workspace this session's token (the test hook's, else the cookie's) names, or None."""
    ss = st.session_state
    if WORKSPACE_TOKEN_KEY not in ss:
        ss[WORKSPACE_TOKEN_KEY] = _cookie_token()
    token, s = ss[WORKSPACE_TOKEN_KEY], store()
    if not token or s is None:
        return None
    ws = s.open_workspace(token)
    if ws is None:                      # deleted (or not a token): forget it, and its cookie
        ss[WORKSPACE_TOKEN_KEY], ss[COOKIE_KEY], ss[GONE_KEY] = None, "", True
    else:
        s.purge_expired()
    return ws


def init_session() -> None:
    """Create this session's release session (cache + ledger; its workspace's budgets if the browser has one) and
    dataset slot. Idempotent."""
    ss = st.session_state
    session = ss.get(SESSION_KEY)
    if not isinstance(session, P.ReleaseSession):
        session = ss[SESSION_KEY] = P.ReleaseSession(MAX_CACHED_RELEASES, workspace=_find_workspace())
    if ss.get(LEDGER_KEY) is not session.ledger:   # (written only when it changed: a run calls this a hundred times)
        ss[LEDGER_KEY] = session.ledger
    if DATASET_KEY not in ss:
        ss[DATASET_KEY] = None


def workspace() -> dpstore.Workspace | None:
    """This session's workspace (None until the first data load or budget made one)."""
    return release_session().workspace


def ensure_workspace() -> dpstore.Workspace | None:
    """This session's workspace, made now if it has none (its token goes to the browser's cookie). None only if the
    database cannot be opened."""
    session = release_session()
    if session.workspace is not None:
        return session.workspace
    s = store()
    if s is None:
        return None
    ws, token = s.create_workspace()
    session.attach(ws)
    ss = st.session_state
    ss[WORKSPACE_TOKEN_KEY], ss[COOKIE_KEY] = token, token
    ss.pop(GONE_KEY, None)
    return ws


def start_workspace(*, delete_current: bool = False, make: bool = True) -> None:
    """A new empty workspace for this browser (the dataset unloaded); with ``delete_current`` the current one is
    deleted with everything in it first. The new one is made now (``make``, and not deleting) or when data is
    loaded again."""
    ss = st.session_state
    current = workspace()
    if delete_current and current is not None:
        current.delete()
    ss[SESSION_KEY] = P.ReleaseSession(MAX_CACHED_RELEASES)
    ss[LEDGER_KEY] = ss[SESSION_KEY].ledger
    ss[DATASET_KEY], ss[WORKSPACE_TOKEN_KEY], ss[COOKIE_KEY] = None, None, ""
    ss.pop(MATCH_KEY, None)
    if make and not delete_current:
        ensure_workspace()


def check_workspace() -> None:
    """If another tab deleted this session's workspace, drop it (budgets would otherwise be read from nothing); the
    next data load makes a new one. One small query a run (app.py, through the session guard), and the workspace
    read once for the whole run (dpcore.privacy.ReleaseSession.hold_reads)."""
    ws = workspace()
    if ws is not None and not ws.exists():
        start_workspace(delete_current=False, make=False)
        st.session_state[GONE_KEY] = True
    elif ws is not None:
        release_session().hold_reads()   # this run reads the workspace once, not once per panel


def workspace_cookie() -> None:
    """Write (or delete) the workspace cookie if this session's token changed (app.py calls it each run). A tiny
    script in the page: the token is never in a URL."""
    value = st.session_state.pop(COOKIE_KEY, None)
    if value is None:
        return
    age = COOKIE_DAYS * 86400 if value else 0
    st.html("<script>(() => {const secure = location.protocol === 'https:' ? '; Secure' : '';"
            f"document.cookie = {json.dumps(WORKSPACE_COOKIE)} + '=' + {json.dumps(value)} + "
            f"'; Max-Age={age}; Path=/; SameSite=Strict' + secure;}})();</script>", unsafe_allow_javascript=True)


def release_session() -> P.ReleaseSession:
    """This session's :class:`~dpcore.privacy.ReleaseSession`."""
    session = st.session_state.get(SESSION_KEY)
    if isinstance(session, P.ReleaseSession) and DATASET_KEY in st.session_state:
        return session
    init_session()
    return st.session_state[SESSION_KEY]


def get_ledger() -> P.PrivacyLedger:
    """This session's :class:`~dpcore.privacy.PrivacyLedger`."""
    return release_session().ledger


def get_dataset() -> dpdata.Dataset | None:
    """The session's current Dataset, or None if none was loaded."""
    init_session()
    return st.session_state[DATASET_KEY]


def set_dataset(ds: dpdata.Dataset | None) -> None:
    """Make ``ds`` the session's dataset (None clears it). Other pages read it with get_dataset()."""
    if ds is not None and not isinstance(ds, dpdata.Dataset):
        raise TypeError(f"set_dataset expects a dpcore.data.Dataset or None; got {type(ds).__name__}.")
    init_session()
    st.session_state[DATASET_KEY] = ds


def data_identity(ds: Any) -> str:
    """The identity a budget is kept under (``ReleaseSession.identity``): with a workspace, the data's keyed
    identity or the near copy's it spends from (row order, column order and formatting do not matter; editing
    bounds keeps the budget); without one, the content fingerprint."""
    return release_session().identity(ds)


def open_budget(ds: dpdata.Dataset | None) -> P.DatasetAccount | None:
    """A user's dataset was loaded: open its budget account in the workspace (made now if needed; spending kept
    if this data or a near copy was loaded before). None for demo data. The match is kept for the Data page."""
    if ds is None or P.data_kind(ds) != P.USER:
        return None
    ensure_workspace()
    acct, match = release_session().open_data(ds)
    st.session_state[MATCH_KEY] = (ds.fingerprint(include_bounds=False), match)
    return acct


def data_match(ds: Any) -> Any:
    """The :class:`dpcore.store.Match` of ``ds``'s last load in this session (why it spends from which budget)."""
    got = st.session_state.get(MATCH_KEY)
    return got[1] if got and ds is not None and got[0] == ds.fingerprint(include_bounds=False) else None


def budget_of(ds: Any) -> P.DatasetAccount | None:
    """The budget account of a user's dataset (None for demo data or if never opened)."""
    if ds is None or P.data_kind(ds) != P.USER or (workspace() is None and not release_session().accounts):
        return None
    return release_session().account(data_identity(ds))


def require_dataset() -> dpdata.Dataset:
    """Return the session's dataset; if there is none, say where to load one and ``st.stop()``."""
    ds = get_dataset()
    if ds is None:
        st.info("No dataset loaded yet: upload a CSV or pick an example on the **Data** page.")
        st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
        st.stop()
    return ds


def bounded_columns(ds: "dpdata.Dataset") -> list[str]:
    """The numeric columns with public bounds; if there are none, say where to declare them and ``st.stop()``."""
    cols = [c for c in ds.numeric_columns if c in ds.bounds]
    if not cols:
        st.info("Declare public bounds for numeric columns on the **Data** page first (a range fixed "
                "without looking at the data).")
        st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
        st.stop()
    return cols


def bound_sources(ds: "dpdata.Dataset", columns: Sequence[str]) -> dict[str, str | None]:
    """``{column: "declared" | "from data" | None}`` for the columns a release uses."""
    return P.bound_sources(ds, columns)


# -- randomness ---------------------------------------------------------------------
def demo_seed() -> int:
    """The sidebar's seed: used for simulated and built-in data (and a chosen reproducible demo)."""
    init_session()
    return int(st.session_state.get(SEED_WIDGET_KEY, 0) or 0)


def current_seed(*scope: Hashable) -> int:
    """The seed for a *public* simulation or sweep (the sidebar's seed). Never for a user's data."""
    return demo_seed()


def randomness(kind: str) -> P.Randomness:
    """The randomness rule for data of ``kind`` with the sidebar's settings (fresh OS entropy on a
    user's data unless "reproducible demo" is switched on)."""
    return P.randomness_for(kind, seed=demo_seed(), reproducible_demo=bool(st.session_state.get(DEMO_WIDGET_KEY)))


def randomness_sidebar() -> None:
    """The sidebar's randomness controls."""
    st.subheader("Randomness")
    st.number_input("Seed for built-in and simulated data", min_value=0, max_value=SEED_MAX, value=0, step=1,
                    key=SEED_WIDGET_KEY, help="Same seed and same settings give the same result on demo data.")
    st.toggle("Reproducible demo on my data (not private)", key=DEMO_WIDGET_KEY,
              help="Off (default): every release on your data draws 128 bits of fresh randomness from the "
                   "operating system, never shown, so nobody can recompute it. On: releases on your data use "
                   "the seed above; anyone who knows it can recompute the release under every candidate "
                   "dataset, so the ledger lists them as not private and counts none of their ε.")
    st.button("New draw", key="dp_new_draw", on_click=lambda: release_session().new_draw(),
              icon=":material/casino:", help="The next release of the same settings on your data is a new draw "
                                               "(it needs a click and is charged again).")

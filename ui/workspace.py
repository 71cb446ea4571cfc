"""The workspace of one browser session: its release session (cache + ledger), its dataset, the dataset's budget
account and the sidebar's randomness (seed, reproducible demo, new draw).

Owns ``st.session_state``'s release session and dataset slots. Must never: keep a session's data or releases
anywhere but that session's ``st.session_state`` (no module-level state, no ``st.cache_*``), or give a seed to a
release on a user's data unless the user switched "reproducible demo" on (dpcore.privacy.randomness_for decides).
The release rules themselves are :mod:`dpcore.privacy.session`.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P

# Session-state keys (namespaced so that widget keys chosen by pages cannot collide).
SESSION_KEY = "dp_releases"      # the ReleaseSession (cache + ledger)
LEDGER_KEY = "dp_ledger"         # the same session's ledger (tests and older callers read it here)
DATASET_KEY = "dp_dataset"
SEED_WIDGET_KEY = "dp_seed"
DEMO_WIDGET_KEY = "dp_reproducible"
SEED_MAX = 2**32 - 1
MAX_CACHED_RELEASES = 32


def init_session() -> None:
    """Create this session's release session (cache + ledger) and dataset slot. Idempotent."""
    ss = st.session_state
    if not isinstance(ss.get(SESSION_KEY), P.ReleaseSession):
        ss[SESSION_KEY] = P.ReleaseSession(MAX_CACHED_RELEASES)
    ss[LEDGER_KEY] = ss[SESSION_KEY].ledger
    ss.setdefault(DATASET_KEY, None)


def release_session() -> P.ReleaseSession:
    """This session's :class:`~dpcore.privacy.ReleaseSession`."""
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
    """The identity a budget is kept under: the content fingerprint without bounds (editing bounds
    keeps the budget; a different file, even one cell, is another dataset)."""
    return ds.fingerprint(include_bounds=False)


def open_budget(ds: dpdata.Dataset | None) -> P.DatasetAccount | None:
    """A user's dataset was loaded: open its budget account (spending kept if loaded before). None for demo data."""
    if ds is None or P.data_kind(ds) != P.USER:
        return None
    return release_session().open_dataset(data_identity(ds), ds.n_rows, ds.name or "dataset")


def budget_of(ds: Any) -> P.DatasetAccount | None:
    """The budget account of a user's dataset (None for demo data or if never opened)."""
    if ds is None or P.data_kind(ds) != P.USER:
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

"""The server process's resources: the database (:func:`database`, the store of budgets and workspaces, whose
engine the classroom shares: its tables are the store's migration 6), and the
housekeeping run by app.py after each script run: the imported modules' objects frozen out of the garbage
collector's walks, and one throttled full collection for the whole server.

Owns three process-wide resources (``st.cache_resource``) whose arguments are public (a folder and a database
address, a count of modules, a number of seconds). Must never: hold anything of a session in memory (the store is
a connection pool; what a session keeps there is reached only through its workspace's token; the collector keeps a
time and a lock only).
"""
from __future__ import annotations

import gc
import threading
import time

import streamlit as st

from dpcore import store as dpstore


@st.cache_resource(max_entries=4, show_spinner=False, on_release=lambda s: s.close())
def database(folder: str, url: str) -> dpstore.Store:
    """The store of this server process for one database (SQLite in ``folder``, or ``url``), opened (created or
    upgraded) once; expired kept tables are deleted on opening (and again when a workspace is opened). The one
    database and connection pool of the process: the classroom's tables are in it too (``.engine``)."""
    opened = dpstore.open_store(url or None, data_dir=folder)
    opened.purge_expired()
    return opened


@st.cache_resource(max_entries=64, show_spinner=False)
def freeze_module_heap(n_modules: int) -> int:
    """Move the objects alive now into the collector's permanent generation, once per number of loaded modules.

    A full collection (Streamlit's after every run, by default; here :func:`collector`'s) walks every tracked
    object; with numpy, scipy, pandas, scikit-learn and plotly imported that was about 0.3 s of CPU on the 2-core
    machine (py-spy on benchmarks/first_load.py), more than most pages' scripts. Frozen objects are skipped, so a
    collection only walks what was allocated since. Called by app.py after each run with ``len(sys.modules)``:
    the heap is frozen again when a page imports new modules (a dozen times in a process's life, after which
    every call is a cache hit).
    Reference counting still frees frozen objects; only cyclic garbage alive at one of these few moments is
    never collected. Public: the argument is a count of the server's modules. Returns ``gc.get_freeze_count()``.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class _Collector:
    """A full garbage collection at most once per ``every`` seconds for the whole server (see :func:`collector`)."""

    def __init__(self, every: float) -> None:
        self.every, self.last, self.lock = every, float("-inf"), threading.Lock()

    def maybe_collect(self) -> bool:
        now = time.monotonic()
        with self.lock:
            if now - self.last < self.every:
                return False
            self.last = now
        gc.collect()
        return True


@st.cache_resource(max_entries=1, show_spinner=False)
def collector(every: float = 2.0) -> _Collector:
    """The server's throttled full collection, run by app.py after each script run.

    Streamlit's own one after every run (``runner.postScriptGC``, turned off in .streamlit/config.toml) walks the
    state of every open session each time: ≈ 17 ms a rerun with 10 sessions and growing with each one (py-spy of
    benchmarks/load.py), so at 50 sessions every rerun paid for all the others. Once per ``every`` seconds keeps
    the cyclic garbage of closed sessions bounded (load.py: the server's memory after 50 sessions) for a
    fraction of the cost. Public: a number of seconds; the object holds a time and a lock, nothing of a session.
    """
    return _Collector(every)

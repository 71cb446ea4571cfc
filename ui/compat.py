"""The one patch of Streamlit internals in this app (kept here, small, and tested).

Streamlit 1.67 has no supported switch for this: when a folder named ``pages`` sits next to the
main script, Streamlit starts in its old "pages/ directory" multipage mode, and stays in it until
the first ``st.navigation`` call in the process (``streamlit/runtime/pages_manager.py``,
``PagesManager.uses_pages_directory``; ``script_runner._mpa_v1``). The very first request after
a server start that deep-links to a page (``/data``) would run that page *without* app.py: no
sidebar, no ledger, every file in pages/ listed. The product keeps its top-level ``pages/``
folder, so :func:`leave_legacy_pages_mode` does what ``st.navigation`` itself does (set the flag
to False) and reruns, so app.py handles the same URL. ``tests/app/test_streamlit_compat.py``
fails if Streamlit changes any of the internals this relies on. Must never patch anything else: each
workaround of Streamlit internals lives here, small, with a test that fails when it breaks.
"""
from __future__ import annotations

import streamlit as st


def leave_legacy_pages_mode() -> None:
    """Switch the process to ``st.navigation`` routing (once per process) and rerun if needed."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without this internal: the compat test says so
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()

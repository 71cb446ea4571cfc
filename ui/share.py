"""Sharing and exporting a page: its settings as a link (dpcore.links over ui.links' declarations) and its
release as a Python script or notebook (dpcore.export).

Owns whether this session has read the link it was opened with, and each page's last exported script. Must
never: put data, a release or the session token into a link, or put the data or the entropy a page drew into
an exported script.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from ui.charts import safe_name
from ui.links import PAGES
from ui.workspace import release_session

LINK_DONE_KEY = "_dp_link_read"  # the session's first page run has read the link it was opened with
LINK_PROBLEM_KEY = "_dp_link_problem"  # (page, message) of a link that could not be opened as given
EXPORT_KEY = "_dp_export"        # + "::<page>": the last Script exported by a page (dpcore.export)


def stream(req: P.ReleaseRequest) -> Any:
    """The random stream of ``req`` as an exported script states it (dpcore.export.stream): a fixed seed's
    128-bit entropy on public data, fresh OS entropy on a user's (never the entropy the page drew)."""
    from dpcore import export

    return export.stream(req.randomness, release_session().full_key(req))


def export_code(script: Any, name: str) -> None:
    """“Download as Python script” and “Download as notebook” for ``script`` (a dpcore.export.Script built
    from the page's own config objects). The last one of each page is kept in the session (tests read it)."""
    from dpcore.export import ExportError

    try:
        py = script() if callable(script) else script
        text = py.to_python()        # renders (and checks) every step; the notebook renders the same steps
    except ExportError as exc:
        st.caption(f"Export as code is not available for these settings: {dpdata.literal(str(exc))}")
        return
    st.session_state[f"{EXPORT_KEY}::{name}"] = py
    c1, c2 = st.columns(2)
    c1.download_button("Download as Python script", data=text, file_name=f"{safe_name(name)}.py", mime="text/x-python",
                       key=f"dp_export_py::{name}", on_click="ignore", icon=":material/code:",
                       help="The same dataset, configuration and dpcore call as this page, as a script that runs "
                            "without the app (it never contains your data).")
    c2.download_button("Download as notebook", data=py.to_notebook, file_name=f"{safe_name(name)}.ipynb",
                       mime="application/x-ipynb+json", key=f"dp_export_nb::{name}", on_click="ignore",
                       icon=":material/book:", help="The same as a Jupyter notebook.")


def share_link(page: str) -> None:
    """Keep ``page``'s public settings in the URL (dpcore.links) and offer the link; call right after ``persist``.

    The first run of a session reads the link it was opened with: valid → its values become the widgets'
    (and their persisted copies); a parameter the page does not have, or a value of the wrong type or out of
    range → the defaults, and a message naming it (shown literally). Every run then writes the settings back
    into the query parameters (the ``session`` token is left alone) and offers “Copy link”: the page's
    address (``st.context.url``: what the browser asked for, since the server cannot know its public host)
    with the settings, never the session token, data or a release.
    """
    from dpcore import links

    params, ss = PAGES[page], st.session_state
    if LINK_DONE_KEY not in ss:
        ss[LINK_DONE_KEY] = True
        query = {k: st.query_params.get_all(k) for k in st.query_params}
        try:
            values = links.decode(params, query)
        except links.LinkProblem as exc:
            values = {}
            ss[LINK_PROBLEM_KEY] = (page, str(exc))
            for k in query:
                if k not in links.RESERVED:
                    del st.query_params[k]
        for k, v in values.items():
            ss[k] = ss[f"_keep::{k}"] = v
    problem = ss.get(LINK_PROBLEM_KEY)
    if problem and problem[0] == page:
        st.warning(dpdata.literal(f"This link could not be opened as it was: {problem[1]} The page opened with its "
                                  "default settings."), icon=":material/link_off:")
    current = links.encode(params, {p.key: ss[p.key] for p in params if p.key in ss})
    for k in list(st.query_params):
        if k not in links.RESERVED and k not in current:
            del st.query_params[k]
    for k, v in current.items():
        if st.query_params.get_all(k) != v:
            st.query_params[k] = v if len(v) != 1 else v[0]
    base = str(getattr(st.context, "url", "") or "").split("?")[0]
    with st.popover("Copy link", icon=":material/link:"):
        st.code(base + links.query_string(current), language=None, wrap_lines=True)
        st.caption("A link to this page with its current settings (never your data, a release or your session). "
                   "Copy it with the icon at the box's right.")

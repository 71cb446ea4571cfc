"""AppTest of the workspace in the app (issue 31, its UI half): two tabs of one browser share one budget and one
ledger through the database; a duplicated tab is told nothing false; a reordered copy spends from the original's
budget and the Data page says so; "keep my data on this server" brings the data back after a restart; a new
workspace starts empty and deleting one (asked once) removes it for every tab.

AppTest has no cookies: a second session joins the first one's workspace through the documented test hook
(``st.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]`` set before its first run).
"""
from __future__ import annotations

import io
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, TIMEOUT
from tests.app.test_budget_app import CSV, _acct, _declare_bounds, _kng_release, _ok, _plain, _session, _upload

pytestmark = pytest.mark.app
TOKEN = "_dp_workspace_token"    # ui.workspace.WORKSPACE_TOKEN_KEY (the test hook)


def _tab(token: str | None = None, session: str | None = None) -> AppTest:
    """A new session of the app (a new tab), on the workspace ``token`` (its browser's cookie) if given."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if token is not None:
        at.session_state[TOKEN] = token
    if session is not None:
        at.query_params["session"] = session
    return _ok(at.run())


def _side(at: AppTest) -> str:
    return _plain("\n".join(str(m.value) for m in at.sidebar.markdown))


def _released(at: AppTest, eps: float) -> AppTest:
    _declare_bounds(at)
    _ok(at.button(key="dp_new_draw").click().run())
    return _kng_release(at, eps=eps)


def test_two_tabs_on_one_workspace_share_one_budget_and_one_ledger():
    """Finding 2. Before: tab B spent another ε = 3 on data whose ε = 3 tab A had spent (budgets lived in each tab).
    After: B, on A's workspace, sees A's spending after a rerun and is refused when A spent it all; A's release
    appears in B's sidebar ledger."""
    import ui

    a = _upload(_tab())
    token = a.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]
    b = _upload(_tab(token))
    assert _acct(a).fingerprint == _acct(b).fingerprint          # one account
    _released(a, 2.0)
    assert "1 release counted as DP" in _side(_ok(b.run()))        # A's release in B's ledger, after a rerun
    assert "remaining ε = **1**" in _side(b), _side(b)             # B sees A's spending
    assert _acct(b).spent() == (2.0, 0.0)
    _released(b, 1.0)                                              # B spends the rest
    assert _acct(a).remaining()[0] == 0.0
    _ok(a.run())
    assert "2 releases counted as DP" in _side(a) and "remaining ε = **0**" in _side(a)
    _released(a, 1.0)                                              # A is refused: nothing left
    assert any("costs ε = 1, δ = 0 but only ε = 0" in _plain(e.value) for e in a.error), [e.value for e in a.error]
    assert _acct(a).spent() == (3.0, 0.0)


def test_a_duplicated_tab_of_a_live_workspace_is_told_nothing_false():
    """Finding 2 (the notice). Before: a tab duplicated from a live one was told "the privacy budgets of the previous
    session are gone". After: it is told this is a new session of the page, that the workspace kept the budgets (with
    their count), and that the data is not loaded in THIS session; tab A goes on as before."""
    import ui

    a = _upload(_tab())
    _released(a, 1.0)
    dup = _tab(a.session_state[ui.workspace.WORKSPACE_TOKEN_KEY], session=a.query_params["session"])
    (notice,) = [_plain(e.value) for e in dup.info]
    assert notice.startswith("**This is a new session of this page** (it was reloaded, or opened in another tab).")
    assert "workspace is intact" in notice and "budgets of 1 dataset and 1 release" in notice
    assert "The data is not loaded in this session." in notice
    for false in ("gone", "lost", "previous session", "server restarted", "nothing is kept"):
        assert false not in notice.lower(), false
    _ok(dup.button(key="dp_restart_ack").click().run())
    assert "remaining ε = **2**" in _side(dup)
    _released(a, 1.0)                                              # the first tab is untouched and shares the budget
    assert _acct(a).spent() == (2.0, 0.0)
    assert "remaining ε = **1**" in _side(_ok(dup.run()))


def test_a_reordered_copy_spends_from_the_original_budget_and_the_data_page_says_so():
    """Finding 3. Before: the same rows in another order started a fresh budget, silently. After: the Data page says
    "this looks like “people.csv”: 100 % of its rows; it spends from the budget of “people.csv”" and states the
    rule; the spending is shared."""
    a = _upload(_tab())
    _released(a, 2.0)
    shuffled = pd.read_csv(io.BytesIO(CSV)).sample(frac=1, random_state=3)[["income", "age"]]
    _upload(a, shuffled.to_csv(index=False, sep=";").encode(), name="copy.csv")
    page = _plain("\n".join(str(m.value) for m in a.markdown) + "\n".join(str(c.value) for c in a.caption))
    assert "this looks like “people.csv”: 100 % of its rows; it spends from the budget of “people.csv”" in page
    assert "at least 90 % of the rows" in page and "same columns or a superset" in page
    assert _acct(a).spent() == (2.0, 0.0)


def test_kept_data_comes_back_after_a_restart_and_can_be_deleted(monkeypatch):
    """"Keep my data on this server": after a restart (a fresh session of another process on the same workspace) the
    notice names the kept table and its expiry; "Load" brings it back with its budget; "Delete" removes it."""
    import ui

    a = _upload(_tab())
    _released(a, 1.0)
    a.switch_page("pages/data.py").run()
    _ok(a.checkbox(key="data_keep_on_server").check().run())
    assert any("Kept on this server until" in c.value for c in a.caption)
    bounds = a.session_state["dp_dataset"].bounds
    assert bounds.get("income") == (0.0, 50.0)
    token, session = a.session_state[ui.workspace.WORKSPACE_TOKEN_KEY], a.query_params["session"]
    monkeypatch.setattr(ui.resume, "BOOT_ID", "0000beef")            # a new server process
    new = _tab(token, session=session)
    (notice,) = [_plain(e.value) for e in new.info]
    assert "server restarted" in notice.lower() and re.search(r"You kept “people.csv” \(until \d{4}-", notice)
    (load,) = [b for b in new.button if str(b.key).startswith("dp_restart_kept_load_")]
    _ok(load.click().run())
    assert new.session_state["dp_dataset"].name == "people.csv"
    assert new.session_state["dp_dataset"].bounds == bounds                  # with the bounds it had
    _ok(new.button(key="dp_restart_ack").click().run())
    assert _acct(new).spent() == (1.0, 0.0)
    new.switch_page("pages/data.py").run()
    assert new.checkbox(key="data_keep_on_server").value is True
    _ok(new.button(key="data_keep_delete").click().run())
    assert _session(new).workspace.kept() == []
    assert new.checkbox(key="data_keep_on_server").value is False


def test_a_new_workspace_starts_empty_and_deleting_one_asks_once_and_reaches_every_tab():
    import ui

    a = _upload(_tab())
    _released(a, 1.0)
    first = a.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]
    a.switch_page("pages/data.py").run()
    _ok(a.button(key="dp_ws_new").click().run())
    assert a.session_state["dp_dataset"] is None and a.session_state[ui.workspace.WORKSPACE_TOKEN_KEY] != first
    assert "remaining ε" not in _side(a) and "0 releases" in _side(a)
    b = _tab(first)                                                    # the old workspace is still there
    assert "remaining ε = **2**" in _side(b)
    b.switch_page("pages/data.py").run()
    _ok(b.button(key="dp_ws_delete").click().run())
    assert any("Delete every budget" in w.value for w in b.warning)    # asks once
    assert _session(b).workspace.exists()
    _ok(b.button(key="dp_ws_delete_yes").click().run())
    assert _session(b).workspace is None and "remaining ε" not in _side(b)
    c = _tab(first)                                                    # its cookie named the deleted workspace
    assert c.session_state[ui.workspace.WORKSPACE_TOKEN_KEY] is None
    assert any("was deleted" in i.value for i in c.info)


def test_a_hostile_kept_epsilon_setting_is_replaced_by_the_default():
    """Finding 5 (the setting). Before: a session file's ``_keep::h_eps_typed = "boom"`` raised TypeError in the
    histograms page's ε widget. After: epsilon_input gives persist its real defaults, whose type check replaces it."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["_keep::h_eps_typed"] = "boom"
    at.session_state["_keep::h_eps"] = 0.123                 # a number the slider does not offer
    _ok(at.run())
    at.switch_page("pages/histograms.py").run()
    _ok(at)
    assert at.session_state["h_eps_typed"] == 1.0 and at.session_state["h_eps"] in (0.1, 0.15)

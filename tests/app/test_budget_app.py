"""AppTest of the privacy budget in the app (issue 17, findings 3, 4, 5): clearing the ledger's list gives
nothing back, a restart or reload is said before anything else, a saved ledger continues the count, every
release button carries the click's total cost, defaults cost at most ε, a release beyond the budget is
refused with nothing computed, and loading the same file again keeps its spending."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, TIMEOUT

pytestmark = pytest.mark.app

rng = np.random.default_rng(1)
CSV = pd.DataFrame({"age": rng.uniform(20, 60, 200).round(2), "income": rng.uniform(0, 50, 200).round(2)}
                   ).to_csv(index=False).encode()


def _plain(text: str) -> str:
    """Text as the user reads it (Markdown escapes removed)."""
    return re.sub(r"\\(.)", r"\1", str(text))


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [b.label for b in at.button]
    return "\n".join(parts)


def _session(at):
    import ui
    return at.session_state[ui.SESSION_KEY]


def _acct(at: AppTest, ds=None):
    """The budget account of the loaded dataset (or ``ds``), read from the session's workspace (a snapshot)."""
    session = _session(at)
    return session.account(session.identity(at.session_state["dp_dataset"] if ds is None else ds))


def _upload(at: AppTest, content: bytes = CSV, name: str = "people.csv") -> AppTest:
    at.switch_page("pages/data.py").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv"))
    return _ok(at.run())


def _declare_bounds(at: AppTest) -> AppTest:
    """Public bounds for age and income (as typed on the Data page)."""
    ds = at.session_state["dp_dataset"].with_bounds("age", 0.0, 100.0).with_bounds("income", 0.0, 50.0)
    at.session_state["dp_dataset"] = ds
    return at


def _kng_release(at: AppTest, eps: float = 1.0, click: bool = True) -> AppTest:
    at.session_state["kng_source"] = "Dataset from the Data page"
    at.session_state["kng_view"] = "Release"
    at.session_state["kng_problem"] = "mean"
    at.session_state["kng_cols"] = ["age"]
    at.session_state["kng_eps_typed"] = eps
    at.switch_page("pages/kng.py").run()
    _ok(at)
    if click:
        _ok(at.button(key="kng_go").click().run())
    return at


@pytest.fixture
def counted_release(monkeypatch):
    """Count calls of the KNG releases (the page's one dpcore call: the registered mechanism's release)."""
    import dataclasses

    from dpcore import registry

    calls = []
    real = registry.mechanism

    def mechanism(name):
        spec = real(name)

        def release(*a, **k):
            calls.append(1)
            return spec.release(*a, **k)
        return dataclasses.replace(spec, release=release) if name.startswith("kng/") else spec

    monkeypatch.setattr(registry, "mechanism", mechanism)
    return calls


def _set_budget(at: AppTest, eps: float, delta: float = 1e-5) -> AppTest:
    at.switch_page("pages/data.py").run()
    (tag,) = [w.key.rsplit("_", 1)[1] for w in at.number_input if str(w.key).startswith("data_budget_eps_")]
    at.number_input(key=f"data_budget_eps_{tag}").set_value(eps)
    at.number_input(key=f"data_budget_delta_{tag}").set_value(delta)
    at.button(key=f"FormSubmitter:data_budget_form_{tag}-Set budget").click()
    return _ok(at.run())


def test_clear_ledger_gives_no_budget_back(counted_release):
    """Finding 3. Before: Release, Clear ledger, New draw, Release on the same data left a ledger total of
    ε = 1 when 2 was spent. After: the budget says ε = 2 spent, 1 of 3 left, and the sidebar shows it."""
    at = _upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())
    _declare_bounds(at)
    _kng_release(at)
    _ok(at.button(key="dp_clear_ledger").click().run())
    _ok(at.button(key="dp_new_draw").click().run())
    _ok(at.button(key="kng_go").click().run())
    assert len(counted_release) == 2
    acct = _acct(at)
    assert acct.spent() == (2.0, 0.0) and acct.remaining() == (1.0, 1e-5)
    side = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert "remaining ε = **1**, δ = **1e-05** of ε = 3, δ = 1e-05" in _plain(side)


def test_a_release_beyond_the_budget_is_refused_with_nothing_computed_and_reloading_keeps_spending(
        counted_release):
    """Before: no budget (a 2nd release at ε = 1 on data allotted 1.5 was computed); unloading and loading
    the file again started from nothing. After: the click is refused naming its cost and what remains,
    the KNG release is never called; after unload + reload the spending (ε = 1) is still there."""
    at = _upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())
    _set_budget(at, 1.5)
    assert _acct(at).budget.epsilon == 1.5
    _declare_bounds(at)
    _kng_release(at)
    assert len(counted_release) == 1
    # unload, load the same file again: the spending stays
    at.switch_page("pages/data.py").run()
    _ok(at.button(key="data_unload").click().run())
    assert at.session_state["dp_dataset"] is None
    at.file_uploader(key="data_upload").set_value(None)
    _ok(at.run())
    _upload(at)
    acct = _acct(at)
    assert acct.spent() == (1.0, 0.0) and acct.remaining()[0] == pytest.approx(0.5)
    _declare_bounds(at)
    _ok(at.button(key="dp_new_draw").click().run())
    _kng_release(at)
    assert len(counted_release) == 1   # never called
    (err,) = [_plain(e.value) for e in at.error]
    assert "costs ε = 1, δ = 0 but only ε = 0.5" in err and "ε = 1.5, δ = 1e-05" in err
    assert _acct(at).spent() == (1.0, 0.0)
    assert any("does not fit" in w.value for w in at.warning)   # said before the click too


def _charged_twice() -> AppTest:
    """A session with people.csv uploaded, bounds declared and two KNG releases (ε = 2 of 3 spent)."""
    old = _upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())
    _declare_bounds(old)
    _kng_release(old)
    _ok(old.button(key="dp_new_draw").click().run())
    _ok(old.button(key="kng_go").click().run())
    return old


def test_restart_is_said_before_anything_else_and_the_workspace_keeps_the_count(monkeypatch):
    """Finding 4 (issue 17), changed by issue 31: budgets live in the browser's workspace, not in the tab. Before:
    after a restart the notice said the budgets were gone and asked for the saved ledger. After: a fresh session of
    a new server process arriving with the old page's token and the same workspace (the cookie; here the test hook)
    sees the notice first (the page does not run); it says the workspace kept the budgets, and loading the same data
    again with no upload finds ε = 2 of 3 spent."""
    import ui

    old = _charged_twice()
    token = old.query_params["session"]
    assert token.startswith(ui.resume.BOOT_ID + "-")
    ws_token = old.session_state[ui.workspace.WORKSPACE_TOKEN_KEY]
    assert ws_token not in token                        # the workspace's key is never in the URL

    monkeypatch.setattr(ui.resume, "BOOT_ID", "0000beef")     # a new server process
    new = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    new.query_params["session"] = token                  # the reconnecting browser's URL
    new.session_state[ui.workspace.WORKSPACE_TOKEN_KEY] = ws_token   # its cookie
    _ok(new.run())
    (notice,) = [_plain(e.value) for e in new.info]
    assert "server restarted" in notice.lower() and "workspace is intact" in notice and "gone" not in notice
    assert "budgets of 1 dataset and 2 releases" in notice and "load the same file again" in notice
    assert not [t for t in new.title]                    # nothing else ran: no page, no sidebar ledger
    assert new.query_params["session"].startswith("0000beef-")
    _ok(new.button(key="dp_restart_ack").click().run())
    assert not new.info and new.title
    side = _plain("\n".join(str(m.value) for m in new.sidebar.markdown))
    assert "remaining ε = **1**" in side and "2 releases counted as DP" in side   # no upload, no data yet
    _upload(new)
    acct = _acct(new)
    assert acct.spent() == (2.0, 0.0) and acct.remaining() == (1.0, 1e-5)


def test_without_a_workspace_a_saved_ledger_continues_the_count():
    """Another browser (no cookie): the saved ledger (JSON) uploaded, then the same data loaded: ε = 2 of 3 spent;
    a bad file gets a clear error, not a traceback."""
    saved = _session(_charged_twice()).to_json().encode()
    new = _ok(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())
    new.file_uploader(key="dp_ledger_upload").set_value(("privacy_ledger.json", saved, "application/json"))
    _ok(new.run())
    assert any("people.csv" in _plain(s.value) and "never gives budget back" in _plain(s.value)
               for s in new.success), [e.value for e in new.error]
    _upload(new)
    acct = _acct(new)
    assert acct.spent() == (2.0, 0.0) and acct.remaining() == (1.0, 1e-5)
    new.file_uploader(key="dp_ledger_upload").set_value(("x.json", b"{not json", "application/json"))
    _ok(new.run())
    assert any("not a valid ledger file" in _plain(e.value) for e in new.error)


def test_a_reloaded_page_is_a_new_session_and_says_so():
    first = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    _ok(first.run())
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params["session"] = first.query_params["session"]   # same server, same URL, fresh session
    _ok(again.run())
    (notice,) = [_plain(e.value) for e in again.info]
    assert "new session of this page" in notice and "No workspace was found" in notice
    fresh = _ok(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())    # a first visit: nothing to say
    assert not fresh.error and not fresh.info and fresh.query_params["session"]


# -- cost first --------------------------------------------------------------------------------
def _user_ds(n=400):
    from dpcore import data as dpdata

    g = np.random.default_rng(0)
    frame = pd.DataFrame({"age": g.uniform(20, 60, n), "income": g.uniform(0, 50, n), "y": g.choice([-1.0, 1.0], n)})
    return dpdata.Dataset(frame, ("age", "income", "y"), {"age": (0.0, 100.0), "income": (0.0, 50.0),
                                                          "y": (-1.0, 1.0)}, "test data", name="people.csv")


PAGES = {  # page, session state for "your data", button key, ε widget key (None: ρ page)
    "kng": ({"kng_source": "Dataset from the Data page", "kng_view": "Release"}, "kng_go", "kng_eps"),
    "density": ({"dn_source": "Dataset from the Data page"}, "dn_go", "dn_eps"),
    "lasso": ({"lasso_source": "Dataset from the Data page"}, "lasso_go", "lasso_eps"),
    "eigenvalues": ({"sp_source": "Dataset from the Data page"}, "sp_go", "sp_eps"),
    "histograms": ({"h_source": "Dataset from the Data page", "h_cols": ["age"]}, "h_go", "h_eps"),
    "query_release": ({"qr_cols": ["age"]}, "qr_go", None),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_every_release_button_carries_the_total_cost_and_defaults_cost_at_most_epsilon(page):
    """Finding 5. Before: the cost was a sentence above a bare "Release" button, and the defaults cost 2ε
    (KNG: two mechanisms) and 20ε with δ = 0.01 (density: 2 methods × 10 draws). After: the button reads
    "Release — ε = 1, δ = 0" (KNG, density at the default ε = 1), and no default click costs more than ε."""
    import ui

    state, button, eps_key = PAGES[page]
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state[ui.DATASET_KEY] = _user_ds()
    for k, v in state.items():
        at.session_state[k] = v
    _ok(at.run())
    at.switch_page(f"pages/{page}.py").run()
    _ok(at)
    label = at.button(key=button).label
    # issue 33: a click's cost is said in its own terms (a zCDP release as its ρ, never at a fixed δ)
    assert " — " in label and ("ε = " in label and "δ = " in label or "ρ = " in label), label
    if eps_key is not None:
        eps = float(at.session_state[eps_key])
        assert eps == 1.0
        total = float(label.split("ε = ")[-1].split(",")[0])
        assert total <= eps, label
    if page in ("kng", "density"):
        assert label.endswith("— ε = 1, δ = 0"), label
    if page == "query_release":
        assert label == "Release — ρ = 0.1"   # its conversion is the budget's, shown beside the button
    # the budget is visible beside the button
    assert any("Budget of “people.csv”" in _plain(c.value) for c in list(at.caption) + list(at.warning))


def test_kng_two_mechanisms_cost_two_epsilon_on_the_button_and_are_checked_together(counted_release):
    import ui
    from dpcore.privacy import Budget

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    ds = _user_ds()
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["kng_source"] = "Dataset from the Data page"
    at.session_state["kng_view"] = "Release"
    at.session_state["kng_mechs_r"] = ["kng", "exponential"]
    _ok(at.run())
    at.switch_page("pages/kng.py").run()
    assert at.button(key="kng_go").label == "Release — ε = 2, δ = 0"
    _session(at).set_budget(_session(at).identity(ds), Budget(1.5, 1e-5, n=400))   # (store accounts are copies)
    _ok(at.button(key="kng_go").click().run())
    assert not counted_release and any("costs ε = 2, δ = 0 but only ε = 1.5" in _plain(e.value) for e in at.error)


def test_density_delta_at_least_one_over_n_is_refused_on_user_data(monkeypatch):
    """Finding 5 (δ). Before: the default δ = 1e-3 × 10 draws (δ ≥ 1/n on small tables) was released.
    After: a GP release with δ ≥ 1/n is refused naming 1/n, nothing computed."""
    from dpcore import density
    import ui

    calls = []
    monkeypatch.setattr(density, "compare_release", lambda *a, **k: calls.append(1))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state[ui.DATASET_KEY] = _user_ds(n=400)
    at.session_state["dn_source"] = "Dataset from the Data page"
    at.session_state["dn_methods_user"] = ["gp"]
    at.session_state["dn_delta"] = 0.01
    _ok(at.run())
    at.switch_page("pages/density.py").run()
    _ok(at.button(key="dn_go").click().run())
    assert not calls
    assert any("≥ 1/n = 0.0025" in _plain(e.value) for e in at.error), [e.value for e in at.error]


def test_every_release_cost_says_what_it_means_and_the_ledger_its_total():
    """Issue 22: beside the cost, the hypothesis-testing reading; the curve on request; the ledger's total."""
    at = _declare_bounds(_upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()))
    at = _kng_release(at, eps=1.0, click=False)
    assert "What this means: an adversary who wrongly accuses at most 5 % of the time is right at most 13.6 %" \
        in _texts(at)
    n_charts = len(at.get("plotly_chart"))
    at.toggle(key="kng_go_curve").set_value(True).run()
    _ok(at)
    assert len(at.get("plotly_chart")) == n_charts + 1
    at.button(key="kng_go").click().run()
    _ok(at)
    side = "\n".join(c.value for c in at.sidebar.caption)
    assert "All 1 listed release together (not one click: each release button says its own): an adversary who " \
        "wrongly accuses at most 5 %" in side          # (issue 32: says it is for the whole list)


def test_the_data_page_sets_the_budgets_notion():
    """Issue 33: the Data page chooses how the budget counts; a ρ-zCDP budget is the largest ρ guaranteeing the
    (ε, δ) entered, and the budget line says its notion and the remaining ρ."""
    at = _upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run())
    at.switch_page("pages/data.py").run()
    (radio,) = [r for r in at.radio if str(r.key).startswith("data_budget_notion_")]
    tag = str(radio.key).rsplit("_", 1)[1]     # a per-session number, nothing of the data
    radio.set_value("zcdp")
    at.button(key=f"FormSubmitter:data_budget_form_{tag}-Set budget").click()
    _ok(at.run())
    acct = _acct(at)
    assert acct.budget.notion == "zcdp" and acct.budget.rho == pytest.approx(0.2242, abs=1e-4)
    text = _plain("\n".join(str(m.value) for m in at.markdown))
    assert "remaining ρ = **0.2242" in text and "ρ-zCDP (privacy filter)" in text


def test_issue32_5_the_ledger_says_its_reading_is_for_all_releases_together():
    """main, after one KNG release at ε = 1: the button said "right at most 13.6 %", the ledger a bare "35.1 %" (its
    zCDP total, looser). After: the ledger's sentence says it is for all listed releases together, with the tightest
    valid bound — for one release, the button's own 13.6 %."""
    at = _declare_bounds(_upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()))
    _kng_release(at)
    text = _plain(_texts(at))
    assert "right at most 13.6 %" in text
    together = [line for line in text.splitlines() if "listed release" in line and "together" in line]
    assert together and "All 1 listed release together (not one click" in together[0], together
    assert "13.6 %" in together[0] and "35.1" not in text

"""AppTest tier: the app shell (router, sidebar, ledger), the Home page and isolation between sessions
(the Data page has its own file, tests/app/test_data_page.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.privacy import PrivacyCost
from tests.app.conftest import APP, ROOT, app_pages

pytestmark = pytest.mark.app

GOOD_CSV = b"age,income,city\n34,52000,Paris\n51,61000.5,Lyon\n29,,Nice\n62,75000,Lille\n45,48000,Metz\n"


def _texts(at) -> str:
    """Every text the session shows (markdown, captions, alerts, labels, table cells), joined."""
    parts = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
                 "success", "exception"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for w in ("radio", "selectbox", "multiselect", "number_input", "checkbox", "toggle", "button",
              "select_slider", "text_input"):
        for e in getattr(at, w):
            parts.append(str(getattr(e, "label", "")))
            parts += [str(o) for o in getattr(e, "options", [])]
            parts.append(str(e.value))
    for df in at.dataframe:
        parts.append(df.value.to_csv())
    return "\n".join(parts)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _upload(at, name: str, content: bytes) -> AppTest:
    at.switch_page("pages/data.py").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv"))
    return at.run()


def _data_page(app) -> AppTest:
    app.run()
    return app.switch_page("pages/data.py").run()


# -- every page ------------------------------------------------------------------------
def test_every_page_listed_in_app_runs_without_exception(app):
    app.run()
    assert not app.exception
    pages = app_pages()
    assert {"pages/home.py", "pages/data.py"} <= set(pages)
    for page in pages:
        app.switch_page(page).run()
        assert not app.exception, (page, [e.value for e in app.exception])
    # and once more with a dataset loaded
    app.switch_page("pages/data.py").run()
    app.radio(key="data_source").set_value("Simulate a dataset").run()
    app.button(key="data_sim_go").click().run()
    for page in pages:
        app.switch_page(page).run()
        assert not app.exception, (page, [e.value for e in app.exception])


def test_home_explains_banner_ledger_randomness_and_links_the_papers(app):
    app.run()
    text = _texts(app)
    for phrase in ("not hardened for production releases", "Data", "basic composition", "zCDP", "Clear ledger",
                   "128 bits", "Reproducible demo", "not DP", "teaching view"):
        assert phrase in text, phrase
    links = " ".join(m.value for m in app.markdown)
    for url in ("arxiv.org/abs/1905.09436", "arxiv.org/abs/1203.2570", "arxiv.org/abs/1811.03763",
                "proceedings.neurips.cc/paper_files/paper/2015", "arxiv.org/abs/2503.17252"):
        assert url in links, url
    assert not app.error


def test_home_lists_exactly_the_topics_that_have_pages(app):
    from ui import nav as _nav

    app.run()
    topics = _nav.topics()
    links = [p.proto.label for p in app.get("page_link")]
    for e in topics:
        assert e.title in links and e.paper in " ".join(m.value for m in app.markdown)
    # a topic without a page (none of these has one yet) is not listed
    text = _texts(app)
    for absent in ("Private LASSO", "Certified eigenvalue bounds", "Query release"):
        if not any(absent.lower() in e.title.lower() for e in topics):
            assert absent not in text.replace("Nearly Optimal Private LASSO", "").replace(
                "Private Query Release", ""), absent


def _record(app, *entries: tuple):
    """Add releases (``(label, cost, kwargs)``) to the session's book as a ledger file's entries would be (issue 31:
    the sidebar lists the workspace's releases, so entries appended to the tab's list alone no longer show)."""
    from dpcore import privacy as P

    tmp = P.PrivacyLedger()
    for label, cost, kw in entries:
        tmp.add(label, cost, **kw)
    app.session_state["dp_releases"].restore(P.LedgerFile((), tuple(tmp.entries), ""))
    return tmp


def test_sidebar_ledger_shows_releases_totals_and_clears(app):
    app.run()
    assert "0 releases" in _texts(app.sidebar)
    ledger = _record(app, ("toy mean, ε=0.5", PrivacyCost.pure(0.5), {"key": ("a",)}),
                     ("toy Gaussian", PrivacyCost.zcdp(0.125), {"key": ("b",)}))
    app.run()
    side = _texts(app.sidebar)
    assert "2 releases" in side
    t = ledger.totals()      # issue 33: no fixed conversion δ — zCDP releases are said as their ρ
    assert f"ε = **{t.basic_epsilon:.4g}**" in side and f"ρ = **{t.basic_rho:.4g}** (zCDP releases)" in side
    assert f"ρ = **{t.zcdp_rho:.4g}**" in side and t.zcdp_epsilon is None
    assert (t.basic_epsilon, t.basic_rho) == (0.5, 0.125) and t.zcdp_rho == pytest.approx(0.5**2 / 2 + 0.125)
    (table,) = [d for d in app.sidebar.dataframe]
    assert list(table.value["release"]) == ["toy mean, ε=0.5", "toy Gaussian"]
    assert list(table.value["cost"]) == ["ε=0.5", "ρ=0.125"]
    _record(app, ("approx", PrivacyCost.approx(1.0, 1e-5), {"key": ("c",)}))
    app.run()
    assert "zCDP: not available" in _texts(app.sidebar)
    app.button(key="dp_clear_ledger").click().run()
    assert not app.exception
    assert len(app.session_state["dp_ledger"]) == 0 and "0 releases" in _texts(app.sidebar)


def test_ledger_is_redrawn_when_the_page_stops_early(app, monkeypatch):
    """Issue 9 §2: before, a page that released and then called st.stop() (every draw withheld) left
    the sidebar at "0 releases" while the ledger's CSV held the release; now the sidebar shows it."""
    import streamlit as st

    import ui

    def release_then_stop():
        from dpcore import privacy as P

        ui.release_session().open_dataset("ab" * 32, n=100, name="people.csv")
        req = P.ReleaseRequest(("x",), "KNG median of age — people.csv; ε = 1; 1 draw", P.USER,
                               P.randomness_for(P.USER), bounds=P.check_bounds({"age": "declared"}),
                               dataset="ab" * 32, cost=PrivacyCost.pure(1.0))
        ui.run_release(req, lambda rng: 1.0, submitted=True, cost_of=lambda r: PrivacyCost.pure(1.0))
        st.stop()  # e.g. every draw withheld

    monkeypatch.setattr(ui, "require_dataset", release_then_stop)
    app.run()
    kng = [p for p in app_pages() if p.endswith("kng.py")][0]
    app.switch_page(kng)
    app.session_state["kng_source"] = "Dataset from the Data page"
    app.run()
    assert not app.exception
    side = _texts(app.sidebar)
    assert "1 release counted as DP" in side and "KNG median of age" in side


def test_ledger_labels_are_words_and_costs_are_per_draw_times_count(app):
    app.run()
    _record(app, ("KNG quantile of age — people.csv; ε = 0.5, τ = 0.9, norm ℓ2; 100 draws",
                  PrivacyCost.pure(0.5, count=100), {"key": ("q",)}),
            ("mean of age — people.csv; ε = 1; 1 draw", PrivacyCost.pure(1.0),
             {"key": ("m",), "counted_as_dp": False, "reason": "not DP: bounds taken from the data (age)"}))
    app.run()
    tables = [d.value for d in app.sidebar.dataframe]
    assert list(tables[0]["cost"]) == ["100 × ε=0.5"]
    assert list(tables[1]["why"]) == ["not DP: bounds taken from the data (age)"]
    side = _texts(app.sidebar)
    assert "1 release counted as DP, 1 not DP" in side and "ε = **50**" in side
    assert "ρ = **12.5**" in side  # 100 × 0.5²/2, not (100 × 0.5)²/2 = 1250
    for table in tables:
        assert not [w for w in table.to_csv().split() if "_" in w]


def test_sidebar_randomness_has_a_demo_seed_and_an_explicit_reproducible_demo(app):
    at = _data_page(app)
    assert at.number_input(key="dp_seed").label == "Seed for built-in and simulated data"
    toggle = at.toggle(key="dp_reproducible")
    assert toggle.value is False and "not private" in toggle.label
    at.button(key="dp_new_draw").click().run()
    assert not at.exception
    side = _texts(at.sidebar).lower()    # issue 31 (was: "a page refresh ends the session"): what the workspace keeps
    assert "a reload, another tab or a server restart finds them" in side and "gives nothing away" in side


# Data page tests: tests/app/test_data_page.py


# -- isolation and hygiene --------------------------------------------------------------
def test_two_sessions_do_not_share_data_or_ledger():
    a = AppTest.from_file(str(APP), default_timeout=60).run()
    b = AppTest.from_file(str(APP), default_timeout=60).run()
    secret = b"zebra_secret_col,other\n987654.321,1\n5,2\n"
    _upload(a, "alice_private.csv", secret)
    assert "zebra_secret_col" in _texts(a)
    a.session_state["dp_ledger"].add("alice release", PrivacyCost.pure(1.0), key=("alice",))
    a.run()
    for page in app_pages():
        b.switch_page(page).run()
        text = _texts(b) + _texts(b.sidebar)
        for trace in ("zebra", "987654", "alice"):
            assert trace not in text, (page, trace)
    assert b.session_state["dp_dataset"] is None
    # B's ledger holds only B's own releases (pages that demo on built-in simulations release on
    # first load); none of A's entries and nothing keyed on A's data.
    a_keys = {e.key for e in a.session_state["dp_ledger"].entries}
    b_entries = b.session_state["dp_ledger"].entries
    assert not a_keys & {e.key for e in b_entries}
    assert all("alice" not in e.label and "zebra" not in e.label for e in b_entries)
    a_fp = a.session_state["dp_dataset"].fingerprint()
    assert a_fp not in repr(b.session_state.to_dict())
    assert "zebra" not in repr(b.session_state.to_dict())


def test_app_code_never_renders_raw_html_or_caches_user_data():
    sources = [APP] + sorted((ROOT / "pages").glob("*.py")) + sorted((ROOT / "ui").glob("*.py"))
    for path in sources:
        code = Path(path).read_text(encoding="utf-8")
        assert "unsafe_allow_html" not in code, path
        # issue 31: the one script of the app writes the workspace cookie (fixed text, the token JSON-quoted)
        assert code.count("st.html(") == (path.name == "workspace.py"), path
    # the shell and the pages that touch uploaded data never cache (caches are shared by sessions)
    for path in [APP, ROOT / "pages" / "data.py", ROOT / "pages" / "home.py",
                 *(p for p in (ROOT / "ui").glob("*.py") if p.name not in ("cache.py", "server.py"))]:   # server: the store
        code = path.read_text(encoding="utf-8")
        assert "st.cache_data" not in code and "st.cache_resource" not in code, path

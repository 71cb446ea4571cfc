"""Browser tier, accessibility: axe-core (vendored, tests/browser/vendor/axe-core) on every page of the app.

Every page that app.py discovers is checked (issue 23) in two states, each page in a few tests (parts) that continue
one session, so that none takes long (issue 21):

* at its defaults: the page by its direct URL in a new session (the deep link routed through app.py, no exception
  element, no page error, a screenshot: test_browser's every-page walk before any data, on the same page state),
  axe on it, then on each further tab in turn;
* after a release on the built-in Diabetes data (loaded on the Data page; one session that the tests continue,
  ``conftest.diabetes``): the Data page's dataset where the page offers it, the page's primary buttons on its
  first tab clicked once (the release), every expander opened, every option of a "View" radio (the KNG page's
  teaching view and release view) shown and released in turn, then each further tab; axe runs after each step.

Rules: every axe-core rule tagged WCAG 2.0/2.1 level A or AA (``wcag2a``, ``wcag2aa``, ``wcag21a``,
``wcag21aa``), none disabled (:data:`DISABLED_RULES` is empty: nothing inside Streamlit itself fails them at
1400×1200 with this app's theme). Expected: no violation at all. Screenshots of a failing state go to the
browser tier's screenshot folder.
"""
from __future__ import annotations

import base64
import hashlib
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import ROOT, SharedSession
from tests.browser.test_browser import (PAGES, SCREENSHOTS, check_page, goto_in_app, release_once, use_session_data,
                                        wait_idle)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]  # the tier's one server + Chromium

AXE_FILE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"
#: The npm package's sri-history.json entry for this version's axe.min.js.
AXE_SRI = "sha256-KTSJmUUM3yhJqOcLeRL8LahahJ2jnA0NU5T1HUqe2Vw="
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
#: Rules switched off, each with the reason (only for a failure inside Streamlit that the app cannot change).
DISABLED_RULES: dict[str, str] = {}
MAIN = '[data-testid="stMain"]'
TAB_PANEL = f'{MAIN} [role="tabpanel"]:not([hidden])'


def _axe_source() -> str:
    data = AXE_FILE.read_bytes()
    sri = "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert sri == AXE_SRI, f"{AXE_FILE} is not axe-core {AXE_VERSION} ({sri}); see its README to update"
    return data.decode("utf-8")


def axe_violations(pg, context: str | None = None) -> list[dict]:
    """Run axe-core (injected once per document) on ``context`` (a CSS selector; None: the whole page)."""
    if not pg.evaluate("() => typeof window.axe !== 'undefined'"):
        pg.add_script_tag(content=_axe_source())
    assert pg.evaluate("() => axe.version") == AXE_VERSION
    options = {"runOnly": {"type": "tag", "values": list(WCAG_TAGS)}, "resultTypes": ["violations"],
               "rules": {rule: {"enabled": False} for rule in DISABLED_RULES}}
    return pg.evaluate(
        "async ([ctx, opts]) => (await axe.run(ctx ? document.querySelector(ctx) : document, opts)).violations",
        [context, options])


def _describe(violations: list[dict]) -> list[str]:
    return [f"{v['id']} ({v['impact']}): {n['target']} — {n.get('failureSummary', '').splitlines()[-1].strip()}"
            for v in violations for n in v["nodes"]]


class Checker:
    """Runs axe on successive states of one page and collects the violations, named by state."""

    def __init__(self, pg, name: str):
        self.pg, self.name, self.found, self.states, self.axe_seconds = pg, name, [], 0, 0.0

    def __call__(self, state: str, context: str | None = None) -> None:
        t = time.monotonic()
        violations = axe_violations(self.pg, context)
        self.axe_seconds += time.monotonic() - t
        self.states += 1
        if violations:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            self.pg.screenshot(path=str(SCREENSHOTS / f"axe_{self.name}_{state}.png"), full_page=True)
            self.found += [f"[{state}] {d}" for d in _describe(violations)]

    def assert_clean(self) -> None:
        assert not self.pg.errors, (self.name, self.pg.errors)
        assert self.pg.locator('[data-testid="stException"]').count() == 0, self.name
        assert not self.found, f"{self.name}: {len(self.found)} axe violation(s)\n" + "\n".join(self.found)


def _settle(pg, previous_title: str | None = None) -> None:
    """Wait until the page's script has drawn its title (``st.title``: the main area's h1, a new one after a
    navigation) and finished its run (``wait_idle`` alone can return before a slow run has started)."""
    wait_idle(pg)
    pg.wait_for_function(
        "prev => { const h = document.querySelector('[data-testid=\"stMain\"] h1');"
        " return h !== null && h.textContent.trim() !== prev; }", arg=previous_title)
    wait_idle(pg)


def _title(pg) -> str:
    return pg.locator(f"{MAIN} h1").first.inner_text().strip()


def _tabs(pg):
    return pg.locator(f'{MAIN} [role="tab"]')


def _open_expanders(pg) -> int:
    closed = pg.locator(f'{MAIN} [data-testid="stExpander"] details:not([open]) > summary')
    opened = 0
    for _ in range(closed.count()):
        s = closed.first
        if not s.is_visible():
            break
        s.click()
        opened += 1
    if opened:
        wait_idle(pg)
    return opened


def _view_options(pg) -> list:
    """The options of the main area's visible "View" radio (the KNG page's teaching view / release)."""
    radios = pg.locator(f'{MAIN} [data-testid="stRadio"]').filter(
        has=pg.locator('[data-testid="stWidgetLabel"]', has_text="View"))
    if not radios.count() or not radios.first.is_visible():
        return []
    return radios.first.locator("label").all()


def _first_view(pg) -> None:
    """Show the first option of the page's "View" radio, if it has one and another is selected."""
    options = _view_options(pg)
    if options and not pg.locator(MAIN).get_by_role("radiogroup", name="View").get_by_role("radio").first.is_checked():
        options[0].click()
        wait_idle(pg)


def _slug(title: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in title.lower())


#: The Data page first: the tier's first request after the server started is a deep link (/data), which must be
#: routed through app.py (the shell and its navigation) like any other.
BY_URL = sorted(PAGES, key=lambda p: p.path != "pages/data.py")
#: Pages whose main area has tabs (``st.tabs`` in their script). Their further tabs are a test part of their own
#: (issue 21: a page, its release and five tabs took up to 19 s), continuing the same session right after the first.
TABBED = {p.path for p in PAGES if "st.tabs(" in (ROOT / p.path).read_text(encoding="utf-8")}
#: Pages whose "View" radio's further options (the KNG page's release view) are checked by a test of their own:
#: :func:`test_kng_teaching_view_and_release_view_on_the_diabetes_example`.
VIEWS_CHECKED_APART = {"pages/kng.py"}


def _parts(pages, first: tuple[str, ...] = ("first tab",)) -> list:
    """Test cases page by page: the parts ``first`` (each page), then "further tabs" (pages in :data:`TABBED`)."""
    cases = []
    for p in pages:
        stem = Path(p.path).stem
        for k, part in enumerate(first):
            cases.append(pytest.param(p, part, id=stem if k == 0 else f"{stem}-{part}"))
        if p.path in TABBED:
            cases.append(pytest.param(p, "further tabs", id=f"{Path(p.path).stem}-further_tabs"))
    return cases


def _path(pg) -> str:
    return urlsplit(pg.url).path.strip("/")


def _check_further_tabs(pg, check, before=None) -> None:
    """Select each tab after the first in turn (client side: no rerun), call ``before()`` if given, run axe on it."""
    names = [t.strip() for t in _tabs(pg).all_inner_texts()]
    assert len(names) > 1, names
    for k in range(1, len(names)):
        _tabs(pg).nth(k).click()
        pg.locator(f'{MAIN} [role="tab"][aria-selected="true"]').filter(has_text=names[k]).wait_for()
        if before is not None:
            before()
        check(f"tab {names[k]}", TAB_PANEL)


@pytest.fixture(scope="module")
def at_defaults(server):
    """One :class:`SharedSession` per page: the page by its direct URL, as first drawn (the first-tab part opens it,
    the further-tabs part continues it)."""
    def opener(p):
        def build(pg):
            pg.goto(f"{server}/{p.url_path}")
            _settle(pg)
        return build

    return {p.path: SharedSession(opener(p)) for p in PAGES}


@pytest.mark.parametrize("p, part", _parts(BY_URL, first=("by its url", "axe")))
def test_every_page_by_its_url_at_defaults(server, page, at_defaults, p, part):
    """Each page by its direct URL, a new session before any data: the shell ran (the sidebar's ledger) and the
    sidebar lists the registered pages only (not every file in pages/); no exception element, no page error, a
    screenshot. Then, continuing that session (parts of their own: issue 21), no WCAG A/AA violation on the page as
    first drawn, and on each further tab of a page with tabs."""
    t0 = time.monotonic()
    session = at_defaults[p.path]
    check = Checker(page, f"{_slug(p.title)}_defaults")
    if part == "by its url":
        session.build(page)
        session.keep(page)
        page.get_by_text("Privacy ledger").first.wait_for()
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "components" not in nav.lower()
        assert [t for t in (q.title for q in PAGES) if t not in nav] == []
        if p.path == "pages/data.py":
            page.get_by_role("heading", name="Data").first.wait_for()
        check_page(page, f"02_{PAGES.index(p)}_{Path(p.path).stem}_no_data")
        assert (_tabs(page).count() > 1) == (p.path in TABBED), "tabs in the page and TABBED disagree"
    elif part == "axe":
        session.enter(page)
        check("page", None)  # the whole page (sidebar too), on its first tab
    else:
        session.enter(page)
        _check_further_tabs(page, check)
    check.assert_clean()
    print(f"{p.title}, {part}: {check.states} states in {time.monotonic() - t0:.1f} s (axe {check.axe_seconds:.1f} s)")


def _on_page_with_diabetes(pg, diabetes, p) -> bool:
    """In the tier's Diabetes session (conftest.diabetes), on page ``p``: True if it had to be opened (through the
    sidebar), False if the tab was showing it (the previous part's state)."""
    diabetes.enter(pg)
    if _path(pg) == p.url_path:
        return False
    before = _title(pg)
    goto_in_app(pg, p.title)
    _settle(pg, before)
    return True


def _release_on_first_tab(pg, p) -> None:
    if p.path != "pages/data.py":
        use_session_data(pg)
        _first_view(pg)              # (the shared session may have left the page in another view)
        release_once(pg)


@pytest.mark.parametrize("p, part", _parts(PAGES))
def test_axe_after_a_release_with_teaching_views_open(server, page, diabetes, p, part):
    """Built-in Diabetes data loaded on the Data page; on the page, the Data page's dataset where offered, one
    release (its first tab's primary buttons: further tabs' buttons run simulations; the Data page's would replace
    the dataset), expanders open: no WCAG A/AA violation — then, the second part for a page with tabs, each further
    tab with its expanders open (the same session: the release is still shown)."""
    t0 = time.monotonic()
    opened = _on_page_with_diabetes(page, diabetes, p)
    check = Checker(page, f"{_slug(p.title)}_release")
    if part == "first tab":
        _release_on_first_tab(page, p)
        _open_expanders(page)
        check("page", None)
        assert not _view_options(page) or p.path in VIEWS_CHECKED_APART, f"{p.path}: its further views are unchecked"
    else:
        if opened:                   # (run without the first part before it: its release first)
            _release_on_first_tab(page, p)
        _check_further_tabs(page, check, before=lambda: _open_expanders(page))
    check.assert_clean()
    print(f"{p.title}, {part}: {check.states} states in {time.monotonic() - t0:.1f} s (axe {check.axe_seconds:.1f} s)")


def test_kng_teaching_view_and_release_view_on_the_diabetes_example(server, page, diabetes):
    """Issue 9: the teaching view and the release view of the KNG page on the built-in diabetes data (the tier's
    Diabetes session); the release view after its release, expanders open: no WCAG A/AA violation."""
    kng = next(p for p in PAGES if p.path == "pages/kng.py")
    _on_page_with_diabetes(page, diabetes, kng)
    page.get_by_text("Dataset from the Data page").first.click()
    wait_idle(page)
    _first_view(page)                                                   # the teaching view
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for()
    check_page(page, "06_kng_diabetes_teaching_view")
    page.get_by_text("Release", exact=True).first.click()
    wait_idle(page)
    page.get_by_text("Not private").first.wait_for()  # real records, known seed: recorded, not counted as DP
    page.locator(".st-key-kng_go button").click()                 # the release button (by its key)
    wait_idle(page)
    page.get_by_text("Sensitivity Δ").first.wait_for()
    charts = page.locator('[data-testid="stPlotlyChart"]')
    preview = charts.filter(has_text="Expected error of one release")     # the accuracy preview (public inputs)
    assert preview.count() == 1 and charts.count() == 1  # besides it, the release shows no density
    check_page(page, "07_kng_diabetes_release_view")
    check = Checker(page, "kng_explorer_release_view")
    _open_expanders(page)
    check("view Release", TAB_PANEL if _tabs(page).count() else MAIN)
    check.assert_clean()

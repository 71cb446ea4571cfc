"""Browser tier, accessibility: axe-core (vendored, tests/browser/vendor/axe-core) on every page of the app.

Every page that app.py discovers is checked (issue 23) in two states, each a test of its own so that none
takes long:

* at its defaults: the page as first drawn, then each of its tabs in turn;
* after a release on the built-in Diabetes data (loaded on the Data page): the Data page's dataset where the
  page offers it, the page's primary buttons on its first tab clicked once (the release), every expander
  opened, every option of a "View" radio (the KNG page's teaching view and release view) shown and released
  in turn, then each further tab; axe runs after each step.

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

import pytest

from tests.browser.test_browser import PAGES, SCREENSHOTS, goto_in_app, release_once, use_session_data, wait_idle

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


def _each_tab(pg, visit) -> None:
    """Call ``visit(tab_name)`` on the page as it is, then after selecting each further tab of the main area."""
    tabs = _tabs(pg)
    names = [t.strip() for t in tabs.all_inner_texts()]
    visit(names[0] if names else "page")
    for k in range(1, len(names)):
        tab = _tabs(pg).nth(k)
        tab.click()  # (client side: no rerun)
        pg.locator(f'{MAIN} [role="tab"][aria-selected="true"]').filter(has_text=names[k]).wait_for()
        visit(names[k])


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


def _slug(title: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in title.lower())


@pytest.mark.parametrize("p", PAGES, ids=[_slug(p.title) for p in PAGES])
def test_axe_at_defaults(server, page, p):
    """Each page as first drawn (fresh session, no dataset), every tab shown in turn: no WCAG A/AA violation."""
    t0 = time.monotonic()
    page.goto(f"{server}/{p.url_path}")
    _settle(page)
    check = Checker(page, f"{_slug(p.title)}_defaults")
    first = True

    def visit(tab: str) -> None:
        nonlocal first
        check(f"tab {tab}", None if first else TAB_PANEL)  # the whole page once (sidebar too), then the tab shown
        first = False

    _each_tab(page, visit)
    check.assert_clean()
    print(f"{p.title}: {check.states} states checked in {time.monotonic() - t0:.1f} s (axe {check.axe_seconds:.1f} s)")


@pytest.mark.parametrize("p", PAGES, ids=[_slug(p.title) for p in PAGES])
def test_axe_after_a_release_with_teaching_views_open(server, page, p):
    """Built-in Diabetes data loaded on the Data page; on the page, the Data page's dataset where offered, one
    release, expanders open, each "View" option (teaching view / release), each tab: no WCAG A/AA violation."""
    t0 = time.monotonic()
    page.goto(f"{server}/data")
    _settle(page)
    page.get_by_role("button", name="Diabetes").first.click()
    wait_idle(page)
    page.get_by_text("Non-private diagnostics").first.wait_for()  # the dataset is loaded
    if p.path != "pages/data.py":
        data_title = _title(page)
        goto_in_app(page, p.title)
        _settle(page, data_title)
    check = Checker(page, f"{_slug(p.title)}_release")
    first = True

    def visit(tab: str) -> None:
        nonlocal first
        if first and p.path != "pages/data.py":  # the release (the Data page's primary button would replace
            use_session_data(page)                # the dataset); further tabs' buttons run simulations
            release_once(page)
        _open_expanders(page)
        check(f"tab {tab}", None if first else TAB_PANEL)
        first = False
        for k, option in enumerate(_view_options(page)[1:], start=1):
            option.click()
            wait_idle(page)
            release_once(page)
            _open_expanders(page)
            check(f"tab {tab}, view {k}", TAB_PANEL if _tabs(page).count() else MAIN)

    _each_tab(page, visit)
    check.assert_clean()
    print(f"{p.title}: {check.states} states checked in {time.monotonic() - t0:.1f} s (axe {check.axe_seconds:.1f} s)")

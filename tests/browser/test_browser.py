"""Browser tier: a real ``streamlit run app.py`` on 127.0.0.1 driven by Debian's Chromium.

Visits every page app.py discovers (ui/nav.py: a new page is covered without editing this file),
uploads a CSV on the Data page and, on every page, picks "the Data page's dataset" where the page
offers it, runs one release with the defaults and one after changing ε (generically: the page's
primary buttons — by convention its main action is ``type="primary"`` — and its ε slider), uploads a
bad file and an oversize file and reads the messages, and fails on any ``stException`` element, any
uncaught page error or any console error.
Screenshots go to ``tests/browser/screenshots/`` (git-ignored) or ``$DP_SCREENSHOT_DIR``.

Never ``playwright install``: the browser is /usr/bin/chromium. Without it the test is skipped,
unless REQUIRE_BROWSER=1 (CI), where that is a failure.
"""
from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, IDLE_TIMEOUT_MS, _free_port  # noqa: F401 (re-exported)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]  # one server + one Chromium per run

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("DP_SCREENSHOT_DIR", ROOT / "tests" / "browser" / "screenshots"))
CSV = "age,income,city\n34,52000,Paris\n51,61000.5,Lyon\n29,,Nice\n62,75000,Lille\n45,48000,Metz\n"


class AppPage(NamedTuple):
    path: str      # file, relative to app.py
    title: str     # sidebar label
    url_path: str  # "" for the default page


def _app_pages() -> list[AppPage]:
    """The pages app.py registers (discovered by ui/nav.py from their header lines), in menu order."""
    sys.path.insert(0, str(ROOT))
    from ui import nav as _nav

    pages = [AppPage(e.path, e.title, "" if e.default else Path(e.path).stem) for e in _nav.discover()]
    assert pages, "no pages discovered"
    return pages


#: Every page of the app (a page plugs in by its header line, not by editing this list).
PAGES: list[AppPage] = _app_pages()


def wait_idle(pg) -> None:
    """Wait until the app is connected and the rerun the last interaction triggered (if any) has finished.

    A rerun may start a moment after the interaction, so "not running" alone could be the state before it. With
    the context's run counter (:data:`tests.browser.conftest.RUN_COUNTER_JS`: every change of the app's script
    state to "running"), this waits for a new run to start — at most 0.3 s, the old fixed pause, for an
    interaction that triggers none — and then for it to finish. Without the counter: the fixed 0.3 s pause."""
    pg.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]')
    doc, runs = pg.evaluate("() => [window.__dpDoc ?? null, window.__dpRuns ?? null]")
    seen = getattr(pg, "dp_runs", 0) if getattr(pg, "dp_doc", None) == doc else 0   # (a new document counts from 0)
    if runs is None:
        time.sleep(0.3)  # let a rerun triggered by the last interaction start
    else:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            pg.wait_for_function("n => window.__dpRuns > n", arg=seen, timeout=300, polling=20)
        except PlaywrightTimeout:
            pass         # no rerun started within 0.3 s
    pg.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    pg.dp_doc, pg.dp_runs = pg.evaluate("() => [window.__dpDoc ?? null, window.__dpRuns ?? 0]")
    pg.wait_for_timeout(100)


def save_session_with_data(pg, path):
    """Sidebar "Save or resume the session": tick "Include my data in the file", download the session file to
    ``path`` (returned)."""
    pg.get_by_text("Save or resume the session").first.click()
    wait_idle(pg)
    pg.get_by_text("Include my data in the file").first.click()
    wait_idle(pg)
    with pg.expect_download() as d:
        pg.get_by_role("button", name="Download session (JSON)").click()
    d.value.save_as(path)
    return path


def check_page(pg, name: str) -> None:
    """No exception element, no uncaught page error; save a screenshot."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    exceptions = pg.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, (name, exceptions.all_inner_texts())
    assert not pg.errors, (name, pg.errors)


def release_once(pg) -> int:
    """Generic 'one release per page': click each visible primary button of the main area once."""
    clicked = 0
    for i in range(pg.locator(PRIMARY).count()):
        button = pg.locator(PRIMARY).nth(i)  # (located again: each click reruns the page)
        if button.is_visible():
            button.click()
            wait_idle(pg)
            clicked += 1
    return clicked


PRIMARY = '[data-testid="stMain"] [data-testid="stBaseButton-primary"]'
EPSILON_LABEL = re.compile(r"^(claimed )?ε$")
BUDGET_FIELD = re.compile(r"^(claimed )?[ερ]\b")  # a typed privacy parameter: "ε (local, ε-LDP)", "ρ (zCDP…)"


def change_epsilon(pg) -> bool:
    """Move the page's ε slider (label "ε" or "claimed ε") one step up, or else step up its first privacy
    parameter field (label starting with ε or ρ); False if the page has neither."""
    if _epsilon_slider_up(pg):
        return True
    fields = pg.locator('[data-testid="stMain"] [data-testid="stNumberInput"]')
    for i in range(fields.count()):
        f = fields.nth(i)
        label = f.locator('[data-testid="stWidgetLabel"]')
        if f.is_visible() and label.count() and BUDGET_FIELD.match(label.first.inner_text().strip()):
            box = f.locator("input").first
            before = box.input_value()
            f.locator('[data-testid="stNumberInputStepUp"]').click()
            wait_idle(pg)
            assert box.input_value() != before, f"the field {label.first.inner_text()!r} did not change"
            return True
    return False


def _epsilon_slider_up(pg) -> bool:
    sliders = pg.locator('[data-testid="stMain"] [data-testid="stSlider"]')
    for i in range(sliders.count()):
        s = sliders.nth(i)
        label = s.locator('[data-testid="stWidgetLabel"]')
        if s.is_visible() and label.count() and EPSILON_LABEL.match(label.first.inner_text().strip()):
            thumb = s.locator('input[type="range"]').first
            before = thumb.get_attribute("aria-valuetext")
            thumb.focus()
            thumb.press("ArrowRight")
            wait_idle(pg)
            assert thumb.get_attribute("aria-valuetext") != before, "the ε slider did not move"
            return True
    return False


def use_session_data(pg) -> bool:
    """Where a page offers the Data page's dataset as a choice (a radio option naming the Data page), pick it."""
    options = pg.locator('[data-testid="stMain"] [data-testid="stRadio"] label').filter(has_text="Data page")
    if options.count() and options.first.is_visible():
        options.first.click()
        wait_idle(pg)
        return True
    return False


def goto_in_app(pg, title: str) -> None:
    """Client-side navigation through the sidebar (keeps the session and its dataset)."""
    pg.locator('[data-testid="stSidebarNav"] a').filter(has_text=title).first.click()
    wait_idle(pg)


# Every page by its direct URL before any data (the deep link routed through app.py, a screenshot, no exception) is
# tests/browser/test_accessibility.py::test_every_page_by_its_url_at_defaults, with axe on the same page state.


def _page_id(p: AppPage) -> str:
    return Path(p.path).stem


def upload_people_csv(page, server) -> None:
    """Open the Data page, upload the people CSV and declare bounds for two columns (age, income)."""
    page.goto(f"{server}/data")
    wait_idle(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    upload = SCREENSHOTS / f"people_{os.getpid()}.csv"
    upload.write_text(CSV, encoding="utf-8")
    try:
        page.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
        wait_idle(page)
    finally:
        upload.unlink(missing_ok=True)
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    page.get_by_text(upload.name).first.wait_for()
    columns = page.locator('[data-testid="stMultiSelect"]').first   # use "income" too (two bounded columns)
    columns.click()
    page.keyboard.type("income")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_idle(page)
    for j, (lo, hi) in enumerate((("30", "50"), ("0", "100000"))):
        lower = page.get_by_label("lower").nth(j)
        lower.fill(lo)
        lower.press("Enter")
        wait_idle(page)
        upper = page.get_by_label("upper").nth(j)
        upper.fill(hi)
        upper.press("Enter")
        wait_idle(page)


def set_budget(pg, epsilon: str, delta: str) -> None:
    """On the Data page with a user's dataset (before its first release): set its total (ε, δ), and check the page
    says it."""
    for label, value in (("total ε", epsilon), ("total δ", delta)):
        pg.get_by_label(label, exact=True).first.fill(value)
    pg.get_by_role("button", name="Set budget").click()
    wait_idle(pg)
    assert re.search(rf"remaining ε = [\d.]+\b.* of ε = {epsilon}\b", _main_text(pg)), _main_text(pg)


#: Total budget of the shared people session: its releases on every page (ε = 1 and one step up, some pages two
#: buttons) fit, where the default (ε = 3) covered one page's (each test had a session of its own).
PEOPLE_BUDGET = ("1000", "0.01")


@pytest.fixture(scope="module")
def people(server):
    """:class:`~tests.browser.conftest.SharedSession` with the people CSV uploaded and bounded
    (:func:`upload_people_csv`) and its budget raised to :data:`PEOPLE_BUDGET`. The upload test builds it, the
    session-file test replaces it by its resumed copy, and the per-page release tests continue it — one upload and
    one resume for the module instead of one per test (issue 21)."""
    from tests.browser.conftest import SharedSession

    def build(pg):
        upload_people_csv(pg, server)
        set_budget(pg, *PEOPLE_BUDGET)

    return SharedSession(build)


def resume_people_session(page, server, session_file: Path) -> None:
    """Open the Data page (a new session) and resume ``session_file``: the people CSV with its bounds."""
    page.goto(f"{server}/data")
    wait_idle(page)
    page.get_by_text("Save or resume the session").first.click()
    wait_idle(page)
    page.locator('[data-testid="stSidebar"] [data-testid="stFileUploader"]').filter(
        has_text="Resume a saved session").locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        str(session_file))
    wait_idle(page)
    page.get_by_text("Session resumed").first.wait_for()
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "Privacy budget of this dataset" in main and "people_" in main, main


def _main_text(pg) -> str:
    return pg.locator('[data-testid="stMain"]').inner_text()


def test_upload_and_the_clipping_report(server, page, people):
    """Upload the people CSV, choose a second column, type bounds for both; the clipping report (non-private
    diagnostics). With its budget raised to :data:`PEOPLE_BUDGET`, the module's people session from here on (the
    tests that continue it may run in another order: xdist's loadgroup keeps the group on one worker, not its
    order)."""
    upload_people_csv(page, server)
    check_page(page, "03_data_uploaded")
    report = page.get_by_text("Non-private diagnostics").first
    report.wait_for()
    report.scroll_into_view_if_needed()
    check_page(page, "03b_data_clipping_report")
    set_budget(page, *PEOPLE_BUDGET)
    people.keep(page)


def test_a_session_file_with_the_data_resumes_the_upload_its_bounds_and_budget(server, page, people, tmp_path):
    """The people session, its budget raised before any release (the form on the Data page), saved WITH the data
    and resumed in a new session restores the same dataset: the user's file, its two declared bounds, its budget.
    The per-page release tests continue this resumed session."""
    people.enter(page)
    if not re.search(r" of ε = 1000\b", _main_text(page)):   # (entered as built: upload, bounds and this budget)
        set_budget(page, *PEOPLE_BUDGET)
    assert re.search(r"remaining ε = [\d.]+\b.* of ε = 1000\b", _main_text(page)), _main_text(page)
    path = save_session_with_data(page, tmp_path / "people_session.json")
    assert '"includes the data": true' in path.read_text(encoding="utf-8")
    resume_people_session(page, server, path)
    assert re.search(r"remaining ε = [\d.]+\b.* of ε = 1000\b", _main_text(page)), _main_text(page)
    bounds = [float(page.get_by_label(side).nth(j).input_value()) for j in (0, 1) for side in ("lower", "upper")]
    assert bounds == [30, 50, 0, 100000], bounds
    people.keep(page)


WITH_DATA = [(i, p) for i, p in enumerate(PAGES) if p.path != "pages/data.py"]   # its primary button replaces the upload
KNG = "pages/kng.py"   # the worked example: the walk's helpers must find the data choice and ε there (not pass on nothing)


def _on_page_with_people(page, people, p: AppPage) -> bool:
    """In the people session, on page ``p`` with the Data page's dataset chosen where offered (True if offered)."""
    people.enter(page)
    goto_in_app(page, p.title)
    return use_session_data(page)


def _not_refused(page) -> None:
    main = _main_text(page)
    assert "remain of the budget" not in main, main     # the shared budget must not be what stops a release


# The per-page release walk with data is split in two tests per page (issue 21: one took up to 18 s), both in the
# module's people session: a release with the defaults; then ε one step up and a release.
@pytest.mark.parametrize("i, p", WITH_DATA, ids=[_page_id(p) for _, p in WITH_DATA])
def test_one_release_per_page_with_data(server, page, people, i, p):
    """With the dataset loaded (the uploaded CSV with its declared bounds, resumed from its session file): the Data
    page's dataset where the page offers it, one release with the defaults."""
    used = _on_page_with_people(page, people, p)
    release_once(page)
    check_page(page, f"04_{i}_{_page_id(p)}_with_data")
    _not_refused(page)
    assert used or p.path != KNG
    print(f"{p.path}: uses the uploaded data: {used}")


@pytest.mark.parametrize("i, p", WITH_DATA, ids=[_page_id(p) for _, p in WITH_DATA])
def test_a_release_per_page_after_moving_epsilon(server, page, people, i, p):
    """The same page with the data: ε one step up (its ε slider, or else its first ε/ρ field), another release."""
    _on_page_with_people(page, people, p)
    moved = change_epsilon(page)
    if moved:
        release_once(page)
        check_page(page, f"04_{i}_{_page_id(p)}_with_data_eps_changed")
        _not_refused(page)
    assert moved or p.path != KNG
    print(f"{p.path}: ε changed: {moved}")


def test_bad_file_and_oversize_file_are_refused_with_messages(server, page, tmp_path):
    page.goto(f"{server}/data")
    wait_idle(page)
    uploader = page.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]')
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    uploader.set_input_files(str(bad))
    wait_idle(page)
    alert = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').filter(has_text="bad.csv")
    alert.first.wait_for()
    assert "PNG" in alert.first.inner_text()
    check_page(page, "08_data_bad_file")
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # one byte over the 50 MB limit (server.maxUploadSize = the widget's limit)
        fh.write(b"x,y\n" + b"1,2\n" * ((50 * 2**20) // 4))
    uploader.set_input_files(str(big))
    page.get_by_text(re.compile(r"File must be 50(\.0)? ?MB or smaller")).first.wait_for()
    wait_idle(page)
    check_page(page, "09_data_oversize_file")


def test_simulated_dataset_through_the_browser(server, page):
    page.goto(f"{server}/data")
    wait_idle(page)
    page.get_by_text("Simulate a dataset").click()
    wait_idle(page)
    release_once(page)  # "Generate dataset"
    page.get_by_text("simulated normal").first.wait_for()
    page.get_by_text("Non-private diagnostics").first.wait_for()
    check_page(page, "05_data_simulated")


# The KNG page's teaching view and release view on the diabetes data (issue 9) is
# tests/browser/test_accessibility.py::test_kng_teaching_view_and_release_view_on_the_diabetes_example, in the
# Diabetes session the axe tests after a release continue, with axe on the release view.


def test_workbook_bomb_and_link_named_columns_as_a_hostile_user(server, page, tmp_path):
    """Issue 18: the 1.5 KB dimension bomb ends in its message at once; a CSV whose column name and a
    category are a Markdown link, an image, an <a> tag and a bare URL shows them as text: no link or
    image to their hosts in the page, and no request to them."""
    requests: list[str] = []

    def record(r) -> None:
        requests.append(r.url)

    page.on("request", record)
    try:
        _bomb_and_link_named_columns(server, page, tmp_path, requests)
    finally:
        page.remove_listener("request", record)   # (the tab is the tier's: not the next tests' requests)


def _bomb_and_link_named_columns(server, page, tmp_path, requests: list[str]) -> None:
    from tests.data import xlsx_build as X
    page.goto(f"{server}/data")
    wait_idle(page)
    uploader = page.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]')
    bomb = tmp_path / "bomb.xlsx"
    bomb.write_bytes(X.bomb_dimension())
    t = time.perf_counter()
    uploader.set_input_files(str(bomb))
    alert = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').filter(has_text="bomb.xlsx")
    alert.first.wait_for()
    assert time.perf_counter() - t < 30 and "A1:XFD1048576" in alert.first.inner_text()
    check_page(page, "10_data_xlsx_dimension_bomb")
    inj = '[x](https://host.invalid/) ![t](http://host.invalid/t.png) <a href="http://host.invalid">y</a> https://bare.invalid'
    hostile = tmp_path / "hostile.csv"
    hostile.write_text(f'"{inj.replace(chr(34), chr(34) * 2)}",group\n1,"{inj.replace(chr(34), chr(34) * 2)}"\n2,a\n3,b\n')
    uploader.set_input_files(str(hostile))
    page.get_by_text("Current dataset").first.wait_for()
    wait_idle(page)
    hrefs = page.eval_on_selector_all("a[href], img[src]", "els => els.map(e => e.href || e.src)")
    assert not [h for h in hrefs if ".invalid" in h], hrefs
    assert not [r for r in requests if ".invalid" in r], requests
    assert page.get_by_text("[x](https://host.invalid/)", exact=False).count() >= 1   # shown as typed
    check_page(page, "11_data_link_named_column")

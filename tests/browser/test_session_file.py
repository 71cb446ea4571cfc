"""Browser tier: a saved session file restores the ledger and the budget in a new session (issue 22), and a real
server restart under an open page is said and a saved ledger continues the count (issue 17, finding 4).

Both start from one session (:func:`charged`, issue 21: each test built it for itself, 24 s and 26 s): on the tier's
server, upload a CSV, declare bounds, release once on the KNG page (ε = 1 of the default budget 3), download the
ledger (JSON) and the session WITH the data (sidebar: "Save or resume the session"). Then, in this order (this module
is the tier's last, so only the session-file test meets the restarted server):

* the restart: the tier's server stops and a new one starts on the same port under that open page. The page
  reconnects; the next interaction must show the restart notice (not the old data, not a silent reset), and uploading
  the saved ledger and loading the same CSV again must continue the count (remaining ε = 2 of 3);
* the session file: the app opened with the old tab's URL but a session token of another server process — what the
  tab holds after a restart (``ui.session_guard`` tells a restart from a reload by the token's process id) — gets a
  fresh session with the restart notice; the session file uploaded there loads the data again, its budget continues
  (remaining ε = 2 of 3), the KNG page opens on the settings it had, and a second release takes the remaining budget
  down to 1.

Debian's /usr/bin/chromium, never ``playwright install``.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest

from tests.browser.conftest import SharedSession
from tests.browser.test_browser import CSV, bounds_then_kng_release, save_session_with_data, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _main(pg) -> str:
    return pg.locator('[data-testid="stMain"]').inner_text()


def _side(pg) -> str:
    return pg.locator('[data-testid="stSidebar"]').inner_text()


def _upload_csv(pg, path) -> None:
    pg.get_by_role("link", name="Data").first.click()
    wait_idle(pg)
    pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(path))
    wait_idle(pg)


class Charged:
    """The module's session with one KNG release charged to the uploaded people.csv (:meth:`charge`), and the ledger
    and session file it saved (:meth:`save`): each test asks for what it needs and gets it made if it is missing."""

    def __init__(self, server: str, folder):
        self.server, self.folder = server, folder
        self.csv = folder / "people.csv"
        self.csv.write_text(CSV, encoding="utf-8")
        self.session = SharedSession(self.charge)
        self.ledger = self.session_file = self.url = None

    def charge(self, pg) -> None:
        """A new session: the CSV uploaded, bounds [0, 100], one KNG release (ε = 1 of 3)."""
        pg.goto(self.server)
        wait_idle(pg)
        pg.wait_for_url(re.compile(r"[?&]session="))   # the session token in the URL
        _upload_csv(pg, self.csv)
        assert "Privacy budget of this dataset" in _main(pg)
        bounds_then_kng_release(pg)
        assert "remaining ε = 2" in _side(pg), _side(pg)
        self.ledger = self.session_file = self.url = None   # (a new session: its files are still to be saved)

    def save(self, pg) -> None:
        """The ledger (JSON) and the session file with the data, downloaded from the charged session (once)."""
        if self.session_file is not None:
            return
        self.session.enter(pg)
        with pg.expect_download() as d:
            pg.get_by_role("button", name="Download ledger (JSON)").click()
        ledger = self.folder / "privacy_ledger.json"
        d.value.save_as(ledger)
        self.session_file = save_session_with_data(pg, self.folder / "dp_session.json")
        self.ledger, self.url = ledger, pg.url


@pytest.fixture(scope="module")
def charged(server, tmp_path_factory) -> Charged:
    return Charged(server, tmp_path_factory.mktemp("charged"))


def test_a_kng_release_is_charged_to_the_uploaded_data(page, charged):
    charged.charge(page)
    charged.session.keep(page)
    assert not page.locator('[data-testid="stException"]').count()


def test_the_ledger_and_the_session_file_with_the_data_are_downloaded(page, charged):
    charged.save(page)
    text = charged.session_file.read_text(encoding="utf-8")
    assert "Paris" in text and '"includes the data": true' in text
    assert "people.csv" in charged.ledger.read_text(encoding="utf-8")
    token = parse_qs(urlsplit(charged.url).query)["session"][0]
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{12}", token), token


def test_a_server_restart_is_said_and_the_saved_ledger_continues_the_count(page, charged, server_process):
    """The tier's server restarts under the charged session's open page. (The session's Chromium — a second
    sync_playwright in the same worker is refused — and the tier's server, which it restarts.)"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    charged.save(page)
    charged.session.enter(page)
    pg = page
    try:
        server_process.stop()                   # the server restarts under the open page
        server_process.start()
        pg.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=60_000)
        notice = pg.get_by_text(re.compile("The server restarted"))
        try:                              # the reconnected frontend often reruns by itself ...
            notice.first.wait_for(timeout=3_000)
        except PlaywrightTimeout:         # ... otherwise the next click does (it was waited for 20 s: issue 21)
            try:
                pg.get_by_role("button", name=re.compile(r"^Release")).first.click(timeout=5_000)
            except PlaywrightTimeout:     # gone: the rerun came meanwhile and drew the notice instead
                pass
            wait_idle(pg)
            notice.first.wait_for()
        text = _main(pg)
        assert "gone" in text and "budgets" in text
        assert "Sensitivity" not in text          # no release ran in the new session
        pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
            str(charged.ledger))
        wait_idle(pg)
        assert "Ledger read" in _main(pg)
        pg.get_by_role("button", name="Continue with a new session").click()
        wait_idle(pg)
        _upload_csv(pg, charged.csv)
        text = _main(pg)
        assert "remaining ε = 2" in text and "of ε = 3" in text, text
        assert not pg.locator('[data-testid="stException"]').count()
    finally:
        if server_process.proc.poll() is not None:   # stopped and not started again: the tier needs its server
            server_process.start()


def test_a_session_file_restores_ledger_budget_data_and_settings_after_a_restart(page, charged):
    charged.save(page)
    url = urlsplit(charged.url)
    token = parse_qs(url.query)["session"][0]
    other_boot = f"{int(token[:8], 16) ^ 0xFFFFFFFF:08x}{token[8:]}"   # the token of another server process
    stale = urlunsplit(url._replace(query=urlencode({"session": other_boot})))
    pg = page
    pg.goto(stale)                                 # the old tab's URL after a restart: a fresh, empty session
    wait_idle(pg)
    pg.get_by_text(re.compile("The server restarted")).first.wait_for()
    assert "remaining ε" not in _side(pg)          # nothing of the old session
    uploads = pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]')
    assert uploads.count() == 2                    # the ledger and the session file
    uploads.nth(1).set_input_files(str(charged.session_file))
    wait_idle(pg)
    main = _main(pg)
    assert "Session resumed" in main and "is loaded again" in main, main
    pg.get_by_role("button", name="Continue with a new session").click()
    wait_idle(pg)
    pg.get_by_text("Releases in full").first.click()
    wait_idle(pg)
    side = _side(pg)
    assert re.search(r"people\.csv\W*\(loaded\): remaining ε = 2\b.*of ε = 3", side), side
    pg.get_by_role("link", name="KNG explorer").first.click()
    wait_idle(pg)
    release = pg.get_by_role("button", name=re.compile(r"^Release — ε = 1, δ = 0"))
    release.first.wait_for()                       # its settings came back: the user's data, the release view
    release.first.click()
    wait_idle(pg)
    assert "remaining ε = 1" in _side(pg), _side(pg)
    assert not pg.locator('[data-testid="stException"]').count()

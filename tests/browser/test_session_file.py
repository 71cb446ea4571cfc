"""Browser tier: a saved session file restores the ledger and the budget in a new session (issue 22), and a real
server restart under an open page is said and loses nothing: the browser's workspace keeps budgets, spending and the
ledger with no upload, and the data kept on the server comes back (issue 31; issue 17's finding 4 asked for the saved
ledger instead).

Both start from one session (:class:`Charged`; issue 21: each test built it for itself, 24 s and 26 s, now each
stage is a test of its own): on the tier's server, in a new workspace (the browser's cookie cleared first), upload a
CSV, declare bounds, release once on the KNG page (ε = 1 of the default budget 3), download the ledger (JSON) and
the session WITH the data (sidebar: "Save or resume the session"), tick "Keep my data on this server". Then, in this
order (this module is the tier's last, so only the tests after the restart meet the restarted server, on the same
port and data folder):

* the restart: the tier's server stops and a new one starts on the same port under that open page. The page
  reconnects; the next interaction must show the restart notice (not the old data, not a silent reset) saying the
  workspace is intact; with no upload the sidebar shows ε = 2 of 3 remaining and the ledger's release, and loading
  the same CSV again finds it; the kept table is offered and loads back with its budget;
* the session file: the app opened with the old tab's URL but a session token of another server process — what the
  tab holds after a restart (``ui.session_guard`` tells a restart from a reload by the token's process id) — gets a
  fresh session with the restart notice; the session file uploaded there loads the data again, its budget continues
  (remaining ε = 2 of 3), the KNG page opens on the settings it had, and a second release takes the remaining budget
  down to 1.

Debian's /usr/bin/chromium, never ``playwright install``.
"""
from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit, urlunsplit

import pytest

from tests.browser.conftest import SharedSession, session_token
from tests.browser.test_browser import CSV, save_session_with_data, wait_idle

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
    """The module's session: people.csv uploaded with bounds [0, 100] (:meth:`upload`), one KNG release charged to it
    (:meth:`release`: ε = 1 of 3), the ledger and the session file it saved (:meth:`save`); then the same tab after a
    real restart (:attr:`restarted`). Each test asks for the stage it needs and gets the stages before it made when
    they are missing (a test run on its own), so each test does its own stage only when run in order."""

    def __init__(self, server: str, folder, server_process):
        self.server, self.folder, self.server_process = server, folder, server_process
        self.csv = folder / "people.csv"
        self.csv.write_text(CSV, encoding="utf-8")
        self.session = SharedSession(self._charged)
        self.restarted = SharedSession(self._restart)
        self.stage = None                          # "uploaded" or "charged": how far the kept session is
        self.ledger = self.session_file = self.url = None

    def upload(self, pg) -> None:
        """A new session on the Data page, in a new workspace: the CSV uploaded, its public bounds declared [0, 100]."""
        pg.context.clear_cookies(name="dpx_ws")   # no workspace cookie: the upload makes a new workspace (other tests' budgets
        pg.goto(f"{self.server}/data")             # on the same CSV are in the tier's other workspace)
        wait_idle(pg)
        pg.wait_for_url(re.compile(r"[?&]session="))   # the session token in the URL
        pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
            str(self.csv))
        wait_idle(pg)
        assert "Privacy budget of this dataset" in _main(pg)
        for placeholder, value in (("public lower bound", "0"), ("public upper bound", "100")):
            box = pg.get_by_placeholder(placeholder).first
            box.fill(value)
            box.press("Enter")
            wait_idle(pg)
        self.session.keep(pg)
        self.stage, self.ledger, self.session_file, self.url = "uploaded", None, None, None

    def release(self, pg) -> None:
        """In the uploaded session (made first if the tab is not in it): open the KNG page on the dataset and
        press its release button once (ε = 1, δ = 0)."""
        if not (self.session.is_current(pg) and self.stage == "uploaded"):
            self.upload(pg)
        pg.get_by_role("link", name="KNG explorer").first.click()
        wait_idle(pg)
        pg.get_by_text("Dataset from the Data page", exact=True).first.click()
        wait_idle(pg)
        pg.get_by_text("Release", exact=True).first.click()
        wait_idle(pg)
        pg.get_by_role("button", name=re.compile(r"^Release — ε = 1, δ = 0")).first.click()
        wait_idle(pg)
        assert "remaining ε = 2" in _side(pg), _side(pg)
        self.stage = "charged"

    def _charged(self, pg) -> None:
        self.upload(pg)
        self.release(pg)

    def save(self, pg) -> None:
        """The ledger (JSON) and the session file with the data, downloaded from the charged session (once); then
        "Keep my data on this server" ticked on the Data page."""
        if self.session_file is not None:
            return
        if not (self.session.is_current(pg) and self.stage == "charged"):
            self._charged(pg)
        with pg.expect_download() as d:
            pg.get_by_role("button", name="Download ledger (JSON)").click()
        ledger = self.folder / "privacy_ledger.json"
        d.value.save_as(ledger)
        self.session_file = save_session_with_data(pg, self.folder / "dp_session.json")
        self.ledger, self.url = ledger, pg.url
        pg.get_by_role("link", name="Data").first.click()
        wait_idle(pg)
        pg.get_by_text("Keep my data on this server (7 days)", exact=True).first.click()
        wait_idle(pg)
        assert "Kept on this server until" in _main(pg), _main(pg)

    def _restart(self, pg) -> None:
        """The tier's server restarts under the charged session's open page (its files saved first); returns once the
        page shows the restart notice."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        self.save(pg)
        self.session.enter(pg)
        try:
            self.server_process.stop()                   # the server restarts under the open page
            self.server_process.start()
        finally:
            if self.server_process.proc.poll() is not None:   # stopped and not started again: the tier needs it
                self.server_process.start()
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
        pg.wait_for_url(lambda url: session_token(url) != session_token(self.url))   # the new session's token


@pytest.fixture(scope="module")
def charged(server, server_process, tmp_path_factory) -> Charged:
    return Charged(server, tmp_path_factory.mktemp("charged"), server_process)


def test_a_csv_is_uploaded_with_public_bounds(page, charged):
    charged.upload(page)
    assert not page.locator('[data-testid="stException"]').count()


def test_a_kng_release_is_charged_to_the_uploaded_data(page, charged):
    charged.release(page)                         # remaining ε = 2 (of 3) in the sidebar
    assert not page.locator('[data-testid="stException"]').count()


def test_the_ledger_and_the_session_file_with_the_data_are_downloaded(page, charged):
    charged.save(page)
    text = charged.session_file.read_text(encoding="utf-8")
    assert "Paris" in text and '"includes the data": true' in text
    assert "people.csv" in charged.ledger.read_text(encoding="utf-8")
    token = session_token(charged.url)
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{12}", token), token


def test_a_server_restart_under_the_open_page_is_said(page, charged):
    """The tier's server restarts under the charged session's open page (the session's Chromium and the tier's
    server): the reconnected page says the server restarted and the workspace is intact (was, before issue 31: the
    budgets are gone), and shows nothing of the old session's page."""
    charged.restarted.build(page)
    charged.restarted.keep(page)
    text = _main(page)
    assert "workspace is intact" in text and "budgets of 1 dataset and 1 release" in text, text
    assert "gone" not in text
    assert "Sensitivity" not in text          # no release ran in the new session
    assert not page.locator('[data-testid="stException"]').count()


def test_after_a_restart_the_workspace_keeps_budget_spending_and_ledger_with_no_upload(page, charged):
    """After the restart, with no file uploaded: the sidebar shows ε = 2 of 3 remaining and the release in the
    ledger; the same CSV loaded again spends from that budget (remaining ε = 2 of 3)."""
    charged.restarted.enter(page)
    page.get_by_role("button", name="Continue", exact=True).click()
    wait_idle(page)
    side = _side(page)
    assert "remaining ε = 2" in side and "1 release counted as DP" in side, side
    _upload_csv(page, charged.csv)
    text = _main(page)
    assert "remaining ε = 2" in text and "of ε = 3" in text, text
    assert "this looks like “people.csv”: 100 % of its rows" in text, text
    assert not page.locator('[data-testid="stException"]').count()


def test_after_a_restart_the_kept_data_comes_back(page, charged):
    """The page of the restarted server opened again (a new session of the same workspace): the notice names the
    kept table with its expiry; its Load button brings the data back with its bounds and its budget (ε = 2 of 3)."""
    charged.restarted.enter(page)
    page.goto(charged.url)                 # the old page's address: a new session of this page
    wait_idle(page)
    notice = page.get_by_text(re.compile("You kept “people.csv” \\(until "))
    notice.first.wait_for()
    page.get_by_role("button", name="Load").first.click()
    wait_idle(page)
    assert "“people.csv” is loaded again" in _main(page), _main(page)
    page.get_by_role("button", name="Continue", exact=True).click()
    wait_idle(page)
    page.get_by_role("link", name="Data").first.click()
    wait_idle(page)
    text = _main(page)
    assert "Current dataset: people.csv" in text and "remaining ε = 2" in text and "Kept on this server" in text, text
    assert [page.get_by_placeholder(p).first.input_value() for p in ("public lower bound", "public upper bound")] \
        == ["0", "100"]
    assert not page.locator('[data-testid="stException"]').count()


def test_a_session_file_restores_ledger_budget_data_and_settings_after_a_restart(page, charged):
    charged.save(page)
    url = urlsplit(charged.url)
    token = session_token(charged.url)
    other_boot = f"{int(token[:8], 16) ^ 0xFFFFFFFF:08x}{token[8:]}"   # the token of another server process
    stale = urlunsplit(url._replace(query=urlencode({"session": other_boot})))
    pg = page
    pg.goto(stale)                                 # the old tab's URL after a restart: a fresh, empty session
    wait_idle(pg)
    pg.get_by_text(re.compile("The server restarted")).first.wait_for()
    assert "remaining ε" not in _side(pg)          # the notice comes first: no page, no sidebar yet
    pg.get_by_text("Upload a saved ledger or session file").first.click()   # (collapsed: the workspace has it all)
    wait_idle(pg)
    uploads = pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]')
    assert uploads.count() == 2                    # the ledger and the session file
    uploads.nth(1).set_input_files(str(charged.session_file))
    wait_idle(pg)
    main = _main(pg)
    assert "Session resumed" in main and "is loaded again" in main, main
    pg.get_by_role("button", name="Continue", exact=True).click()
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

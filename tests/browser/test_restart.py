"""Browser tier: a real server restart under an open page (issue 17, finding 4).

Start ``streamlit run app.py``, upload a CSV, declare bounds, release once on the KNG page (ε = 1 of the
default budget 3), download the ledger (JSON); then stop the server and start a new one on the same port.
The open page reconnects; the next interaction must show the restart notice (not the old data, not a
silent reset), and uploading the saved ledger and loading the same CSV again must continue the count
(remaining ε = 2 of 3). Debian's /usr/bin/chromium, never ``playwright install``.
"""
from __future__ import annotations

import re

import pytest

from tests.browser.conftest import start_server, stop_server
from tests.browser.test_browser import CSV, _free_port, bounds_then_kng_release, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _main_text(pg) -> str:
    return pg.locator('[data-testid="stMain"]').inner_text()


def _upload_csv(pg, path: str) -> None:
    pg.get_by_role("link", name="Data").first.click()
    wait_idle(pg)
    pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(path)
    wait_idle(pg)


def test_a_server_restart_is_said_and_the_saved_ledger_continues_the_count(browser, tmp_path):
    """(Uses the session's Chromium — a second sync_playwright in the same worker is refused — and its own
    server, which it restarts.)"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    csv = tmp_path / "people.csv"
    csv.write_text(CSV, encoding="utf-8")
    port = _free_port()
    proc = start_server(port)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        pg.goto(f"http://127.0.0.1:{port}/")
        wait_idle(pg)
        pg.wait_for_url(re.compile(r"[?&]session="))   # the session token in the URL
        _upload_csv(pg, str(csv))
        assert "Privacy budget of this dataset" in _main_text(pg)
        bounds_then_kng_release(pg)
        side = pg.locator('[data-testid="stSidebar"]').inner_text()
        assert "remaining ε = 2" in side, side
        with pg.expect_download() as d:
            pg.get_by_role("button", name="Download ledger (JSON)").click()
        saved = tmp_path / "privacy_ledger.json"
        d.value.save_as(saved)

        stop_server(proc)                       # the server restarts under the open page
        proc = start_server(port)
        pg.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=60_000)
        notice = pg.get_by_text(re.compile("The server restarted"))
        try:                              # the reconnected frontend usually reruns by itself ...
            notice.first.wait_for(timeout=20_000)
        except PlaywrightTimeout:         # ... otherwise the next click does
            pg.get_by_role("button", name=re.compile(r"^Release")).first.click()
            wait_idle(pg)
            notice.first.wait_for()
        text = _main_text(pg)
        assert "gone" in text and "budgets" in text
        assert "Sensitivity" not in text          # no release ran in the new session
        pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
            str(saved))
        wait_idle(pg)
        assert "Ledger read" in _main_text(pg)
        pg.get_by_role("button", name="Continue with a new session").click()
        wait_idle(pg)
        _upload_csv(pg, str(csv))
        text = _main_text(pg)
        assert "remaining ε = 2" in text and "of ε = 3" in text, text
        assert not pg.locator('[data-testid="stException"]').count()
    finally:
        ctx.close()
        stop_server(proc)

"""Browser tier (issue 22): a saved session file restores the ledger and the budget after a server restart.

Start ``streamlit run app.py``, upload a CSV, declare bounds, release once on the KNG page (ε = 1 of the
default budget 3), download the session WITH the data (sidebar: "Save or resume the session"); restart the
server under the open page; upload the session file into the restart notice: the data is loaded again and
its budget continues (remaining ε = 2 of 3), the KNG page opens on the settings it had, and a second release
takes the remaining budget down to 1. Debian's /usr/bin/chromium, never ``playwright install``.
"""
from __future__ import annotations

import re

import pytest

from tests.browser.conftest import start_server, stop_server
from tests.browser.test_browser import CSV, _free_port, bounds_then_kng_release, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _main(pg) -> str:
    return pg.locator('[data-testid="stMain"]').inner_text()


def _side(pg) -> str:
    return pg.locator('[data-testid="stSidebar"]').inner_text()


def test_a_session_file_restores_ledger_budget_data_and_settings_after_a_restart(browser, tmp_path):
    """(The session's Chromium, its own server, which it restarts.)"""
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
        pg.get_by_role("link", name="Data").first.click()
        wait_idle(pg)
        pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(csv))
        wait_idle(pg)
        bounds_then_kng_release(pg)
        assert "remaining ε = 2" in _side(pg)
        pg.get_by_text("Save or resume the session").first.click()
        wait_idle(pg)
        pg.get_by_text("Include my data in the file").first.click()
        wait_idle(pg)
        with pg.expect_download() as d:
            pg.get_by_role("button", name="Download session (JSON)").click()
        saved = tmp_path / "dp_session.json"
        d.value.save_as(saved)
        text = saved.read_text(encoding="utf-8")
        assert "Paris" in text and '"includes the data": true' in text

        stop_server(proc)                              # the server restarts under the open page
        proc = start_server(port)
        pg.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=60_000)
        notice = pg.get_by_text(re.compile("The server restarted"))
        try:
            notice.first.wait_for(timeout=20_000)
        except PlaywrightTimeout:
            pg.get_by_role("button", name=re.compile(r"^Release")).first.click()
            wait_idle(pg)
            notice.first.wait_for()
        uploads = pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]')
        assert uploads.count() == 2                    # the ledger and the session file
        uploads.nth(1).set_input_files(str(saved))
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
    finally:
        ctx.close()
        stop_server(proc)

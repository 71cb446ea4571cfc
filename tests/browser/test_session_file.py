"""Browser tier (issue 22): a saved session file restores the ledger and the budget in a new session.

On the tier's server: upload a CSV, declare bounds, release once on the KNG page (ε = 1 of the default budget 3),
download the session WITH the data (sidebar: "Save or resume the session"). Then a new browser context opens the
app with the old tab's URL but a session token of another server process — what the tab holds after a restart
(``ui.session_guard`` tells a restart from a reload by the token's process id) — so it gets a fresh session with
the restart notice; the session file uploaded there loads the data again, its budget continues (remaining ε = 2
of 3), the KNG page opens on the settings it had, and a second release takes the remaining budget down to 1.
A real server restart under an open page is tests/browser/test_restart.py (issue 21: this test restarted a
second server too, 45 s; the restore path is the same). Debian's /usr/bin/chromium, never ``playwright install``.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest

from tests.browser.test_browser import CSV, bounds_then_kng_release, save_session_with_data, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _main(pg) -> str:
    return pg.locator('[data-testid="stMain"]').inner_text()


def _side(pg) -> str:
    return pg.locator('[data-testid="stSidebar"]').inner_text()


def test_a_session_file_restores_ledger_budget_data_and_settings_after_a_restart(browser, server, tmp_path):
    from tests.browser.conftest import new_tab

    csv = tmp_path / "people.csv"
    csv.write_text(CSV, encoding="utf-8")
    ctx, pg = new_tab(browser, downloads=True)
    try:
        pg.goto(f"{server}/data")
        wait_idle(pg)
        pg.wait_for_url(re.compile(r"[?&]session="))
        pg.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(csv))
        wait_idle(pg)
        bounds_then_kng_release(pg)
        assert "remaining ε = 2" in _side(pg)
        saved = save_session_with_data(pg, tmp_path / "dp_session.json")
        text = saved.read_text(encoding="utf-8")
        assert "Paris" in text and '"includes the data": true' in text
        url = urlsplit(pg.url)
        token = parse_qs(url.query)["session"][0]
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{12}", token), token
        other_boot = f"{int(token[:8], 16) ^ 0xFFFFFFFF:08x}{token[8:]}"   # the token of another server process
        stale = urlunsplit(url._replace(query=urlencode({"session": other_boot})))
        ctx.close()

        ctx, pg = new_tab(browser, downloads=True)
        pg.goto(stale)                                 # the old tab's URL after a restart: a fresh, empty session
        wait_idle(pg)
        pg.get_by_text(re.compile("The server restarted")).first.wait_for()
        assert "remaining ε" not in _side(pg)          # nothing of the old session
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

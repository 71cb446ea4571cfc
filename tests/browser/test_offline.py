"""No page asks anything of a host other than the app's own (issue 32, item 5): a classroom behind a firewall.

main: every page requested its favicon from fonts.gstatic.com (app.py's ``page_icon=":material/lock:"``: Streamlit's
frontend turns a Material icon into a URL on Google's font host), 149 console errors on a machine without internet.
This records every request of each page the app registers — a new session per page, and a switch between pages in
one session — and fails on any host that is not the loopback server.
"""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.test_browser import PAGES, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]  # the tier's one server + Chromium

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _outside(urls: list[str]) -> list[str]:
    """The requested URLs whose host is not on the loopback (data: and blob: URLs have no host: they stay here)."""
    out = []
    for u in urls:
        parts = urlsplit(u)
        if parts.scheme in ("data", "blob", "about", "chrome-extension"):
            continue
        if parts.hostname not in LOOPBACK:
            out.append(u)
    return out


def test_issue32_5_no_page_requests_an_external_host(page, server):
    urls: list[str] = []
    record = lambda req: urls.append(req.url)   # noqa: E731
    page.on("request", record)
    try:
        by_page = {}
        for p in PAGES:
            start = len(urls)
            page.goto(f"{server}/{p.url_path}")
            wait_idle(page)
            page.wait_for_timeout(300)        # a favicon or a font is requested after the first paint
            by_page[p.path] = _outside(urls[start:])
        start = len(urls)
        for p in PAGES[:3]:                   # switching pages in one session (each page's icon)
            page.get_by_role("link", name=p.title).first.click()
            wait_idle(page)
        page.wait_for_timeout(300)
        by_page["(switching pages)"] = _outside(urls[start:])
    finally:
        page.remove_listener("request", record)
    assert len(urls) > 10 * len(PAGES) // 2, "the listener saw too few requests: the test would prove nothing"
    bad = {k: v for k, v in by_page.items() if v}
    assert not bad, bad

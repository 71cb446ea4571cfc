"""Fixtures of the browser tier: one ``streamlit run app.py`` on 127.0.0.1, one Debian Chromium and one tab (a
browser context and its page) for the whole run (session scope; the tests carry ``xdist_group("browser")``, so under
``--dist loadgroup`` they all run in one worker and share them). A test opens a new Streamlit session by loading a
URL without a session token in that tab (issue 21: a new context per test started a renderer process each time,
1–3 s of Chromium start-up per test on 2 cores), or continues a :class:`SharedSession` that earlier tests built.

Never ``playwright install``: the browser is /usr/bin/chromium. Without it the tests are skipped, unless
REQUIRE_BROWSER=1 (CI), where that is a failure.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
IDLE_TIMEOUT_MS = 60_000
#: Counts the app's script runs (each change of ``data-test-script-state`` to "running") in ``window.__dpRuns``,
#: so that test_browser.wait_idle waits for the rerun an interaction started instead of a fixed pause; a random
#: ``window.__dpDoc`` names the document, so that the count is known to start again after a page load.
RUN_COUNTER_JS = """(() => {
  window.__dpRuns = 0;
  window.__dpDoc = Math.random();
  new MutationObserver(ms => { for (const m of ms) {
    if (m.target.getAttribute('data-test-script-state') === 'running') window.__dpRuns += 1; } })
    .observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
})();"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log=subprocess.DEVNULL) -> subprocess.Popen:
    """``streamlit run app.py`` on 127.0.0.1:``port``, returned once ``/_stcore/health`` answers (60 s at most)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT if log is not subprocess.DEVNULL else subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            tail = ""
            if hasattr(log, "seek"):
                log.seek(0)
                tail = ":\n" + log.read()[-3000:]
            pytest.fail(f"streamlit exited with code {proc.returncode}{tail}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_server(proc)
            pytest.fail("streamlit did not become healthy within 60 s")
        time.sleep(0.25)


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server started by :func:`start_server` (terminate, then kill after 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Server:
    """The tier's ``streamlit run app.py`` (:func:`server_process`): its base URL, and a real restart on the same
    port (tests/browser/test_session_file.py restarts it under an open page instead of starting a server of its
    own; it is the tier's last module, and a test after it would simply talk to the new process)."""

    def __init__(self, port: int, log):
        self.port, self.log = port, log
        self.url = f"http://127.0.0.1:{port}"
        self.proc = start_server(port, log)

    def stop(self) -> None:
        stop_server(self.proc)

    def start(self) -> None:
        self.proc = start_server(self.port, self.log)


@pytest.fixture(scope="session")
def server_process():
    """``streamlit run app.py`` on a free port, as a :class:`Server`."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing and REQUIRE_BROWSER=1 (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} not installed")
    with tempfile.TemporaryFile("w+") as log:
        srv = Server(_free_port(), log)
        try:
            yield srv
        finally:
            srv.stop()


@pytest.fixture(scope="session")
def server(server_process):
    """The base URL of the tier's server."""
    return server_process.url


@pytest.fixture(scope="session")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def tab(browser):
    """The tier's one browser context (downloads accepted, the run counter) and its page; a new page if a test
    closed or crashed it. Tests get it through :func:`page`."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
    ctx.add_init_script(RUN_COUNTER_JS)
    pages: list = []

    def current():
        if not pages or pages[-1].is_closed():
            pg = ctx.new_page()
            pg.set_default_timeout(IDLE_TIMEOUT_MS)
            pg.errors, pg.ignored = [], []
            pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
            pg.on("console", lambda msg: _console(pg, msg))
            pg.on("crash", lambda _: pg.close())
            pages.append(pg)
        return pages[-1]

    try:
        yield current
    finally:
        ctx.close()


@pytest.fixture
def page(tab):
    """The tier's page, with this test's page errors and console errors only (``page.errors``). It shows whatever
    the previous test left: a test opens its page (``page.goto``: a new session) or enters a :class:`SharedSession`."""
    pg = tab()
    pg.errors.clear()
    pg.ignored.clear()
    return pg


def session_token(url: str) -> str | None:
    """The app's session token in a page URL (``?session=…``, ui.resume.session_guard), or None."""
    return parse_qs(urlsplit(url).query).get("session", [None])[0]


class SharedSession:
    """A Streamlit session several tests continue in the tier's tab, each on its own page of the app (issue 21:
    building the same state again in every test — a new session, an upload, bounds — was most of their time).

    ``enter(page)`` returns with the tab in this session: as it is when the tab is still in it (the session token
    in the URL is the one :meth:`keep` recorded), else after ``build(page)`` made it again in a new session — so a
    test run on its own, or after a test that left the tab elsewhere, still gets the state it needs."""

    def __init__(self, build):
        self.build, self.token = build, None

    def is_current(self, pg) -> bool:
        return self.token is not None and session_token(pg.url) == self.token

    def enter(self, pg) -> None:
        if not self.is_current(pg):
            self.build(pg)
            self.keep(pg)

    def keep(self, pg) -> None:
        """This session is the tab's current one (after a test built it itself)."""
        self.token = session_token(pg.url)
        assert self.token, pg.url


@pytest.fixture(scope="session")
def diabetes(server):
    """:class:`SharedSession` with the built-in Diabetes data loaded on the Data page (public demo data: no budget,
    so the axe tests' releases on every page and the KNG test's continue one session)."""
    def build(pg):
        from tests.browser.test_browser import wait_idle

        pg.goto(f"{server}/data")
        wait_idle(pg)
        pg.get_by_role("button", name="Diabetes").first.click()
        wait_idle(pg)
        pg.get_by_text("Non-private diagnostics").first.wait_for()  # the dataset is loaded

    return SharedSession(build)


#: Console errors that are not the app's: Streamlit's frontend, on a deep link (/data), first probes
#: /data/_stcore/{host-config,health} (404) and then the root; and resources outside the loopback server
#: (the :material/…: favicon from fonts.gstatic.com) cannot load on this offline machine.
BENIGN_404 = re.compile(r"^http://127\.0\.0\.1:\d+/[^_][^/]*/_stcore/(host-config|health)$")


def _console(pg, msg) -> None:
    if msg.type != "error":
        return
    url = (msg.location or {}).get("url", "")
    if BENIGN_404.match(url) or (url.startswith("http") and not url.startswith("http://127.0.0.1:")):
        pg.ignored.append(f"{msg.text} ({url})")
        return
    pg.errors.append(f"console error: {msg.text} ({url})")

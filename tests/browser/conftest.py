"""Fixtures of the browser tier: one ``streamlit run app.py`` on 127.0.0.1 and one Debian Chromium for the
whole run (session scope; the tests carry ``xdist_group("browser")``, so under ``--dist loadgroup`` they all
run in one worker and share them), and a fresh browser context (a new Streamlit session) per test.

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

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
IDLE_TIMEOUT_MS = 60_000
#: Counts the app's script runs (each change of ``data-test-script-state`` to "running") in ``window.__dpRuns``,
#: so that test_browser.wait_idle waits for the rerun an interaction started instead of a fixed pause.
RUN_COUNTER_JS = """(() => {
  window.__dpRuns = 0;
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
    port (tests/browser/test_restart.py restarts it under an open page instead of starting a server of its own;
    the tests after it simply talk to the new process, each in a new session anyway)."""

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


def new_tab(browser, *, downloads: bool = False):
    """(context, page): a fresh browser context — a new Streamlit session — with the run counter that
    ``wait_idle`` reads, and its page (default timeout :data:`IDLE_TIMEOUT_MS`). The caller closes the context."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1200}, accept_downloads=downloads)
    ctx.add_init_script(RUN_COUNTER_JS)
    pg = ctx.new_page()
    pg.set_default_timeout(IDLE_TIMEOUT_MS)
    return ctx, pg


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    context.add_init_script(RUN_COUNTER_JS)
    pg = context.new_page()
    pg.set_default_timeout(IDLE_TIMEOUT_MS)
    pg.errors, pg.ignored = [], []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.on("console", lambda msg: _console(pg, msg))
    try:
        yield pg
    finally:
        context.close()


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

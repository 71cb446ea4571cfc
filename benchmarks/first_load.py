"""First load of every page in Chromium (issue 21): from navigation to the end of the page's first script run.

Starts ``streamlit run app.py`` on a free 127.0.0.1 port, launches Debian's Chromium (/usr/bin/chromium; never
``playwright install``) and, for each page the app registers, opens it in a fresh browser context — a new
Streamlit session, as a new visitor — ``--rounds`` times, pages interleaved. A load ends when the app is
connected and its script state is ``notRunning`` with the page's title drawn. One warm-up round (the server's
first import of every module) is discarded. Prints, per page, the median and range of the wall time and its
difference to Home (target: ≤ 1.3 s, within 0.3 s of Home, on a quiet host).

``--cpu`` measures the server's share instead, less sensitive to a loaded host: the CPU time (process time, all
threads) of a fresh session's first run of each page in AppTest, in-process, after one warm-up session of the same
page (so the process-wide caches, pages/_cached.py, are warm as for any visitor after the first); min and max of
``--rounds`` sessions.

Usage::

    python benchmarks/first_load.py            # 5 rounds
    python benchmarks/first_load.py --rounds 9
    python benchmarks/first_load.py --cpu      # CPU of the script run only (no browser)
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, _free_port, start_server, stop_server  # noqa: E402

READY = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'


def pages() -> list[tuple[str, str]]:
    """(title, url path) of every page, menu order ("" for Home)."""
    from pages import _nav

    return [(e.title, "" if e.default else Path(e.path).stem) for e in _nav.discover()]


def load_once(browser, url: str) -> float:
    """Seconds from navigation to the end of the first script run, in a fresh context (a new session)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    try:
        t0 = time.perf_counter()
        pg.goto(url, wait_until="commit")
        pg.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"], ' + READY, timeout=60_000)
        pg.wait_for_selector(READY + ' [data-testid="stMain"] h1', timeout=60_000)
        return time.perf_counter() - t0
    finally:
        ctx.close()


def cpu_first_runs(rounds: int) -> None:
    """Print the CPU seconds of a fresh session's first run of each page (AppTest, warm process)."""
    from streamlit import logger
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    from pages import _nav

    logger.set_log_level("error")    # AppTest's "missing ScriptRunContext" warnings

    original = PagesManager.__init__

    def init(self, *a, **k):      # route through app.py's st.navigation, as the server does (tests/app/conftest.py)
        original(self, *a, **k)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init

    def first_run(page: str) -> tuple[float, float]:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        at.switch_page(page)
        c0, t0 = time.process_time(), time.perf_counter()
        at.run()
        if at.exception:
            sys.exit(f"{page}: {[e.value for e in at.exception]}")
        return time.process_time() - c0, time.perf_counter() - t0

    print(f"CPU of a fresh session's first run (AppTest, after a warm-up session), {rounds} sessions a page; "
          f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'page':32s} {'CPU min s':>9s} {'CPU max s':>9s} {'wall min s':>10s}")
    for e in _nav.discover():
        first_run(e.path)
        runs = [first_run(e.path) for _ in range(rounds)]
        print(f"{e.title:32s} {min(c for c, _ in runs):9.3f} {max(c for c, _ in runs):9.3f} "
              f"{min(w for _, w in runs):10.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="CPU time of each page's first script run (AppTest), no browser")
    args = ap.parse_args()
    if args.cpu:
        cpu_first_runs(args.rounds)
        return
    if not os.path.exists(CHROMIUM):
        sys.exit(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    port = _free_port()
    proc = start_server(port, subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    times: dict[str, list[float]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            listed = pages()
            for _title, path in listed:                      # warm-up: the server imports every module once
                load_once(browser, base + path)
            for _ in range(args.rounds):
                for title, path in listed:
                    times.setdefault(title, []).append(load_once(browser, base + path))
            browser.close()
    finally:
        stop_server(proc)
    home = statistics.median(next(iter(times.values())))
    load = os.getloadavg()[0]
    print(f"First load in Chromium, {args.rounds} rounds, pages interleaved; load average {load:.2f}, "
          f"{os.cpu_count()} cores")
    print(f"{'page':32s} {'median s':>9s} {'min–max s':>13s} {'− Home s':>9s}  target ≤ 1.3 s and ≤ Home + 0.3 s")
    for title, ts in times.items():
        med = statistics.median(ts)
        ok = "✔" if med <= 1.3 and med - home <= 0.3 else "✘"
        print(f"{title:32s} {med:9.2f} {min(ts):6.2f}–{max(ts):5.2f} {med - home:+9.2f}  {ok}")


if __name__ == "__main__":
    main()

"""First load of every page in Chromium (issue 21): from navigation to the end of the page's first script run.

Starts ``streamlit run app.py`` on a free 127.0.0.1 port, launches Debian's Chromium (/usr/bin/chromium; never
``playwright install``) and, for each page the app registers, opens it in a fresh browser context — a new
Streamlit session, as a new visitor — ``--rounds`` times, pages interleaved. A load ends when the app is
connected and its script state is ``notRunning`` with the page's title drawn. One warm-up round (the server's
first import of every module) is discarded. Prints, per page, the median and range of the wall time and its
difference to Home (target: ≤ 1.3 s, within 0.3 s of Home, on a quiet host).

``--cpu`` measures the server's share instead, less sensitive to a loaded host: the CPU time (process time, all
threads) of a fresh session's first run of each page in AppTest, in-process, after one warm-up session of the same
page (so the process-wide caches, ui/cache.py, are warm as for any visitor after the first); min and max of
``--rounds`` sessions.

Two floor rows measure Streamlit itself the same way, interleaved with the pages: an app that only draws a title,
and one that also draws a small plotly chart. "chart drawn" is the time to the page's first plotly chart drawn
(Streamlit loads plotly.js, a 4.7 MB module evaluated on the browser's main thread, with a page's first chart).

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
    from ui import nav as _nav

    return [(e.title, "" if e.default else Path(e.path).stem) for e in _nav.discover()]


#: Streamlit's own floor on this machine, measured the same way: an app that draws a title, and one that also
#: draws one small plotly chart (Streamlit loads plotly.js, a 4.7 MB module, with a page's first chart).
FLOOR_APPS = {
    "floor: Streamlit, a title only": 'import streamlit as st\nst.title("Floor")\n',
    "floor: a title and one plotly chart": ('import plotly.graph_objects as go\nimport streamlit as st\n'
                                            'st.title("Floor")\nst.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))\n'),
}
CHART = '[data-testid="stPlotlyChart"]'


def load_once(browser, url: str) -> tuple[float, float | None]:
    """Seconds from navigation to the end of the first script run, in a fresh context (a new session), and to
    the first plotly chart drawn (None if the page has none)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    try:
        t0 = time.perf_counter()
        pg.goto(url, wait_until="commit")
        pg.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"], ' + READY, timeout=60_000)
        pg.wait_for_selector(READY + ' [data-testid="stMain"] h1', timeout=60_000)
        ready = time.perf_counter() - t0
        try:          # a chart's element may mount a moment after the run ends (its module still loading)
            pg.wait_for_selector(CHART, timeout=3_000)
        except PlaywrightTimeout:
            return ready, None
        pg.wait_for_selector(CHART + " .main-svg", timeout=60_000)
        return ready, time.perf_counter() - t0
    finally:
        ctx.close()


def cpu_first_runs(rounds: int) -> None:
    """Print the CPU seconds of a fresh session's first run of each page (AppTest, warm process)."""
    from streamlit import logger
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    from ui import nav as _nav

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

    import tempfile

    port = _free_port()
    proc = start_server(port, subprocess.DEVNULL)
    servers = [proc]
    targets = [(title, f"http://127.0.0.1:{port}/{path}") for title, path in pages()]
    times: dict[str, list[tuple[float, float | None]]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for title, code in FLOOR_APPS.items():           # the same measure on Streamlit alone
                app = Path(tmp) / str(len(servers))
                app.mkdir()
                (app / "app.py").write_text(code, encoding="utf-8")
                floor_port = _free_port()
                servers.append(subprocess.Popen(
                    [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(floor_port),
                     "--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats",
                     "false", "--server.fileWatcherType", "none"], cwd=app, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
                targets.append((title, f"http://127.0.0.1:{floor_port}/"))
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for _title, url in targets:                  # warm-up: each server imports every module once
                    _retry_first(browser, url)
                for _ in range(args.rounds):
                    for title, url in targets:
                        times.setdefault(title, []).append(load_once(browser, url))
                browser.close()
    finally:
        for s in servers:
            stop_server(s)
    home = statistics.median(t for t, _ in next(iter(times.values())))
    load = os.getloadavg()[0]
    print(f"First load in Chromium, {args.rounds} rounds, pages interleaved; load average {load:.2f}, "
          f"{os.cpu_count()} cores")
    print(f"{'page':36s} {'median s':>9s} {'min–max s':>13s} {'− Home s':>9s} {'chart drawn s':>13s}  "
          "target ≤ 1.3 s and ≤ Home + 0.3 s")
    for title, ts in times.items():
        ready = [t for t, _ in ts]
        med = statistics.median(ready)
        drawn = [c for _, c in ts if c is not None]
        ok = "" if title.startswith("floor") else ("✔" if med <= 1.3 and med - home <= 0.3 else "✘")
        print(f"{title:36s} {med:9.2f} {min(ready):6.2f}–{max(ready):5.2f} {med - home:+9.2f} "
              f"{(f'{statistics.median(drawn):13.2f}' if drawn else '            —')}  {ok}")


def _retry_first(browser, url: str) -> None:
    """The first load of a server just started (it may still be binding its port)."""
    for attempt in range(60):
        try:
            load_once(browser, url)
            return
        except Exception:  # noqa: BLE001 — not up yet
            if attempt == 59:
                raise
            time.sleep(1)


if __name__ == "__main__":
    main()

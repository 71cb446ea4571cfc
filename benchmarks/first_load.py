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

``--rerun`` measures what a returning user's interaction costs the server: the CPU time of a plain rerun of each page
(the same script again, no change: what every widget change outside a fragment costs) in one AppTest session whose
workspace (a temporary SQLite database) holds an uploaded dataset and ``--releases`` releases on it, and the SQL
statements each rerun sends; min over ``--rounds`` reruns. ``--profile PAGE`` prints cProfile's top functions of
those reruns of one page (e.g. ``--profile pages/kng.py``).

Two floor rows measure Streamlit itself the same way, interleaved with the pages: an app that only draws a title,
and one that also draws a small plotly chart. "chart drawn" is the time to the page's first plotly chart drawn
(Streamlit loads plotly.js, a 4.7 MB module evaluated on the browser's main thread, with a page's first chart).

Usage::

    python benchmarks/first_load.py            # 5 rounds
    python benchmarks/first_load.py --rounds 9
    python benchmarks/first_load.py --cpu      # CPU of the script run only (no browser)
    python benchmarks/first_load.py --rerun    # CPU and SQL statements of a rerun, with a workspace
    python benchmarks/first_load.py --only Home Data "Private KNG"   # these pages (menu titles) only
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


def _routed_apptest() -> None:
    """AppTest routed through app.py's st.navigation, as the server does (tests/app/conftest.py)."""
    from streamlit import logger
    from streamlit.runtime.pages_manager import PagesManager

    logger.set_log_level("error")    # AppTest's "missing ScriptRunContext" warnings
    original = PagesManager.__init__

    def init(self, *a, **k):
        original(self, *a, **k)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init


def rerun_cpu(rounds: int, releases: int, only: list[str] | None, profile: str | None) -> None:
    """Print the CPU seconds and SQL statements of a plain rerun of each page, in a session whose workspace holds an
    uploaded dataset and ``releases`` releases on it (AppTest, in-process, temporary SQLite database)."""
    import cProfile
    import pstats
    import tempfile

    import sqlalchemy as sa
    from streamlit.testing.v1 import AppTest

    from ui import nav as _nav

    os.environ["DPX_DATA_DIR"] = tempfile.mkdtemp(prefix="dpx-rerun-")
    os.environ.pop("DPX_DATABASE_URL", None)
    _routed_apptest()
    statements = [0]
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", lambda *a, **k: statements.__setitem__(0, statements[0] + 1))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/data.py").run()
    at.file_uploader(key="data_upload").set_value(("people.csv", b"age,income\n34,52000\n51,61000\n29,40000\n"
                                                                  b"62,75000\n45,48000\n38,51000\n", "text/csv"))
    at.run()
    at.session_state["dp_dataset"] = at.session_state["dp_dataset"].with_bounds("age", 0.0, 100.0)
    for k, v in {"kng_source": "Dataset from the Data page", "kng_view": "Release", "kng_problem": "mean",
                 "kng_cols": ["age"], "kng_eps_typed": 0.01}.items():
        at.session_state[k] = v
    at.switch_page("pages/kng.py").run()
    for _ in range(releases):
        at.button(key="dp_new_draw").click().run()
        at.button(key="kng_go").click().run()
    if at.exception or at.error:
        sys.exit(f"setting up: {[e.value for e in [*at.exception, *at.error]]}")
    print(f"CPU of a plain rerun (AppTest, one session, a workspace with 1 dataset and {releases} releases), min of "
          f"{rounds}; load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'page':32s} {'CPU min ms':>10s} {'CPU median ms':>13s} {'SQL a rerun':>11s}")
    for e in _nav.discover():
        if only and e.title not in only and e.path != profile:
            continue
        at.switch_page(e.path).run()
        runs = []
        prof = cProfile.Profile() if profile == e.path else None
        if prof:    # the script runs in a thread of its own: profile it there
            from streamlit.runtime.scriptrunner import script_runner as _sr

            inner = _sr.exec_func_with_error_handling
            _sr.exec_func_with_error_handling = lambda *a, p=prof, f=inner, **k: p.runcall(f, *a, **k)
        for _ in range(rounds):
            n0, c0 = statements[0], time.process_time()
            at.run()
            runs.append((time.process_time() - c0, statements[0] - n0))
        if prof:
            _sr.exec_func_with_error_handling = inner
        if at.exception:
            sys.exit(f"{e.path}: {[x.value for x in at.exception]}")
        print(f"{e.title:32s} {1e3 * min(c for c, _ in runs):10.1f} {1e3 * statistics.median(c for c, _ in runs):13.1f} "
              f"{min(n for _, n in runs):11d}", flush=True)
        if prof:
            st_ = pstats.Stats(prof).sort_stats("cumulative")
            st_.print_stats(45)
            st_.print_callees("ledger_panel|budget_lines|plot")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="CPU time of each page's first script run (AppTest), no browser")
    ap.add_argument("--rerun", action="store_true", help="CPU and SQL statements of a plain rerun of each page, with a "
                                                         "workspace holding a dataset and releases (AppTest)")
    ap.add_argument("--releases", type=int, default=10, help="with --rerun: releases in the workspace")
    ap.add_argument("--profile", metavar="PAGE", help="with --rerun: cProfile of this page's reruns (pages/x.py)")
    ap.add_argument("--only", nargs="+", metavar="TITLE", help="only these pages (menu titles) and the floors")
    args = ap.parse_args()
    if args.rerun or args.profile:
        rerun_cpu(args.rounds, args.releases, args.only, args.profile)
        return
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
    targets = [(title, f"http://127.0.0.1:{port}/{path}") for title, path in pages()
               if not args.only or title in args.only]
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

"""Load test: N concurrent simulated sessions over Streamlit's websocket protocol, on loopback.

Starts ``streamlit run app.py`` on a free 127.0.0.1 port (or uses ``--url``), then runs N sessions at
once; each speaks the browser's protocol (protobuf BackMsg/ForwardMsg on ``/_stcore/stream``, the
upload endpoint with the XSRF cookie) and does what a person does:

1. opens the app (Home), 2. goes to the Data page, 3. uploads a small CSV (``file_urls_request``,
``PUT`` to the upload URL, the uploader's widget state), 4. declares public bounds for a column,
5. opens the KNG explorer, picks the uploaded data and the release view, 6. moves the ε slider,
7. presses **Release** — and checks that a released value came back.

Each step is one script rerun; its latency is from sending the rerun to the server's
``script_finished``. Errors: an exception element, an ``st.error`` alert, a protocol failure or a
step over the timeout. The server's resident memory (``/proc/<pid>/status``) is sampled every 0.2 s:
the pre-test plateau (after one warm-up session has imported every module), the peak, and the level
after all sessions closed (the server forgets a disconnected session after ``disconnectedSessionTTL``,
set to 2 s here). Bounded: at most ``--max-sessions`` (50) sessions and ``--timeout`` seconds per step.

Usage::

    python benchmarks/load.py --sessions 20          # prints p50/p95 latency, errors, memory
    python benchmarks/load.py --sessions 5 --check   # CI smoke run: exit 1 on any error

Loopback only: it never connects anywhere but the server it starts (or a 127.0.0.1 ``--url``).
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import requests
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

ROOT = Path(__file__).resolve().parents[1]
CSV = b"age,income\n34,52000\n51,61000.5\n29,\n62,75000\n45,48000\n38,51000\n"
MAX_SESSIONS = 50
STEPS = 9  # reruns per session in scenario()
#: The app's workspace cookie script (ui.workspace.workspace_cookie): ``document.cookie = "dpx_ws" + '=' + "<token>"``.
WORKSPACE_COOKIE = re.compile(r'document\.cookie = "(dpx_ws)" \+ \'=\' \+ ("[^"]*")')
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR}


class StepError(RuntimeError):
    pass


class Session:
    """One simulated browser tab."""

    def __init__(self, base: str, cookie: str, timeout: float, extra_cookies: dict[str, str] | None = None):
        self.base, self.cookie, self.timeout = base, cookie, timeout
        # behind the proxy: the affinity cookie that keeps this tab's websocket and uploads on one replica
        self.cookies = {"_streamlit_xsrf": cookie, **(extra_cookies or {})}
        self.ws = None
        self.session_id = ""
        self.pages: dict[str, str] = {}       # url path -> page_script_hash
        self.widgets: dict[str, tuple] = {}   # widget id -> (element type, proto) of the current page
        self.states: dict[str, WidgetState] = {}
        self.page_hash = ""
        self.latencies: list[tuple[str, float]] = []
        self.problems: list[str] = []
        self.texts: list[str] = []
        self.query = ""                       # the page address's query string (the app keeps ?session=… there)
        self.replica = ""                     # behind the proxy: the replica that answered the websocket

    async def connect(self):
        ws_url = self.base.replace("http://", "ws://") + "/_stcore/stream"
        self.ws = await websockets.connect(ws_url, subprotocols=["streamlit", self.cookie],
                                           additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in
                                                                                   self.cookies.items()),
                                                               "Origin": self.base},
                                           max_size=2**26, open_timeout=self.timeout)
        self.replica = self.ws.response.headers.get("X-DPX-Replica", "") if self.ws.response else ""

    async def close(self):
        if self.ws is not None:
            await self.ws.close()

    async def _send(self, msg: BackMsg):
        await self.ws.send(msg.SerializeToString())

    async def rerun(self, step: str, page: str | None = None):
        """One script rerun with the current widget states; waits for script_finished."""
        if page is not None:
            self.page_hash, self.states, self.widgets = self.pages.get(page, ""), {}, {}
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        for st in self.states.values():
            cs.widget_states.widgets.append(st)
        t0 = time.perf_counter()
        await self._send(msg)
        self.states = {k: v for k, v in self.states.items() if not v.HasField("trigger_value")}
        await self._until_finished(step)
        self.latencies.append((step, time.perf_counter() - t0))

    async def _until_finished(self, step: str):
        deadline = time.monotonic() + self.timeout
        started = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise StepError(f"{step}: no script_finished within {self.timeout:g} s")
            try:
                raw = await asyncio.wait_for(self.ws.recv(), left)
            except asyncio.TimeoutError:
                raise StepError(f"{step}: no script_finished within {self.timeout:g} s") from None
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                started = True
                self.session_id = fm.new_session.initialize.session_id or self.session_id
                self.widgets = {}
                self.texts = []
            elif kind == "navigation":  # the latest list wins (the first run may list the legacy pages/ folder)
                self.pages = {}
                for p in fm.navigation.app_pages:
                    self.pages[p.url_pathname] = p.page_script_hash
                if fm.navigation.page_script_hash:
                    self.page_hash = fm.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                self._element(step, fm.delta.new_element)
            elif kind == "script_finished" and started and fm.script_finished in FINISHED:
                if fm.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    self.problems.append(f"{step}: compile error")
                return

    def _element(self, step: str, el):
        et = el.WhichOneof("type")
        if et == "exception":
            self.problems.append(f"{step}: exception element {el.exception.type}: {el.exception.message[:200]}")
        elif et == "alert":
            if el.alert.format == el.alert.ERROR:
                self.problems.append(f"{step}: st.error: {el.alert.body[:200]}")
            self.texts.append(el.alert.body)
        elif et == "markdown":
            self.texts.append(el.markdown.body)
        elif et == "metric":
            self.texts.append(f"{el.metric.label} {el.metric.body}")
        elif et == "html" and (m := WORKSPACE_COOKIE.search(el.html.body)):
            value = json.loads(m.group(2))            # the app's cookie script, run as a browser would
            if value:
                self.cookies[m.group(1)] = value
            else:
                self.cookies.pop(m.group(1), None)
        else:
            proto = getattr(el, et, None)
            wid = getattr(proto, "id", "") if proto is not None else ""
            if wid:
                self.widgets[wid] = (et, proto)

    def widget(self, key: str | None = None, *, label: str | None = None, nth: int = 0) -> str:
        """The id of the current page's widget with user key ``key`` (ids end in ``-<key>``) or label."""
        found = [w for w, (_, p) in self.widgets.items()
                 if (key is not None and w.endswith(f"-{key}")) or (label is not None and p.label == label)]
        if len(found) <= nth:
            raise StepError(f"widget {key or label!r} not on the page (have: {sorted(self.widgets)[:12]} …)")
        return found[nth]

    def set(self, wid: str, **value):
        st = WidgetState(id=wid)
        for k, v in value.items():
            if k == "string_array_value":
                st.string_array_value.data.extend(v)
            else:
                setattr(st, k, v)
        self.states[wid] = st

    async def upload(self, wid: str, name: str, data: bytes):
        req = BackMsg()
        rid = uuid.uuid4().hex
        req.file_urls_request.request_id = rid
        req.file_urls_request.file_names.append(name)
        req.file_urls_request.session_id = self.session_id
        await self._send(req)
        deadline = time.monotonic() + self.timeout
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(self.ws.recv(), max(0.1, deadline - time.monotonic())))
            if fm.WhichOneof("type") == "file_urls_response" and fm.file_urls_response.response_id == rid:
                urls = fm.file_urls_response.file_urls[0]
                break
        url = urls.upload_url if urls.upload_url.startswith("http") else self.base + urls.upload_url
        r = await asyncio.to_thread(requests.put, url, files={"file": (name, data, "text/csv")},
                                    headers={"X-Xsrftoken": self.cookie}, cookies=self.cookies,
                                    timeout=self.timeout)
        if r.status_code != 204 and not r.ok:
            raise StepError(f"upload: HTTP {r.status_code} {r.text[:200]}")
        st = WidgetState(id=wid)
        st.file_uploader_state_value.uploaded_file_info.append(UploadedFileInfo(
            name=name, size=len(data), file_id=urls.file_id,
            file_urls=FileURLs(file_id=urls.file_id, upload_url=urls.upload_url, delete_url=urls.delete_url)))
        self.states[wid] = st


async def scenario(s: Session, eps_step: str = "1.5"):
    """Home → Data → upload → bounds → KNG (uploaded data, release view) → ε → Release."""
    await s.connect()
    try:
        await s.rerun("open Home")
        await s.rerun("Data page", page="data")
        await s.upload(s.widget("data_upload"), "people.csv", CSV)
        await s.rerun("upload CSV")
        tag = hashlib.sha256(b"age").hexdigest()[:12]
        lo = next((w for w in s.widgets if "-data_lo_" in w and w.endswith(tag)), None)
        hi = next((w for w in s.widgets if "-data_hi_" in w and w.endswith(tag)), None)
        if lo is None or hi is None:
            raise StepError("the bounds widgets of column 'age' are not on the Data page")
        s.set(lo, double_value=20.0)
        s.set(hi, double_value=70.0)
        await s.rerun("declare bounds")
        await s.rerun("KNG page", page="kng")
        s.set(s.widget("kng_source"), string_value="Dataset from the Data page")
        await s.rerun("use uploaded data")
        s.set(s.widget("kng_view"), string_value="Release")
        await s.rerun("release view")
        s.set(s.widget("kng_eps"), string_array_value=[eps_step])
        await s.rerun("move ε slider")
        s.set(s.widget("kng_go"), trigger_value=True)
        await s.rerun("press Release")
        if not any("Sensitivity" in t or "released" in t.lower() for t in s.texts):
            s.problems.append("press Release: no released value on the page")
    finally:
        await s.close()


async def visit_every_page(s: Session) -> list[str]:
    """Open the app, then every page of its navigation once (no interaction); the pages visited."""
    await s.connect()
    try:
        await s.rerun("open Home")
        for path in list(s.pages):
            await s.rerun(f"page /{path}", page=path)
        return list(s.pages)
    finally:
        await s.close()


# -- server and memory ------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class MemorySampler(threading.Thread):
    def __init__(self, pid: int, every: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.every, self.samples, self.stop = pid, every, [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.samples.append((time.monotonic(), rss_mb(self.pid)))
            time.sleep(self.every)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
         "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.disconnectedSessionTTL", "2"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_healthy(base: str, proc: subprocess.Popen | None, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise SystemExit("streamlit did not become healthy")


def xsrf_cookie(base: str) -> str:
    return session_cookies(base)[0]


def session_cookies(base: str) -> tuple[str, dict[str, str]]:
    """The XSRF cookie a first request gets, and the proxy's affinity cookie when there is a proxy."""
    r = requests.get(base + "/_stcore/health", timeout=10)  # (sets the XSRF cookie, as for the browser)
    c = r.cookies.get("_streamlit_xsrf")
    if not c:
        raise SystemExit("no _streamlit_xsrf cookie from the server")
    return c, {k: v for k, v in r.cookies.get_dict().items() if k != "_streamlit_xsrf"}


def plateau(sampler: MemorySampler, seconds: float) -> float:
    time.sleep(seconds)
    t_end = time.monotonic()
    return statistics.median(v for t, v in sampler.samples if t >= t_end - seconds)


async def run_sessions(base: str, cookie: str | None, n: int, timeout: float) -> list[Session]:
    """n sessions at once; ``cookie=None`` (behind the proxy): each session takes its own cookies, as a new browser
    does, so the proxy spreads them over the replicas."""
    if cookie is None:
        pairs = [await asyncio.to_thread(session_cookies, base) for _ in range(n)]
        sessions = [Session(base, c, timeout, extra) for c, extra in pairs]
    else:
        sessions = [Session(base, cookie, timeout) for _ in range(n)]

    async def one(s: Session, i: int):
        try:
            await scenario(s, eps_step=("1.5", "2", "3")[i % 3])
        except (StepError, OSError, asyncio.TimeoutError, websockets.WebSocketException) as exc:
            s.problems.append(f"{type(exc).__name__}: {exc}")

    await asyncio.gather(*(one(s, i) for i, s in enumerate(sessions)))
    return sessions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per step (a slower step is an error)")
    ap.add_argument("--url", help="an already running server on 127.0.0.1 (memory is then not measured)")
    ap.add_argument("--check", action="store_true", help="exit 1 on any error (CI smoke run)")
    ap.add_argument("--every-page", action="store_true",
                    help="only visit every page of the navigation once (a smoke probe, e.g. of the Docker image)")
    ap.add_argument("--settle", type=float, default=6.0, help="seconds to wait before reading the memory after")
    ap.add_argument("--replicas", type=int, nargs="+", metavar="N",
                    help="run behind HAProxy with N app replicas (scripts/serve.py), once per value in the order given "
                         "(e.g. 1 2 1 2 interleaves, so the ratio is measured on the same host state)")
    ap.add_argument("--database", default="sqlite", help="with --replicas: sqlite, postgres or a URL")
    args = ap.parse_args(argv)
    if not 1 <= args.sessions <= MAX_SESSIONS:
        ap.error(f"--sessions must be between 1 and {MAX_SESSIONS}")
    if args.replicas:
        return run_replicas(args)
    proc, pid = None, None
    if args.url:
        if not args.url.startswith(("http://127.0.0.1", "http://localhost")):
            ap.error("--url must be a loopback address")
        base = args.url.rstrip("/")
    else:
        port = free_port()
        proc = start_server(port)
        pid, base = proc.pid, f"http://127.0.0.1:{port}"
    if args.every_page:
        try:
            wait_healthy(base, proc)
            s = Session(base, xsrf_cookie(base), args.timeout)
            try:
                pages = asyncio.run(visit_every_page(s))
            except (StepError, OSError, asyncio.TimeoutError, websockets.WebSocketException) as exc:
                pages, s.problems = [], s.problems + [f"{type(exc).__name__}: {exc}"]
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=10)
        print(f"pages visited: {len(pages)} ({', '.join('/' + p for p in pages)}); "
              + "; ".join(f"{st} {t:.2f} s" for st, t in s.latencies))
        print(f"errors: {len(s.problems)}")
        for e in s.problems:
            print("  -", e)
        return 1 if s.problems or not pages else 0
    try:
        wait_healthy(base, proc)
        cookie = xsrf_cookie(base)
        sampler = MemorySampler(pid) if pid else None
        if sampler:
            sampler.start()
        warm = asyncio.run(run_sessions(base, cookie, 1, args.timeout))  # imports every module once
        before = plateau(sampler, 4.0) if sampler else float("nan")
        t0, c0 = time.perf_counter(), cpu_seconds(pid) if pid else float("nan")
        sessions = asyncio.run(run_sessions(base, cookie, args.sessions, args.timeout))
        wall, server_cpu = time.perf_counter() - t0, (cpu_seconds(pid) - c0) if pid else float("nan")
        peak = max(v for _, v in sampler.samples) if sampler else float("nan")
        after = plateau(sampler, args.settle) if sampler else float("nan")
        if sampler:
            sampler.stop.set()
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    lat = sorted(t for s in sessions for _, t in s.latencies)
    errors = [p for s in sessions for p in s.problems]
    q = statistics.quantiles(lat, n=100, method="inclusive") if len(lat) > 1 else [lat[0]] * 99 if lat else [0] * 99
    by_step: dict[str, list[float]] = {}
    for s in sessions:
        for step, t in s.latencies:
            by_step.setdefault(step, []).append(t)
    print(f"sessions: {args.sessions} concurrent (+1 warm-up: {len(warm[0].problems)} error(s)); "
          f"wall time {wall:.1f} s; {len(lat)} reruns")
    print(f"rerun latency: p50 {q[49]:.2f} s, p95 {q[94]:.2f} s, max {max(lat) if lat else 0:.2f} s")
    for step, ts in by_step.items():
        print(f"  {step:<20s} median {statistics.median(ts):.2f} s, max {max(ts):.2f} s")
    print(f"errors: {len(errors)}")
    for e in errors[:20]:
        print("  -", e)
    if pid and lat:
        per = server_cpu / len(lat)
        print(f"server CPU: {server_cpu:.1f} s for {len(lat)} reruns ({1e3 * per:.0f} ms a rerun, network and "
              f"protocol included); a step that all {args.sessions} sessions send at once waits for the others' "
              f"reruns: ≈ {args.sessions} × {1e3 * per:.0f} ms = {args.sessions * per:.1f} s on one core (a Streamlit "
              f"server runs its scripts in one process, under one GIL)")
    if pid:
        print(f"server memory (RSS): before {before:.0f} MB (plateau after warm-up), peak {peak:.0f} MB, "
              f"after {after:.0f} MB ({(after - before) / before:+.1%} vs before)")
    if pid and lat:
        grow_ok = (after - before) / before <= 0.10
        met = q[94] < 5 and not errors and grow_ok
        print(f"targets (p95 < 5 s, no errors, memory after within 10 % of before): {'met' if met else 'NOT met'}")
        if args.sessions >= 50:
            met = q[94] <= 3 and not errors and grow_ok
            print(f"issue 21's target at 50 sessions (p95 ≤ 3 s, no errors, memory within 10 %): "
                  f"{'met' if met else 'NOT met'}")
    if args.check and (errors or warm[0].problems or len(lat) != STEPS * args.sessions):
        return 1
    return 0


def run_replicas(args: argparse.Namespace) -> int:
    """The scenario behind the proxy, once per replica count: p50/p95, errors and the replicas' CPU per rerun."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import serve

    bad = 0
    for n in args.replicas:
        with serve.Topology(n, database=args.database) as topo:
            pids = [p.pid for p in topo.procs.values()]
            warm = asyncio.run(run_sessions(topo.url, None, n, args.timeout))   # each replica imports its modules
            c0, t0 = sum(cpu_seconds(p) for p in pids), time.perf_counter()
            sessions = asyncio.run(run_sessions(topo.url, None, args.sessions, args.timeout))
            wall, cpu = time.perf_counter() - t0, sum(cpu_seconds(p) for p in pids) - c0
            spread = {}
            for s in sessions:
                spread[s.cookies.get(serve.AFFINITY_COOKIE, "?")] = spread.get(s.cookies.get(serve.AFFINITY_COOKIE, "?"),
                                                                                0) + 1
        lat = sorted(t for s in sessions for _, t in s.latencies)
        errors = [p for s in [*warm, *sessions] for p in s.problems]
        q = statistics.quantiles(lat, n=100, method="inclusive") if len(lat) > 1 else [0.0] * 99
        print(f"replicas: {n} ({', '.join(f'{k}: {v}' for k, v in sorted(spread.items()))} sessions); "
              f"{args.sessions} sessions, {len(lat)} reruns in {wall:.1f} s; p50 {q[49]:.2f} s, p95 {q[94]:.2f} s; "
              f"errors: {len(errors)}; replicas' CPU {1e3 * cpu / max(1, len(lat)):.0f} ms a rerun", flush=True)
        for e in errors[:10]:
            print("  -", e)
        bad += bool(errors) or len(lat) != STEPS * args.sessions
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())

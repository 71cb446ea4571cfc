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
    python benchmarks/load.py --sessions 50 --replicas 1 2          # behind HAProxy, 1 then 2 replicas, one run
    python benchmarks/load.py --uploads 100 --replicas 2            # 100 uploads through the proxy
    python benchmarks/load.py --kill-replica --sessions 50          # a replica SIGKILLed under 50 releasing tabs
    python benchmarks/load.py --interactions                        # CPU of a fragment's rerun vs the whole page

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
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
            ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


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
        self.fragment_of: dict[str, str] = {}  # widget id -> the fragment drawing it ("" outside any)
        self._in_fragment, self._delta_fragment = False, ""

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

    async def rerun(self, step: str, page: str | None = None, fragment: str = ""):
        """One script rerun (of ``fragment`` only, if given: as the browser does for a widget inside an st.fragment)
        with the current widget states; waits for script_finished."""
        if page is not None:
            self.page_hash, self.states, self.widgets = self.pages.get(page, ""), {}, {}
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        cs.fragment_id = fragment
        self._in_fragment = bool(fragment)
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
                if not self._in_fragment:
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
                self._delta_fragment = fm.delta.fragment_id
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
                self.fragment_of[wid] = self._delta_fragment

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


async def upload_csv(s: Session) -> None:
    """Data page → upload the CSV (its URL from the server, the PUT, the uploader's state) → the rerun that reads it;
    raises StepError unless the Data page then shows the bounds widgets of the uploaded column."""
    await s.rerun("Data page", page="data")
    await s.upload(s.widget("data_upload"), "people.csv", CSV)
    await s.rerun("upload CSV")
    _bounds_widgets(s)


def _bounds_widgets(s: Session) -> tuple[str, str]:
    tag = hashlib.sha256(b"age").hexdigest()[:12]
    lo = next((w for w in s.widgets if "-data_lo_" in w and w.endswith(tag)), None)
    hi = next((w for w in s.widgets if "-data_hi_" in w and w.endswith(tag)), None)
    if lo is None or hi is None:
        raise StepError("the bounds widgets of column 'age' are not on the Data page")
    return lo, hi


async def prepare(s: Session, eps_step: str) -> None:
    """Data → upload → bounds → KNG (uploaded data, release view) → ε: everything before the Release click."""
    await upload_csv(s)
    lo, hi = _bounds_widgets(s)
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


def released(s: Session) -> bool:
    """The KNG page drew a released value in the last run (pages/kng.py: "**<mechanism>** — released; cost …")."""
    return any("— released; cost" in t for t in s.texts)


async def scenario(s: Session, eps_step: str = "1.5"):
    """Home → Data → upload → bounds → KNG (uploaded data, release view) → ε → Release."""
    await s.connect()
    try:
        await s.rerun("open Home")
        await prepare(s, eps_step)
        s.set(s.widget("kng_go"), trigger_value=True)
        await s.rerun("press Release")
        if not released(s):
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
    ap.add_argument("--uploads", type=int, metavar="N",
                    help="N browsers each upload the CSV through the proxy (--replicas N, default 2), at most --sessions "
                         "at a time")
    ap.add_argument("--kill-replica", action="store_true",
                    help="--sessions tabs on 2 replicas release again and again; one replica is killed under them")
    ap.add_argument("--after-kill", type=float, default=25.0, help="with --kill-replica: seconds to go on after the kill")
    ap.add_argument("--interactions", action="store_true",
                    help="server CPU per interaction (fragment rerun vs whole page) on one idle server")
    ap.add_argument("--rounds", type=int, default=10, help="with --interactions: changes per widget")
    args = ap.parse_args(argv)
    if args.interactions:
        return run_interactions(args)
    if not 1 <= args.sessions <= MAX_SESSIONS:
        ap.error(f"--sessions must be between 1 and {MAX_SESSIONS}")
    if args.uploads is not None:
        if not 1 <= args.uploads <= 4 * MAX_SESSIONS:
            ap.error(f"--uploads must be between 1 and {4 * MAX_SESSIONS}")
        return run_uploads(args)
    if args.kill_replica:
        return run_kill(args)
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


def _quantiles(xs: list[float]) -> tuple[float, float]:
    """(p50, p95) of ``xs`` (0, 0 if empty)."""
    if len(xs) < 2:
        return (xs[0], xs[0]) if xs else (0.0, 0.0)
    q = statistics.quantiles(sorted(xs), n=100, method="inclusive")
    return q[49], q[94]


def run_uploads(args: argparse.Namespace) -> int:
    """``--uploads N``: N browsers each open the app through the proxy and upload the CSV on the Data page (at most
    ``--sessions`` at a time); an upload succeeds when its PUT is accepted by the replica holding the tab's websocket
    and the Data page then reads the table. Prints successes, p50/p95 of the upload (PUT and the rerun reading it),
    errors and the replicas' CPU per upload."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import serve

    n_rep = args.replicas[0] if args.replicas else 2
    with serve.Topology(n_rep, database=args.database) as topo:
        pids = [p.pid for p in topo.procs.values()]
        asyncio.run(run_sessions(topo.url, None, n_rep, args.timeout))       # warm-up: each replica imports once
        gate = asyncio.Semaphore(args.sessions)
        times: list[float] = []
        ok: list[Session] = []

        async def one() -> Session:
            c, extra = await asyncio.to_thread(session_cookies, topo.url)
            s = Session(topo.url, c, args.timeout, extra)
            async with gate:
                try:
                    await s.connect()
                    await s.rerun("open Home")
                    await s.rerun("Data page", page="data")
                    t0 = time.perf_counter()
                    await s.upload(s.widget("data_upload"), "people.csv", CSV)
                    await s.rerun("upload CSV")
                    times.append(time.perf_counter() - t0)
                    _bounds_widgets(s)
                    ok.append(s)
                except (StepError, OSError, asyncio.TimeoutError, websockets.WebSocketException) as exc:
                    s.problems.append(f"{type(exc).__name__}: {exc}")
                finally:
                    await s.close()
            return s

        async def all_of() -> list[Session]:
            return await asyncio.gather(*(one() for _ in range(args.uploads)))

        c0, t0 = sum(cpu_seconds(p) for p in pids), time.perf_counter()
        sessions = asyncio.run(all_of())
        wall, cpu = time.perf_counter() - t0, sum(cpu_seconds(p) for p in pids) - c0
    errors = [p for s in sessions for p in s.problems]
    spread: dict[str, int] = {}
    for s in ok:
        spread[s.replica] = spread.get(s.replica, 0) + 1
    p50, p95 = _quantiles(times)
    print(f"uploads through the proxy, {n_rep} replicas ({', '.join(f'{k}: {v}' for k, v in sorted(spread.items()))}), "
          f"at most {args.sessions} at a time: {len(ok)} of {args.uploads} succeeded in {wall:.1f} s; upload (PUT + the "
          f"rerun reading it) p50 {p50:.2f} s, p95 {p95:.2f} s; errors: {len(errors)}; replicas' CPU "
          f"{1e3 * cpu / max(1, args.uploads):.0f} ms an upload (its 3 reruns and the PUT)", flush=True)
    for e in errors[:10]:
        print("  -", e)
    return 1 if args.check and (errors or len(ok) != args.uploads) else 0


class KillRun:
    """Shared state of ``--kill-replica``: when the replica was killed, and when the sessions stop."""

    def __init__(self) -> None:
        self.killed_at: float | None = None
        self.stop = False
        self.ready = 0


async def _reconnect(s: Session, run: KillRun, limit: float = 30.0) -> float:
    """Reconnect a tab whose websocket closed, as the browser does (again and again), and rerun its page: the seconds
    from the kill until the page was drawn again, its first message the reconnection notice."""
    t0 = time.monotonic()
    while True:
        try:
            await s.close()
        except (OSError, websockets.WebSocketException):
            pass
        try:
            await s.connect()
            await s.rerun("reconnect")
            break
        except (StepError, OSError, asyncio.TimeoutError, websockets.WebSocketException):
            if time.monotonic() - t0 > limit:
                raise
            await asyncio.sleep(0.25)
    back = time.monotonic() - (run.killed_at or t0)
    if s.replica:
        s.cookies["DPX_REPLICA"] = s.replica        # the proxy's re-pinning cookie, kept as the browser keeps it
    if not any("Reconnected to the server" in t for t in s.texts):
        s.problems.append("reconnect: the page did not say it reconnected: " + " | ".join(s.texts)[:200])
    s.set(s.widget("dp_restart_ack"), trigger_value=True)
    await s.rerun("continue after the notice")
    return back


#: ``--kill-replica``: Release clicks per tab before the kill, and in all (ε = 0.1 each, within the default ε = 3).
BEFORE_KILL, MAX_CLICKS = 15, 25


async def _think(s: Session, think: float) -> None:
    """Wait ``think`` seconds, but notice at once a socket the proxy closed, as a browser does (raises then)."""
    try:
        await asyncio.wait_for(s.ws.wait_closed(), think)
    except asyncio.TimeoutError:
        return
    raise websockets.ConnectionClosed(None, None)


async def kill_session(s: Session, run: KillRun, think: float) -> None:
    """One tab of ``--kill-replica``: prepare, then release (New draw + Release, ε = 0.1 each) :data:`BEFORE_KILL`
    times, wait for the kill, and release again up to :data:`MAX_CLICKS` until stopped; when its websocket closes (its replica was killed) it reconnects, reads the notice, uploads the data
    again (not kept on the server) and goes on releasing. Counts its clicks and its confirmed releases."""
    s.clicks = s.confirmed = 0                      # type: ignore[attr-defined]
    s.back = None                                   # type: ignore[attr-defined]
    await s.connect()
    await s.rerun("open Home")
    await prepare(s, "0.1")
    run.ready += 1
    while not run.stop:
        try:
            if (run.killed_at is None and s.clicks >= BEFORE_KILL) or s.clicks >= MAX_CLICKS:   # type: ignore[attr-defined]
                await _think(s, think)                                # (within the budget: ε = 3 by default)
                continue
            s.set(s.widget("dp_new_draw"), trigger_value=True)      # a new draw: charged again
            s.set(s.widget("kng_go"), trigger_value=True)
            s.clicks += 1                                           # type: ignore[attr-defined]
            await s.rerun("press Release")
            if released(s):
                s.confirmed += 1                                    # type: ignore[attr-defined]
            else:
                s.problems.append("press Release: no released value: " + " | ".join(s.texts)[-200:])
            await _think(s, think)
        except (OSError, StepError, websockets.WebSocketException) as exc:
            if run.killed_at is None or s.back is not None:        # type: ignore[attr-defined]
                s.problems.append(f"{type(exc).__name__}: {exc}")
                return
            s.back = await _reconnect(s, run)                       # type: ignore[attr-defined]
            await prepare(s, "0.1")
    await s.close()


def run_kill(args: argparse.Namespace) -> int:
    """``--kill-replica``: ``--sessions`` tabs on 2 replicas release again and again; once every tab has prepared,
    one replica is killed (SIGKILL); its tabs reconnect to the other one. Prints how long each moved tab took to be
    back (target ≤ 10 s), and per tab the Release clicks sent, the releases confirmed on screen and the releases its
    workspace holds in the database (0 lost: every confirmed release is there; 0 double-charged: never more charges
    than clicks), p50/p95 of the reruns, errors and the replicas' CPU per rerun."""
    sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]
    import serve

    from dpcore import store as dpstore

    with serve.Topology(2, database=args.database) as topo:
        pids = {n: p.pid for n, p in topo.procs.items()}
        asyncio.run(run_sessions(topo.url, None, 2, args.timeout))           # warm-up: each replica imports once
        run = KillRun()
        victim = "app1"

        async def main_loop() -> list[Session]:
            pairs = [await asyncio.to_thread(session_cookies, topo.url) for _ in range(args.sessions)]
            sessions = [Session(topo.url, c, args.timeout, extra) for c, extra in pairs]

            async def one(s: Session) -> None:
                try:
                    await kill_session(s, run, think=2.0)
                except (StepError, OSError, asyncio.TimeoutError, websockets.WebSocketException) as exc:
                    s.problems.append(f"{type(exc).__name__}: {exc}")

            tasks = [asyncio.create_task(one(s)) for s in sessions]
            deadline = time.monotonic() + 10 * args.timeout
            while run.ready < len(sessions) and time.monotonic() < deadline and not all(t.done() for t in tasks):
                await asyncio.sleep(0.2)
            await asyncio.sleep(3.0)
            run.killed_at = time.monotonic()
            await asyncio.to_thread(topo.kill, victim)
            await asyncio.sleep(args.after_kill)
            run.stop = True
            await asyncio.gather(*tasks)
            return sessions

        c0 = {n: cpu_seconds(p) for n, p in pids.items()}
        t0 = time.perf_counter()
        sessions = asyncio.run(main_loop())
        wall = time.perf_counter() - t0
        cpu = sum(cpu_seconds(p) - c0[n] for n, p in pids.items() if n != victim)   # (the victim's CPU died with it)
        os.environ.update({k: v for k, v in topo.env.items() if k.startswith("DPX_")})
        store = dpstore.open_store(topo.env.get("DPX_DATABASE_URL") or None, data_dir=topo.data_dir)
        try:
            in_db = []
            for s in sessions:
                ws = store.open_workspace(s.cookies.get("dpx_ws", "")) if s.cookies.get("dpx_ws") else None
                in_db.append(0 if ws is None else sum(len(a.entries) for a in ws.accounts()))
        finally:
            store.close()
    moved = [s for s in sessions if getattr(s, "back", None) is not None]
    stayed = [s for s in sessions if s.replica != victim and getattr(s, "back", None) is None]
    lost = sum(max(0, s.confirmed - n) for s, n in zip(sessions, in_db))                  # type: ignore[attr-defined]
    double = sum(max(0, n - s.clicks) for s, n in zip(sessions, in_db))                   # type: ignore[attr-defined]
    hidden = sum(max(0, n - s.confirmed) for s, n in zip(sessions, in_db))                # type: ignore[attr-defined]
    errors = [p for s in sessions for p in s.problems]
    lat = [t for s in sessions for _, t in s.latencies]
    p50, p95 = _quantiles(lat)
    backs = sorted(s.back for s in moved)                                                 # type: ignore[attr-defined]
    print(f"kill a replica under {args.sessions} sessions (2 replicas; {victim} SIGKILLed {args.after_kill:g} s before "
          f"the end): {len(moved)} tabs moved, {len(stayed)} stayed; back after the kill in "
          f"{backs[0] if backs else 0:.1f}–{backs[-1] if backs else 0:.1f} s (p50 {_quantiles(backs)[0]:.1f} s; "
          f"{sum(b <= 10 for b in backs)} of {len(backs)} within 10 s)", flush=True)
    print(f"  releases: {sum(s.clicks for s in sessions)} clicks, {sum(s.confirmed for s in sessions)} confirmed on "  # type: ignore[attr-defined]
          f"screen, {sum(in_db)} in the database; lost (confirmed, not in the database): {lost}; double-charged (more "
          f"charges than clicks): {double}; charged but not confirmed (a click in flight at the kill): {hidden}")
    print(f"  reruns: {len(lat)} in {wall:.1f} s, p50 {p50:.2f} s, p95 {p95:.2f} s; errors: {len(errors)}; surviving "
          f"replica's CPU {1e3 * cpu / max(1, len(lat)):.0f} ms a rerun (all reruns counted)", flush=True)
    for e in errors[:10]:
        print("  -", e)
    bad = errors or lost or double or not moved or any(b > 10 for b in backs)
    return 1 if args.check and bad else 0


#: ``--interactions``: the widgets measured on the KNG page after a release: (what, widget key, kind).
INTERACTIONS = (("accuracy preview on/off", "kng_accuracy_preview_on", "bool"),
                ("trade-off curve on/off", "kng_go_curve", "bool"),
                ("Clear ledger list", "dp_clear_ledger", "trigger"))


def run_interactions(args: argparse.Namespace) -> int:
    """``--interactions``: the server's CPU per interaction on the KNG page of one session on an idle server (its own
    process: /proc CPU time, protocol included), after an upload and a release: each widget drawn inside an
    st.fragment changed ``--rounds`` times as the browser sends it (the fragment's rerun only) and the same change
    as a whole-page rerun (what every widget change cost before the fragments), and a plain rerun of the page."""
    port = free_port()
    proc = start_server(port)
    base = f"http://127.0.0.1:{port}"
    rows: list[tuple[str, str, float, float]] = []
    try:
        wait_healthy(base, proc)
        s = Session(base, xsrf_cookie(base), args.timeout)

        async def go() -> None:
            await s.connect()
            await s.rerun("open Home")
            await prepare(s, "1")
            s.set(s.widget("kng_go"), trigger_value=True)
            await s.rerun("press Release")
            if not released(s):
                raise StepError("press Release: no released value on the page")

            async def measure(what: str, scope: str, change, fragment: str) -> None:
                c0, t0 = cpu_seconds(proc.pid), time.perf_counter()
                for i in range(args.rounds):
                    change(i)
                    await s.rerun(what, fragment=fragment)
                rows.append((what, scope, (cpu_seconds(proc.pid) - c0) / args.rounds,
                             (time.perf_counter() - t0) / args.rounds))

            await measure("plain rerun", "whole page", lambda i: None, "")
            for what, key, kind in INTERACTIONS:
                wid = s.widget(key)
                start = not getattr(s.widgets[wid][1], "default", False)

                def change(i: int, wid: str = wid, kind: str = kind, start: bool = start) -> None:
                    if kind == "bool":
                        s.set(wid, bool_value=start if i % 2 == 0 else not start)
                    else:
                        s.set(wid, trigger_value=True)

                frag = s.fragment_of.get(wid, "")
                if frag:
                    await measure(what, "its fragment", change, frag)
                else:
                    s.problems.append(f"{what}: not drawn inside an st.fragment")
                await measure(what, "whole page", change, "")
            await s.close()

        asyncio.run(go())
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"server CPU per interaction, KNG page after an upload and a release, one session on an idle server, "
          f"{args.rounds} each; load average {os.getloadavg()[0]:.2f}")
    print(f"{'interaction':28s} {'rerun of':14s} {'CPU ms':>7s} {'wall ms':>8s}")
    for what, scope, cpu, wall in rows:
        print(f"{what:28s} {scope:14s} {1e3 * cpu:7.0f} {1e3 * wall:8.0f}")
    print(f"errors: {len(s.problems)}")
    for e in s.problems:
        print("  -", e)
    return 1 if args.check and s.problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""Classroom load over Streamlit's websocket protocol: one teacher and N students play R rounds on a live server.

Starts ``streamlit run app.py`` on a free 127.0.0.1 port with ``DPX_DATA_DIR`` a temporary folder (or, with
``--replicas N``, N replicas behind HAProxy from scripts/serve.py on one database), then plays the classroom game
as browsers do (benchmarks/load.py's :class:`Session`: protobuf BackMsg/ForwardMsg on ``/_stcore/stream``):

* the teacher opens the Classroom page, picks "the teacher", presses **Create the class** and reads the join code
  from the dashboard; each of the N students opens the page, types the code and a nickname and presses **Join**;
* each round the teacher presses **Open next round**; every tab reruns its 2-second fragment (the page's
  ``st.fragment(run_every=2)``: the interval is read from the server's ``auto_rerun`` message, as the browser does)
  — the students' view, the teacher's dashboard; a student who sees the answer form waits a moment and presses
  IN or OUT; the teacher's dashboard polls until "Answers this round" counts every student, then the teacher
  presses **Close round** and **Reveal the truth**; after the last round every student must see the truth.

Printed: p50/p95 of an answer's round trip (the IN/OUT click's fragment rerun, until ``script_finished``) and of
the dashboard's refresh (its fragment rerun), how long after a round's last answer the dashboard counted it, the
server's CPU seconds per answer (all replicas), the errors (an exception element, an ``st.error``, a protocol
failure, a step over ``--timeout``, an answer not confirmed on the student's screen), and the answers in the
database (read with dpcore.classroom.storage from the server's ``DPX_DATA_DIR`` / ``DPX_DATABASE_URL``) against
the answers sent. Target (issue 34, this 2-core machine): p95 ≤ 2 s for both, 0 errors, 0 answers lost.

Usage::

    python benchmarks/classroom_ws.py                          # 100 students, 5 rounds, one server
    python benchmarks/classroom_ws.py --students 10 --rounds 2 --check
    python benchmarks/classroom_ws.py --replicas 2 --database postgres

Bounded: at most :data:`MAX_STUDENTS` students, :data:`MAX_ROUNDS` rounds, ``--timeout`` seconds per rerun and
``--round-limit`` seconds per round. Loopback only: it connects to nothing but the server(s) it starts.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import sqlalchemy as sa  # noqa: E402
import websockets  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from load import Session, StepError, cpu_seconds, free_port, session_cookies  # noqa: E402

from dpcore.classroom import storage as S  # noqa: E402
from dpcore.store import open_engine  # noqa: E402

MAX_STUDENTS = 200
MAX_ROUNDS = 20
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
        ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
PROTOCOL_ERRORS = (StepError, OSError, asyncio.TimeoutError, websockets.WebSocketException)


class Tab(Session):
    """A browser tab on the Classroom page: :class:`load.Session` plus fragment reruns (the page's
    ``st.fragment(run_every=…)`` timers, which the browser drives), the URL's query string and the metrics."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.fragments: dict[str, float] = {}    # fragment id -> auto-rerun interval (s), from ``auto_rerun``
        self.query = ""                          # the URL's query string (``page_info_changed``)
        self.metrics: dict[str, str] = {}
        self.run_widgets: set[str] = set()       # widgets drawn by the last run (full or fragment)
        self._fragment_run = False

    @property
    def fragment(self) -> str:
        if len(self.fragments) != 1:
            raise StepError(f"expected one auto-rerun fragment on the page, have {len(self.fragments)}")
        return next(iter(self.fragments))

    async def rerun(self, step: str, page: str | None = None, fragment: str = "") -> float:
        """One script (or fragment) rerun with the current widget states; its latency in seconds."""
        t0 = time.perf_counter()
        await self.send_rerun(page, fragment)
        await self._until_finished(step)
        dt = time.perf_counter() - t0
        self.latencies.append((step, dt))
        return dt

    async def send_rerun(self, page: str | None = None, fragment: str = "") -> None:
        """Send the rerun request without waiting for its end (a click still in flight)."""
        if page is not None:
            self.page_hash, self.states, self.widgets = self.pages.get(page, ""), {}, {}
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        if fragment:
            cs.fragment_id, cs.is_auto_rerun = fragment, not any(v.HasField("trigger_value")
                                                                 for v in self.states.values())
        for w in self.states.values():
            cs.widget_states.widgets.append(w)
        self._fragment_run = bool(fragment)
        await self._send(msg)
        self.states = {k: v for k, v in self.states.items() if not v.HasField("trigger_value")}

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
                self.texts, self.metrics, self.run_widgets = [], {}, set()
                if not self._fragment_run:
                    self.widgets = {}
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in fm.navigation.app_pages}
                if fm.navigation.page_script_hash:
                    self.page_hash = fm.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "auto_rerun":
                self.fragments[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                et = el.WhichOneof("type")
                if et == "metric":
                    self.metrics[el.metric.label] = el.metric.body
                elif et == "heading":
                    self.texts.append(el.heading.body)
                elif et == "code":
                    self.texts.append(el.code.code_text)
                before = set(self.widgets)
                self._element(step, el)
                self.run_widgets |= set(self.widgets) - before
                wid = getattr(getattr(el, et, None), "id", "") if et else ""
                if wid:
                    self.run_widgets.add(wid)
            elif kind == "script_finished" and started and fm.script_finished in DONE:
                if fm.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    self.problems.append(f"{step}: compile error")
                return

    def widget(self, key: str | None = None, *, label: str | None = None, nth: int = 0) -> str:
        """The id of the page's widget with user key ``key`` or label ``label`` (charts have no label)."""
        found = [w for w, (_, p) in self.widgets.items()
                 if (key is not None and w.endswith(f"-{key}")) or (label is not None
                                                                   and getattr(p, "label", None) == label)]
        if len(found) <= nth:
            raise StepError(f"widget {key or label!r} not on the page (have: {sorted(self.widgets)[:12]} …)")
        return found[nth]

    def has(self, key: str) -> bool:
        return any(w.endswith(f"-{key}") for w in self.run_widgets)

    def text(self, part: str) -> bool:
        return any(part in t for t in self.texts)


def classroom_path(tab: Tab) -> str:
    found = [p for p in tab.pages if "classroom" in p]
    if not found:
        raise StepError(f"no Classroom page in the navigation ({sorted(tab.pages)})")
    return found[0]


# -- the game's steps (also used by tests/serve/test_classroom_ws.py) ------------------------------------------
async def open_page(tab: Tab) -> None:
    """Connect and open the Classroom page (as a link to it does: the app, then the page)."""
    await tab.connect()
    await tab.rerun("open the app")
    await tab.rerun("Classroom page", page=classroom_path(tab))


async def create_class(tab: Tab, rounds: int) -> str:
    """The teacher's tab: pick the role, create a class playing ``rounds`` rounds; returns the join code."""
    tab.set(tab.widget("cls_role"), string_value="the teacher")
    await tab.rerun("teacher role")
    tab.set(tab.widget("new_rounds"), int_value=rounds)
    tab.set(tab.widget("cls_create"), trigger_value=True)
    await tab.rerun("create the class")
    code = tab.metrics.get("Join code", "")
    if not re.fullmatch(r"[A-Z0-9]{6}", code):
        raise StepError(f"create the class: no join code on the dashboard (metrics {tab.metrics})")
    return code


async def join(tab: Tab, code: str, nick: str) -> None:
    tab.set(tab.widget("cls_code"), string_value=code)
    tab.set(tab.widget("cls_nick"), string_value=nick)
    tab.set(tab.widget(label="Join"), trigger_value=True)
    await tab.rerun(f"join as {nick}")
    if not tab.text(f"Playing as {nick}"):
        raise StepError(f"join as {nick}: not playing (texts {tab.texts[:4]})")
    if "s=" not in tab.query:
        raise StepError(f"join as {nick}: the student's capability is not in the URL ({tab.query!r})")


async def teacher_press(tab: Tab, label: str, expect: str) -> None:
    tab.set(tab.widget(label=label), trigger_value=True)
    await tab.rerun(label)
    if not tab.text(expect):
        raise StepError(f"{label}: no {expect!r} on the teacher's page (texts {tab.texts[:6]})")


def round_of_form(tab: Tab) -> int | None:
    """The round the student's answer form is for (None: no form on the screen)."""
    if not (tab.has("cls_in") and tab.has("cls_out")):
        return None
    m = next((re.search(r"Round (\d+)\.", t) for t in tab.texts if re.search(r"Round (\d+)\.", t)), None)
    return int(m.group(1)) if m else None


async def click_answer(tab: Tab, rnd: int, says_in: bool) -> float:
    """Press IN or OUT (the fragment's rerun); the round trip, and an error unless the screen confirms it."""
    tab.set(tab.widget("cls_in" if says_in else "cls_out"), trigger_value=True)
    dt = await tab.rerun(f"answer round {rnd}", fragment=tab.fragment)
    if not tab.text("Your answer:"):
        raise StepError(f"answer round {rnd}: not confirmed on the screen (texts {tab.texts[:6]})")
    return dt


@dataclass
class Game:
    """The shared state of one simulated class and what was measured."""

    students: int
    rounds: int
    think: float
    timeout: float
    round_limit: float
    rng: random.Random
    code: str = ""
    round: int = 0                      # the round open now (0: none)
    over: bool = False
    sent: int = 0                       # IN/OUT clicks sent
    confirmed: int = 0                  # … confirmed on the student's screen
    answer_s: list[float] = field(default_factory=list)
    dash_s: list[float] = field(default_factory=list)
    lag_s: list[float] = field(default_factory=list)    # last answer of a round -> the dashboard counts it
    last_answer: float = 0.0
    errors: list[str] = field(default_factory=list)
    saw_truth: int = 0
    pids: list[int] = field(default_factory=list)   # the server processes, for their CPU during the rounds
    cpu_rounds: float = float("nan")

    def cpu(self) -> float:
        return sum(cpu_seconds(p) for p in self.pids) if self.pids else float("nan")


async def student(tab: Tab, g: Game, nick: str, ready: asyncio.Event) -> None:
    """A student's tab for the whole game: join, then the fragment's timer; answer each round once."""
    try:
        await open_page(tab)
        await ready.wait()
        await join(tab, g.code, nick)
        answered: set[int] = set()
        interval = tab.fragments[tab.fragment]
        await asyncio.sleep(g.rng.uniform(0, interval))              # tabs' timers are not in phase
        while not g.over:
            rnd = round_of_form(tab)
            if rnd is not None and rnd not in answered:
                await asyncio.sleep(g.rng.uniform(0, g.think))
                g.sent += 1
                answered.add(rnd)
                g.answer_s.append(await click_answer(tab, rnd, g.rng.random() < 0.5))
                g.confirmed += 1
                g.last_answer = time.monotonic()
            else:
                t = time.monotonic()
                await tab.rerun("student's timer", fragment=tab.fragment)
                await asyncio.sleep(max(0.0, interval - (time.monotonic() - t)))
        await tab.rerun("student's last look", fragment=tab.fragment)
        g.saw_truth += tab.text("The truth: the target was")
        if len(answered) != g.rounds:
            tab.problems.append(f"{nick}: answered rounds {sorted(answered)}, expected {g.rounds}")
    except PROTOCOL_ERRORS as exc:
        tab.problems.append(f"{nick}: {type(exc).__name__}: {exc}")
    finally:
        await tab.close()


async def teacher(tab: Tab, g: Game, ready: asyncio.Event, joined: asyncio.Event) -> None:
    try:
        await open_page(tab)
        g.code = await create_class(tab, g.rounds)
        ready.set()
        await joined.wait()
        frag = tab.fragment
        interval = tab.fragments[frag]
        cpu0 = g.cpu()
        for r in range(1, g.rounds + 1):
            await teacher_press(tab, "Open next round", f"Round {r} is open.")
            g.round = r
            t_end = time.monotonic() + g.round_limit
            while True:
                t = time.monotonic()
                g.dash_s.append(await tab.rerun("dashboard's timer", fragment=frag))
                if tab.metrics.get("Answers this round") == str(g.students):
                    g.lag_s.append(time.monotonic() - g.last_answer)
                    break
                if time.monotonic() > t_end:
                    raise StepError(f"round {r}: the dashboard counts {tab.metrics.get('Answers this round')} "
                                    f"answers of {g.students} after {g.round_limit:g} s")
                await asyncio.sleep(max(0.0, interval - (time.monotonic() - t)))
            await teacher_press(tab, "Close round", f"Round {r} closed.")
            await teacher_press(tab, "Reveal the truth", f"Round {r}: truth shown.")
        g.cpu_rounds = g.cpu() - cpu0
    except PROTOCOL_ERRORS as exc:
        tab.problems.append(f"teacher: {type(exc).__name__}: {exc}")
    finally:
        g.over = True
        ready.set()
        await tab.close()


async def play(base: str, g: Game, *, proxy: bool = False) -> list[Tab]:
    """One class on the server at ``base``; every tab (the teacher's first). Behind a proxy each tab takes its own
    cookies (a browser of its own), so HAProxy spreads them over the replicas."""
    async def tab() -> Tab:
        cookie, extra = await asyncio.to_thread(session_cookies, base)
        return Tab(base, cookie, g.timeout, extra if proxy else None)

    tabs = [await tab() for _ in range(g.students + 1)]
    ready, joined = asyncio.Event(), asyncio.Event()
    kids = [asyncio.create_task(student(t, g, f"student {i}", ready)) for i, t in enumerate(tabs[1:])]

    async def all_joined():
        while not g.over and sum(t.text("Playing as") for t in tabs[1:]) + sum(bool(t.problems) for t in tabs[1:]) \
                < g.students:
            await asyncio.sleep(0.2)
        joined.set()
    await asyncio.gather(teacher(tabs[0], g, ready, joined), all_joined(), *kids)
    g.errors = [p for t in tabs for p in t.problems]
    return tabs


# -- servers and the database ----------------------------------------------------------------------------------
def server_env(data_dir: Path, database_url: str = "") -> dict[str, str]:
    """The server's environment: this one without pytest's variables (a server, not a test) and with the data
    folder (and database URL) of the class."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST") and k != "DPX_DATABASE_URL"}
    env["DPX_DATA_DIR"] = str(data_dir)
    if database_url:
        env["DPX_DATABASE_URL"] = database_url
    return env


def start_server(port: int, env: dict[str, str], log=subprocess.DEVNULL, limit: float = 90) -> subprocess.Popen:
    """``streamlit run app.py`` on 127.0.0.1:``port``, returned once ``/_stcore/health`` answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
         "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.disconnectedSessionTTL", "2"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT if log is not subprocess.DEVNULL else log)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy within {limit:g} s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stored_answers(env: dict[str, str], code: str) -> int:
    """The class's answers in the server's database (``DPX_DATABASE_URL``, else SQLite in ``DPX_DATA_DIR``)."""
    engine = open_engine(env.get("DPX_DATABASE_URL") or None,          # the server's database: the store's
                         data_dir=env.get("DPX_DATA_DIR") or ROOT / ".dpx-data")
    try:
        with engine.connect() as conn:
            q = (sa.select(sa.func.count()).select_from(S.answers.join(S.rounds, S.answers.c.round_id == S.rounds.c.id)
                                                         .join(S.classes, S.rounds.c.class_id == S.classes.c.id))
                 .where(S.classes.c.join_code == code))
            return int(conn.execute(q).scalar_one())
    finally:
        engine.dispose()


def pct(xs: list[float], q: float) -> float:
    """The ``q``-quantile (inclusive method); NaN for no data."""
    if len(xs) < 2:
        return xs[0] if xs else float("nan")
    return statistics.quantiles(xs, n=100, method="inclusive")[round(q * 100) - 1]


def report(g: Game, stored: int, cpu: float, wall: float, where: str) -> bool:
    """Print the figures; True if the targets are met."""
    a95, d95 = pct(g.answer_s, 0.95), pct(g.dash_s, 0.95)
    print(f"{where}: 1 teacher + {g.students} students, {g.rounds} rounds in {wall:.1f} s (host load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"answer round trip: p50 {pct(g.answer_s, 0.5):.2f} s, p95 {a95:.2f} s, max "
          f"{max(g.answer_s, default=float('nan')):.2f} s over {len(g.answer_s)}")
    print(f"dashboard refresh: p50 {pct(g.dash_s, 0.5):.2f} s, p95 {d95:.2f} s over {len(g.dash_s)}; it counted a "
          f"round's last answer after {', '.join(f'{x:.1f}' for x in g.lag_s)} s")
    print(f"server CPU: {cpu:.1f} s in all (start-up imports and joins included); during the rounds "
          f"{g.cpu_rounds:.1f} s, {1e3 * g.cpu_rounds / max(1, g.confirmed):.0f} ms per answer (every rerun of the "
          "rounds: the tabs' 2-second timers, the clicks, the dashboard)")
    print(f"errors: {len(g.errors)}")
    for e in g.errors[:15]:
        print("  -", e)
    lost = g.sent - stored
    print(f"answers sent {g.sent}, confirmed on screen {g.confirmed}, in the database {stored}, lost {lost}; "
          f"{g.saw_truth} of {g.students} students saw the last round's truth")
    met = a95 <= 2 and d95 <= 2 and not g.errors and lost == 0 and stored == g.students * g.rounds
    print(f"target (p95 ≤ 2 s for answers and dashboard, 0 errors, 0 answers lost): {'met' if met else 'NOT met'}")
    return met


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--think", type=float, default=2.0, help="a student answers within this many seconds")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per rerun (a slower one is an error)")
    ap.add_argument("--round-limit", type=float, default=120.0, help="seconds for a round's answers to arrive")
    ap.add_argument("--replicas", type=int, help="N app replicas behind HAProxy (scripts/serve.py)")
    ap.add_argument("--database", default="sqlite", help="with --replicas: sqlite, postgres or a URL")
    ap.add_argument("--seed", type=int, default=0, help="the simulated students' choices and think times")
    ap.add_argument("--check", action="store_true", help="exit 1 unless 0 errors and 0 answers lost")
    a = ap.parse_args(argv)
    if not 1 <= a.students <= MAX_STUDENTS or not 1 <= a.rounds <= MAX_ROUNDS:
        ap.error(f"--students must be 1–{MAX_STUDENTS} and --rounds 1–{MAX_ROUNDS}")
    g = Game(a.students, a.rounds, a.think, a.timeout, a.round_limit, random.Random(a.seed))
    if a.replicas:
        sys.path.insert(0, str(ROOT / "scripts"))
        import serve
        with serve.Topology(a.replicas, database=a.database) as topo:
            g.pids = [p.pid for p in topo.procs.values()]
            c0, t0 = g.cpu(), time.perf_counter()
            asyncio.run(play(topo.url, g, proxy=True))
            wall, cpu = time.perf_counter() - t0, g.cpu() - c0
            stored = stored_answers(topo.env, g.code) if g.code else 0
        where = f"{a.replicas} replicas behind HAProxy on {a.database}"
    else:
        with tempfile.TemporaryDirectory(prefix="dpx-classroom-ws-") as data:
            env = server_env(Path(data))
            port = free_port()
            proc = start_server(port, env)
            try:
                g.pids = [proc.pid]
                c0, t0 = g.cpu(), time.perf_counter()
                asyncio.run(play(f"http://127.0.0.1:{port}", g))
                wall, cpu = time.perf_counter() - t0, g.cpu() - c0
            finally:
                stop_server(proc)
            stored = stored_answers(env, g.code) if g.code else 0
        where = "one streamlit server (SQLite in a temporary DPX_DATA_DIR)"
    met = report(g, stored, cpu, wall, where)
    ok = not g.errors and g.sent == stored == g.students * g.rounds
    return 0 if (ok if a.check else met) else 1


if __name__ == "__main__":
    sys.exit(main())

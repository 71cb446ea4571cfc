"""The classroom on a live ``streamlit run`` server, over Streamlit's websocket protocol (benchmarks/classroom_ws.py's
tabs): a 10-student smoke of the load benchmark, and a server killed (SIGKILL) mid-round and started again on the same
port and data folder, where no confirmed answer is lost and the round goes on. Each test has its own DPX_DATA_DIR."""
from __future__ import annotations

import os
import random
import signal
import sys
from pathlib import Path

import pytest

from tests.serve.conftest import run_async
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

import classroom_ws as W  # noqa: E402

from dpcore.classroom import storage as S  # noqa: E402
from dpcore.store import open_engine  # noqa: E402

pytestmark = [pytest.mark.serve, pytest.mark.xdist_group("serve")]


@pytest.fixture
def server(tmp_path):
    """A fresh server on a free port with DPX_DATA_DIR = tmp_path: (base URL, port, env, process holder)."""
    env = W.server_env(tmp_path / "data")
    port = W.free_port()
    log = open(tmp_path / "server.log", "wb")
    holder = {"proc": W.start_server(port, env, log)}
    yield f"http://127.0.0.1:{port}", port, env, holder, log
    if holder["proc"].poll() is None:
        W.stop_server(holder["proc"])
    log.close()


def test_ten_students_two_rounds_lose_nothing(server):
    base, _, env, _, _ = server
    g = W.Game(students=10, rounds=2, think=1.0, timeout=60, round_limit=60, rng=random.Random(1))
    run_async(W.play(base, g))
    assert not g.errors, g.errors
    assert g.sent == g.confirmed == 20
    assert W.stored_answers(env, g.code) == g.sent
    assert g.saw_truth == 10
    assert len(g.answer_s) == 20 and len(g.dash_s) >= 2


def test_two_replicas_on_postgresql_serve_one_class(tmp_path):
    """Several server processes on one database serve one class: 2 replicas behind HAProxy on a local PostgreSQL,
    each tab a browser of its own (the proxy spreads them); nothing lost."""
    import serve

    if not serve.LocalPostgres.available() or serve.shutil.which("haproxy") is None:
        if os.environ.get("REQUIRE_PROXY") == "1" or os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL 15 and haproxy are required (apt-get install postgresql haproxy)")
        pytest.skip("PostgreSQL 15 or haproxy not installed")
    g = W.Game(students=6, rounds=1, think=1.0, timeout=60, round_limit=60, rng=random.Random(2))
    with serve.Topology(2, database="postgres", data_dir=tmp_path / "data") as topo:
        tabs = run_async(W.play(topo.url, g, proxy=True))
        stored = W.stored_answers(topo.env, g.code)
        replicas = {t.cookies.get(serve.AFFINITY_COOKIE) for t in tabs}
    assert not g.errors, g.errors
    assert replicas == {"app1", "app2"}
    assert g.sent == stored == 6 and g.saw_truth == 6


def _answers_by_nick(env: dict, code: str) -> dict[str, int]:
    engine = open_engine(env.get("DPX_DATABASE_URL") or None,          # the server's database: the store's
                         data_dir=env.get("DPX_DATA_DIR") or ROOT / ".dpx-data")
    try:
        with engine.connect() as conn:
            q = (sa.select(S.students.c.nickname, sa.func.count(S.answers.c.id))
                 .join(S.classes, S.students.c.class_id == S.classes.c.id)
                 .outerjoin(S.answers, S.answers.c.student_id == S.students.c.id)
                 .where(S.classes.c.join_code == code).group_by(S.students.c.nickname))
            return {n: int(c) for n, c in conn.execute(q)}
    finally:
        engine.dispose()


async def _reopen(old: W.Tab, base: str) -> W.Tab:
    """The browser's reconnection after a restart: a new session on the same URL (page and query string)."""
    tab = W.Tab(base, W.session_cookies(base)[0], old.timeout)
    tab.pages, tab.page_hash, tab.query = old.pages, old.page_hash, old.query
    await tab.connect()
    await tab.rerun("reconnect")
    return tab


def test_a_server_killed_mid_round_loses_no_answer_and_the_round_goes_on(server):
    base, port, env, holder, log = server
    nicks = [f"kid {i}" for i in range(4)]

    async def before_kill():
        teacher = W.Tab(base, W.session_cookies(base)[0], 60)
        kids = [W.Tab(base, W.session_cookies(base)[0], 60) for _ in nicks]
        await W.open_page(teacher)
        code = await W.create_class(teacher, 2)
        key = next(t for t in teacher.texts if t.startswith("teach-"))
        for tab, nick in zip(kids, nicks):
            await W.open_page(tab)
            await W.join(tab, code, nick)
        await W.teacher_press(teacher, "Open next round", "Round 1 is open.")
        for tab in kids:
            await tab.rerun("student's timer", fragment=tab.fragment)
            assert W.round_of_form(tab) == 1
        for tab in kids[:2]:                                     # two answers confirmed before the crash
            await W.click_answer(tab, 1, True)
        kids[2].set(kids[2].widget("cls_out"), trigger_value=True)   # a third in flight when the server dies
        await kids[2].send_rerun(fragment=kids[2].fragment)
        holder["proc"].send_signal(signal.SIGKILL)
        holder["proc"].wait(timeout=10)
        for t in [teacher, *kids]:
            await t.close()
        return teacher, kids, code, key

    teacher, kids, code, key = run_async(before_kill())
    stored = _answers_by_nick(env, code)                         # the in-flight one may or may not have landed
    assert stored["kid 0"] == stored["kid 1"] == 1 and stored["kid 2"] in (0, 1) and stored["kid 3"] == 0, stored
    holder["proc"] = W.start_server(port, env, log)              # the same port, the same data folder

    async def after_restart():
        tabs = [await _reopen(k, base) for k in kids]
        for tab, nick in zip(tabs, nicks):
            assert tab.text(f"Playing as {nick}"), tab.texts
            assert not tab.problems, tab.problems
        for tab in tabs[:2]:                                     # their answers survived: no form, the answer shown
            assert W.round_of_form(tab) is None and tab.text("Your answer: IN"), tab.texts
        if stored["kid 2"]:                                      # the in-flight answer landed: shown, no form
            assert W.round_of_form(tabs[2]) is None and tabs[2].text("Your answer: OUT"), tabs[2].texts
        for tab in tabs[3 - (not stored["kid 2"]):]:             # the others answer now
            assert W.round_of_form(tab) == 1, tab.texts
            await W.click_answer(tab, 1, False)
        stale = tabs[3]                                          # a stale second click: nothing changes
        stale.set(stale.widget("cls_in"), trigger_value=True)
        await stale.rerun("second click", fragment=stale.fragment)
        assert stale.text("Your answer: OUT"), stale.texts

        teacher2 = W.Tab(base, W.session_cookies(base)[0], 60)  # the teacher reopens the class with the key
        teacher2.pages, teacher2.page_hash = teacher.pages, teacher.page_hash
        await teacher2.connect()
        await teacher2.rerun("reconnect")
        teacher2.set(teacher2.widget("cls_role"), string_value="the teacher")
        await teacher2.rerun("teacher role")
        teacher2.set(teacher2.widget("cls_paste"), string_value=key)
        await teacher2.rerun("paste the key")
        assert teacher2.metrics.get("Join code") == code, teacher2.metrics
        assert teacher2.metrics.get("Answers this round") == "4", teacher2.metrics
        await W.teacher_press(teacher2, "Close round", "Round 1 closed.")
        await W.teacher_press(teacher2, "Reveal the truth", "Round 1: truth shown.")
        for tab in tabs:
            await tab.rerun("student's timer", fragment=tab.fragment)
            assert tab.text("The truth: the target was"), tab.texts
        await W.teacher_press(teacher2, "Open next round", "Round 2 is open.")   # the class goes on
        for tab in tabs:
            await tab.rerun("student's timer", fragment=tab.fragment)
            assert W.round_of_form(tab) == 2
        problems = [p for t in [*tabs, teacher2] for p in t.problems]
        for t in [*tabs, teacher2]:
            await t.close()
        return problems

    assert run_async(after_restart()) == []
    assert _answers_by_nick(env, code) == {n: 1 for n in nicks}

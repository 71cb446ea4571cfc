"""AppTest of pages/classroom.py: a teacher and students in separate AppTest sessions sharing one SQLite file play a
round end to end; bad joins get clear messages; a student's page is identical whichever the secret coins; a
deleted class leaves a stale student tab with a message, not a crash."""
from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import PAGES, assert_ok

from dpcore.classroom import storage as S
from dpcore.store import open_engine

pytestmark = pytest.mark.app
PAGE = str(PAGES / "classroom.py")


def _session(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert_ok(at)
    return at


def _click(at: AppTest, label: str) -> AppTest:
    [b for b in at.button if b.label == label][0].click().run()
    assert_ok(at)
    return at


def _join(code: str, nick: str) -> AppTest:
    at = _session()
    at.text_input(key="cls_code").input(code)
    at.text_input(key="cls_nick").input(nick)
    at.get("form_submit_button")[0].click().run()
    assert_ok(at)
    return at


def _screen(at: AppTest) -> list[str]:
    """Every element's type and value in the main area (what the student sees)."""
    out = []

    def walk(node):
        for k in sorted(getattr(node, "children", {})):
            child = node.children[k]
            val = getattr(child, "value", None) if child.type not in ("button_group",) else None
            out.append(f"{child.type}:{getattr(child, 'label', '')}:{val}")
            walk(child)
    walk(at.main)
    return out


def _engine(tmp_path):
    return open_engine(data_dir=tmp_path)   # the page's database: the store's, in DPX_DATA_DIR


def test_a_round_end_to_end_with_separate_sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DPX_DATABASE_URL", raising=False)
    teacher = _session(cls_role="the teacher")
    assert any("nothing is charged" in i.value for i in teacher.info)
    teacher.selectbox(key="new_sc").set_value("mean").run()
    teacher.checkbox(key="new_mut").check().run()
    _click(teacher, "Create the class")
    key = teacher.session_state["cls_key"]
    code = {m.label: m.value for m in teacher.metric}["Join code"]
    assert len(code) == 6 and teacher.get("image")                       # the QR code is drawn
    assert any("teach-" in c.value for c in teacher.code)

    bad = _join(key, "x")
    assert any("this is a teacher key" in e.value for e in bad.error) and "cls_student" not in bad.session_state
    bad = _join("ZZZZZZ", "x")
    assert any("6 characters" in e.value for e in bad.error)
    kids = [_join(code.lower(), n) for n in ("[x](http://h/)", "Bo", "Cy")]
    assert kids[0].subheader[0].value.startswith("Playing as \\[x\\]\\(http")   # the nickname shown literally
    assert kids[0].query_params["join"] == [code] or kids[0].query_params["join"] == code

    _click(teacher, "Open next round")
    for k in kids:
        k.run()
        assert [b.label for b in k.button] == ["IN", "OUT"] and len(k.metric) == 1
    engine = _engine(tmp_path)
    before = _screen(kids[0])
    with engine.begin() as conn:                                          # the other world: every coin flipped
        conn.execute(sa.update(S.trials).values(secret_in=sa.not_(S.trials.c.secret_in)))
    kids[0].run()
    assert _screen(kids[0]) == before

    for k, says in zip(kids, ("cls_in", "cls_out", "cls_in")):
        k.button(key=says).click().run()
        assert_ok(k)
        assert any("recorded" in s.value for s in k.success)
    teacher.run()
    assert {m.label: m.value for m in teacher.metric}["Answers this round"] == "3"
    _click(teacher, "Close round")
    with engine.begin() as conn:                                          # both sides answered: a point to draw
        coins = conn.execute(sa.select(S.trials.c.id, S.trials.c.secret_in).order_by(S.trials.c.id)).all()
        if len({c for _, c in coins}) == 1:
            conn.execute(sa.update(S.trials).where(S.trials.c.id == coins[0][0]).values(secret_in=not coins[0][1]))
    _click(teacher, "Reveal the truth")
    fig = json.loads(teacher.get("plotly_chart")[0].proto.spec)
    assert any(t.get("name") == "your class" for t in fig["data"])
    assert "3 answers" in fig["layout"]["title"]["text"]
    assert any("ε lower bound" in c.value for c in teacher.caption)
    for k in kids:
        k.run()
        assert_ok(k)
        assert any(i.value.startswith("The truth: the target was") for i in k.info)
        assert any(m.label == "Your score" for m in k.metric)
    assert teacher.get("download_button")

    _click(teacher, "Delete the class and everything in it")
    assert "cls_key" not in teacher.session_state or teacher.session_state["cls_key"] is None
    kids[1].run()
    assert_ok(kids[1])
    assert any("no class has the join code" in e.value for e in kids[1].error)
    engine.dispose()


def _class_with_ada(tmp_path, monkeypatch) -> tuple[str, str]:
    """A class created by a teacher on a fresh SQLite store, and Ada joined: (join code, Ada's resume token)."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DPX_DATABASE_URL", raising=False)
    teacher = _session(cls_role="the teacher")
    _click(teacher, "Create the class")
    code = {m.label: m.value for m in teacher.metric}["Join code"]
    return code, _join(code, "Ada").session_state["cls_student"][1]


def test_a_reloaded_student_tab_resumes_from_the_url(tmp_path, monkeypatch):
    code, token = _class_with_ada(tmp_path, monkeypatch)
    fresh = AppTest.from_file(PAGE, default_timeout=90)                  # a new session: the server restarted
    fresh.query_params["join"] = code
    fresh.query_params["s"] = token
    fresh.run()
    assert_ok(fresh)
    assert fresh.session_state["cls_student"] == (code, token)
    assert fresh.subheader[0].value.startswith("Playing as Ada")


def test_issue35_a_student_tab_moved_to_another_server_process_is_told_it_reconnected_and_plays_on(tmp_path, monkeypatch):
    """A student's tab whose websocket reconnected to another server process (its replica died, or the server
    restarted): through app.py, the page says so briefly (a toast, once) and the student plays on — the full restart
    notice is not shown on a page that uses no workspace."""
    from tests.app.conftest import APP

    import ui

    code, token = _class_with_ada(tmp_path, monkeypatch)
    moved = AppTest.from_file(str(APP), default_timeout=90)               # a fresh session in another process
    moved.query_params.update({"join": code, "s": token, "session": "0000beef-000000000000"})
    moved.switch_page("pages/classroom.py").run()
    assert_ok(moved)
    assert [t.value for t in moved.toast] == [ui.resume.RECONNECTED_HERE]
    assert not [i for i in moved.info if "Reconnected" in str(i.value)]
    assert moved.subheader[0].value.startswith("Playing as Ada")
    moved.run()
    assert not moved.toast                                                # said once

"""Privacy of the game: across 2 000 simulated rounds (200 rounds of a class of 10 students, each student's round
with its own coin and release) every element a student sees (dpcore.classroom.views.student_view) and the
projected dashboard are identical whichever the secret coins, given the releases: the coins are flipped in the
database under the same releases and the views compared — before the answer (every student), after it and after
the round closed. Revealed rounds then show the truth, as they should; and the view shows the release it is given."""
from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from dpcore.classroom import storage as S
from dpcore.classroom import views as V
from dpcore.classroom.scenarios import check_setting, display_release
from dpcore.store import open_engine

ROUNDS, STUDENTS = 200, 10
pytestmark = pytest.mark.stat


def _flip(engine, round_id: int) -> None:
    with engine.begin() as conn:
        conn.execute(sa.update(S.trials).where(S.trials.c.round_id == round_id)
                     .values(secret_in=sa.not_(S.trials.c.secret_in)))


def _both_worlds(engine, round_id, look):
    a = look()
    _flip(engine, round_id)
    b = look()
    _flip(engine, round_id)
    return a, b


def test_what_students_see_depends_on_the_coin_only_through_the_release(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_SQLITE_SYNCHRONOUS", "NORMAL")   # 2 000 rounds' commits need not wait for the disk
    engine = open_engine(f"sqlite:///{tmp_path / 'dpx.sqlite3'}")   # the views are backend-independent (test_storage
    # covers both)
    lim = S.Limits(max_rounds=ROUNDS)
    nc = S.create_class(engine, check_setting("histogram", "histograms/laplace", False, 1.0), ROUNDS, now=0.0,
                        limits=lim)
    kids = [S.join(engine, nc.join_code, f"<b>kid {i}</b>", now=0.0, limits=lim) for i in range(STUDENTS)]
    coins, clock = [], [1.0]

    def views(who):
        return [V.student_view(engine, k.join_code, k.token, now=clock[0], limits=lim) for k in who]

    for rnd in range(1, ROUNDS + 1):
        S.open_round(engine, nc.teacher_key, now=clock[0], limits=lim)
        with engine.connect() as conn:
            rid, = conn.execute(sa.select(sa.func.max(S.rounds.c.id))).one()
            drawn = conn.execute(sa.select(S.trials.c.secret_in, S.trials.c.release).where(S.trials.c.round_id == rid)
                                 .order_by(S.trials.c.student_id)).all()
        coins += [c for c, _ in drawn]
        a, b = _both_worlds(engine, rid, lambda: views(kids))
        assert a == b and all(v.form_round == rnd for v in a)
        for v, (_, release) in zip(a, drawn):
            assert [(lab, txt) for kind, lab, txt in v.elements if kind == "metric"][:3] == \
                display_release("histogram", json.loads(release))
        for i, k in enumerate(kids):
            S.answer(engine, k.join_code, k.token, rnd, (rnd + i) % 2 == 0, (rnd + i) % 4 or None, now=clock[0], limits=lim)
        a, b = _both_worlds(engine, rid, lambda: views(kids[:2]))
        assert a == b and a[0].form_round is None
        S.close_round(engine, nc.teacher_key, now=clock[0], limits=lim)
        a, b = _both_worlds(engine, rid, lambda: views(kids[:2]))
        assert a == b
        if rnd % 20 == 0:                           # the projected dashboard, before the reveal, too
            pa, pb = _both_worlds(engine, rid, lambda: V.dashboard(engine, nc.teacher_key, now=clock[0], limits=lim))
            assert pa == pb
            S.reveal_round(engine, nc.teacher_key, now=clock[0], limits=lim)
            truth = [txt for kind, _, txt in views(kids[:1])[0].elements if txt.startswith("The truth")]
            assert truth == [f"The truth: the target was {'IN' if drawn[0][0] else 'OUT'}."]
        clock[0] += 1.0
    assert len(coins) == ROUNDS * STUDENTS
    assert 0.45 < sum(coins) / len(coins) < 0.55               # fair coins (OS entropy): P(fail) < 1e-5
    engine.dispose()

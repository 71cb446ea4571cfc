"""dpcore.classroom.storage on both backends: keys and codes, joins, rounds, idempotent answers, the rate limit,
caps, expiry, deletion, and a restart (the engine reopened on the same database: nothing lost)."""
from __future__ import annotations

import json
import threading

import pytest
import sqlalchemy as sa

from dpcore.classroom import codes
from dpcore.classroom import storage as S
from dpcore.classroom.scenarios import check_setting
from dpcore.store import open_engine

LAPLACE = check_setting("mean", "noise/laplace", False, 1.0)


def _rows(engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def _all_text(engine) -> str:
    out = []
    with engine.connect() as conn:
        for t in S.metadata.sorted_tables:
            out += [repr(tuple(r)) for r in conn.execute(sa.select(t))]
    return "\n".join(out)


def test_create_stores_only_the_hash_of_the_teacher_key(engine):
    nc = S.create_class(engine, LAPLACE, 3, now=0.0)
    assert len(nc.join_code) == 6 and set(nc.join_code) <= set(codes.ALPHABET)
    assert nc.teacher_key.startswith("teach-") and len(nc.teacher_key) >= 6 + 32
    text = _all_text(engine)
    assert nc.teacher_key not in text and codes.hash_secret(nc.teacher_key) in text
    assert S.teacher_class(engine, nc.teacher_key, now=1.0).join_code == nc.join_code
    with pytest.raises(S.ClassroomError, match="no class has this teacher key"):
        S.teacher_class(engine, nc.teacher_key + "x", now=1.0)
    with pytest.raises(S.ClassroomError, match="not a teacher key"):
        S.teacher_class(engine, nc.join_code, now=1.0)


def test_join_checks_code_nickname_duplicates_and_the_cap(engine):
    lim = S.Limits(max_students=2)
    nc = S.create_class(engine, LAPLACE, 3, now=0.0, limits=lim)
    with pytest.raises(S.DPValueError, match="teacher key"):
        S.join(engine, nc.teacher_key, "Ada", now=1.0, limits=lim)
    with pytest.raises(S.DPValueError, match="6 characters"):
        S.join(engine, "ABC", "Ada", now=1.0, limits=lim)
    with pytest.raises(S.ClassroomError, match="no class has the join code"):
        S.join(engine, "AAAAAA" if nc.join_code != "AAAAAA" else "CCCCCC", "Ada", now=1.0, limits=lim)
    with pytest.raises(S.DPValueError, match="empty"):
        S.join(engine, nc.join_code, "   ", now=1.0, limits=lim)
    a = S.join(engine, nc.join_code.lower(), "**Ada** <b>", now=1.0, limits=lim)
    assert a.nickname == "**Ada** <b>"                       # stored as typed; shown literally by the views
    with pytest.raises(S.ClassroomError, match="nickname is taken"):
        S.join(engine, nc.join_code, "**Ada** <b>", now=2.0, limits=lim)
    S.join(engine, nc.join_code, "Bo", now=2.0, limits=lim)
    with pytest.raises(S.ClassroomError, match="full \\(2 students\\)"):
        S.join(engine, nc.join_code, "Cy", now=3.0, limits=lim)
    assert _rows(engine, S.students) == 2
    assert S.resume_student(engine, nc.join_code, a.token, now=4.0).nickname == a.nickname


def test_rounds_answers_idempotent_closed_and_rate_limited(engine):
    nc = S.create_class(engine, LAPLACE, 2, now=0.0)
    key = nc.teacher_key
    st = [S.join(engine, nc.join_code, f"s{i}", now=1.0) for i in range(3)]
    with pytest.raises(S.ClassroomError, match="no round has been opened"):
        S.close_round(engine, key, now=2.0)
    assert S.open_round(engine, key, now=2.0) == 1
    assert _rows(engine, S.trials) == 3                                  # one secret trial per student
    with pytest.raises(S.ClassroomError, match="still open"):
        S.open_round(engine, key, now=2.1)
    a = st[0]
    assert S.answer(engine, a.join_code, a.token, 1, True, 2, now=3.0) == "Answer to round 1 recorded."
    again = S.answer(engine, a.join_code, a.token, 1, False, None, now=5.0)
    assert "already recorded" in again
    with engine.connect() as conn:
        rows = conn.execute(sa.select(S.answers.c.says_in, S.answers.c.confidence)).all()
    assert [tuple(r) for r in rows] == [(True, 2)]                        # the first answer stands
    with pytest.raises(S.ClassroomError, match="confidence"):
        S.answer(engine, st[1].join_code, st[1].token, 1, True, 4, now=3.0)
    with pytest.raises(S.ClassroomError, match="open; close it"):
        S.reveal_round(engine, key, now=3.5)
    S.close_round(engine, key, now=4.0)
    with pytest.raises(S.ClassroomError, match="round 1 is closed"):
        S.answer(engine, st[1].join_code, st[1].token, 1, True, None, now=6.0)
    S.reveal_round(engine, key, now=6.0)
    assert S.open_round(engine, key, now=7.0) == 2
    S.answer(engine, a.join_code, a.token, 2, True, None, now=7.0)       # rate limit: round 1's answer was at t = 3
    S.close_round(engine, key, now=7.1)
    with pytest.raises(S.ClassroomError, match="all 2 rounds"):
        S.open_round(engine, key, now=8.0)


def test_rate_limit_half_a_second_shared_through_the_database(engine):
    nc = S.create_class(engine, LAPLACE, 5, now=0.0)
    a = S.join(engine, nc.join_code, "Ada", now=0.0)
    S.open_round(engine, nc.teacher_key, now=1.0)
    S.answer(engine, a.join_code, a.token, 1, True, None, now=10.0)
    S.close_round(engine, nc.teacher_key, now=10.05)
    S.open_round(engine, nc.teacher_key, now=10.1)
    with pytest.raises(S.RateLimited, match="wait 0.5 s"):
        S.answer(engine, a.join_code, a.token, 2, True, None, now=10.2)
    # another engine (another process) on the same database sees the same limit
    other = open_engine(engine.url.render_as_string(hide_password=False))
    with pytest.raises(S.RateLimited):
        S.answer(other, a.join_code, a.token, 2, True, None, now=10.4)
    assert "recorded" in S.answer(other, a.join_code, a.token, 2, True, None, now=10.6)
    other.dispose()


def test_concurrent_duplicate_answers_leave_exactly_one(engine):
    nc = S.create_class(engine, LAPLACE, 5, now=0.0)
    a = S.join(engine, nc.join_code, "Ada", now=0.0)
    S.open_round(engine, nc.teacher_key, now=1.0)
    results, errors = [], []

    def go():
        try:
            results.append(S.answer(engine, a.join_code, a.token, 1, True, 1, now=5.0))
        except S.ClassroomError as e:       # the rate limit may refuse a racing twin: also no second row
            errors.append(str(e))
    threads = [threading.Thread(target=go) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _rows(engine, S.answers) == 1
    assert sum(r == "Answer to round 1 recorded." for r in results) == 1, (results, errors)


def test_caps_on_classes_and_rounds(engine):
    lim = S.Limits(max_classes=2, max_rounds=3)
    S.create_class(engine, LAPLACE, 3, now=0.0, limits=lim)
    S.create_class(engine, LAPLACE, 1, now=0.0, limits=lim)
    with pytest.raises(S.ClassroomError, match="already hosts 2 classes"):
        S.create_class(engine, LAPLACE, 1, now=0.0, limits=lim)
    with pytest.raises(S.ClassroomError, match="rounds = 4"):
        S.create_class(engine, LAPLACE, 4, now=0.0, limits=S.Limits(max_rounds=3))


def test_change_setting_between_rounds_only_and_recorded_per_round(engine):
    nc = S.create_class(engine, LAPLACE, 5, now=0.0)
    S.open_round(engine, nc.teacher_key, now=1.0)
    broken = check_setting("mean", "noise/laplace", True, 2.0)
    with pytest.raises(S.ClassroomError, match="close it before changing"):
        S.change_setting(engine, nc.teacher_key, broken, now=2.0)
    S.close_round(engine, nc.teacher_key, now=3.0)
    S.change_setting(engine, nc.teacher_key, broken, now=4.0)
    S.open_round(engine, nc.teacher_key, now=5.0)
    with engine.connect() as conn:
        played = conn.execute(sa.select(S.rounds.c.number, S.rounds.c.mutant, S.rounds.c.epsilon)
                              .order_by(S.rounds.c.number)).all()
    assert [tuple(r) for r in played] == [(1, False, 1.0), (2, True, 2.0)]
    with pytest.raises(S.DPValueError, match="ε = -1"):
        S.change_setting(engine, nc.teacher_key, type(broken)("mean", "noise/laplace", False, -1.0), now=6.0)


def test_end_expiry_and_delete_remove_everything(engine):
    lim = S.Limits()
    nc = S.create_class(engine, LAPLACE, 5, now=0.0)
    a = S.join(engine, nc.join_code, "Ada", now=1.0)
    S.open_round(engine, nc.teacher_key, now=2.0)
    S.answer(engine, a.join_code, a.token, 1, False, 3, now=3.0)
    S.end_class(engine, nc.teacher_key, now=4.0)
    with pytest.raises(S.ClassroomError, match="has ended"):
        S.join(engine, nc.join_code, "Bo", now=5.0)
    with pytest.raises(S.ClassroomError, match="has ended"):
        S.open_round(engine, nc.teacher_key, now=5.0)
    assert S.purge_expired(engine, now=4.0 + lim.ttl - 1) == 0
    with pytest.raises(S.ClassroomError, match="expired"):
        S.teacher_class(engine, nc.teacher_key, now=4.0 + lim.ttl + 1)
    assert S.purge_expired(engine, now=4.0 + lim.ttl + 1) == 1
    assert all(_rows(engine, t) == 0 for t in S.metadata.sorted_tables)
    nc2 = S.create_class(engine, LAPLACE, 5, now=0.0)
    b = S.join(engine, nc2.join_code, "Bo", now=1.0)
    S.open_round(engine, nc2.teacher_key, now=2.0)
    S.answer(engine, b.join_code, b.token, 1, True, None, now=3.0)
    S.delete_class(engine, nc2.teacher_key, now=4.0)
    assert all(_rows(engine, t) == 0 for t in S.metadata.sorted_tables)


def test_restart_reopening_the_engine_loses_nothing(db_url):
    e1 = open_engine(db_url)
    nc = S.create_class(e1, LAPLACE, 5, now=0.0)
    st = [S.join(e1, nc.join_code, f"s{i}", now=1.0) for i in range(3)]
    S.open_round(e1, nc.teacher_key, now=2.0)
    S.answer(e1, st[0].join_code, st[0].token, 1, True, 2, now=3.0)
    with e1.connect() as conn:
        before = conn.execute(sa.select(S.trials.c.release).order_by(S.trials.c.id)).scalars().all()
    e1.dispose()                                                    # the server dies mid-round
    e2 = open_engine(db_url)                                      # ... and starts again
    assert S.teacher_class(e2, nc.teacher_key, now=4.0).join_code == nc.join_code
    with e2.connect() as conn:
        assert conn.execute(sa.select(S.trials.c.release).order_by(S.trials.c.id)).scalars().all() == before
    assert "already recorded" in S.answer(e2, st[0].join_code, st[0].token, 1, False, None, now=5.0)
    assert "recorded" in S.answer(e2, st[1].join_code, st[1].token, 1, False, None, now=5.0)   # the round continues
    assert _rows(e2, S.answers) == 2
    assert all(len(json.loads(r)) == 1 for r in before)
    e2.dispose()


def test_server_processes_starting_at_once_create_the_tables_once(db_url):
    """Replicas start together on one database: their concurrent upgrades (the store's, which creates the
    classroom's tables) take turns (on PostgreSQL two concurrent CREATE TABLE failed with a UniqueViolation on
    pg_type before the advisory lock)."""
    start, errors, engines = threading.Barrier(6), [], []

    def create():
        start.wait()
        try:
            engines.append(open_engine(db_url))
        except Exception as exc:  # noqa: BLE001 - any failure is the test's finding
            errors.append(repr(exc))

    threads = [threading.Thread(target=create) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert set(S.metadata.tables) <= set(sa.inspect(engines[0]).get_table_names())
    for e in engines:
        e.dispose()

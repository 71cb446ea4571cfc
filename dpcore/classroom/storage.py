"""The classroom's state in the database: SQLAlchemy 2 Core tables and the game's transactions.

Why this module is long: it is the one owner of the classroom's schema and of every transaction on it
(create, join, rounds, answers, rate limit, caps, expiry); splitting it would spread the atomicity rules.

Tables (on :data:`metadata`; migration 6 of the store, in the store's database: open it with
:func:`dpcore.store.open_engine`, which creates or upgrades them): classes
(join code, SHA-256 of the teacher key, current setting, round cap, activity time), rounds (the setting each
round played, open/closed, revealed), students (nickname as typed, SHA-256 of their token, last action time),
trials (per round and student: the SECRET coin and the release drawn from it), answers (per round and student,
unique). Every function takes the store's :class:`sqlalchemy.engine.Engine` and a time ``now`` (seconds since
the epoch) so several processes share one database and the tests control the clock; every write that must be
atomic is one writing transaction (:func:`dpcore.store.transaction`). Each refusal is a :class:`ClassroomError`
whose message says what and why.

Secrecy: the coin is drawn with :func:`secrets.randbits` and the release with
``np.random.default_rng(np.random.SeedSequence())`` (fresh OS entropy) on the server; functions a student's
view calls return the coin only for revealed rounds (:func:`student_state`), and no message contains it.
"""
from __future__ import annotations

import hmac
import json
import math
import secrets
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import numpy as np
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from ..errors import DPValueError
from ..store import _schema, transaction
from . import codes
from .scenarios import Setting, check_setting, draw_release

__all__ = ["metadata", "classes", "rounds", "students", "trials", "answers", "Limits", "DEFAULT_LIMITS",
           "ClassroomError", "RateLimited", "NewClass", "StudentSession", "ClassInfo", "create_class", "teacher_class", "join", "resume_student", "change_setting", "open_round",
           "close_round", "reveal_round", "end_class", "delete_class", "answer", "purge_expired", "touch"]

#: The classroom's tables: the store's migration 6 (dpcore.store._schema), in the store's database.
metadata = _schema.CLASSROOM_METADATA
classes, rounds, students = _schema.classroom_classes, _schema.classroom_rounds, _schema.classroom_students
trials, answers = _schema.classroom_trials, _schema.classroom_answers


@dataclass(frozen=True)
class Limits:
    """Caps protecting a shared server (each refusal says which cap and why)."""

    max_classes: int = 200          # live classes per server (database)
    max_students: int = 500         # per class
    max_rounds: int = 50            # per class
    min_gap: float = 0.5            # seconds between two answers of one student
    ttl: float = 24 * 3600.0        # a class expires this long after its last activity


DEFAULT_LIMITS = Limits()


class ClassroomError(DPValueError):
    """A refused classroom action; the message says what and what to do."""


class RateLimited(ClassroomError):
    """An action came sooner than :attr:`Limits.min_gap` after the student's previous one."""


@dataclass(frozen=True)
class NewClass:
    """A created class: the join code (for students) and the teacher key (shown once; only its hash is kept)."""

    class_id: int
    join_code: str
    teacher_key: str


@dataclass(frozen=True)
class StudentSession:
    """A joined student: what their tab keeps (the token is their capability)."""

    join_code: str
    token: str
    nickname: str


@dataclass(frozen=True)
class ClassInfo:
    """A class row as the teacher's controls need it."""

    class_id: int
    join_code: str
    setting: Setting
    max_rounds: int
    ended: bool
    last_activity: float
    extra: Mapping[str, Any] = field(default_factory=dict)


def _tx(engine: sa.engine.Engine) -> Any:
    """One writing transaction (``BEGIN IMMEDIATE`` on SQLite: two processes never interleave a read and the
    write it decides), with the store's durability (``DPX_SQLITE_SYNCHRONOUS``)."""
    return transaction(engine)


# ----------------------------------------------------------------------------------------------- lookups
def _expired(row: Any, now: float, limits: Limits) -> bool:
    return now - row.last_activity > limits.ttl


def _class_by_code(conn: sa.Connection, code: str, now: float, limits: Limits) -> Any:
    code = codes.check_join_code(code)
    row = conn.execute(sa.select(classes).where(classes.c.join_code == code)).first()
    if row is None or _expired(row, now, limits):
        raise ClassroomError(f"no class has the join code {code} (it may have expired after 24 h without activity, "
                             "or been deleted); check the code on the projector.")
    if row.ended:
        raise ClassroomError(f"the class {code} has ended; thank you for playing.")
    return row


def _class_by_key(conn: sa.Connection, key: str, now: float, limits: Limits) -> Any:
    if not codes.looks_like_teacher_key(key):
        raise ClassroomError("that is not a teacher key (it starts with 'teach-'); paste the key you were given "
                             "when you created the class.")
    h = codes.hash_secret(key.strip())
    row = conn.execute(sa.select(classes).where(classes.c.teacher_key_hash == h)).first()
    if row is None or not hmac.compare_digest(row.teacher_key_hash, h) or _expired(row, now, limits):
        raise ClassroomError("no class has this teacher key (it may have expired after 24 h without activity or "
                             "been deleted); create a new class.")
    return row


def _student(conn: sa.Connection, class_id: int, token: str) -> Any:
    row = conn.execute(sa.select(students).where(students.c.token_hash == codes.hash_secret(str(token)),
                                                 students.c.class_id == class_id)).first()
    if row is None:
        raise ClassroomError("this tab's student is not in the class (the class may have been reset); join again "
                             "with the code and a nickname.")
    return row


def _setting(row: Any) -> Setting:
    return Setting(row.scenario, row.audit_id, bool(row.mutant), float(row.epsilon), float(row.delta))


def _info(row: Any) -> ClassInfo:
    return ClassInfo(row.id, row.join_code, _setting(row), row.max_rounds, bool(row.ended), row.last_activity)


def _latest_round(conn: sa.Connection, class_id: int, *, lock: bool = False) -> Any:
    q = sa.select(rounds).where(rounds.c.class_id == class_id).order_by(rounds.c.number.desc()).limit(1)
    if lock:
        q = q.with_for_update(read=True)
    return conn.execute(q).first()


def touch(conn: sa.Connection, class_id: int, now: float) -> None:
    """Record activity (at most once a minute per class, so answers do not all write the class row)."""
    conn.execute(sa.update(classes).where(classes.c.id == class_id, classes.c.last_activity < now - 60.0)
                 .values(last_activity=now))


# ----------------------------------------------------------------------------------------------- teacher
def create_class(engine: sa.engine.Engine, setting: Setting, n_rounds: int, *, now: float,
                 limits: Limits = DEFAULT_LIMITS) -> NewClass:
    """A new class playing ``setting`` for at most ``n_rounds`` rounds; expired classes are purged first."""
    setting = check_setting(setting.scenario, setting.audit_id, setting.mutant, setting.epsilon, setting.delta)
    if not (isinstance(n_rounds, (int, np.integer)) and 1 <= n_rounds <= limits.max_rounds):
        raise ClassroomError(f"rounds = {n_rounds!r} must be a whole number from 1 to {limits.max_rounds}.")
    purge_expired(engine, now, limits)
    key = codes.new_teacher_key()
    for _ in range(20):
        code = codes.new_join_code()
        try:
            with _tx(engine) as conn:
                live = conn.execute(sa.select(sa.func.count()).select_from(classes)).scalar_one()
                if live >= limits.max_classes:
                    raise ClassroomError(f"this server already hosts {live} classes (the cap is "
                                         f"{limits.max_classes}); end or delete a finished class, or try later.")
                pk = conn.execute(sa.insert(classes).values(
                    join_code=code, teacher_key_hash=codes.hash_secret(key), scenario=setting.scenario,
                    audit_id=setting.audit_id, mutant=setting.mutant, epsilon=setting.epsilon, delta=setting.delta,
                    max_rounds=int(n_rounds), ended=False, created_at=now, last_activity=now)).inserted_primary_key
            assert pk is not None
            return NewClass(int(pk[0]), code, key)
        except IntegrityError:
            continue          # the code was taken: draw another
    raise ClassroomError("could not find a free join code; try again.")


def teacher_class(engine: sa.engine.Engine, key: str, *, now: float, limits: Limits = DEFAULT_LIMITS) -> ClassInfo:
    """The class the teacher key opens (a clear error for a wrong or expired key)."""
    with engine.connect() as conn:
        return _info(_class_by_key(conn, key, now, limits))


def change_setting(engine: sa.engine.Engine, key: str, setting: Setting, *, now: float,
                   limits: Limits = DEFAULT_LIMITS) -> Setting:
    """Change ε, δ, the mechanism or switch to its mutant — between rounds only (the next round plays it)."""
    with _tx(engine) as conn:
        row = _class_by_key(conn, key, now, limits)
        setting = check_setting(row.scenario, setting.audit_id, setting.mutant, setting.epsilon, setting.delta)
        last = _latest_round(conn, row.id)
        if last is not None and last.is_open:
            raise ClassroomError(f"round {last.number} is open; close it before changing the mechanism or ε.")
        conn.execute(sa.update(classes).where(classes.c.id == row.id).values(
            audit_id=setting.audit_id, mutant=setting.mutant, epsilon=setting.epsilon, delta=setting.delta,
            last_activity=now))
    return setting


def _new_trial(setting: Setting) -> dict:
    coin = bool(secrets.randbits(1))                      # the fair coin, from the OS's CSPRNG
    rng = np.random.default_rng(np.random.SeedSequence())  # fresh OS entropy for the noise
    rel = [None if math.isnan(v) else v for v in draw_release(setting, coin, rng)]
    return {"secret_in": coin, "release": json.dumps(rel)}


def open_round(engine: sa.engine.Engine, key: str, *, now: float, limits: Limits = DEFAULT_LIMITS) -> int:
    """Open the next round with the class's current setting and draw a trial for every student who joined
    (students joining later get theirs when their tab first shows the round). Returns the round's number."""
    with _tx(engine) as conn:
        row = _class_by_key(conn, key, now, limits)
        if row.ended:
            raise ClassroomError("this class has ended; create a new class to play again.")
        last = _latest_round(conn, row.id)
        if last is not None and last.is_open:
            raise ClassroomError(f"round {last.number} is still open; close it first.")
        number = 1 if last is None else last.number + 1
        if number > row.max_rounds:
            raise ClassroomError(f"all {row.max_rounds} rounds of this class have been played; end the class or "
                                 "create a new one.")
        s = _setting(row)
        pk = conn.execute(sa.insert(rounds).values(
            class_id=row.id, number=number, scenario=s.scenario, audit_id=s.audit_id, mutant=s.mutant,
            epsilon=s.epsilon, delta=s.delta, is_open=True, revealed=False, opened_at=now)).inserted_primary_key
        assert pk is not None
        rid = pk[0]
        ids = conn.execute(sa.select(students.c.id).where(students.c.class_id == row.id)).scalars().all()
        if ids:
            conn.execute(sa.insert(trials), [{"round_id": rid, "student_id": i, **_new_trial(s)} for i in ids])
        conn.execute(sa.update(classes).where(classes.c.id == row.id).values(last_activity=now))
    return int(number)


def _set_round(engine: sa.engine.Engine, key: str, now: float, limits: Limits, what: str) -> int:
    with _tx(engine) as conn:
        row = _class_by_key(conn, key, now, limits)
        last = _latest_round(conn, row.id)
        if last is None:
            raise ClassroomError("no round has been opened yet; open one first.")
        if what == "close":
            if not last.is_open:
                raise ClassroomError(f"round {last.number} is already closed.")
            values: dict = {"is_open": False, "closed_at": now}
        else:
            if last.is_open:
                raise ClassroomError(f"round {last.number} is open; close it before revealing the truth.")
            values = {"revealed": True}
        conn.execute(sa.update(rounds).where(rounds.c.id == last.id).values(**values))
        conn.execute(sa.update(classes).where(classes.c.id == row.id).values(last_activity=now))
        return int(last.number)


def close_round(engine: sa.engine.Engine, key: str, *, now: float, limits: Limits = DEFAULT_LIMITS) -> int:
    """Close the open round: no answer is accepted afterwards. Returns its number."""
    return _set_round(engine, key, now, limits, "close")


def reveal_round(engine: sa.engine.Engine, key: str, *, now: float, limits: Limits = DEFAULT_LIMITS) -> int:
    """Reveal the last (closed) round: students see its truth, the dashboard pools its answers."""
    return _set_round(engine, key, now, limits, "reveal")


def end_class(engine: sa.engine.Engine, key: str, *, now: float, limits: Limits = DEFAULT_LIMITS) -> None:
    """End the class: no more joins, rounds or answers; results stay until it is deleted or expires."""
    with _tx(engine) as conn:
        row = _class_by_key(conn, key, now, limits)
        conn.execute(sa.update(rounds).where(rounds.c.class_id == row.id, rounds.c.is_open)
                     .values(is_open=False, closed_at=now))
        conn.execute(sa.update(classes).where(classes.c.id == row.id).values(ended=True, last_activity=now))


def _delete_ids(conn: sa.Connection, class_ids: list[int]) -> None:
    if not class_ids:
        return
    rids = sa.select(rounds.c.id).where(rounds.c.class_id.in_(class_ids))
    conn.execute(sa.delete(answers).where(answers.c.round_id.in_(rids)))
    conn.execute(sa.delete(trials).where(trials.c.round_id.in_(rids)))
    conn.execute(sa.delete(rounds).where(rounds.c.class_id.in_(class_ids)))
    conn.execute(sa.delete(students).where(students.c.class_id.in_(class_ids)))
    conn.execute(sa.delete(classes).where(classes.c.id.in_(class_ids)))


def delete_class(engine: sa.engine.Engine, key: str, *, now: float, limits: Limits = DEFAULT_LIMITS) -> None:
    """Delete the class and everything in it (rounds, students, coins, releases, answers)."""
    with _tx(engine) as conn:
        _delete_ids(conn, [_class_by_key(conn, key, now, limits).id])


def purge_expired(engine: sa.engine.Engine, now: float, limits: Limits = DEFAULT_LIMITS) -> int:
    """Delete every class inactive for longer than ``limits.ttl`` with everything in it; returns how many."""
    with _tx(engine) as conn:
        ids = conn.execute(sa.select(classes.c.id).where(classes.c.last_activity < now - limits.ttl)).scalars().all()
        _delete_ids(conn, list(ids))
    return len(ids)


# ----------------------------------------------------------------------------------------------- students
def join(engine: sa.engine.Engine, code: str, nickname: str, *, now: float,
         limits: Limits = DEFAULT_LIMITS) -> StudentSession:
    """Join the class ``code`` as ``nickname`` (unique in the class; at most ``limits.max_students``)."""
    name = codes.check_nickname(nickname)
    token = codes.new_student_token()
    try:
        with _tx(engine) as conn:
            row = _class_by_code(conn, code, now, limits)
            conn.execute(sa.select(classes.c.id).where(classes.c.id == row.id).with_for_update())  # serialise joins
            n = conn.execute(sa.select(sa.func.count()).select_from(students)
                             .where(students.c.class_id == row.id)).scalar_one()
            if n >= limits.max_students:
                raise ClassroomError(f"the class is full ({limits.max_students} students); ask your teacher.")
            conn.execute(sa.insert(students).values(class_id=row.id, nickname=name,
                                                    token_hash=codes.hash_secret(token), joined_at=now))
            touch(conn, row.id, now)
    except IntegrityError:
        raise ClassroomError("that nickname is taken in this class; choose another one.") from None
    return StudentSession(row.join_code, token, name)


def resume_student(engine: sa.engine.Engine, code: str, token: str, *, now: float,
                   limits: Limits = DEFAULT_LIMITS) -> StudentSession:
    """The student session of ``token`` in class ``code`` (a reloaded tab or a restarted server)."""
    with engine.connect() as conn:
        row = _class_by_code(conn, code, now, limits)
        st = _student(conn, row.id, token)
    return StudentSession(row.join_code, token, st.nickname)


def _ensure_trial(engine: sa.engine.Engine, rnd: Any, student_id: int) -> None:
    """Draw the student's trial of round ``rnd`` if it has none (a student who joined mid-round)."""
    with engine.connect() as conn:
        if conn.execute(sa.select(trials.c.id).where(trials.c.round_id == rnd.id,
                                                     trials.c.student_id == student_id)).first() is not None:
            return
    setting = Setting(rnd.scenario, rnd.audit_id, bool(rnd.mutant), float(rnd.epsilon), float(rnd.delta))
    try:
        with _tx(engine) as conn:
            conn.execute(sa.insert(trials).values(round_id=rnd.id, student_id=student_id, **_new_trial(setting)))
    except IntegrityError:
        pass                  # another request drew it first: that one stands


def answer(engine: sa.engine.Engine, code: str, token: str, round_number: int, says_in: bool,
           confidence: Optional[int], *, now: float, limits: Limits = DEFAULT_LIMITS) -> str:
    """Record the student's answer to round ``round_number``: once per student and round (a repeat returns the
    recorded answer's message, changes nothing), refused after the round closed, at most one answer per
    ``limits.min_gap`` seconds per student (the time is kept in the database, so all processes share it)."""
    if confidence is not None and confidence not in (1, 2, 3):
        raise ClassroomError(f"confidence = {confidence!r} must be 1, 2 or 3 (or left empty).")
    try:
        with _tx(engine) as conn:
            row = _class_by_code(conn, code, now, limits)
            st = _student(conn, row.id, token)
            rnd = conn.execute(sa.select(rounds).where(rounds.c.class_id == row.id, rounds.c.number == round_number)
                               .with_for_update(read=True)).first()
            if rnd is None:
                raise ClassroomError(f"round {round_number} does not exist; wait for your teacher to open it.")
            if conn.execute(sa.select(answers.c.id).where(answers.c.round_id == rnd.id,
                                                          answers.c.student_id == st.id)).first() is not None:
                return f"Your answer to round {round_number} is already recorded; it cannot be changed."
            if not rnd.is_open:
                raise ClassroomError(f"round {round_number} is closed: answers are no longer accepted.")
            if conn.execute(sa.select(trials.c.id).where(trials.c.round_id == rnd.id,
                                                         trials.c.student_id == st.id)).first() is None:
                raise ClassroomError("you have not been shown this round's release yet; reload the page.")
            ok = conn.execute(sa.update(students).where(
                students.c.id == st.id, sa.or_(students.c.last_action_at.is_(None),
                                               students.c.last_action_at <= now - limits.min_gap))
                .values(last_action_at=now)).rowcount
            if not ok:
                raise RateLimited(f"too fast: wait {limits.min_gap:g} s between two answers, then try again.")
            conn.execute(sa.insert(answers).values(round_id=rnd.id, student_id=st.id, says_in=bool(says_in),
                                                   confidence=confidence, answered_at=now))
            touch(conn, row.id, now)
    except IntegrityError:
        return f"Your answer to round {round_number} is already recorded; it cannot be changed."
    return f"Answer to round {round_number} recorded."

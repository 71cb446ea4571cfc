"""What a student and the dashboard show, as plain data the page draws element by element; the CSV export.

:func:`student_view` returns every text and element of a student's screen. Before a round is revealed they
depend on the secret coin only through the release (tests/classroom/test_privacy.py flips the coin in the
database under 2 000 rounds and compares): the story is the scenario's, the numbers are the release's
display, the messages depend on the round's state and the student's own answer. Nicknames are user text:
every element that carries one is passed through :func:`dpcore.data.literal` here.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa

from ..data import literal, to_safe_csv
from . import codes
from . import storage as S
from .scenarios import Setting, display_release, scenario
from .scoring import LEVELS, Answer, ClassScore, class_score, points

__all__ = ["CONFIDENCE_WORDS", "Element", "StudentView", "Dashboard", "student_view", "dashboard", "export_csv", "redraw_script",
           "figures_from_csv"]

#: Words for the confidences 1–3 (the answer form's options).
CONFIDENCE_WORDS = {1: "a hunch", 2: "fairly sure", 3: "sure"}
#: (kind, label, text): kind names the streamlit element: "subheader", "markdown", "info", "success", "metric", "caption".
Element = tuple[str, str, str]


@dataclass(frozen=True)
class StudentView:
    """A student's screen: its elements in order, and the round the answer form is for (None: no form)."""

    elements: tuple[Element, ...]
    form_round: Optional[int]


@dataclass(frozen=True)
class Dashboard:
    """The teacher's dashboard: counts, the latest round, and the class's score for the figure's setting."""

    join_code: str
    setting: Setting
    max_rounds: int
    n_students: int
    round_number: int
    round_open: bool
    round_revealed: bool
    n_answers: int
    figure_setting: Setting
    score: ClassScore
    ended: bool

    def metrics(self) -> list[tuple[str, str]]:
        """(label, value) of the dashboard's headline numbers."""
        state = "open" if self.round_open else ("revealed" if self.round_revealed else "closed")
        rnd = f"{self.round_number} of {self.max_rounds} ({state})" if self.round_number else "not started"
        return [("Join code", self.join_code), ("Players", str(self.n_students)), ("Round", rnd),
                ("Answers this round", str(self.n_answers))]

    def caption(self) -> str:
        """The figure's text alternative: what it shows and the class's headline number."""
        return (f"{self.figure_setting.describe()}. Black: the most any adversary can reach under the promise; "
                "dashed: the best adversary; star and dots: the class's revealed answers (one per confidence "
                "threshold) with 95 % Clopper–Pearson boxes. The class's ε lower bound (95 % confidence): "
                f"{self.score.epsilon_lower_bound:.2f}.")


def _said(says_in: bool, conf: Optional[int]) -> str:
    return ("IN" if says_in else "OUT") + (f" (confidence {conf})" if conf else "")


def _history(conn: sa.Connection, class_id: int, student_id: int) -> list[tuple[int, Answer]]:
    r, t, a = S.rounds, S.trials, S.answers
    q = (sa.select(r.c.number, t.c.secret_in, a.c.says_in, a.c.confidence)
         .join(t, sa.and_(t.c.round_id == r.c.id, t.c.student_id == student_id))
         .join(a, sa.and_(a.c.round_id == r.c.id, a.c.student_id == student_id))
         .where(r.c.class_id == class_id, r.c.revealed).order_by(r.c.number))
    return [(n, Answer(bool(s), bool(y), c)) for n, s, y, c in conn.execute(q)]


def _own(conn: sa.Connection, round_id: int, student_id: int) -> Any:
    """The student's trial of the round with their answer (None if no trial yet): one query."""
    t, a = S.trials, S.answers
    q = (sa.select(t.c.release, t.c.secret_in, a.c.says_in, a.c.confidence, a.c.id.label("answer_id"))
         .outerjoin(a, sa.and_(a.c.round_id == t.c.round_id, a.c.student_id == t.c.student_id))
         .where(t.c.round_id == round_id, t.c.student_id == student_id))
    return conn.execute(q).first()


def _who(conn: sa.Connection, code: str, token: str, now: float, limits: S.Limits) -> Any:
    """The class's row with the student's ``student_id`` and ``nickname``, in one query; the slow path only to word
    a refusal."""
    c, s = S.classes, S.students
    q = (sa.select(c, s.c.id.label("student_id"), s.c.nickname).join(s, s.c.class_id == c.c.id)
         .where(c.c.join_code == codes.normalise_join_code(code), s.c.token_hash == codes.hash_secret(str(token))))
    row = conn.execute(q).first()
    if row is None or row.ended or S._expired(row, now, limits):
        cls = S._class_by_code(conn, code, now, limits)        # raises the code's refusal, if it is the code
        S._student(conn, cls.id, token)                          # else the student's
        raise S.ClassroomError("this tab's student is not in the class; join again with the code and a nickname.")
    return row


def student_view(engine: sa.engine.Engine, code: str, token: str, *, now: float,
                 limits: S.Limits = S.DEFAULT_LIMITS) -> StudentView:
    """Every element of the student's screen (ClassroomError for a wrong code, expired class or unknown tab)."""
    with engine.connect() as conn:
        row = st = _who(conn, code, token, now, limits)
        rnd = S._latest_round(conn, row.id)
        own = None if rnd is None else _own(conn, rnd.id, st.student_id)
        hist = _history(conn, row.id, st.student_id)
    els: list[Element] = [("subheader", "", f"Playing as {literal(st.nickname)} in class {row.join_code}")]
    if rnd is None:
        els.append(("info", "", "Waiting for your teacher to open round 1."))
        return StudentView(tuple(els), None)
    if own is None and rnd.is_open:
        S._ensure_trial(engine, rnd, st.student_id)                # joined mid-round: draw this student's trial
        with engine.connect() as conn:
            own = _own(conn, rnd.id, st.student_id)
    trial = own
    ans = None if own is None or own.answer_id is None else own
    sc = scenario(rnd.scenario)
    els += [("markdown", "", f"**Round {rnd.number}.** {sc.story}")]
    form = None
    if trial is None:
        els.append(("info", "", f"Round {rnd.number} is closed; you joined after it started. Wait for the next one."))
    else:
        release = [float("nan") if v is None else v for v in json.loads(trial.release)]
        els += [("metric", label, text) for label, text in display_release(rnd.scenario, release)]
        if ans is not None:
            els.append(("success", "", f"Your answer: {_said(ans.says_in, ans.confidence)}."))
        if rnd.revealed:
            truth = "IN" if trial.secret_in else "OUT"
            els.append(("info", "", f"The truth: the target was {truth}."))
        elif rnd.is_open and ans is None:
            form = int(rnd.number)
        elif rnd.is_open:
            els.append(("caption", "", "Waiting for the round to close."))
        else:
            els.append(("caption", "", f"Round {rnd.number} is closed; the truth comes when your teacher reveals it."))
    if hist:
        pts = sum(points(a) for _, a in hist)
        right = sum(a.says_in == a.truth_in for _, a in hist)
        els.append(("metric", "Your score", f"{pts:+d} points ({right} of {len(hist)} revealed rounds right)"))
    return StudentView(tuple(els), form)


def _revealed_answers(conn: sa.Connection, class_id: int) -> list[tuple[Setting, int, Answer, str]]:
    r, t, a, s = S.rounds, S.trials, S.answers, S.students
    q = (sa.select(r.c.scenario, r.c.audit_id, r.c.mutant, r.c.epsilon, r.c.delta, r.c.number, t.c.secret_in,
                   a.c.says_in, a.c.confidence, s.c.nickname)
         .join(a, a.c.round_id == r.c.id)
         .join(t, sa.and_(t.c.round_id == r.c.id, t.c.student_id == a.c.student_id))
         .join(s, s.c.id == a.c.student_id)
         .where(r.c.class_id == class_id, r.c.revealed).order_by(r.c.number, s.c.id))
    return [(Setting(sc, au, bool(m), float(e), float(d)), int(n), Answer(bool(si), bool(y), c), nick)
            for sc, au, m, e, d, n, si, y, c, nick in conn.execute(q)]


def dashboard(engine: sa.engine.Engine, key: str, *, now: float, limits: S.Limits = S.DEFAULT_LIMITS) -> Dashboard:
    """The teacher's dashboard. The figure's setting is the latest revealed round's (else the class's); only
    revealed rounds are pooled (the projected screen shows no unrevealed round's split by truth)."""
    with engine.connect() as conn:
        row = S._class_by_key(conn, key, now, limits)
        n_students = conn.execute(sa.select(sa.func.count()).select_from(S.students)
                                  .where(S.students.c.class_id == row.id)).scalar_one()
        rnd = S._latest_round(conn, row.id)
        n_ans = 0 if rnd is None else conn.execute(sa.select(sa.func.count()).select_from(S.answers)
                                                   .where(S.answers.c.round_id == rnd.id)).scalar_one()
        rev = _revealed_answers(conn, row.id)
    setting = S._setting(row)
    fig_setting = rev[-1][0] if rev else setting
    group = [ans for s, _, ans, _ in rev if s == fig_setting]
    return Dashboard(row.join_code, setting, row.max_rounds, int(n_students), 0 if rnd is None else int(rnd.number),
                     bool(rnd is not None and rnd.is_open), bool(rnd is not None and rnd.revealed), int(n_ans),
                     fig_setting, class_score(group, fig_setting.epsilon, fig_setting.delta), bool(row.ended))


def _level(s: int) -> str:
    return f"m{-s}" if s < 0 else f"p{s}"


def export_csv(engine: sa.engine.Engine, key: str, *, now: float, nicknames: bool = False,
               limits: S.Limits = S.DEFAULT_LIMITS) -> str:
    """The class's revealed rounds as CSV: one row per round (scenario, mechanism, mutant, ε, δ, and the pooled
    counts of answers per truth and score ``in_m3 … in_p3``, ``out_m3 … out_p3``); with ``nicknames`` a column
    ``players`` lists each player's points in the round. CSV-injection safe (:func:`dpcore.data.to_safe_csv`)."""
    import pandas as pd

    from .scoring import score as _score
    with engine.connect() as conn:
        rev = _revealed_answers(conn, S._class_by_key(conn, key, now, limits).id)
    rows: dict[int, dict] = {}
    for s, n, ans, nick in rev:
        r = rows.setdefault(n, {"round": n, "scenario": s.scenario, "mechanism": s.audit_id, "mutant": s.mutant,
                                "epsilon": s.epsilon, "delta": s.delta,
                                **{f"{side}_{_level(v)}": 0 for side in ("in", "out") for v in LEVELS},
                                **({"players": []} if nicknames else {})})
        r[f"{'in' if ans.truth_in else 'out'}_{_level(_score(ans.says_in, ans.confidence))}"] += 1
        if nicknames:
            r["players"].append(f"{nick} {points(ans):+d}")
    frame = pd.DataFrame(list(rows.values()))
    if nicknames and len(frame):
        frame["players"] = frame["players"].map("; ".join)
    return to_safe_csv(frame)


def _answers_from_row(row: Any) -> list[Answer]:
    out = []
    for side in ("in", "out"):
        for v in LEVELS:
            out += [Answer(side == "in", v > 0, abs(v))] * int(row[f"{side}_{_level(v)}"])
    return out


def figures_from_csv(text: str) -> list[tuple[Setting, ClassScore, Any]]:
    """(setting, score, figure) for every setting in an exported CSV, pooling its rounds as the dashboard does."""
    import pandas as pd

    from .figures import dashboard_figure
    frame = pd.read_csv(io.StringIO(text))
    out = []
    keys = ["scenario", "mechanism", "mutant", "epsilon", "delta"]
    for k, g in frame.groupby(keys, sort=False):
        setting = Setting(str(k[0]), str(k[1]), bool(k[2]), float(k[3]), float(k[4]))
        sc = class_score([a for _, r in g.iterrows() for a in _answers_from_row(r)], setting.epsilon, setting.delta)
        out.append((setting, sc, dashboard_figure(setting, sc)))
    return out


def redraw_script(csv_name: str = "classroom.csv") -> str:
    """A Python script that redraws the dashboard's figure(s) from the exported CSV with dpcore."""
    return (
        '"""Redraw the classroom dashboard from its CSV export (needs dpcore: run it from the app\'s folder)."""\n'
        "from pathlib import Path\n\n"
        "from dpcore.classroom.views import figures_from_csv\n\n"
        f"text = Path({csv_name!r}).read_text(encoding='utf-8')\n"
        "for i, (setting, score, fig) in enumerate(figures_from_csv(text), start=1):\n"
        "    print(setting.describe(), '|', score.sentence)\n"
        "    fig.write_html(f'classroom_figure_{i}.html')\n")

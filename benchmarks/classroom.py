"""Classroom load at the storage layer: one teacher and N students over several processes on one database.

Each round the teacher opens it; ``--processes`` worker processes (as several server processes would) serve the
students: each student's tab draws its view (dpcore.classroom.views.student_view, what the page's 2-second
fragment does) and answers (storage.answer); meanwhile the teacher's dashboard (views.dashboard: counts, pooled
points, the class's ε lower bound) is refreshed every 0.5 s. Printed: p50/p95 of an answer's round trip (view +
answer) and of a dashboard refresh, CPU seconds per answer (all processes), and the answers in the database
against the answers sent. Not the websocket path (benchmarks/load.py drives Streamlit itself): this measures the
database and the game's logic that every page rerun calls.

Usage::

    python benchmarks/classroom.py --students 100 --rounds 5                 # SQLite in a temporary folder
    python benchmarks/classroom.py --url postgresql+psycopg://user@127.0.0.1:5432/db
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from dpcore.classroom import storage as S  # noqa: E402
from dpcore.store import open_engine  # noqa: E402
from dpcore.classroom import views as V  # noqa: E402
from dpcore.classroom.scenarios import check_setting  # noqa: E402

_ENGINE = None


def _init(url: str) -> None:
    global _ENGINE
    _ENGINE = open_engine(url)


def _student_round(args: tuple[str, str, int, float]) -> tuple[float, int]:
    code, token, rnd, jitter = args
    time.sleep(jitter)
    t0 = time.perf_counter()
    view = V.student_view(_ENGINE, code, token, now=time.time())
    sent = 0
    if view.form_round == rnd:
        first = next(txt for kind, _, txt in view.elements if kind == "metric")
        S.answer(_ENGINE, code, token, rnd, hash(first) % 2 == 0, random.choice([None, 1, 2, 3]), now=time.time())
        sent = 1
    return time.perf_counter() - t0, sent


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--url", default="")
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="dpx-classroom-bench-")
    url = a.url or f"sqlite:///{Path(folder) / 'dpx.sqlite3'}"
    engine = open_engine(url)
    nc = S.create_class(engine, check_setting("mean", "noise/laplace", False, 1.0), a.rounds, now=time.time())
    kids = [S.join(engine, nc.join_code, f"student {i}", now=time.time()) for i in range(a.students)]
    answer_s, dash_s, sent = [], [], 0
    cpu0 = os.times()
    ctx = mp.get_context("spawn")
    with ctx.Pool(a.processes, initializer=_init, initargs=(url,)) as pool:
        for rnd in range(1, a.rounds + 1):
            S.open_round(engine, nc.teacher_key, now=time.time())
            done = threading.Event()

            def dashboard(done: threading.Event = done) -> None:
                while not done.is_set():
                    t0 = time.perf_counter()
                    V.dashboard(engine, nc.teacher_key, now=time.time())
                    dash_s.append(time.perf_counter() - t0)
                    done.wait(0.5)
            th = threading.Thread(target=dashboard)
            th.start()
            jobs = [(k.join_code, k.token, rnd, random.uniform(0, 1.0)) for k in kids]
            for dt, n in pool.imap_unordered(_student_round, jobs, chunksize=1):
                answer_s.append(dt)
                sent += n
            done.set()
            th.join()
            S.close_round(engine, nc.teacher_key, now=time.time())
            S.reveal_round(engine, nc.teacher_key, now=time.time())
    cpu1 = os.times()
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system) + (cpu1.children_user - cpu0.children_user) + \
        (cpu1.children_system - cpu0.children_system)
    with engine.connect() as conn:
        stored = conn.execute(sa.select(sa.func.count()).select_from(S.answers)).scalar_one()
    d = V.dashboard(engine, nc.teacher_key, now=time.time())
    print(f"backend {engine.dialect.name}, {a.students} students, {a.rounds} rounds, {a.processes} processes")
    print(f"answer round trip (view + answer): p50 {statistics.median(answer_s) * 1e3:.0f} ms, "
          f"p95 {_pct(answer_s, 0.95) * 1e3:.0f} ms over {len(answer_s)}")
    print(f"dashboard refresh: p50 {statistics.median(dash_s) * 1e3:.0f} ms, p95 {_pct(dash_s, 0.95) * 1e3:.0f} ms "
          f"over {len(dash_s)}")
    print(f"CPU per answer (all processes): {cpu / max(sent, 1) * 1e3:.1f} ms")
    print(f"answers sent {sent}, in the database {stored}, lost {sent - stored}")
    print(f"class: {d.score.sentence}")
    S.delete_class(engine, nc.teacher_key, now=time.time())
    sys.exit(0 if stored == sent == a.students * a.rounds else 1)


if __name__ == "__main__":
    main()

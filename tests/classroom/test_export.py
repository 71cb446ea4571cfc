"""The CSV export (pooled counts; nicknames only if asked; CSV-injection safe) and the script that redraws the
dashboard's figure from it with dpcore (run in a subprocess)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from dpcore.classroom import storage as S
from dpcore.classroom import views as V
from dpcore.classroom.scenarios import check_setting
from dpcore.store import open_engine

ROOT = Path(__file__).resolve().parents[2]


def _played(tmp_path):
    e = open_engine(f"sqlite:///{tmp_path / 'dpx.sqlite3'}")
    nc = S.create_class(e, check_setting("mean", "noise/laplace", False, 1.0), 5, now=0.0)
    st = [S.join(e, nc.join_code, nick, now=0.0) for nick in ("=HYPERLINK(1)", "Bo", "Cy", "Di", "Ed", "Fi")]
    t = 1.0
    for rnd in (1, 2):
        if rnd == 2:
            S.change_setting(e, nc.teacher_key, check_setting("mean", "noise/laplace", True, 1.0), now=t)
        S.open_round(e, nc.teacher_key, now=t)
        for i, s in enumerate(st):
            S.answer(e, s.join_code, s.token, rnd, i % 2 == 0, (i % 3) + 1, now=t + 1)
        S.close_round(e, nc.teacher_key, now=t + 2)
        S.reveal_round(e, nc.teacher_key, now=t + 3)
        t += 10
    return e, nc


def test_export_has_pooled_counts_and_nicknames_only_if_asked(tmp_path):
    e, nc = _played(tmp_path)
    plain = V.export_csv(e, nc.teacher_key, now=30.0)
    assert "Bo" not in plain and "HYPERLINK" not in plain and "players" not in plain
    f = pd.read_csv(pd.io.common.StringIO(plain))
    assert list(f["round"]) == [1, 2] and list(f["mutant"]) == [False, True] and list(f["epsilon"]) == [1.0, 1.0]
    counts = f.filter(regex="^(in|out)_").sum(axis=1)
    assert list(counts) == [6, 6]
    named = V.export_csv(e, nc.teacher_key, now=30.0, nicknames=True)
    assert "Bo " in named and "'=HYPERLINK(1)" in named          # formula-looking cell neutralised
    e.dispose()


def test_redraw_script_reproduces_the_dashboard(tmp_path):
    e, nc = _played(tmp_path)
    (tmp_path / "classroom.csv").write_text(V.export_csv(e, nc.teacher_key, now=30.0), encoding="utf-8")
    (tmp_path / "redraw.py").write_text(V.redraw_script(), encoding="utf-8")
    d = V.dashboard(e, nc.teacher_key, now=30.0)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "redraw.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and lines[1].endswith(d.score.sentence)       # the last setting = the dashboard's
    assert (tmp_path / "classroom_figure_1.html").stat().st_size > 1000
    assert (tmp_path / "classroom_figure_2.html").exists()
    (setting, score, _fig), = [r for r in V.figures_from_csv((tmp_path / "classroom.csv").read_text())
                               if r[0] == d.figure_setting]
    assert score.points == d.score.points
    e.dispose()

"""Fingerprint every registered figure's frame at a small fixed-seed setting (to check a refactor changes no number).

Usage: ``python scripts/figure_frames.py > before.txt`` on the old tree, again on the new one, then ``diff``.
Each line: experiment id, rows, and a SHA-256 of the frame's values (floats printed with 12 significant digits).
Settings: the experiment's ``quick`` settings (the app's defaults), seed 2019, in-process (``jobs=1``).
"""
from __future__ import annotations

import hashlib
import sys

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from dpcore import registry
from dpcore.experiments import run_experiment


def fingerprint(frame) -> str:
    cols = [c for c in frame.columns if c not in ("seconds", "time", "wall_seconds")]
    text = frame[cols].to_csv(index=False, float_format="%.12g")
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main(ids=None) -> int:
    for exp_id, exp in sorted(registry.experiments().items()):
        if ids and exp_id not in ids:
            continue
        quick = dict(exp.quick)
        xs, reps = quick.pop("x", None), quick.pop("reps", 2)
        try:
            frame = run_experiment(exp_id, xs=xs, reps=reps, seed=2019, jobs=1, **quick)
        except Exception as exc:  # noqa: BLE001 - reported, the script goes on
            print(f"{exp_id}\tERROR {type(exc).__name__}: {exc}")
            continue
        print(f"{exp_id}\t{len(frame)}\t{fingerprint(frame)}", flush=True)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main(set(sys.argv[1:]) or None))

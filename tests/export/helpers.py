"""Run an exported script in a subprocess (no Streamlit) and read back its outputs; read a page's results."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

_READER = """
import pickle, runpy, sys
def plain(o):
    if hasattr(o, "releases"):
        return {k: plain(v) for k, v in o.releases.items()}
    if hasattr(o, "value") and hasattr(o, "cost"):
        return o.value
    if hasattr(o, "errors") and hasattr(o, "answers"):
        return o.errors
    return o
g = runpy.run_path(sys.argv[1], run_name="__main__")
names = sys.argv[3].split(",")
with open(sys.argv[2], "wb") as f:
    pickle.dump({n: plain(g[n]) for n in names}, f)
"""


def run_script(text: str, outputs: tuple[str, ...], tmp_path: Path, *, timeout: float = 300) -> tuple[dict, str]:
    """Write ``text`` to a file and run it in a fresh interpreter (cwd: a temporary folder, dpcore on the
    path as after ``pip install .``); returns its ``outputs`` globals — a release's value, a comparison's
    values by method, a frame — and its stdout."""
    script, out = tmp_path / "exported.py", tmp_path / "outputs.pickle"
    script.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _READER, str(script), str(out), ",".join(outputs)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "streamlit" not in done.stderr
    with open(out, "rb") as f:
        return pickle.load(f), done.stdout


def cached_results(at: Any) -> list[Any]:
    """The results the page's release session holds (what the page showed), oldest first."""
    import ui

    return list(at.session_state[ui.SESSION_KEY]._cache.values())


def exported(at: Any, name: str) -> Any:
    """The Script the page ``name`` offered for download on its last run."""
    import ui

    return at.session_state[f"{ui.EXPORT_KEY}::{name}"]


def assert_same_value(a: Any, b: Any) -> None:
    """Equal released values: arrays exactly, sparse/structured values field by field."""
    if hasattr(a, "to_dense") and hasattr(b, "to_dense"):
        np.testing.assert_array_equal(a.to_dense(), b.to_dense())
    elif hasattr(a, "__dataclass_fields__") and not isinstance(a, np.ndarray):
        for f in a.__dataclass_fields__:
            assert_same_value(getattr(a, f), getattr(b, f))
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))

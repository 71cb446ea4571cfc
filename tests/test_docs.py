"""The Python in ``docs/*.md`` is true: every ```` ```python ```` block runs, in order, one namespace per file.

Convention: a block fenced ```` ```python no-run ```` is shown but not run (it needs a running Streamlit
session, e.g. the page pattern in docs/pages.md); it must still compile. Other languages are not read.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.S | re.M)


def blocks(path: Path) -> list[tuple[str, int, str]]:
    """(info string, first line number, code) of every fenced block of ``path``."""
    text = path.read_text(encoding="utf-8")
    return [(m["info"].strip(), text.count("\n", 0, m.start()) + 2, m["body"]) for m in FENCE.finditer(text)]


PAGES = sorted(DOCS.glob("*.md"))


def test_docs_have_python_that_runs():
    runnable = [p.name for p in PAGES for info, _, _ in blocks(p) if info == "python"]
    assert {"figures.md", "pages.md"} <= set(runnable)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_python_blocks(path):
    namespace: dict = {"__name__": f"docs.{path.stem}"}
    for info, line, code in blocks(path):
        words = info.split()
        if not words or words[0] != "python":
            continue
        compiled = compile("\n" * (line - 1) + code, str(path), "exec")   # tracebacks give the .md line
        if words[1:] == ["no-run"]:
            continue
        assert words == ["python"], f"{path.name}:{line}: unknown fence info {info!r} (use python or python no-run)"
        exec(compiled, namespace)

"""The documentation is true: every ```` ```python ```` block of the site runs, and the site's frame holds.

Every Markdown file under ``docs/`` (recursively: the MkDocs site's sources, ``mkdocs.yml``) is read; its
```` ```python ```` blocks run, in order, one namespace per file. Convention: a block fenced
```` ```python no-run ```` is shown but not run (it needs a running Streamlit session, e.g. the page pattern in
docs/pages.md); it must still compile (the site renders it through ``scripts/mkdocs_site.py``). Other
languages are not read. The site itself is built with ``mkdocs build --strict`` in ``.ci/run``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.S | re.M)
INSTALL_RUN = "pip install -r requirements.txt && streamlit run app.py"
INSTALL_TEST = "pip install -r requirements-dev.txt && python -m pytest"


def blocks(path: Path) -> list[tuple[str, int, str]]:
    """(info string, first line number, code) of every fenced block of ``path``."""
    text = path.read_text(encoding="utf-8")
    return [(m["info"].strip(), text.count("\n", 0, m.start()) + 2, m["body"]) for m in FENCE.finditer(text)]


PAGES = sorted(DOCS.rglob("*.md"))


def _name(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


def test_docs_have_python_that_runs():
    runnable = {_name(p) for p in PAGES for info, _, _ in blocks(p) if info == "python"}
    assert {"figures.md", "pages.md", "getting-started.md", "privacy.md", "guides/audit.md"} <= runnable


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_python_blocks(path):
    namespace: dict = {"__name__": f"docs.{_name(path)[:-3].replace('/', '.')}"}
    for info, line, code in blocks(path):
        words = info.split()
        if not words or words[0] != "python":
            continue
        compiled = compile("\n" * (line - 1) + code, str(path), "exec")   # tracebacks give the .md line
        if words[1:] == ["no-run"]:
            continue
        assert words == ["python"], f"{_name(path)}:{line}: unknown fence info {info!r} (use python or python no-run)"
        exec(compiled, namespace)


def _nav_files(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [f for v in node.values() for f in _nav_files(v)]
    return [f for v in node for f in _nav_files(v)]


def test_every_page_is_in_the_site_navigation_and_every_entry_exists():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_files(config["nav"])
    assert sorted(nav) == sorted(_name(p) for p in PAGES)
    assert config["strict"] is True and config["theme"]["font"] is False   # strict; no web font fetched
    assert config["site_dir"] == "site" and "site/" in (ROOT / ".gitignore").read_text().split()


def test_api_reference_has_a_page_per_public_subpackage():
    packages = sorted(p.parent.name for p in (ROOT / "dpcore").glob("*/__init__.py") if not p.parent.name.startswith("_"))
    for name in packages:
        page = DOCS / "api" / f"{name}.md"
        assert page.is_file(), f"no API page for dpcore.{name}: add docs/api/{name}.md and its nav entry"
        assert f"::: dpcore.{name}\n" in page.read_text(encoding="utf-8")


def test_readme_is_short_and_keeps_the_two_commands_the_caveat_and_the_docs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 10_000
    assert INSTALL_RUN in text and INSTALL_TEST in text
    assert "not hardened for production releases" in text and "Do not use it to publish statistics" in text
    assert "mkdocs serve" in text and "Licence" in text
    shots = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", text)
    assert shots and all((ROOT / s).is_file() and (ROOT / s).stat().st_size < 300_000 for s in shots)


def test_site_helpers_render_no_run_fences_doctests_and_roles():
    site = pytest.importorskip("scripts.mkdocs_site", reason="griffe (mkdocstrings-python) not installed")
    assert site.on_page_markdown("a\n```python no-run\nx\n```\n") == "a\n```python {.no-run}\nx\n```\n"
    assert site.fence_doctests("Intro.\n\n>>> 1 + 1\n2\n\nAfter.") == "Intro.\n\n```pycon\n>>> 1 + 1\n2\n```\n\nAfter."
    examples = "Examples\n--------\n>>> 1 + 1\n2"
    assert site.fence_doctests(examples) == examples                 # griffe's numpy parser reads these
    assert site.ROLE.sub(site._role, ":func:`release_for(config) <release_for>` and :class:`~a.B`") == \
        "`release_for(config)` and `a.B`"

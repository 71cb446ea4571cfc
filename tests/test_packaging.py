"""dpcore installs as a library: pyproject declares every third-party import of dpcore (and not Streamlit),
finds only the dpcore packages, ships py.typed, and a wheel built from the tree holds exactly that."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: Import name -> distribution name where they differ.
DISTRIBUTION = {"sklearn": "scikit-learn", "dp_accounting": "dp-accounting"}


def _third_party_imports(*, lazy: bool) -> dict[str, str]:
    """Top-level module of every absolute import in dpcore that is neither stdlib nor dpcore -> first file.

    ``lazy=False``: imports at module level (run by ``import dpcore.x``); ``lazy=True``: the others
    (inside a function: run only by the feature that needs them)."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "dpcore").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if (id(node) in top) == lazy:
                continue
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                module = name.split(".")[0]
                if module != "dpcore" and module not in sys.stdlib_module_names:
                    found.setdefault(module, str(path.relative_to(ROOT)))
    return found


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower() for d in requirements}


def _declared() -> set[str]:
    return _names(PYPROJECT["project"]["dependencies"])


def _extras() -> set[str]:
    return {n for reqs in PYPROJECT["project"]["optional-dependencies"].values() for n in _names(reqs)}


def _dist(module: str) -> str:
    return DISTRIBUTION.get(module, module).lower()


def test_every_third_party_import_of_dpcore_is_declared():
    eager, lazy = _third_party_imports(lazy=False), _third_party_imports(lazy=True)
    assert {"numpy", "scipy", "pandas"} <= set(eager)           # the scan sees imports at all
    missing = {f"{_dist(m)} (imported in {f})" for m, f in eager.items() if _dist(m) not in _declared()}
    assert not missing, f"add to [project] dependencies in pyproject.toml: {sorted(missing)}"
    optional = {f"{_dist(m)} (imported in {f})" for m, f in lazy.items()
                if _dist(m) not in _declared() | _extras()}
    assert not optional, f"add to [project.optional-dependencies] in pyproject.toml: {sorted(optional)}"
    unused = _declared() - {_dist(m) for m in {**eager, **lazy}}
    assert not unused, f"declared but never imported by dpcore: {sorted(unused)}"


def test_streamlit_is_not_a_library_dependency():
    assert "streamlit" not in _declared()
    assert "streamlit" not in {**_third_party_imports(lazy=False), **_third_party_imports(lazy=True)}


def test_only_dpcore_is_packaged_with_py_typed():
    setuptools_cfg = PYPROJECT["tool"]["setuptools"]
    assert setuptools_cfg["packages"]["find"]["include"] == ["dpcore", "dpcore.*"]
    assert "py.typed" in setuptools_cfg["package-data"]["dpcore"]
    assert (ROOT / "dpcore" / "py.typed").is_file()


def test_wheel_holds_dpcore_and_its_requirements(tmp_path):
    pytest.importorskip("setuptools.build_meta")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "dpcore", src / "dpcore", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "dist"
    code = f"import setuptools.build_meta as b; print(b.build_wheel({str(out)!r}))"
    run = subprocess.run([sys.executable, "-c", code], cwd=src, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    wheel = out / run.stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"dpcore"}, tops
    sources = {str(p.relative_to(ROOT)).replace("\\", "/") for p in (ROOT / "dpcore").rglob("*.py")}
    assert sources <= set(names), sorted(sources - set(names))[:5]
    assert "dpcore/py.typed" in names
    requires = {re.split(r"[<>=!~\[; ]", line[len("Requires-Dist: "):], maxsplit=1)[0].lower()
                for line in metadata.splitlines() if line.startswith("Requires-Dist: ") and "extra ==" not in line}
    assert requires == _declared()

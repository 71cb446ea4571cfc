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
DISTRIBUTION = {"sklearn": "scikit-learn"}


def _third_party_imports() -> dict[str, str]:
    """Top-level module of every absolute import in dpcore that is neither stdlib nor dpcore -> first file."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "dpcore").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "dpcore" and top not in sys.stdlib_module_names:
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def _declared() -> set[str]:
    return {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower() for d in PYPROJECT["project"]["dependencies"]}


def test_every_third_party_import_of_dpcore_is_declared():
    imports = _third_party_imports()
    assert {"numpy", "scipy", "pandas"} <= set(imports)       # the scan sees imports at all
    missing = {f"{DISTRIBUTION.get(m, m)} (imported in {f})" for m, f in imports.items()
               if DISTRIBUTION.get(m, m).lower() not in _declared()}
    assert not missing, f"add to [project] dependencies in pyproject.toml: {sorted(missing)}"
    unused = _declared() - {DISTRIBUTION.get(m, m).lower() for m in imports}
    assert not unused, f"declared but never imported by dpcore: {sorted(unused)}"


def test_streamlit_is_not_a_library_dependency():
    assert "streamlit" not in _declared()
    assert "streamlit" not in _third_party_imports()


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

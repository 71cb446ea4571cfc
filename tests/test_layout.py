"""Every topic follows the one layout of ``docs/architecture.md`` ("Layout of a topic"); checked on the files.

A sixth topic is written by copying one folder: these checks say what the folder must hold and where each
kind of code goes, so that a reader finds a topic's calibration, release, audits and figures in the same
place in every topic, and a page reaches all of them through public names.
"""
from __future__ import annotations

import ast
import functools
import pathlib

import pytest

import dpcore
from dpcore import registry

ROOT = pathlib.Path(dpcore.__file__).parent
PAGES = ROOT.parent / "pages"

#: The public modules of a topic: required ones, and ``figures``/``designs`` when the topic declares figures.
REQUIRED = ("__init__", "configs", "calibration", "release", "audits", "declare")
WITH_FIGURES = ("figures", "designs")
#: Public modules a topic MAY add (drawing its figures and releases); anything else must be private (``_x``).
OPTIONAL = ("plots",)
#: Longest function allowed in dpcore, and the longest module without a reason written at its top.
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400
REASON_MARK = "Why this module is long:"
#: Longest helper function allowed in a ``declare`` module (examples and neighbour pairs).
MAX_DECLARE_FUNCTION_LINES = 15

TOPICS = registry.topics()
TOPIC_NAMES = frozenset(t.name for t in TOPICS)


def _module_names(topic: str) -> set[str]:
    folder = ROOT / topic
    names = {p.stem for p in folder.glob("*.py")}
    names |= {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return names


def _defined_in(obj, topic: str, module: str) -> bool:
    obj = getattr(obj, "func", obj)  # functools.partial
    mod = getattr(obj, "__module__", "") or ""
    base = f"dpcore.{topic}.{module}"
    return mod == base or mod.startswith(base + ".")


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.name)
def test_topic_has_the_layout_modules_and_nothing_else_public(topic):
    names = _module_names(topic.name)
    required = REQUIRED + (WITH_FIGURES if topic.experiments else ())
    missing = [m for m in required if m not in names]
    assert not missing, f"dpcore/{topic.name}/ lacks {missing} (docs/architecture.md, 'Layout of a topic')"
    extra = sorted(n for n in names if not n.startswith("_") and n not in REQUIRED + WITH_FIGURES + OPTIONAL)
    assert not extra, (f"dpcore/{topic.name}/ has public modules outside the layout: {extra}; make them private "
                       f"(_name.py) or move their code into the layout's modules")


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.name)
def test_public_init_reexports_the_api(topic):
    mod = __import__(f"dpcore.{topic.name}", fromlist=["__all__"])
    public = getattr(mod, "__all__", None)
    assert public, f"dpcore/{topic.name}/__init__.py must define a non-empty __all__ (the topic's public API)"
    for name in public:
        assert hasattr(mod, name), f"dpcore.{topic.name}.__all__ names {name!r}, which it does not define"
    for spec in topic.mechanisms:
        assert spec.config.__name__ in public, \
            f"{spec.name}: its config {spec.config.__name__} is not re-exported by dpcore.{topic.name}"


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.name)
def test_each_kind_of_code_lives_in_its_module(topic):
    for spec in topic.mechanisms:
        assert _defined_in(spec.config, topic.name, "configs"), \
            f"{spec.name}: config {spec.config.__name__} is defined in {spec.config.__module__}, not in configs"
        assert spec.release.__name__ == "release" and _defined_in(spec.release, topic.name, "release"), \
            (f"{spec.name}: its release function is {spec.release.__module__}.{spec.release.__name__}; it must be "
             f"a function named `release` in dpcore.{topic.name}.release (or a submodule of that package)")
        assert spec.calibrate is not None, f"{spec.name}: MechanismSpec.calibrate is not declared"
        name = getattr(spec.calibrate, "__name__", "")
        assert (name == "calibrate" or name.startswith("calibrate_")) and \
            _defined_in(spec.calibrate, topic.name, "calibration"), \
            (f"{spec.name}: its calibrate function is {spec.calibrate.__module__}.{name}; it must be a function "
             f"named `calibrate` or `calibrate_<family>` in dpcore.{topic.name}.calibration (or a submodule)")
    for audit in topic.audits:
        assert _defined_in(audit.sampler, topic.name, "audits") or _defined_in(audit.sampler, "audit", ""), \
            f"audit {audit.id}: its sampler is defined in {audit.sampler.__module__}, not in the topic's audits"
    for exp in topic.experiments:
        assert _defined_in(exp.run_task, topic.name, "figures"), \
            f"figure {exp.id}: its run_task is defined in {exp.run_task.__module__}, not in the topic's figures"


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.name)
def test_declare_holds_declarations_only(topic):
    path = ROOT / topic.name / "declare.py"
    tree = ast.parse(path.read_text())
    for node in tree.body:
        assert not isinstance(node, ast.ClassDef), f"{path}: class {node.name} belongs in another module"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_DECLARE_FUNCTION_LINES, \
                (f"{path}:{node.lineno}: {node.name} is {length} lines; declare.py holds declarations (examples "
                 f"and pairs of at most {MAX_DECLARE_FUNCTION_LINES} lines), samplers go to audits.py")


def _imports(path: pathlib.Path) -> list[tuple[int, str]]:
    """Absolute dotted names imported by ``path`` (relative imports resolved), with their line numbers."""
    rel = path.relative_to(ROOT.parent).with_suffix("")
    package = list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out += [(node.lineno, f"{module}.{a.name}") for a in node.names]
    return out


def test_no_shared_module_imports_a_topic():
    found = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in TOPIC_NAMES or rel.name == "__main__.py":
            continue
        for line, name in _imports(path):
            parts = name.split(".")
            if len(parts) > 1 and parts[0] == "dpcore" and parts[1] in TOPIC_NAMES:
                found.append(f"dpcore/{rel}:{line} imports {name}")
    assert not found, "shared modules must not import a topic (topics declare themselves to the registry):\n" \
        + "\n".join(found)


def test_pages_import_only_public_names():
    found = []
    for path in sorted(PAGES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpcore"):
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("dpcore")]
            for name in names:
                if any(part.startswith("_") for part in name.split(".")):
                    found.append(f"pages/{path.name}:{node.lineno} imports {name}")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                base = node.value
                if isinstance(base, ast.Name) and base.id in _dpcore_aliases(path):
                    found.append(f"pages/{path.name}:{node.lineno} uses {base.id}.{node.attr}")
    assert not found, "pages use private dpcore names:\n" + "\n".join(found)


@functools.cache
def _dpcore_aliases(path: pathlib.Path) -> frozenset:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpcore"):
            out |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("dpcore")}
    return frozenset(out)


def _functions(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_function_over_80_lines_in_dpcore():
    long = [f"dpcore/{p.relative_to(ROOT)}:{f.lineno} {f.name} ({f.end_lineno - f.lineno + 1} lines)"
            for p in ROOT.rglob("*.py") for f in _functions(p) if f.end_lineno - f.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long)


def test_long_modules_say_why_at_their_top():
    unexplained = []
    for p in ROOT.rglob("*.py"):
        lines = p.read_text().splitlines()
        if len(lines) > MAX_MODULE_LINES and not any(REASON_MARK in line for line in lines[:40]):
            unexplained.append(f"dpcore/{p.relative_to(ROOT)} ({len(lines)} lines)")
    assert not unexplained, (f"modules over {MAX_MODULE_LINES} lines without '{REASON_MARK} ...' in their first 40 "
                             "lines:\n" + "\n".join(unexplained))

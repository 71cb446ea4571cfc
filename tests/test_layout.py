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


# -- The app layer: ui/ (one module per concern) and pages/ (short scripts over `ui` and dpcore's public API) --------
UI = ROOT.parent / "ui"
#: Longest module of the ui package, and longest page script (docs/architecture.md, "Layers").
MAX_UI_MODULE_LINES = 300
MAX_PAGE_LINES = 150


def _too_long(paths, limit: int) -> list[str]:
    """``path (lines)`` of each file of ``paths`` with more than ``limit`` lines."""
    out = []
    for p in paths:
        n = len(p.read_text().splitlines())
        if n > limit:
            out.append(f"{p.parent.name}/{p.name} ({n} lines)")
    return out


def _ui_graph(folder: pathlib.Path = UI) -> dict[str, set[str]]:
    """``{module: {ui modules it imports}}`` for the modules of the ui package in ``folder`` (``__init__`` left out:
    it only re-exports). ``from ui import x`` counts as importing ``ui.x`` when x is a module of the package."""
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph = {}
    for m in modules:
        deps = set()
        for node in ast.walk(ast.parse((folder / f"{m}.py").read_text())):
            if isinstance(node, ast.Import):
                deps |= {a.name.split(".")[1] for a in node.names if a.name.startswith("ui.")}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "ui":
                parts = node.module.split(".")
                deps |= {parts[1]} if len(parts) > 1 else {a.name for a in node.names if a.name in modules}
        graph[m] = deps & modules - {m}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (``[a, b, …, a]``), or [] if there is none (depth-first search)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return []


def _page_ui_problems(path: pathlib.Path, public: set[str]) -> list[str]:
    """Uses of ``ui`` in page ``path`` beyond its public names (``public``: ``ui.__all__``): a name not in it, or any
    ``_private`` part (``ui._x``, ``ui.cache._y``, ``from ui._z import …``)."""
    found = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] == "ui"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ui":
            names = [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if any(p.startswith("_") for p in parts) or (len(parts) > 1 and parts[1] not in public):
                found.append(f"{path.name}:{node.lineno} imports {name}")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ui":
            if node.attr not in public:
                found.append(f"{path.name}:{node.lineno} uses ui.{node.attr}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "ui":
                found.append(f"{path.name}:{node.lineno} uses ui.{base.attr}.{node.attr}")
    return found


def _app_layer_imports(path: pathlib.Path) -> list[str]:
    """The absolute imports of ``ui``, ``pages`` or ``app`` in the dpcore file ``path`` (``path:line name``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        found += [f"{path.name}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in ("ui", "pages", "app")]
    return found


def test_no_ui_module_over_300_lines():
    long = _too_long(sorted(UI.glob("*.py")), MAX_UI_MODULE_LINES)
    assert not long, f"ui modules over {MAX_UI_MODULE_LINES} lines (split by concern):\n" + "\n".join(long)


#: Pages still over MAX_PAGE_LINES (issue 30, not finished): each may not grow past the length recorded here, and
#: leaves this table once it is short enough (the test below fails on a stale entry). Empty when issue 30 is done.
PAGES_STILL_LONG: dict[str, int] = {}


def _page_length_problems(lengths: dict[str, int], still_long: dict[str, int]) -> list[str]:
    """Pages over :data:`MAX_PAGE_LINES` not in ``still_long``, pages of ``still_long`` longer than recorded there,
    and entries of ``still_long`` that are no longer over the limit (to be removed)."""
    out = []
    for name, n in sorted(lengths.items()):
        cap = still_long.get(name, MAX_PAGE_LINES)
        if n > cap:
            out.append(f"pages/{name}: {n} lines > {cap}")
        elif name in still_long and n <= MAX_PAGE_LINES:
            out.append(f"pages/{name}: {n} lines, no longer over {MAX_PAGE_LINES}: remove it from PAGES_STILL_LONG")
    out += [f"PAGES_STILL_LONG names {name}, which is not a page" for name in sorted(set(still_long) - set(lengths))]
    return out


def test_no_page_over_150_lines():
    lengths = {p.name: len(p.read_text().splitlines()) for p in sorted(PAGES.glob("*.py"))}
    problems = _page_length_problems(lengths, PAGES_STILL_LONG)
    assert not problems, (f"pages over {MAX_PAGE_LINES} lines: move what several pages share into ui and the topic's "
                          "logic and text into its dpcore API:\n" + "\n".join(problems))


def test_no_import_circle_in_the_ui_package():
    graph = _ui_graph()
    assert len(graph) >= 10 and any(graph.values()), graph    # the package is there and its modules import each other
    assert not _cycle(graph), "import circle among ui modules: " + " -> ".join(_cycle(graph))


def test_every_ui_module_says_what_it_owns_and_what_it_must_never_do():
    missing = [p.name for p in sorted(UI.glob("*.py")) if p.stem != "__init__"
               and "must never" not in " ".join((ast.get_docstring(ast.parse(p.read_text())) or "").split()).lower()]
    assert not missing, f"ui modules whose docstring does not say what they must never do: {missing}"


def test_pages_use_only_the_public_names_of_ui():
    import ui

    public = set(ui.__all__)
    assert public and all(hasattr(ui, n) for n in public), "ui.__all__ names what ui does not define"
    found = [f for p in sorted(PAGES.glob("*.py")) for f in _page_ui_problems(p, public)]
    assert not found, "pages use ui names outside ui.__all__ or private ones:\n" + "\n".join(found)


def test_dpcore_never_imports_the_app_layer():
    found = [f for p in sorted(ROOT.rglob("*.py")) for f in _app_layer_imports(p)]
    assert not found, "dpcore imports the app layer (ui, pages, app):\n" + "\n".join(found)


def test_the_app_layer_checks_can_fail(tmp_path):
    """Each rule above on a mutant: a long file, a circle, a page reaching into ui's privates, dpcore importing ui."""
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * (MAX_PAGE_LINES + 1))
    assert _too_long([long], MAX_PAGE_LINES) and not _too_long([long], MAX_PAGE_LINES + 1)
    assert _page_length_problems({"a.py": 151, "b.py": 150}, {}) == ["pages/a.py: 151 lines > 150"]
    assert _page_length_problems({"a.py": 160}, {"a.py": 160}) == []
    assert len(_page_length_problems({"a.py": 161, "b.py": 140}, {"a.py": 160, "b.py": 170, "c.py": 200})) == 3
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    pkg = tmp_path / "ui"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from ui import b\n")
    (pkg / "b.py").write_text("from ui.a import f\nimport ui.c\n")
    (pkg / "c.py").write_text("import numpy\n")
    assert _ui_graph(pkg) == {"a": {"b"}, "b": {"a", "c"}, "c": set()} and _cycle(_ui_graph(pkg)) == ["a", "b", "a"]
    page = tmp_path / "page.py"
    page.write_text("import ui\nfrom ui import _helpers\nfrom ui.cache import _stream\nui.plot(1)\nui.secret()\n"
                    "ui.cache._live(None)\nfrom ui.links import PAGES\n")
    assert [f.split(" ", 1)[1] for f in _page_ui_problems(page, {"plot", "cache", "links"})] == [
        "imports ui._helpers", "imports ui.cache._stream", "uses ui.secret", "uses ui.cache._live"]
    core = tmp_path / "core.py"                   # a dpcore module importing the app layer
    core.write_text("import numpy\nimport ui\nfrom pages import data\nfrom . import uirules\n")
    assert [f.split(" ", 1)[1] for f in _app_layer_imports(core)] == ["imports ui", "imports pages"]

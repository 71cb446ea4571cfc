"""Python source from live objects: the config dataclasses, dpcore functions and plain values a page uses.

A :class:`Script` is a list of :class:`Section` s (a heading and its steps); a step is a :class:`Call`
(``target = function(args)``, the function a real dpcore object, imported by its public module) or
:class:`Code` (a line of plain Python, e.g. ``print(...)``). Rendering never re-states a mechanism: it
writes the call the page made with the objects the page made it with. Every dataclass argument is
rendered as its constructor call with every field (defaults included: the script states the exact
configuration, whatever later versions default to) and checked on the spot: the rendered text, evaluated, must give an
object equal to the original (:class:`ExportError` otherwise), so an exported config cannot silently
differ from the page's. Layout follows black's rules (one call per line when it fits in
:data:`WIDTH` columns, else one argument per line with a trailing comma; double-quoted strings), so
``ruff check`` and ``ruff format --check`` accept the output.
"""
from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Ref", "Call", "Assign", "Code", "Section", "Script", "ExportError", "literal", "WIDTH", "HOW_TO_RUN"]

#: How to run an exported script or notebook: the first lines of each (issue 32, item 4). The app's install
#: (``pip install -r requirements.txt``) installs dpcore itself (its ``-e .`` line), so the file runs from any folder.
HOW_TO_RUN = ("How to run: in the Python environment where the app was installed (`pip install -r requirements.txt` "
              "in the app's folder installs dpcore too; `pip install .` there installs dpcore alone), run "
              "`python this_file.py` from any folder, or open the notebook in Jupyter in that environment and run its "
              "cells in order. Streamlit is not needed.")

#: Line width of the generated code (black's default is 88).
WIDTH = 88
_INDENT = "    "


class ExportError(ValueError):
    """An object cannot be written as Python source that recreates it."""


@dataclass(frozen=True)
class Ref:
    """A variable defined by an earlier step (rendered as its name)."""

    name: str


@dataclass(frozen=True)
class Call:
    """``target = func(*args, **kwargs)``; ``func`` is a real function or class, imported publicly (or a
    method of an earlier variable given as text, e.g. ``"ds.with_bounds"``)."""

    target: str | None
    func: Callable[..., Any] | str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    comment: str = ""


@dataclass(frozen=True)
class Assign:
    """``target = value`` (a config dataclass, a tuple of rules, a number …), written as its constructor."""

    target: str
    value: Any
    comment: str = ""


@dataclass(frozen=True)
class Code:
    """Plain lines of Python (e.g. printing the result); ``imports``: the import lines they need."""

    text: str
    imports: tuple[str, ...] = ()
    comment: str = ""


@dataclass(frozen=True)
class Section:
    """A heading (a Markdown cell in the notebook, a comment block in the script) and its steps."""

    heading: str
    text: str = ""
    steps: tuple = ()


@dataclass(frozen=True)
class Script:
    """What a page did, as code: a title, a paragraph, sections."""

    title: str
    intro: str
    sections: tuple[Section, ...]
    #: the variables holding what the page showed (names of the script's globals), for readers and tests
    outputs: tuple[str, ...] = ()

    def imports(self) -> list[str]:
        """The import lines of every step (``numpy`` first, then dpcore modules, sorted)."""
        ctx = _Context()
        for sec in self.sections:
            for step in sec.steps:
                _render_step(step, ctx)
        return ctx.import_lines()

    def to_python(self) -> str:
        """The script: a module docstring, the imports, each section under a comment heading."""
        ctx = _Context()
        bodies = [(sec, [_render_step(s, ctx) for s in sec.steps]) for sec in self.sections]
        out = ['"""' + _docstring(self.title, f"{HOW_TO_RUN}\n\n{self.intro}") + '"""', "", *ctx.import_lines()]
        for sec, lines in bodies:
            out.append("")
            out.append(f"# {sec.heading}")
            out.extend(_comment_block(sec.text))
            out.extend(lines)
        return "\n".join(out).rstrip() + "\n"

    def to_notebook(self) -> str:
        """The same as a Jupyter notebook (nbformat 4, JSON): a Markdown cell per heading, a code cell per section."""
        import nbformat

        ctx = _Context()
        bodies = [(sec, [_render_step(s, ctx) for s in sec.steps]) for sec in self.sections]
        nb = nbformat.v4.new_notebook()
        cells = [nbformat.v4.new_markdown_cell(f"# {self.title}\n\n{HOW_TO_RUN}\n\n{self.intro}"),
                 nbformat.v4.new_code_cell("\n".join(ctx.import_lines()))]
        for sec, lines in bodies:
            cells.append(nbformat.v4.new_markdown_cell(f"## {sec.heading}" + (f"\n\n{sec.text}" if sec.text else "")))
            cells.append(nbformat.v4.new_code_cell("\n".join(lines).strip()))
        nb.cells = cells
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.validate(nb)
        return str(nbformat.writes(nb))


# -- rendering --------------------------------------------------------------------------------------
class _Context:
    """The imports a rendering needs: module path → alias."""

    def __init__(self) -> None:
        self.modules: dict[str, str] = {}
        self.extra: set[str] = set()

    def alias(self, module: str) -> str:
        if module in self.modules:
            return self.modules[module]
        parts = module.split(".")
        alias = parts[-1]
        taken = set(self.modules.values())
        if alias in taken or alias in ("np", "json"):
            alias = "_".join(parts[1:]) if len(parts) > 1 else alias + "_"
        self.modules[module] = alias
        return alias

    def import_lines(self) -> list[str]:
        """isort's layout as ruff sees it from the app's folder (dpcore first-party): the standard library,
        ``import numpy``/``pandas``, then the ``from dpcore…`` lines (names of one module merged), blocks
        separated by a blank line."""
        std = sorted(s for s in self.extra if s.split()[1].split(".")[0] in ("json", "math"))
        plain = sorted(s for s in self.extra if s not in std and s.startswith("import "))
        froms: dict[str, list[str]] = {}
        for module, alias in self.modules.items():
            head, _, last = module.rpartition(".")
            froms.setdefault(head, []).append(last + (f" as {alias}" if alias != last else ""))
        dp = [f"from {head} import {', '.join(sorted(names))}" for head, names in sorted(froms.items())]
        return _join_blocks(std, plain, dp)


def _join_blocks(*blocks: list[str]) -> list[str]:
    out: list[str] = []
    for b in blocks:
        if b:
            out += ([""] if out else []) + b
    return out


def public_module(obj: Any) -> str:
    """The shortest public module path from which ``obj`` (a function or class of dpcore) is importable."""
    name = getattr(obj, "__name__", None)
    module = getattr(obj, "__module__", None)
    if not name or not module:
        raise ExportError(f"{obj!r} has no importable name.")
    parts = module.split(".")
    for i in range(2, len(parts) + 1):
        cand = ".".join(parts[:i])
        if any(p.startswith("_") for p in parts[1:i]):
            break
        try:
            if getattr(importlib.import_module(cand), name, None) is obj:
                return cand
        except ImportError:  # pragma: no cover - a module path of a live object imports
            continue
    if getattr(importlib.import_module(module), name, None) is obj:
        return module
    raise ExportError(f"{module}.{name} is not importable by that name.")


def _reference(obj: Any, ctx: _Context) -> str:
    return f"{ctx.alias(public_module(obj))}.{obj.__name__}"


def _string(s: str) -> str:
    """A double-quoted Python literal for ``s`` (black's preferred quotes)."""
    r = repr(s)
    if r.startswith("'") and '"' not in s:
        r = '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def _atom(value: Any) -> str | None:
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(None if value is None else bool(value))
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return 'float("nan")'
        if math.isinf(v):
            return 'float("inf")' if v > 0 else '-float("inf")'
        return repr(v)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Ref):
        return value.name
    return None


class _Node:
    """An expression: ``head`` + bracketed ``items`` (None: an atom) — laid out inline or exploded."""

    def __init__(self, head: str, items: list[tuple[str, Any]] | None = None, brackets: str = "()",
                 single_tuple: bool = False):
        self.head, self.items, self.brackets, self.single_tuple = head, items, brackets, single_tuple

    def inline(self) -> str:
        if self.items is None:
            return self.head
        inner = ", ".join(prefix + node.inline() for prefix, node in self.items)
        if self.single_tuple:
            inner += ","
        return f"{self.head}{self.brackets[0]}{inner}{self.brackets[1]}"

    def lines(self, indent: int, lead: str, tail: str) -> list[str]:
        """Lines at ``indent`` levels starting with ``lead`` and followed by ``tail`` (e.g. ',')."""
        pad = _INDENT * indent
        one = pad + lead + self.inline() + tail
        if self.items is None or len(one) <= WIDTH or not self.items:
            return [one]
        out = [pad + lead + self.head + self.brackets[0]]
        for prefix, node in self.items:
            out.extend(node.lines(indent + 1, prefix, ","))
        out.append(pad + self.brackets[1] + tail)
        return out


def _node(value: Any, ctx: _Context) -> _Node:
    atom = _atom(value)
    if atom is not None:
        return _Node(atom)
    if isinstance(value, np.ndarray):
        ctx.extra.add("import numpy as np")
        if value.size > 10_000:
            raise ExportError(f"an array of {value.size} values is too large to write into a script.")
        return _Node("np.array", [("", _node(value.tolist(), ctx)), ("dtype=", _Node(_string(str(value.dtype))))])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_node(value, ctx)
    if isinstance(value, Mapping):
        return _Node("", [("", _Node(_node(k, ctx).inline() + ": " + _node(v, ctx).inline()))
                          for k, v in value.items()], "{}")
    if isinstance(value, tuple):
        return _Node("", [("", _node(v, ctx)) for v in value], "()", single_tuple=len(value) == 1)
    if isinstance(value, (list, Sequence)) and not isinstance(value, (str, bytes)):
        return _Node("", [("", _node(v, ctx)) for v in value], "[]")
    if callable(value) and hasattr(value, "__name__"):
        return _Node(_reference(value, ctx))
    raise ExportError(f"cannot write a {type(value).__name__} as Python source.")


def _dataclass_node(value: Any, ctx: _Context) -> _Node:
    cls = type(value)
    items = []
    for f in dataclasses.fields(value):
        if not f.init:
            continue
        items.append((f"{f.name}=", _node(getattr(value, f.name), ctx)))  # every field: the exact config
    node = _Node(_reference(cls, ctx), items)
    _check_round_trip(value, node.inline(), ctx)
    return node


def _check_round_trip(value: Any, text: str, ctx: _Context) -> None:
    """Evaluate ``text`` with the context's imports: it must equal ``value``."""
    env: dict[str, Any] = {"np": np}
    for module, alias in ctx.modules.items():
        env[alias] = importlib.import_module(module)
    try:
        again = eval(text, env)  # noqa: S307 - text rendered above from a dataclass, never user input
        same = again == value
        same = bool(same.all()) if isinstance(same, np.ndarray) else bool(same)
    except Exception as exc:  # noqa: BLE001 - any failure means the config cannot be exported
        raise ExportError(f"{type(value).__name__} does not round-trip through {text!r}: {exc}") from exc
    if not same:
        raise ExportError(f"{type(value).__name__} written as {text!r} gives a different object.")


def literal(value: Any) -> str:
    """``value`` as one line of Python source (imports not included), e.g. for a docstring or a test."""
    return _node(value, _Context()).inline()


def _render_step(step: Any, ctx: _Context) -> str:
    if isinstance(step, Code):
        ctx.extra.update(step.imports)
        return "\n".join([*_comment_block(step.comment), step.text])
    if isinstance(step, Assign):
        node = _node(step.value, ctx)
        return "\n".join([*_comment_block(step.comment), *node.lines(0, f"{step.target} = ", "")])
    if not isinstance(step, Call):
        raise ExportError(f"a script step must be a Call, Assign or Code; got {type(step).__name__}.")
    items = [("", _node(a, ctx)) for a in step.args] + [(f"{k}=", _node(v, ctx)) for k, v in step.kwargs.items()]
    node = _Node(step.func if isinstance(step.func, str) else _reference(step.func, ctx), items)
    lead = f"{step.target} = " if step.target else ""
    return "\n".join([*_comment_block(step.comment), *node.lines(0, lead, "")])


def _comment_block(text: str) -> list[str]:
    if not text:
        return []
    out: list[str] = []
    for para in text.split("\n"):
        words, line = para.split(), "#"
        for w in words:
            if len(line) + 1 + len(w) > WIDTH:
                out.append(line)
                line = "#"
            line += " " + w
        out.append(line)
    return out


def _docstring(title: str, intro: str) -> str:
    body = [title, ""]
    for para in intro.split("\n"):
        line = ""
        for w in para.split():
            if line and len(line) + 1 + len(w) > WIDTH:
                body.append(line)
                line = ""
            line = f"{line} {w}" if line else w
        body.append(line)
    text = "\n".join(body).rstrip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return text + "\n"


def json_line(expr: str) -> Code:
    """A step printing ``expr`` as one JSON line (numbers exactly, for a reader or a test)."""
    return Code(f"print(json.dumps({expr}))", imports=("import json",))

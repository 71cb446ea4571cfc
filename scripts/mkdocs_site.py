"""Build helpers of the documentation site (``mkdocs.yml``): an MkDocs hook and a griffe extension.

**The hook** (``hooks:``): a block fenced ```` ```python no-run ```` (shown, only compiled by
``tests/test_docs.py``) is not a fence to Python-Markdown, which would print it as a paragraph; the hook
rewrites its info string to ``python {.no-run}`` before the page is converted. The Markdown files keep the
form GitHub and the tests read.

**The extension** (mkdocstrings' ``extensions:``): dpcore's docstrings are numpydoc with reStructuredText habits that Markdown reads differently:

- a doctest (``>>>`` lines and their output) outside an ``Examples`` section would render as nested block
  quotes, and its ``["key"]`` subscripts as broken cross-references; it is fenced as a ``pycon`` block;
- Sphinx roles (:func:`name`, :class:`~dpcore.x.Y`) are written as code spans (``name``, ``Y``).

Only the rendered text changes: the docstrings in the source are untouched (``tests/test_doctests.py`` still
runs their examples), and an ``Examples`` section is left to griffe's numpy parser.
"""
from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

NO_RUN = re.compile(r"^(\s*)```python no-run[ \t]*$", re.M)
ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|data|attr|exc|obj|const|ref):`~?([^`<]+?)(?:\s*<[^>]+>)?`")
HEADING = re.compile(r"^-{3,}\s*$")


def _role(match: re.Match) -> str:
    text = match.group(1).strip()
    return f"`{text}`"


def fence_doctests(text: str) -> str:
    """``text`` with every doctest block outside an ``Examples`` section (and outside a fence) fenced as
    ``pycon``: a block is the ``>>>`` line and the lines below it up to the next blank line."""
    lines = text.split("\n")
    out: list[str] = []
    in_examples = in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and HEADING.match(lines[i + 1]) and line.strip():
            in_examples = line.strip() in ("Examples", "Example")
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_examples and not in_fence and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
                block.append(lines[i])
                i += 1
            out += [f"{indent}```pycon", *block, f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class DocstringsAsMarkdown(Extension):
    """Rewrites each docstring's text once, when griffe has loaded the object."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_role, fence_doctests(obj.docstring.value))


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """MkDocs hook: ```` ```python no-run ```` fences rendered as Python code blocks."""
    return NO_RUN.sub(r"\1```python {.no-run}", markdown)

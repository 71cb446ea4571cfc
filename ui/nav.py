"""Page discovery: app.py's page list read from a header line in each page file, without running it.

A page declares itself with one comment line among its first 20 lines::

    # nav: title="Private LASSO" icon=":material/linear_scale:" order=110 paper="https://..." topic="..."

Fields: ``title`` (menu label), ``icon`` (a Material icon), ``order`` (menu position: Home 0, Data 10,
topic pages 100+, tools 200+), ``default=true`` (the start page), and for a topic page ``paper`` (a
link to the paper) and ``topic`` (one sentence for the Home page). Files whose name starts with ``_``
are not pages. A page file without the line still appears, titled from its file name, at order 50.
No Streamlit import: Home and the tests read the same list. Must never run a page file (it reads lines).

>>> parse_header('# nav: title="Private LASSO" icon=":material/grid_on:" order=110 paper="https://x.org/1"')
{'title': 'Private LASSO', 'icon': ':material/grid_on:', 'order': '110', 'paper': 'https://x.org/1'}
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"
HEADER = re.compile(r"^#\s*nav:\s*(.*)$")
FIELD = re.compile(r'(\w+)=(?:"([^"]*)"|(\S+))')
KNOWN = {"title", "icon", "order", "default", "paper", "topic", "workspace"}
HEADER_LINES = 20


@dataclass(frozen=True)
class PageEntry:
    """One page: its path relative to the app's root (``pages/x.py``) and its header fields."""

    path: str
    title: str
    icon: str | None = None
    order: float = 50.0
    default: bool = False
    paper: str | None = None
    topic: str | None = None
    workspace: bool = True   # False (``workspace="false"``): the page uses no budget, ledger or data of the user


def parse_header(line: str) -> dict[str, str] | None:
    """The fields of a ``# nav:`` line, or None if ``line`` is not one. Unknown fields are an error."""
    m = HEADER.match(line.strip())
    if not m:
        return None
    fields = {f.group(1): f.group(2) if f.group(2) is not None else f.group(3) for f in FIELD.finditer(m.group(1))}
    unknown = set(fields) - KNOWN
    if unknown:
        raise ValueError(f"unknown nav field(s) {sorted(unknown)} in {line.strip()!r}; known: {sorted(KNOWN)}.")
    return fields


def read_entry(path: Path, root: Path) -> PageEntry:
    """The :class:`PageEntry` of one page file (its first lines only; the file is not executed)."""
    fields: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for _, line in zip(range(HEADER_LINES), fh):
            parsed = parse_header(line)
            if parsed is not None:
                fields = parsed
                break
    title = fields.get("title") or path.stem.replace("_", " ").capitalize()
    try:
        order = float(fields.get("order", 50))
    except ValueError:
        raise ValueError(f"order={fields['order']!r} in {path.name} must be a number.") from None
    return PageEntry(path=path.relative_to(root).as_posix(), title=title, icon=fields.get("icon"), order=order,
                     default=fields.get("default", "").lower() == "true", paper=fields.get("paper"),
                     topic=fields.get("topic"), workspace=fields.get("workspace", "true").lower() != "false")


def discover(pages_dir: Path = PAGES_DIR) -> list[PageEntry]:
    """Every page in ``pages_dir`` (files not starting with ``_``), by order then title; exactly one
    default (the first by order if none says ``default=true``)."""
    root = pages_dir.parent
    entries = [read_entry(p, root) for p in sorted(pages_dir.glob("*.py")) if not p.name.startswith(("_", "."))]
    entries.sort(key=lambda e: (e.order, e.title))
    defaults = [e for e in entries if e.default]
    if len(defaults) > 1:
        raise ValueError(f"more than one page says default=true: {[e.path for e in defaults]}.")
    if entries and not defaults:
        entries[0] = PageEntry(**{**entries[0].__dict__, "default": True})
    return entries


def topics(entries: list[PageEntry] | None = None) -> list[PageEntry]:
    """The topic pages (those that name a paper), in menu order."""
    return [e for e in (discover() if entries is None else entries) if e.paper]

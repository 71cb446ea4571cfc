"""Shareable links: a page's public settings as URL query parameters, and back (issue 22).

A link holds the page's *public configuration* only — the widgets' values (ε, the mechanism, n of a
simulation, …), never data, never a release, never the session token. Each page declares its linked
widgets as :class:`Param` s (its session-state key, its type and the range or choices the widget
accepts; the declarations live beside the pages, in ``ui/links.py``); :func:`encode` writes values as ``{name: [text, ...]}``, :func:`decode` reads them
back and checks every one: a parameter the page does not declare, a value of the wrong type or out
of range is a :class:`LinkProblem` naming it, and the page then opens at its defaults with that
message (all or nothing: a half-applied link would show a state nobody shared).

Column choices are not linked (they name columns of a dataset the receiver may not have), nor anything
declared about the user's data: see docs/pages.md ("Shareable links").
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Param", "LinkProblem", "RESERVED", "MAX_VALUES", "epsilon_params", "encode", "decode", "query_string"]

#: Query parameters that belong to the app, not to a page's settings (``session``: the restart token).
RESERVED = frozenset({"session"})
#: At most this many values per parameter, and this many characters per value (hostile links).
MAX_VALUES, MAX_CHARS = 64, 200

#: Log-spaced ε choices of every page's ε slider (``ui.epsilon_input``): 1-1.5-2-3-5-7 per decade from 0.01 to 10⁶
#: (issue 32: a huge ε, where a release should reach the non-private answer, is one slide away; the typed field
#: beside it takes any ε in [1e-6, 1e9]).
EPSILON_CHOICES: tuple[float, ...] = tuple(
    float(f"{m * 10.0 ** e:.6g}") for e in range(-2, 6) for m in (1, 1.5, 2, 3, 5, 7)
) + (1e6,)


class LinkProblem(ValueError):
    """A link the page cannot open as given (the message names the parameter, the value and what is allowed)."""


@dataclass(frozen=True)
class Param:
    """One linked widget.

    Attributes
    ----------
    key : str
        The widget's session-state key, also the query parameter's name.
    kind : {"float", "int", "bool", "choice", "choices", "range"}
        ``choice``: one of ``choices``; ``choices``: a list of distinct values among them; ``range``: a pair
        ``(lo, hi)`` of ``choices`` with lo not after hi (a two-handled select slider).
    choices : tuple
        The values a choice widget offers (numbers or strings).
    lo, hi : float, optional
        Inclusive range of a number.
    """

    key: str
    kind: str
    choices: tuple = ()
    lo: float | None = None
    hi: float | None = None

    def format(self, value: Any) -> list[str]:
        """The query values of ``value``."""
        if self.kind == "choices":
            return [_text(v) for v in value]
        if self.kind == "bool":
            return ["1" if value else "0"]
        if self.kind == "range":
            return [_text(value[0]), _text(value[1])]
        return [_text(value)]

    def parse(self, raw: Sequence[str]) -> Any:
        """The widget value of the query values ``raw`` (LinkProblem if invalid)."""
        raw = list(raw)
        if len(raw) > MAX_VALUES or any(len(r) > MAX_CHARS for r in raw):
            raise LinkProblem(f"the link's parameter {self.key!r} is too long.")
        if self.kind == "choices":
            vals = [self._choice(r) for r in raw if r != ""]
            if len(set(map(_text, vals))) != len(vals):
                raise LinkProblem(f"the link's parameter {self.key!r} repeats a value.")
            return vals
        if self.kind == "range":
            if len(raw) != 2:
                raise LinkProblem(f"the link gives {self.key!r} {len(raw)} values; it takes two (a range).")
            lo, hi = (self._choice(r) for r in raw)
            if self.choices.index(lo) > self.choices.index(hi):
                raise LinkProblem(f"the link's range {self.key} = {raw[0]!r} … {raw[1]!r} runs backwards.")
            return (lo, hi)
        if len(raw) != 1:
            raise LinkProblem(f"the link gives {self.key!r} {len(raw)} values; it takes one.")
        text = raw[0]
        if self.kind == "choice":
            return self._choice(text)
        if self.kind == "bool":
            if text not in ("0", "1"):
                raise LinkProblem(f"the link's {self.key} = {text!r} is not 0 or 1.")
            return text == "1"
        try:
            value: float | int = int(text) if self.kind == "int" else float(text)
        except ValueError:
            raise LinkProblem(f"the link's {self.key} = {text!r} is not a{'n integer' if self.kind == 'int' else ' number'}"
                              ".") from None
        if not math.isfinite(value) or (self.lo is not None and value < self.lo) or (
                self.hi is not None and value > self.hi):
            raise LinkProblem(f"the link's {self.key} = {text!r} is outside the allowed range "
                              f"[{_text(self.lo) if self.lo is not None else '−∞'}, "
                              f"{_text(self.hi) if self.hi is not None else '∞'}].")
        return value

    def _choice(self, text: str) -> Any:
        for c in self.choices:
            if _text(c) == text:
                return c
        shown = ", ".join(_text(c) for c in self.choices[:12]) + (", …" if len(self.choices) > 12 else "")
        raise LinkProblem(f"the link's {self.key} = {text!r} is not one of the choices ({shown}).")


def _text(v: Any) -> str:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()                              # a NumPy scalar: its Python value (repr would say np.float64(…))
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    return str(v) if not isinstance(v, float) else repr(v)


def epsilon_params(key: str) -> tuple[Param, Param]:
    """The ε slider (its log-spaced choices) and its typed twin (any ε in [1e-6, 1e9]) drawn by a page's
    ``ui.epsilon_input(key=key, typed=True)``."""
    return Param(key, "choice", EPSILON_CHOICES), Param(f"{key}_typed", "float", lo=1e-6, hi=1e9)


def encode(params: Sequence[Param], values: Mapping[str, Any]) -> dict[str, list[str]]:
    """The query parameters for the widget ``values`` of a page linking ``params`` (others, or None, left out)."""
    return {p.key: p.format(values[p.key]) for p in params if p.key in values and values[p.key] is not None}


def decode(params: Sequence[Param], query: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The widget values a link gives a page linking ``params``; raises LinkProblem naming the first parameter
    it cannot take (not linked by this page, or a value of the wrong type / out of range). Reserved parameters
    are ignored."""
    table = {p.key: p for p in params}
    out = {}
    for name, raw in query.items():
        if name in RESERVED:
            continue
        if name not in table:
            shown = name if len(name) <= 60 else name[:60] + "…"
            raise LinkProblem(f"the link names a setting {shown!r} that this page does not have.")
        out[name] = table[name].parse(raw)
    return out


def query_string(params: Mapping[str, Sequence[str]]) -> str:
    """``?a=1&b=x&b=y`` (URL-encoded; empty mapping → "")."""
    from urllib.parse import urlencode

    pairs = [(k, v) for k, vs in params.items() for v in vs]
    return "?" + urlencode(pairs) if pairs else ""

"""Shareable links: a page's public settings as URL query parameters, and back (issue 22).

A link holds the page's *public configuration* only — the widgets' values (ε, the mechanism, n of a
simulation, …), never data, never a release, never the session token. :func:`pages` declares, per page,
each linked widget as a :class:`Param` (its session-state key, its type and the range or choices the
widget accepts); :func:`encode` writes values as ``{name: [text, ...]}``, :func:`decode` reads them
back and checks every one: a parameter the page does not declare, a value of the wrong type or out
of range is a :class:`LinkProblem` naming it, and the page then opens at its defaults with that
message (all or nothing: a half-applied link would show a state nobody shared).

Column choices are not linked (they name columns of a dataset the receiver may not have), nor are
widgets drawn with an explicit default inside the page (Streamlit warns when session state also sets
them): see docs/pages.md ("Shareable links").
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["Param", "LinkProblem", "pages", "RESERVED", "MAX_VALUES", "encode", "decode", "query_string"]

#: Query parameters that belong to the app, not to a page's settings (``session``: the restart token).
RESERVED = frozenset({"session"})
#: At most this many values per parameter, and this many characters per value (hostile links).
MAX_VALUES, MAX_CHARS = 64, 200

#: Log-spaced ε choices of the ε slider (pages/_components.EPSILON_CHOICES is built the same way).
EPSILON_CHOICES: tuple[float, ...] = tuple(
    float(f"{m * 10.0 ** e:.6g}") for e in range(-2, 2) for m in (1, 1.5, 2, 3, 5, 7)
) + (100.0,)


class LinkProblem(ValueError):
    """A link the page cannot open as given (the message names the parameter, the value and what is allowed)."""


@dataclass(frozen=True)
class Param:
    """One linked widget.

    Attributes
    ----------
    key : str
        The widget's session-state key, also the query parameter's name.
    kind : {"float", "int", "bool", "choice", "choices"}
        ``choice``: one of ``choices``; ``choices``: a list of distinct values among them.
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
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    return str(v) if not isinstance(v, float) else repr(v)


def _eps(prefix: str) -> tuple[Param, Param]:
    """The ε slider (choices) and its typed twin (any ε in [1e-6, 1e9]) of ``ui.epsilon_input(typed=True)``."""
    return Param(prefix, "choice", EPSILON_CHOICES), Param(f"{prefix}_typed", "float", lo=1e-6, hi=1e9)


@functools.cache
def pages() -> Mapping[str, tuple[Param, ...]]:
    """Page (file stem) → its linked widgets; computed once per process, read-only (as the registry)."""
    from .density import METHODS as DENSITY_METHODS
    from .histograms import NOISES
    from .kng import MECHANISMS
    from .lasso import COMPOSITIONS, MAX_P, SELECTIONS
    from .query_release import LAB_METHODS
    from .single_parameter import BUDGET_SPLITS

    pages = {
        "kng": (
            Param("kng_problem", "choice", ("mean", "median", "quantile", "linear_regression", "quantile_regression")),
            Param("kng_source", "choice", ("Built-in simulation", "Dataset from the Data page")),
            Param("kng_sim_n", "choice", (10, 100, 1000, 10_000, 100_000)),
            Param("kng_sim_d", "int", lo=1, hi=20),
            Param("kng_intercept", "bool"),
            Param("kng_view", "choice", ("Teaching view (not private)", "Release")),
            Param("kng_mechs_t", "choices", MECHANISMS), Param("kng_mechs_r", "choices", MECHANISMS),
            Param("kng_norm", "choice", ("linf", "l2", "l1")),
            *_eps("kng_eps"),
            Param("kng_tau", "float", lo=0.0, hi=1.0), Param("kng_B", "float", lo=0.0, hi=1e6),
            Param("kng_constants", "choice", ("calibrated", "paper")),
            Param("kng_draws_t", "int", lo=1, hi=2000), Param("kng_draws_tq", "int", lo=1, hi=2000),
            Param("kng_draws_r", "int", lo=1, hi=2000),
            Param("kng_sweeps", "choice", (200, 500, 1000, 2000, 5000, 10_000)),
        ),
        "histograms": (
            Param("h_source", "choice", ("Synthetic sparse table", "Wine (built-in): cultivar × binned alcohol",
                                         "Dataset from the Data page")),
            *_eps("h_eps"),
            Param("h_noise", "choice", tuple(NOISES)),
            Param("h_log2p", "int", lo=8, hi=30), Param("h_q", "int", lo=1, hi=100_000),
            Param("h_n", "int", lo=1, hi=10_000_000), Param("h_p", "int", lo=0, hi=2**24),
            Param("h_reps", "int", lo=5, hi=50),
        ),
        "density": (
            Param("dn_source", "choice", ("Simulated mixture", "Wine (built-in)", "Dataset from the Data page")),
            Param("dn_n", "choice", (200, 500, 2000, 10_000, 100_000)), Param("dn_d", "choice", (1, 2)),
            Param("dn_h", "float", lo=1e-6, hi=1.0), Param("dn_grid", "int", lo=2, hi=4096),
            *_eps("dn_eps"),
            Param("dn_delta", "float", lo=1e-12, hi=0.5), Param("dn_draws", "int", lo=1, hi=100),
            Param("dn_k", "int", lo=1, hi=200),
            Param("dn_methods", "choices", tuple(DENSITY_METHODS)),
            Param("dn_methods_user", "choices", tuple(DENSITY_METHODS)),
            Param("dn_knorm_k", "int", lo=1, hi=4), Param("dn_eps_h", "float", lo=0.0, hi=10.0),
        ),
        "lasso": (
            Param("lasso_source", "choice", ("Simulated sparse regression", "Diabetes (built-in)",
                                             "Dataset from the Data page")),
            Param("lasso_n", "choice", (200, 1000, 5000, 20_000, 50_000)),
            Param("lasso_p", "int", lo=1, hi=MAX_P), Param("lasso_s", "int", lo=0, hi=50),
            *_eps("lasso_eps"),
            Param("lasso_delta", "float", lo=1e-15, hi=0.5), Param("lasso_radius", "float", lo=1e-3, hi=1e3),
            Param("lasso_steps_rule", "choice", ("Theorem 2.5", "c·(nε)^(2/3)", "set T")),
            Param("lasso_c", "float", lo=1e-4, hi=1e3), Param("lasso_T", "int", lo=1, hi=10**9),
            Param("lasso_intercept", "bool"),
            Param("lasso_sel", "choice", tuple(SELECTIONS)), Param("lasso_comp", "choice", tuple(COMPOSITIONS)),
        ),
        "eigenvalues": (
            Param("sp_source", "choice", ("Simulated robust regression", "Breast cancer (built-in, logistic)",
                                          "Diabetes (built-in, robust regression)", "Dataset from the Data page")),
            Param("sp_n", "choice", (500, 2000, 5000, 20_000, 100_000)), Param("sp_d", "int", lo=1, hi=20),
            Param("sp_geometry", "choice", ("hypercube", "l2-ball")),
            Param("sp_radius", "float", lo=1e-6, hi=1e6), Param("sp_rho", "float", lo=0.0, hi=1e6),
            *_eps("sp_eps"),
            Param("sp_delta", "float", lo=1e-12, hi=0.5),
            Param("sp_split", "choice", (*BUDGET_SPLITS, "custom")),
            Param("sp_share", "float", lo=0.1, hi=0.9),
        ),
        "query_release": (
            Param("qr_kind", "choice", ("marginals", "thresholds", "signs", "cone")),
            Param("qr_rho", "float", lo=0.001, hi=100.0), Param("qr_eps", "float", lo=0.01, hi=20.0),
            Param("qr_alpha", "float", lo=0.005, hi=1.0),
            Param("qr_methods", "choices", tuple(LAB_METHODS)),
        ),
        "audit": (
            Param("audit_id", "choice", tuple(_audit_ids())),
            Param("audit_mutant", "bool"),
        ),
    }
    return MappingProxyType(pages)


def _audit_ids() -> list[str]:
    from .registry import audits

    return list(audits())


def encode(page: str, values: Mapping[str, Any]) -> dict[str, list[str]]:
    """The query parameters of ``page`` for the widget ``values`` (keys not linked, or absent, are left out)."""
    return {p.key: p.format(values[p.key]) for p in pages()[page] if p.key in values and values[p.key] is not None}


def decode(page: str, query: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The widget values a link gives ``page``; raises LinkProblem naming the first parameter it cannot take
    (unknown to this page, or a value of the wrong type / out of range). Reserved parameters are ignored."""
    table = {p.key: p for p in pages()[page]}
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

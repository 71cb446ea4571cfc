"""How far an accuracy preview can be off, and a check of it: its spread over public designs, and "Check the
preview" — N releases on a simulated twin.

A preview simulated on a public design (:mod:`dpcore.preview`) is exact for that design only; on real tables the
error moves with how the data spread inside their bounds (issue 32 §1). :func:`over_designs` joins the laws of one
mechanism on several public designs (the user's first) into one law that carries the spread, and says "will most
likely abstain" only when every design simulated withheld every draw. :func:`check_preview` runs N releases of
the registered mechanism on a *simulated twin* — a synthetic dataset drawn afresh from the preview's own public
design — and measures their errors the way the preview does: free (no data, no budget), so a class sees the
preview's bands hold. Nothing here takes the user's data.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .preview import ErrorLaw, unavailable

__all__ = ["over_designs", "spread_text", "spread_range"]


def spread_text(law: ErrorLaw) -> str:
    """How far the preview moves over its public designs (empty without a spread)."""
    if len(law.spread) < 2:
        return ""
    lo50, hi50, hi90, wmin, wmax = spread_range(law)
    text = (f"; over {len(law.spread)} public designs ({'; '.join(m for m, _ in law.spread)}) the "
            f"median error is {lo50:.3g} to {hi50:.3g}, the 90 % error at most {hi90:.3g}")
    return text + (f", withheld (⊥) with probability {wmin:.2g} to {wmax:.2g}" if wmax > 0 else "")


def spread_range(law: ErrorLaw) -> tuple[float, float, float, float, float]:
    """(min, max of the median error; max of the 90 % error; min, max of P(⊥)) over the spread's designs
    (a design whose every draw was withheld counts as P(⊥) = 1 and adds no error)."""
    ok = [w for _, w in law.spread if w.available]
    iv = [w.intervals() for w in ok] or [law.intervals()]
    pw = [w.p_withheld if w.available else 1.0 for _, w in law.spread] or [law.p_withheld]
    return (min(v[0.5] for v in iv), max(v[0.5] for v in iv), max(v[0.9] for v in iv), min(pw), max(pw))


def over_designs(named: Any) -> ErrorLaw:
    """One law with its spread over public designs: ``named`` = ``[(design, law), …]``, the user's design
    first. The law shown is the first design's; when every draw on it was withheld but another design released,
    the first design that released is shown (named) — "will most likely abstain" is said only when it held on
    every design simulated (issue 32 §1)."""
    named = tuple(named)
    ok = [(m, w) for m, w in named if w.available]
    if not ok:
        withheld = all("withheld its output (⊥)" in w.reason for _, w in named)
        first = named[0][1]
        if withheld and len(named) > 1:
            return unavailable(first.method, first.label, f"it withheld its output (⊥) in every simulated release on "
                                                          f"every one of {len(named)} public designs in the box "
                                                          f"({'; '.join(m for m, _ in named)}): at these settings "
                                                          "it will most likely abstain")
        return dataclasses.replace(first, spread=named)
    m0, law = ok[0]
    if m0 != named[0][0]:
        law = dataclasses.replace(law, basis=f"every draw on the design '{named[0][0]}' was withheld (⊥); shown: "
                                             f"{law.basis}")
    return dataclasses.replace(law, spread=named)
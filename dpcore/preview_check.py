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

from scipy import stats

from ._validation import check_int
from .errors import DPValueError
from .preview import ErrorLaw, preview, unavailable

__all__ = ["over_designs", "spread_text", "spread_range", "PreviewCheck", "check_preview", "CHECK_REPS", "MAX_CHECK_REPS",
           "has_twin"]

#: Releases a "Check the preview" click runs by default on the simulated twin, and the most it may ask for.
CHECK_REPS, MAX_CHECK_REPS = 20, 200
#: The topics whose previews have a simulated twin: ``{topic: module with twin_errors}``.
_TWINS = {"kng": "dpcore.kng._preview", "histograms": "dpcore.histograms._preview"}


@dataclass(frozen=True, eq=False)
class PreviewCheck:
    """N releases of a mechanism on a simulated twin against its preview's bands.

    Attributes
    ----------
    label : str
        The mechanism's label (as in its preview).
    errors : ndarray
        The released draws' errors, sorted, in the preview's measure.
    reps, withheld : int
        Releases run on the twin, and how many of them withheld their output (⊥).
    q50, q90 : float
        The preview's 50 % and 90 % errors on the same public design (NaN when it has none).
    twin : str
        What the twin is (which public design it was drawn from, and its seed).
    """

    label: str
    errors: np.ndarray
    reps: int
    withheld: int
    q50: float
    q90: float
    twin: str

    def within(self, level: float) -> float:
        """Share of the released draws whose error is at most the preview's ``level`` quantile."""
        q = self.q50 if level == 0.5 else self.q90
        return float(np.mean(self.errors <= q)) if len(self.errors) else float("nan")

    def chance_range(self, level: float) -> tuple[int, int]:
        """The counts within the ``level`` band that a correct preview gives 95 % of the time (Binomial(m, level),
        m the released draws): the check fails visibly only outside it."""
        m = len(self.errors)
        return int(stats.binom.ppf(0.025, m, level)), int(stats.binom.ppf(0.975, m, level))

    def describe(self) -> str:
        if not len(self.errors):
            return f"{self.label}: all {self.reps} releases on the twin withheld their output (⊥) ({self.twin})."
        m, parts = len(self.errors), []
        for lv in (0.5, 0.9):
            lo, hi = self.chance_range(lv)
            parts.append(f"{round(self.within(lv) * m)} of {m} within the preview's {lv * 100:.0f} % error "
                         f"(a correct preview gives {lo} to {hi} of {m}, 95 % of the time)")
        wh = f"; {self.withheld} of {self.reps} withheld (⊥)" if self.withheld else ""
        return (f"{self.label}: {self.reps} releases on a simulated twin ({self.twin}): median error "
                f"{float(np.median(self.errors)):.3g} (preview: {self.q50:.3g}); " + "; ".join(parts) + wh + ".")


def has_twin(name: str) -> bool:
    """Whether the mechanism ``name``'s preview can be checked on a simulated twin."""
    return name.split("/", 1)[0] in _TWINS


def check_preview(name: str, config: Any, *, n: int, d: int = 1, reps: int = CHECK_REPS, rng: Any,
                  label: str = "", law: ErrorLaw | None = None, **shape: Any) -> PreviewCheck:
    """Run ``reps`` releases of the registered mechanism ``name`` on a simulated twin — a synthetic dataset
    drawn with ``rng`` from the preview's own public design (never the user's data; free: no budget) — and
    compare their errors with the preview's bands (:func:`dpcore.preview.preview` at the same public inputs).

    Parameters
    ----------
    name, config, n, d, **shape
        As for :func:`dpcore.preview.preview` (public inputs only: the design's settings in ``shape``).
    reps : int
        Releases on the twin (1 to :data:`MAX_CHECK_REPS`).
    law : ErrorLaw, optional
        The preview already computed at these inputs (the page's), else computed here.
    rng : seed or Generator
        The twin's and the releases' randomness (a fresh seed per click gives a fresh twin).
    """
    import importlib

    reps = check_int(reps, "reps", lo=1, hi=MAX_CHECK_REPS)
    if not has_twin(name):
        raise DPValueError(f"the preview of {name!r} has no simulated twin; previews of "
                           f"{', '.join(sorted(_TWINS))} mechanisms do.")
    if law is None:
        law = preview(name, config, n=n, d=d, label=label or None, **shape)
    module = importlib.import_module(_TWINS[name.split("/", 1)[0]])
    errors, withheld, twin = module.twin_errors(name, config, n=n, d=d, reps=reps, rng=rng, **shape)
    iv = law.intervals() if law.available else {0.5: float("nan"), 0.9: float("nan")}
    return PreviewCheck(label or law.label, np.sort(np.asarray(errors, float)), reps, int(withheld), iv[0.5], iv[0.9],
                        twin)


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

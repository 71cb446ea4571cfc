"""The stories a class plays, each built on a DECLARED audit of the registry, and the best adversary's ROC.

A :class:`Scenario` is a sentence a class understands ("Is Alice in the salary survey?") over the neighbouring
pair (D, D′) of one or more declared audits (:func:`dpcore.registry.audits`): the target is *in* under
``datasets[in_index]`` and *out* under the other. A release is one draw of the audit's vectorised sampler
(``sampler(data, 1, rng, epsilon=…, delta=…, override=…)``; ``override`` the audit's mutant when the teacher
switched to it), shown to students after a fixed affine map ``offset + factor · x`` per coordinate with public
constants (other respondents' demo data): post-processing, so the map changes no privacy guarantee and no
adversary's error rates. Values are rounded only for display.

The best adversary (:func:`best_roc`): for the Laplace and Gaussian location pairs (noise/laplace,
noise/gaussian: one number, f(D) and f(D′) one sensitivity apart) the likelihood ratio is monotone in the
output, so the threshold tests are the Neyman–Pearson tests and the ROC is exact in closed form:
TPR(α) = S_in(S_out⁻¹(α)) with S the survival function of Laplace(μ, b) or N(μ, σ²) at the calibration's
scale (the mutant's when it plays). Otherwise: the threshold test on a 1-D statistic, estimated from
:data:`ROC_DRAWS` draws of each side at a fixed public seed — the best test when the statistic is monotone
in the likelihood ratio (the median's θ; the histogram's Σ_i |x_i − c′_i| − |x_i − c_i|), a strong but
not proven-best adversary on any other audit's projection. The label of the curve says which.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from ..errors import DPValueError

__all__ = ["Scenario", "Setting", "Roc", "scenarios", "scenario", "check_setting", "draw_release", "display_release",
           "ROC_DRAWS", "MAX_EPSILON", "MAX_DELTA", "GENERIC"]

#: Draws of each side behind an estimated ROC.
ROC_DRAWS = 100_000
#: Largest ε and δ a teacher may choose.
MAX_EPSILON = 10.0
MAX_DELTA = 0.2
#: Key of the scenario "any declared audit's pair".
GENERIC = "audit"
#: Closed-form location families: audit id → noise law of its one-number output.
_LOCATION = {"noise/laplace": "laplace", "noise/gaussian": "gaussian"}
#: Audits a generic class may play: at most this many seconds per sample (the estimated ROC draws 2 × 10⁵).
_MAX_SECONDS_PER_SAMPLE = 2.5e-5
#: Audits whose sampler ignores ε (a fixed ρ-zCDP claim): the teacher's ε would not act on them.
_FIXED_BUDGET = frozenset({"noise/gaussian-zcdp"})


@dataclass(frozen=True)
class Scenario:
    """A story over the neighbouring pair of declared audits (see the module docstring).

    Attributes
    ----------
    key, title, story : str
        Identifier, plain-words title, and the paragraph students read.
    audits : tuple of str
        Declared audit ids whose pair the story describes (the teacher picks the mechanism among them).
    in_index : int
        0 if the target is in under D (``datasets[0]``), 1 if under D′.
    quantity, unit : str
        What a release is ("mean salary") and its unit.
    offset, factor : tuple of float
        Public affine map of each coordinate: shown = offset + factor · x (one entry is broadcast).
    decimals : int or None
        Decimals shown (None: 4 significant digits).
    labels : tuple of str
        Name of each coordinate (empty for one number).
    statistic : callable, optional
        ``statistic(outputs) -> (n,)`` whose large values point to "in" for the estimated ROC; None: the
        audit's projection (or first coordinate), oriented by the data.
    statistic_is_best : bool
        True when the statistic is monotone in the likelihood ratio (its threshold tests are the best).
    """

    key: str
    title: str
    story: str
    audits: tuple[str, ...]
    in_index: int
    quantity: str
    unit: str = ""
    offset: tuple[float, ...] = (0.0,)
    factor: tuple[float, ...] = (1.0,)
    decimals: Optional[int] = None
    labels: tuple[str, ...] = ()
    statistic: Optional[Callable[[np.ndarray], np.ndarray]] = None
    statistic_is_best: bool = False


@dataclass(frozen=True)
class Setting:
    """What one round plays: scenario, audit (mechanism), calibrated or its mutant, and the claim (ε, δ)."""

    scenario: str
    audit_id: str
    mutant: bool
    epsilon: float
    delta: float = 0.0

    @property
    def audit(self) -> Any:
        from .. import registry
        return registry.audits()[self.audit_id]

    def describe(self) -> str:
        a = self.audit
        mech = f"{a.title} — BROKEN: {a.mutant.name}" if self.mutant else a.title
        return f"{mech}; ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")


@dataclass(frozen=True)
class Roc:
    """An adversary's ROC: false- and true-positive rates of "in" and what the curve is."""

    fpr: np.ndarray
    tpr: np.ndarray
    label: str
    exact: bool


def _hist_llr(d_in: np.ndarray, d_out: np.ndarray, p: int) -> Callable[[np.ndarray], np.ndarray]:
    c_in, c_out = np.bincount(d_in, minlength=p), np.bincount(d_out, minlength=p)

    def stat(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, float).reshape(len(x), -1)
        # b · (log p_in − log p_out) of independent Laplace/geometric cells: monotone in the ratio for any b
        return (np.abs(x - c_out) - np.abs(x - c_in)).sum(axis=1)
    return stat


def _builtin() -> tuple[Scenario, ...]:
    hist_in, hist_out = np.array([0, 2]), np.array([1, 2])   # histograms/laplace: record 0 in cell 0 (D) or 1 (D′)
    return (
        Scenario("mean", "Is Alice in the salary survey? (a mean)",
                 "Twenty people answer a salary survey; salaries are capped at €200 000. Alice earns €200 000. "
                 "If she is out, her place is taken by a student who earns €0. The survey publishes the mean "
                 "salary, with noise. From the number you see: is Alice in or out?",
                 ("noise/laplace", "noise/gaussian"), 1, "mean salary", "€", (50_000.0,), (10_000.0,), 0),
        Scenario("count", "Is Alice in the salary survey? (a count)",
                 "The survey publishes how many respondents earn over €100 000, with noise. Seven of the others "
                 "do; so does Alice. From the number you see: is Alice in or out?",
                 ("noise/laplace", "noise/gaussian"), 1, "respondents earning over €100 000", "people",
                 (7.0,), (1.0,), 1),
        Scenario("median", "Is Bob on the film panel? (a median)",
                 "Four people rate a film from 0 to 10 and the median rating is published, chosen by the "
                 "exponential mechanism. Three rated it 10. Bob hated it: 0. If Bob is out, another fan (10) "
                 "takes his seat. From the median you see: is Bob in or out?",
                 ("kng/median-exponential",), 0, "median rating", "/ 10", (0.0,), (10.0,), 1,
                 statistic=lambda x: -np.asarray(x, float).reshape(len(x), -1)[:, 0], statistic_is_best=True),
        Scenario("histogram", "Is Alice in the top salary band? (one histogram cell)",
                 "The survey publishes how many respondents fall in each salary band, with noise in every cell. "
                 "Alice is in the top band. If she is out, her place is taken by someone in the middle band. "
                 "From the three counts you see: is Alice in or out?",
                 ("histograms/laplace", "histograms/laplace-geometric"), 0, "respondents per salary band",
                 "people", (3.0, 11.0, 14.0), (1.0,), 1,
                 ("over €100 000", "€50 000–100 000", "under €50 000"),
                 statistic=_hist_llr(hist_in, hist_out, 3), statistic_is_best=True),
    )


def _generic_audits() -> tuple[str, ...]:
    from .. import registry
    fast = {a for t in registry.topics() for a, s in t.audit_seconds.items() if s <= _MAX_SECONDS_PER_SAMPLE}
    # an exact best-adversary curve needs no 100 000-draw estimate: offered whatever its sampler's speed
    return tuple(a for a in registry.audits() if (a in fast or a in _LOCATION) and a not in _FIXED_BUDGET)


@functools.cache
def scenarios() -> tuple[Scenario, ...]:
    """The built-in scenarios and the generic one (any fast declared audit's pair; target "in" = D)."""
    generic = Scenario(GENERIC, "Any declared audit's pair (D or D′?)",
                       "The mechanism ran on one of two public datasets that differ in one record: D (the "
                       "record is in) or D′ (it is not). From the output you see: in (D) or out (D′)?",
                       _generic_audits(), 0, "output")
    return (*_builtin(), generic)


def scenario(key: str) -> Scenario:
    """The scenario called ``key`` (a DPValueError listing the keys if there is none)."""
    found = {s.key: s for s in scenarios()}
    if key not in found:
        raise DPValueError(f"scenario {key!r} is unknown; choose one of: {', '.join(found)}.")
    return found[key]


def check_setting(scenario_key: str, audit_id: str, mutant: bool, epsilon: Any, delta: Any = 0.0) -> Setting:
    """A validated :class:`Setting`: the audit belongs to the scenario, 0 < ε ≤ 10, and 0 < δ ≤ 0.2 where the
    audit's claim has a δ (δ = 0 otherwise). Each refusal names the field, the value and the fix."""
    sc = scenario(scenario_key)
    if audit_id not in sc.audits:
        raise DPValueError(f"mechanism {audit_id!r} is not offered for the scenario {sc.title!r}; choose one of: "
                           f"{', '.join(sc.audits)}.")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise DPValueError(f"ε = {epsilon!r} is not a number; type a number between 0 and {MAX_EPSILON:g}.") from None
    if not (math.isfinite(eps) and 0 < eps <= MAX_EPSILON):
        raise DPValueError(f"ε = {epsilon!r} must be a number in (0, {MAX_EPSILON:g}]; choose e.g. 1.")
    from .. import registry
    if registry.audits()[audit_id].delta > 0:
        try:
            dlt = float(delta)
        except (TypeError, ValueError):
            raise DPValueError(f"δ = {delta!r} is not a number; type one in (0, {MAX_DELTA:g}].") from None
        if not (math.isfinite(dlt) and 0 < dlt <= MAX_DELTA):
            raise DPValueError(f"δ = {delta!r} must be in (0, {MAX_DELTA:g}] for this mechanism; choose e.g. 0.05.")
    else:
        dlt = 0.0
    return Setting(sc.key, audit_id, bool(mutant), eps, dlt)


def draw_release(setting: Setting, coin_in: bool, rng: np.random.Generator) -> list[float]:
    """One release of the round's mechanism on the "in" dataset if ``coin_in`` else the "out" one: the audit's
    sampler with n = 1 (and the mutant's override when it plays), as a flat list of floats (NaN for ⊥)."""
    a, sc = setting.audit, scenario(setting.scenario)
    data = a.datasets[sc.in_index if coin_in else 1 - sc.in_index]
    out = a.sampler(data, 1, rng, epsilon=setting.epsilon, delta=setting.delta,
                    override=a.mutant.override if setting.mutant else None)
    return [float(v) for v in np.asarray(out, dtype=float).reshape(-1)]


def _fmt(v: float, decimals: Optional[int]) -> str:
    if not math.isfinite(v):
        return "⊥ (nothing released)" if math.isnan(v) else str(v)
    if decimals is None:
        return f"{v:.4g}"
    return f"{v:,.{decimals}f}".replace(",", "\u2009")     # thin space groups thousands


def display_release(scenario_key: str, release: list[float]) -> list[tuple[str, str]]:
    """``[(label, text)]`` a student sees for one release: offset + factor · x per coordinate, with its unit,
    rounded only here (the stored release keeps every digit)."""
    sc = scenario(scenario_key)
    x = np.asarray(release, dtype=float)
    off = np.broadcast_to(np.asarray(sc.offset, float), x.shape) if len(sc.offset) in (1, x.size) else 0.0
    fac = np.broadcast_to(np.asarray(sc.factor, float), x.shape) if len(sc.factor) in (1, x.size) else 1.0
    shown = off + fac * x
    labels = sc.labels if len(sc.labels) == x.size else ([sc.quantity] if x.size == 1 else
                                                          [f"{sc.quantity} [{i + 1}]" for i in range(x.size)])
    unit = f" {sc.unit}" if sc.unit else ""
    if sc.unit == "€":
        return [(lab, f"€{_fmt(v, sc.decimals)}") for lab, v in zip(labels, shown)]
    return [(lab, f"{_fmt(v, sc.decimals)}{unit}") for lab, v in zip(labels, shown)]

"""Scoring the class: a student's points, the pooled ROC points with Clopper–Pearson boxes, the class's empirical
ε lower bound (by the audit harness of the test suite) and one sentence for the class.

An answer is "in" or "out" with an optional confidence c ∈ {1, 2, 3} (none counts as 1). Its **score** is
s = +c for "in", −c for "out" (the class's suspicion that the target is in). A student earns +c points for a
right answer and −c for a wrong one: a guesser who ignores the release expects 0 whatever their confidences.

Pooled over the answers of the rounds played with one setting, the test "say in when s ≥ k" has
FPR_k = #{s ≥ k | out} / #out and TPR_k = #{s ≥ k | in} / #in for the five thresholds k ∈ {3, 2, 1, −1, −2}
(k = 1: the answers as given). Each point gets a two-sided 95 % Clopper–Pearson interval on each rate (a box).
Every test of a student or of the class is a test of the release, so under an (ε, δ)-DP mechanism every
point's true rates lie under the curve TPR ≤ min(e^ε FPR + δ, 1 − e^{−ε}(1 − δ − FPR)) (Kairouz, Oh &
Viswanath 2015, Thm 2.1) — up to sampling error, which the boxes show.

The ε lower bound is :func:`dpcore.audit.audit` on the scores of the "in" and the "out" answers with the
half-line events {s > t} and their complements for t ∈ {2.5, 1.5, 0, −1.5, −2.5}: one-sided Clopper–Pearson
bounds, Bonferroni over the 4J = 40 bounds, at the total level :data:`CONFIDENCE` = 95 % (a class-friendly
level: at most a 5 % chance that a correct mechanism is said to leak more than ε). The answers of different
students are independent given the setting (each release has its own coin and its own noise), so the counts
are binomial as the harness assumes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np
from scipy.stats import beta

from ..audit import AuditResult, audit, halfline_events
from ..errors import DPValueError

__all__ = ["CONFIDENCE", "LEVELS", "THRESHOLDS", "Answer", "RocPoint", "ClassScore", "check_answer", "score",
           "points", "roc_points", "epsilon_lower_bound", "class_score", "sentence", "clopper_pearson"]

#: Confidence level of the class's ε lower bound and of the boxes.
CONFIDENCE = 0.95
#: Possible scores, lowest first.
LEVELS = (-3, -2, -1, 1, 2, 3)
#: Thresholds k of the pooled points "say in when s ≥ k".
THRESHOLDS = (3, 2, 1, -1, -2)
_EVENT_CUTS = (2.5, 1.5, 0.0, -1.5, -2.5)


@dataclass(frozen=True)
class Answer:
    """One answer with its truth (known to the server only)."""

    truth_in: bool
    says_in: bool
    confidence: Optional[int] = None


@dataclass(frozen=True)
class RocPoint:
    """One pooled (FPR, TPR) point, its counts and its Clopper–Pearson box."""

    threshold: int
    k_out: int
    n_out: int
    k_in: int
    n_in: int
    fpr: float
    tpr: float
    fpr_lo: float
    fpr_hi: float
    tpr_lo: float
    tpr_hi: float


@dataclass(frozen=True)
class ClassScore:
    """What the dashboard shows about the class's answers for one setting."""

    n_in: int
    n_out: int
    points: tuple[RocPoint, ...]
    audit: Optional[AuditResult]
    sentence: str

    @property
    def epsilon_lower_bound(self) -> float:
        return self.audit.epsilon_lower_bound if self.audit is not None else 0.0


def check_answer(says: str, confidence: Optional[int]) -> tuple[bool, Optional[int]]:
    """(says_in, confidence) from ``says`` ∈ {"in", "out"} and an optional confidence 1–3 (a clear error else)."""
    if says not in ("in", "out"):
        raise DPValueError(f"answer = {says!r} must be 'in' or 'out'; pick one of the two buttons.")
    if confidence is not None and confidence not in (1, 2, 3):
        raise DPValueError(f"confidence = {confidence!r} must be 1, 2 or 3 (or left empty).")
    return says == "in", confidence


def score(says_in: bool, confidence: Optional[int]) -> int:
    """s = +c for "in", −c for "out" (c = 1 when no confidence was given)."""
    c = 1 if confidence is None else int(confidence)
    return c if says_in else -c


def points(answer: Answer) -> int:
    """+c for a right answer, −c for a wrong one (c = 1 when no confidence was given)."""
    c = 1 if answer.confidence is None else int(answer.confidence)
    return c if answer.says_in == answer.truth_in else -c


def clopper_pearson(k: int, n: int, level: float = CONFIDENCE) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval at ``level`` on a binomial proportion k/n ((0, 1) when n = 0)."""
    if n == 0:
        return 0.0, 1.0
    a = (1.0 - level) / 2
    lo = float(beta.ppf(a, k, n - k + 1)) if k > 0 else 0.0
    hi = float(beta.ppf(1 - a, k + 1, n - k)) if k < n else 1.0
    return lo, hi


def _counts(answers: Iterable[Answer]) -> tuple[np.ndarray, np.ndarray]:
    s_in: list[int] = []
    s_out: list[int] = []
    for a in answers:
        (s_in if a.truth_in else s_out).append(score(a.says_in, a.confidence))
    return np.asarray(s_in, dtype=float), np.asarray(s_out, dtype=float)


def roc_points(s_in: np.ndarray, s_out: np.ndarray) -> tuple[RocPoint, ...]:
    """The pooled points "say in when s ≥ k" for k in :data:`THRESHOLDS` (none when a side has no answer)."""
    n_in, n_out = len(s_in), len(s_out)
    if n_in == 0 or n_out == 0:
        return ()
    out = []
    for k in THRESHOLDS:
        ki, ko = int((s_in >= k).sum()), int((s_out >= k).sum())
        (flo, fhi), (tlo, thi) = clopper_pearson(ko, n_out), clopper_pearson(ki, n_in)
        out.append(RocPoint(k, ko, n_out, ki, n_in, ko / n_out, ki / n_in, flo, fhi, tlo, thi))
    return tuple(out)


def epsilon_lower_bound(s_in: np.ndarray, s_out: np.ndarray, epsilon: float, delta: float = 0.0,
                        confidence: float = CONFIDENCE) -> Optional[AuditResult]:
    """The audit harness (:func:`dpcore.audit.audit`) on the class's scores at total level ``confidence``;
    None when a side has no answer. ``.epsilon_lower_bound`` is the largest ε the answers refute."""
    if len(s_in) == 0 or len(s_out) == 0:
        return None
    return audit(s_in, s_out, halfline_events(_EVENT_CUTS), epsilon=epsilon, delta=delta, alpha=1.0 - confidence)


def sentence(result: Optional[AuditResult], epsilon: float, n_answers: int) -> str:
    """One sentence for the class about its answers."""
    pct = f"{CONFIDENCE:.0%}"
    if result is None:
        return (f"{n_answers} revealed answers so far: the class's points appear once targets that were in and "
                "targets that were out have both been answered and revealed.")
    lb = result.epsilon_lower_bound
    if result.rejected:
        return (f"You beat the promise: with {pct} confidence the true ε is at least {math.floor(lb * 100) / 100:.2f},"
                f" more than the promised ε = {epsilon:g} — this mechanism is broken.")
    if lb > 0:
        return (f"Inside the promise: your {n_answers} answers show ε ≥ {math.floor(lb * 100) / 100:.2f} "
                f"({pct} confidence), no more than the promised ε = {epsilon:g}.")
    return (f"Inside the promise: your {n_answers} answers do no better than the curve of ε = {epsilon:g} allows "
            f"(no ε > 0 shown at {pct} confidence).")


def class_score(answers: Iterable[Answer], epsilon: float, delta: float = 0.0) -> ClassScore:
    """Pooled points, ε lower bound and sentence for the answers of the rounds played with one setting."""
    s_in, s_out = _counts(answers)
    res = epsilon_lower_bound(s_in, s_out, epsilon, delta)
    return ClassScore(len(s_in), len(s_out), roc_points(s_in, s_out), res,
                      sentence(res, epsilon, len(s_in) + len(s_out)))

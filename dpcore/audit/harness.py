"""Statistical privacy audit harness (the same code runs in the test suite and on the audit page).

For a mechanism M, neighbouring datasets D, D' and a claim (ε, δ): draw N outputs from each,
evaluate a family of events S_1..S_J fixed before looking at the samples, and for each event and
both directions compute a one-sided Clopper–Pearson lower bound on P[M(D) ∈ S] and upper bound on
P[M(D') ∈ S], Bonferroni-corrected over the 4J bounds (total α = 1e-6). Reject the claim if
lower > e^ε · upper + δ for some event and direction. A correct mechanism is rejected with
probability ≤ α whatever N is, so an audit is never retried with another seed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from scipy.stats import beta

Events = Callable[[np.ndarray], np.ndarray]
#: Total error probability of an audit (Bonferroni over its 4J one-sided Clopper–Pearson bounds).
ALPHA = 1e-6


@dataclass(frozen=True)
class AuditResult:
    """Outcome of an audit: ``rejected`` is True when the samples refute the (ε, δ) claim.

    ``epsilon_lower_bound`` is the largest ε' the samples refute at the same confidence:
    max over events and directions of log((lower − δ) / upper) (0 when no event gives one).
    """

    rejected: bool
    worst: float          # max over events/directions of lower − e^ε·upper − δ (> 0 means rejected)
    worst_event: int
    worst_direction: str  # "D over D'" or "D' over D"
    n_events: int
    n_samples: tuple[int, int]
    epsilon: float
    delta: float
    epsilon_lower_bound: float = 0.0

    @property
    def details(self) -> str:
        return (f"audit of (ε={self.epsilon:g}, δ={self.delta:g}) with N={self.n_samples}, J={self.n_events}: "
                f"{'REJECTED' if self.rejected else 'not rejected'}; worst margin {self.worst:+.4g} "
                f"at event {self.worst_event} ({self.worst_direction})")


def clopper_pearson_lower(k: np.ndarray, n: int, a: float) -> np.ndarray:
    """One-sided lower confidence bound at level 1 − a on a binomial proportion."""
    k = np.asarray(k, dtype=float)
    out = np.zeros_like(k)
    m = k > 0
    out[m] = beta.ppf(a, k[m], n - k[m] + 1)
    return out


def clopper_pearson_upper(k: np.ndarray, n: int, a: float) -> np.ndarray:
    """One-sided upper confidence bound at level 1 − a on a binomial proportion."""
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    m = k < n
    out[m] = beta.ppf(1 - a, k[m] + 1, n - k[m])
    return out


def audit(out_a: np.ndarray, out_b: np.ndarray, events: Events, *, epsilon: float, delta: float = 0.0,
          alpha: float = ALPHA) -> AuditResult:
    """Audit the claim that M is (ε, δ)-DP from samples of M(D) (``out_a``) and M(D') (``out_b``).

    ``events(out)`` maps N outputs to a boolean (N, J) matrix of event indicators.
    """
    ea = np.asarray(events(out_a), dtype=bool)
    eb = np.asarray(events(out_b), dtype=bool)
    if ea.ndim == 1:
        ea, eb = ea[:, None], eb[:, None]
    na, nb = ea.shape[0], eb.shape[0]
    J = ea.shape[1]
    a = alpha / (4 * J)
    ka, kb = ea.sum(axis=0), eb.sum(axis=0)
    lo_a, up_a = clopper_pearson_lower(ka, na, a), clopper_pearson_upper(ka, na, a)
    lo_b, up_b = clopper_pearson_lower(kb, nb, a), clopper_pearson_upper(kb, nb, a)
    e = math.exp(min(epsilon, 700.0))   # e^ε overflows beyond ~709; no event is refuted at such ε anyway
    m_ab = lo_a - e * up_b - delta
    m_ba = lo_b - e * up_a - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        lb = np.concatenate([np.log(np.maximum(lo_a - delta, 0.0) / up_b), np.log(np.maximum(lo_b - delta, 0.0) / up_a)])
    lb = lb[np.isfinite(lb)]
    eps_lb = float(max(0.0, lb.max())) if lb.size else 0.0
    i_ab, i_ba = int(np.argmax(m_ab)), int(np.argmax(m_ba))
    if m_ab[i_ab] >= m_ba[i_ba]:
        worst, idx, direction = float(m_ab[i_ab]), i_ab, "D over D'"
    else:
        worst, idx, direction = float(m_ba[i_ba]), i_ba, "D' over D"
    return AuditResult(worst > 0, worst, idx, direction, J, (na, nb), float(epsilon), float(delta), eps_lb)


def halfline_events(thresholds: Sequence[float] | np.ndarray, projection: np.ndarray | None = None) -> Events:
    """Events {⟨x, p⟩ > t} and their complements for each threshold t (1-D outputs: x > t)."""
    t = np.asarray(thresholds, dtype=float)

    def ev(out):
        x = np.asarray(out, dtype=float)
        if projection is not None:
            x = x.reshape(x.shape[0], -1) @ np.asarray(projection, dtype=float)
        x = x.reshape(x.shape[0])
        above = x[:, None] > t[None, :]
        return np.concatenate([above, ~above], axis=1)

    return ev


def llr_events(logpdf_a: Callable, logpdf_b: Callable, thresholds: Sequence[float]) -> Events:
    """Likelihood-ratio events {x : log p_a(x) − log p_b(x) > t} and complements (most powerful)."""
    t = np.asarray(thresholds, dtype=float)

    def ev(out):
        llr = np.asarray(logpdf_a(out), dtype=float) - np.asarray(logpdf_b(out), dtype=float)
        above = llr[:, None] > t[None, :]
        return np.concatenate([above, ~above], axis=1)

    return ev


def singleton_events(values: Sequence[Any] | np.ndarray) -> Events:
    """Events {x = v} for discrete outputs (1-D) — e.g. the exponential mechanism's index."""
    v = np.asarray(values)

    def ev(out):
        x = np.asarray(out).reshape(len(out), -1)
        if x.shape[1] == 1:
            return x[:, 0][:, None] == v[None, :]
        return np.all(x[:, None, :] == np.atleast_2d(v)[None, :, :], axis=2)

    return ev


def assert_passes(result: AuditResult) -> None:
    """A correct mechanism must not be rejected."""
    assert not result.rejected, "privacy audit rejected a mechanism that should be private: " + result.details


def assert_rejected(result: AuditResult) -> None:
    """A broken mutant must be rejected (otherwise the audit has no power)."""
    assert result.rejected, "privacy audit FAILED to reject a broken mutant: " + result.details

"""Random differential privacy for sparse histograms (Hall, Rinaldo & Wasserman 2012; Hall's slides, Part 4; spec §4).

Definition [SLIDE]: with X_1, …, X_{n+1} iid ∼ P, D = (X_1..X_n) and D′ = (X_1..X_{n−1}, X_{n+1}),
a mechanism is (ε, δ, γ)-random-DP if
    P_{X_{1:n+1}}( for all A: P_D(A) ≤ e^ε P_D′(A) + δ ) ≥ 1 − γ.
It is an average-case guarantee: it protects a random individual with probability ≥ 1 − γ over the
data, but NOT everyone — a person alone in their cell (in the tails of P) is exposed. It is not
ε-DP and is never charged as DP. Composition: DP composition of (ε, δ) plus a union bound on the γ's.

The release (RECONSTRUCTED from the slide's idea): cells with θ_i(D) = 0 are released as 0 with NO
noise; every occupied cell gets Laplace(2/ε) (replace-one sensitivity 2). The support of the
release is therefore exactly the set of occupied cells. For a pair (D, D′) whose occupied sets
coincide, the released values differ by ℓ1 ≤ 2 on a common support: ε-DP for that pair. The
occupied sets can differ only if X_n is alone in its cell among X_1..X_n, or X_{n+1} falls in a cell
no X_1..X_{n−1} occupies; by the union bound

    γ ≤ 2 Σ_c p_c (1 − p_c)^{n−1}        (spec §4; RECONSTRUCTED),

with p_c the population cell probabilities. γ is small only when the rarely-hit cells have very
small probability ("structural zeroes"). γ needs the TRUE P: the app computes it from a simulated
P, as an illustration only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_epsilon, check_int, check_positive
from ..errors import DPValueError
from ._tables import SparseCounts, SparseHistogram, as_counts, histogram_errors

__all__ = ["GUARANTEE", "RDPConfig", "RDPRelease", "rdp_gamma", "rdp_release", "rdp_failure_rate", "RDPDemo",
           "rdp_demo"]

GUARANTEE = ("(ε, 0, γ)-random differential privacy (Hall, Rinaldo & Wasserman 2012): for X_1..X_{n+1} iid ∼ P, "
             "with probability ≥ 1 − γ over the data, P_D(A) ≤ e^ε P_D′(A) for all A, where D′ replaces X_n by "
             "X_{n+1}; γ ≤ 2 Σ_c p_c (1 − p_c)^{n−1} (a union bound derived here). NOT ε-DP: a person alone in their "
             "cell is exposed (the released support is the set of occupied cells). Replace-one neighbours, Δ = 2.")


@dataclass(frozen=True)
class RDPConfig:
    """ε of the Laplace(2/ε) noise on the occupied cells; p the public domain size."""

    epsilon: float
    p: int

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "p", check_int(self.p, "p", lo=2, hi=2**40))


@dataclass(frozen=True, eq=False)
class RDPRelease:
    """The no-noise-on-empty-cells release. Deliberately NOT a :class:`dpcore.mechanism.Release`:
    it carries no DP cost, so it cannot enter a ledger as ε-DP.

    Attributes
    ----------
    value : SparseHistogram
        Released values on the occupied cells (τ = 0; the support is the occupied set).
    epsilon : float
    gamma : float or None
        The γ bound from a given population P (None when P is not given).
    guarantee : str
        :data:`GUARANTEE`.
    """

    value: SparseHistogram
    epsilon: float
    gamma: Optional[float]
    guarantee: str = GUARANTEE


def rdp_gamma(probs: Any, n: int) -> float:
    """γ ≤ 2 Σ_c p_c (1 − p_c)^{n−1} for population cell probabilities ``probs`` (summing to 1)."""
    p = np.asarray(probs, dtype=float).reshape(-1)
    if p.size == 0 or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise DPValueError("probs must be non-negative cell probabilities summing to 1.")
    n = check_int(n, "n", lo=1)
    return float(min(1.0, 2.0 * np.sum(p * np.power(1.0 - p, n - 1))))


def rdp_release(data: Any, config: RDPConfig, *, probs: Any = None, rng: RNGLike = None) -> RDPRelease:
    """Laplace(2/ε) on the occupied cells only; empty cells released as exactly 0 (random DP, not DP)."""
    counts = as_counts(data, config.p)
    g = as_generator(rng)
    vals = counts.counts + g.laplace(0.0, 2.0 / config.epsilon, counts.q)
    gamma = None if probs is None else rdp_gamma(probs, counts.n)
    return RDPRelease(SparseHistogram(config.p, counts.cells.copy(), vals, 0.0), config.epsilon, gamma)


def rdp_failure_rate(probs: Any, n: int, trials: int, rng: RNGLike = None) -> float:
    """Monte-Carlo frequency of the failure event (X_n alone among X_1..X_n, or X_{n+1} in a cell no
    X_1..X_{n−1} occupies) — the event γ bounds. Small p only (the draws are dense)."""
    p = np.asarray(probs, dtype=float)
    g = as_generator(rng)
    trials = check_int(trials, "trials", lo=1, hi=10**6)
    if trials * p.size > 2**26:
        raise DPValueError("trials × cells is too large for this Monte-Carlo check; lower trials.")
    first = g.multinomial(n - 1, p, size=trials)                          # counts of X_1..X_{n−1}
    cdf = np.cumsum(p)
    xn = np.minimum(np.searchsorted(cdf, g.random(trials), side="right"), p.size - 1)
    xn1 = np.minimum(np.searchsorted(cdf, g.random(trials), side="right"), p.size - 1)
    rows = np.arange(trials)
    return float(np.mean((first[rows, xn] == 0) | (first[rows, xn1] == 0)))


@dataclass(frozen=True)
class RDPDemo:
    """One simulated population and sample: γ, the fraction of singleton cells and the ℓ1 errors."""

    gamma: float
    singleton_cells: int
    occupied_cells: int
    errors: dict


def rdp_demo(p: int, q: int, n: int, epsilon: float, *, concentration: float = 0.3, rng: RNGLike = None) -> RDPDemo:
    """Population P: q cells of a p-cell domain with Dirichlet(a) probabilities (the rest structural
    zeroes); an iid sample of n; the RDP release vs Laplace in every cell (exact ℓ1 law) and the
    thresholded release. Simulation (the truth is known): an illustration of γ, never a release."""
    from .configs import ThresholdConfig
    from .release import threshold

    g = as_generator(rng)
    q = check_int(q, "q", lo=1, hi=min(p, 10**6))
    n = check_int(n, "n", lo=1, hi=10**8)
    check_positive(concentration, "concentration")
    cells = np.sort(g.choice(p, size=q, replace=False).astype(np.int64))
    w = g.dirichlet(np.full(q, concentration)) if q > 1 else np.ones(1)
    counts = g.multinomial(n, w)
    keep = counts > 0
    table = SparseCounts(p, cells[keep], counts[keep])
    rel = rdp_release(table, RDPConfig(epsilon, p), rng=g)
    thr = threshold.release(table, ThresholdConfig(epsilon, p), rng=g).value
    errors = {"random DP (no noise on empty cells)": histogram_errors(rel.value, table)["l1"],
              "thresholded (ε-DP)": histogram_errors(thr, table)["l1"],
              "Laplace in every cell (ε-DP; exact law)": float(g.gamma(p, 2.0 / epsilon))}
    return RDPDemo(rdp_gamma(w, n), int((table.counts == 1).sum()), table.q, errors)

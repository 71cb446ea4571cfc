"""Private histograms over a public domain of p cells (Hall 2012, thesis slides Part 1; spec §1).

Two mechanisms, each a frozen config, a :class:`~dpcore.mechanism.Calibration` and a pure release:

* :func:`histogram_release` — noise in every cell: Laplace(b) (default) or the two-sided geometric
  ("discrete Laplace", integer counts) with b = Δ/ε; optional post-processing to non-negative
  integers (``"clip-round"``: max(0, round(x)); ``"simplex"``: Euclidean projection onto
  {h ≥ 0, Σh = n} then largest-remainder rounding).
* :func:`threshold_release` — the same noisy cells, then every cell with value ≤ τ set to 0 (hard
  thresholding, CPST-style); τ = b·log(p/q′) with q′ = 1 (``"log p"``: τ = (2/ε) log p under
  replace-one), a public bound on q, or a noisy q̂ whose ε share is charged. The sparse sampler
  (:func:`sample_threshold`, ``sampler="sparse"``) draws the same law at cost O(q + F).

The data's own q (τ = b·log(p/q), the "oracle q" of the slides) is NOT private (spec correction 2):
it is only :func:`oracle_threshold`, a non-private comparison that returns no Release.

Sensitivity (spec §0, §1.1; correction 9): the count vector moves by ℓ1 ≤ 2 when one record is
replaced (one cell −1, another +1) and by ≤ 1 when one is added or removed. Add/remove neighbours are
offered only here (correction 3); under them n is not public, so the simplex projection (which needs
n) is refused.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, cast, Optional

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_choice, check_epsilon, check_int
from ..errors import DPValueError
from ..mechanism import Calibration, Diagnostics, Note, Release
from .tables import (MAX_DENSE_CELLS, BatchHistogram, SparseCounts, SparseHistogram, _check_dense, as_counts,
                     check_p, histogram_errors)

__all__ = ["NEIGHBOURS", "NOISES", "HISTOGRAM_POST", "TAU_RULES", "SAMPLERS", "THRESHOLD_POST", "REFERENCE",
           "HistogramConfig", "ThresholdConfig", "calibrate_histogram", "calibrate_threshold", "histogram_release",
           "threshold_release", "true_counts", "PairValue", "laplace_and_threshold_release", "sample_histogram",
           "sample_threshold", "oracle_threshold",
           "survival_probability", "simplex_round", "MAX_DENSE_WORK", "sensitivity"]

NEIGHBOURS = ("replace-one", "add/remove-one")
NOISES = ("laplace", "geometric")
HISTOGRAM_POST = ("none", "clip-round", "simplex")
TAU_RULES = ("log p", "public q bound", "noisy q")
SAMPLERS = ("sparse", "dense")
THRESHOLD_POST = ("none", "round")
#: Largest reps × p of a dense sampling call (a work cap; chunks of ≤ 2^22 cells are drawn at a time).
MAX_DENSE_WORK = 2**26
_CHUNK = 2**22
DEFAULT_Q_SHARE = 0.1

REFERENCE = ("Hall (2012), New Statistical Applications for Differential Privacy (CMU thesis defence), Part 1; "
             "Cormode, Procopiuc, Srivastava & Tran (2012), differentially private summaries for sparse data")


def sensitivity(neighbours: str) -> float:
    """ℓ1-sensitivity of the count vector: 2 under replace-one (one cell −1, another +1), 1 under add/remove."""
    return 2.0 if check_choice(neighbours, "neighbours", NEIGHBOURS) == "replace-one" else 1.0


def _noise_text(noise: str) -> str:
    if noise == "laplace":
        return "Laplace scale b = Δ/ε"
    return "two-sided geometric: P(Z = k) ∝ exp(−|k|/b), b = Δ/ε"


_GEOMETRIC_NOTE = (" The two-sided geometric law on ℤ has a normaliser Σ_k exp(−|k − c|/b) that is the same for every "
                   "integer c (translation invariance), so the rate 1/b = ε/Δ of the exponential-family form "
                   "exp{−(ε/GS)‖z − θ(D)‖₁} is enough; the factor 1/2 of the exponential mechanism is needed only when the "
                   "normaliser depends on the data (the exponential mechanism over a fixed finite set).")


# -- configs ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HistogramConfig:
    """Noise in every cell (Laplace or two-sided geometric), optional post-processing.

    Parameters
    ----------
    epsilon : float
        ε of the release (pure ε-DP).
    p : int
        Public domain size (number of cells), 2 ≤ p ≤ 2^24 (a length-p vector is drawn).
    neighbours : {"replace-one", "add/remove-one"}
        Δ = 2 or 1.
    noise : {"laplace", "geometric"}
        The geometric noise keeps counts integer.
    postprocess : {"none", "clip-round", "simplex"}
        Free post-processing to non-negative integers (spec §1.2 (a) and (b)); "simplex" needs the
        public n and so replace-one neighbours.
    """

    epsilon: float
    p: int
    neighbours: str = "replace-one"
    noise: str = "laplace"
    postprocess: str = "none"

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "p", check_int(self.p, "p", lo=2, hi=MAX_DENSE_CELLS))
        check_choice(self.neighbours, "neighbours", NEIGHBOURS)
        check_choice(self.noise, "noise", NOISES)
        check_choice(self.postprocess, "postprocess", HISTOGRAM_POST)
        if self.postprocess == "simplex" and self.neighbours != "replace-one":
            raise DPValueError("postprocess = 'simplex' projects onto {h ≥ 0, Σh = n} and needs the public n; under "
                               "add/remove-one neighbours n is not public. Use postprocess = 'clip-round' instead.")


@dataclass(frozen=True)
class ThresholdConfig:
    """Noisy cells, then hard thresholding at τ = b·log(p/q′) (Hall's slide: τ = (2/ε) log p).

    Parameters
    ----------
    epsilon : float
        Total ε (with ``tau_rule="noisy q"`` it is split: ``q_share``·ε for q̂, the rest for the cells).
    p : int
        Public domain size, 2 ≤ p ≤ 2^40 (the sparse sampler never draws a length-p vector).
    neighbours, noise : as :class:`HistogramConfig`.
    tau_rule : {"log p", "public q bound", "noisy q"}
        q′ = 1; q′ = ``q_bound`` (a public bound on the number of occupied cells); q′ = q̂, a noisy q
        (Laplace, sensitivity 1) released with ``q_share``·ε.
    q_bound : int, optional
        Only with ``tau_rule="public q bound"``; 1 ≤ q_bound ≤ p (τ ≥ 0).
    q_share : float, optional
        Only with ``tau_rule="noisy q"``: the share of ε spent on q̂ (default 0.1), in (0, 1).
    sampler : {"sparse", "dense"}
        "sparse": O(q + F) (survivors among empty cells: F ~ Binomial(p − q, P(noise > τ)) at locations
        drawn without replacement); "dense": the naive mechanism (noise in all p ≤ 2^24 cells). Same law.
    postprocess : {"none", "round"}
        "round": survivors rounded to integers (a value rounding to 0 is dropped).
    """

    epsilon: float
    p: int
    neighbours: str = "replace-one"
    noise: str = "laplace"
    tau_rule: str = "log p"
    q_bound: Optional[int] = None
    q_share: Optional[float] = None
    sampler: str = "sparse"
    postprocess: str = "none"

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "p", check_p(self.p))
        check_choice(self.neighbours, "neighbours", NEIGHBOURS)
        check_choice(self.noise, "noise", NOISES)
        check_choice(self.tau_rule, "tau_rule", TAU_RULES)
        check_choice(self.sampler, "sampler", SAMPLERS)
        check_choice(self.postprocess, "postprocess", THRESHOLD_POST)
        if self.sampler == "dense" and self.p > MAX_DENSE_CELLS:
            raise DPValueError(f"sampler = 'dense' draws p = {self.p:,} noise values (limit {MAX_DENSE_CELLS:,}); use "
                               "sampler = 'sparse' (same law, cost O(q + F)).")
        if self.tau_rule == "public q bound":
            if self.q_bound is None:
                raise DPValueError("tau_rule = 'public q bound' needs q_bound, a public bound on the number of "
                                   "occupied cells fixed without looking at the data.")
            object.__setattr__(self, "q_bound", check_int(self.q_bound, "q_bound", lo=1, hi=self.p))
        elif self.q_bound is not None:
            raise DPValueError(f"q_bound applies only to tau_rule = 'public q bound' (tau_rule is {self.tau_rule!r}).")
        if self.tau_rule == "noisy q":
            share = DEFAULT_Q_SHARE if self.q_share is None else self.q_share
            share = check_epsilon(share, "q_share")
            if not share < 1:
                raise DPValueError(f"q_share = {share} must lie in (0, 1): the share of ε spent on the noisy q̂.")
            object.__setattr__(self, "q_share", share)
        elif self.q_share is not None:
            raise DPValueError(f"q_share applies only to tau_rule = 'noisy q' (tau_rule is {self.tau_rule!r}).")


# -- calibrations -------------------------------------------------------------------------------------------
def calibrate_histogram(cfg: HistogramConfig) -> Calibration:
    """Δ = 2 (replace-one) or 1 (add/remove); b = Δ/ε; pure ε-DP."""
    d = sensitivity(cfg.neighbours)
    b = d / cfg.epsilon
    der = (f"the count vector changes by ℓ1 ≤ {d:g} between neighbours ("
           + ("one record replaced: one cell −1, another +1" if d == 2 else "one record added or removed: one cell ±1")
           + f"); independent noise of density ∝ exp(−|z|/b) in each cell with b = Δ/ε = {b:.6g} gives a "
           "likelihood ratio ≤ exp(‖θ(D) − θ(D′)‖₁/b) ≤ e^ε."
           + (_GEOMETRIC_NOTE if cfg.noise == "geometric" else "")
           + ("" if cfg.postprocess == "none" else f" Post-processing '{cfg.postprocess}' is free."))
    return Calibration(mechanism="histograms/laplace", notion="pure", epsilon=cfg.epsilon, sensitivity=d,
                       constant=b, constant_name=_noise_text(cfg.noise), derivation=der,
                       reference="Hall (2012) slides Part 1 ('Laplace per cell', risk O(p/α))",
                       neighbours=cfg.neighbours, params={"noise": cfg.noise, "postprocess": cfg.postprocess,
                                                          "p": cfg.p})


def calibrate_threshold(cfg: ThresholdConfig) -> Calibration:
    """The thresholded release: the cells' noise as in :func:`calibrate_histogram` with ε_h = ε
    (or ε(1 − q_share) when q̂ is released too); τ = b·log(p/q′) ≥ 0 (spec §1.4, correction 1–2)."""
    d = sensitivity(cfg.neighbours)
    eps_q = cfg.epsilon * cast(float, cfg.q_share) if cfg.tau_rule == "noisy q" else 0.0
    eps_h = cfg.epsilon - eps_q
    b = d / eps_h
    q_pub = {"log p": 1, "public q bound": cfg.q_bound, "noisy q": None}[cfg.tau_rule]
    tau_txt = ("τ = b·log p" if cfg.tau_rule == "log p" else
               f"τ = b·log(p/q_bound), q_bound = {cfg.q_bound} public" if cfg.tau_rule == "public q bound" else
               "τ = b·log(p/q̂) with q̂ = clip(round(q + Laplace(1/ε_q)), 1, p) released (q changes by ≤ 1 between "
               f"neighbours, so q̂ is ε_q = {eps_q:.6g}-DP; basic composition gives ε_q + ε_h = ε)")
    der = (f"the count vector changes by ℓ1 ≤ {d:g} between neighbours; noise with b = Δ/ε_h = {b:.6g} in every cell "
           "is ε_h-DP, and zeroing the cells ≤ τ is post-processing. "
           f"{tau_txt}. The sparse sampler draws the same law as the naive one: an empty cell survives with "
           "probability P(noise > τ) independently, so their number is Binomial(p − q, P(noise > τ)), their "
           "locations a uniform subset WITHOUT replacement of the empty cells, their values τ + (noise − τ | noise > τ) "
           "(memoryless: τ + Exp(b) for Laplace)." + (_GEOMETRIC_NOTE if cfg.noise == "geometric" else ""))
    params = {"noise": cfg.noise, "p": cfg.p, "tau_rule": cfg.tau_rule, "q_for_tau": q_pub,
              "q_noise_scale": (1.0 / eps_q) if eps_q else None, "epsilon_q": eps_q, "epsilon_cells": eps_h,
              "sampler": cfg.sampler, "locations": "without replacement", "postprocess": cfg.postprocess}
    return Calibration(mechanism="histograms/threshold", notion="pure", epsilon=cfg.epsilon, sensitivity=d,
                       constant=b, constant_name=_noise_text(cfg.noise) + "_h", derivation=der,
                       reference="Hall (2012) slides Part 1 ('hard thresholding', τ = (2/α) log p, risk O(q log p/α))",
                       neighbours=cfg.neighbours, params=params,
                       note="" if cfg.sampler == "dense" else "the sparse sampler's running time grows with q (not hidden)")


# -- noise primitives ---------------------------------------------------------------------------------------
def _noise(kind: str, b: float, size, g: np.random.Generator) -> np.ndarray:
    if kind == "laplace":
        return g.laplace(0.0, b, size)
    pr = -math.expm1(-1.0 / b)                # 1 − a, a = e^{−1/b}
    return (g.geometric(pr, size) - g.geometric(pr, size)).astype(float)


def survival_probability(kind: str, b: float, tau: Any) -> np.ndarray:
    """P(noise > τ) for τ ≥ 0: ½e^{−τ/b} (Laplace); a^m/(1 + a), m = ⌊τ⌋ + 1, a = e^{−1/b} (geometric)."""
    tau = np.asarray(tau, dtype=float)
    if kind == "laplace":
        return 0.5 * np.exp(-tau / b)
    m = np.floor(tau) + 1.0
    return np.exp(-m / b) / (1.0 + math.exp(-1.0 / b))


def _tail_values(kind: str, b: float, tau: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Draws of (noise | noise > τ) for each τ (memoryless tails)."""
    if kind == "laplace":
        return tau + g.exponential(b, tau.shape)
    pr = -math.expm1(-1.0 / b)
    return np.floor(tau) + 1.0 + (g.geometric(pr, tau.shape) - 1)


# -- post-processing ----------------------------------------------------------------------------------------
def simplex_round(x: np.ndarray, n: int) -> np.ndarray:
    """Rows of ``x`` projected onto {h ≥ 0, Σh = n} (sort-based Euclidean projection), then rounded to
    integers keeping Σ = n (largest remainders). Spec §1.2 (b); free post-processing."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    R, p = x.shape
    if n == 0:
        return np.zeros_like(x)
    u = -np.sort(-x, axis=1)
    css = np.cumsum(u, axis=1) - n
    j = np.arange(1, p + 1)
    rho = (u - css / j > 0).sum(axis=1)                      # ≥ 1 always
    theta = css[np.arange(R), rho - 1] / rho
    h = np.maximum(x - theta[:, None], 0.0)
    fl = np.floor(h)
    short = (n - fl.sum(axis=1)).round().astype(np.int64)
    frac = h - fl
    order = np.argsort(-frac, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(p)[None, :].repeat(R, axis=0), axis=1)
    return fl + (ranks < short[:, None])


def _postprocess_dense(v: np.ndarray, how: str, n: int) -> np.ndarray:
    if how == "clip-round":
        return np.maximum(np.round(v), 0.0)
    if how == "simplex":
        return simplex_round(v, n)
    return v


# -- samplers (vectorised over replicates; the releases and the audits call these) --------------------------
def _dense_rows(p: int, reps: int) -> int:
    if reps * p > MAX_DENSE_WORK:
        raise DPValueError(f"reps × p = {reps:,} × {p:,} = {reps * p:,} noise draws exceeds the limit "
                           f"{MAX_DENSE_WORK:,} (2^26); lower the replicates or p.")
    return max(1, _CHUNK // p)


def sample_histogram(counts: SparseCounts, cal: Calibration, reps: int, rng: RNGLike = None) -> np.ndarray:
    """``reps`` independent releases of the per-cell mechanism of ``cal``: array (reps, p)."""
    p = counts.p
    _check_dense(p)
    rows = _dense_rows(p, reps)
    g = as_generator(rng)
    dense = counts.to_dense().astype(float)
    out = np.empty((reps, p))
    for lo in range(0, reps, rows):
        hi = min(reps, lo + rows)
        out[lo:hi] = _postprocess_dense(dense[None, :] + _noise(cal.params["noise"], cal.constant, (hi - lo, p), g),
                                        cal.params["postprocess"], counts.n)
    return out


def _taus(counts: SparseCounts, cal: Calibration, reps: int, g: np.random.Generator):
    """τ of each replicate (and the released q̂ under the noisy-q rule)."""
    p, b = counts.p, cal.constant
    if cal.params["tau_rule"] == "noisy q":
        scale = cal.params["q_noise_scale"]
        q_t = counts.q + (g.laplace(0.0, scale, reps) if scale else np.zeros(reps))
        q_hat = np.clip(np.round(q_t), 1, p)
        return b * np.log(p / q_hat), q_hat
    q_pub = cal.params["q_for_tau"]
    return np.full(reps, b * math.log(p / q_pub)), None


def _unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sort-based: numpy's hash-based np.unique is slow on large int64 keys)."""
    a = np.sort(x)
    return a[np.concatenate([[True], a[1:] != a[:-1]])] if a.size else a


def _distinct_ranks(F: np.ndarray, M: int, g: np.random.Generator, replace: bool) -> tuple[np.ndarray, np.ndarray]:
    """For each replicate r, F[r] ranks in [0, M): distinct and uniform over F[r]-subsets (the first F[r]
    distinct values of an iid uniform sequence: exchangeability), or, if ``replace`` (the broken
    mutant), F[r] iid draws with duplicates collapsed. Returns (rep, rank) sorted."""
    R = F.size
    if replace:
        rep = np.repeat(np.arange(R), F)
        keys = _unique(rep * M + g.integers(0, M, rep.size)) if rep.size else np.empty(0, np.int64)
        return keys // M, keys % M
    done, cur = [], np.empty(0, dtype=np.int64)
    complete = F == 0
    need = F.astype(np.int64).copy()
    while not complete.all():
        rep = np.repeat(np.arange(R), need)
        cur = _unique(np.concatenate([cur, rep * M + g.integers(0, M, rep.size)]))
        need = np.where(complete, 0, F - np.bincount(cur // M, minlength=R))
        complete |= need == 0
        finished = complete[cur // M]                        # replicates complete: set their keys aside
        done.append(cur[finished])
        cur = cur[~finished]
    keys = np.sort(np.concatenate(done)) if done else np.empty(0, dtype=np.int64)
    return keys // M, keys % M


def sample_threshold(counts: SparseCounts, cal: Calibration, reps: int, rng: RNGLike = None) -> BatchHistogram:
    """``reps`` independent thresholded releases (sparse or naive sampler, per ``cal.params``)."""
    g = as_generator(rng)
    p, b, kind = counts.p, cal.constant, cal.params["noise"]
    if reps * p >= 2**62 // 2 and cal.params["sampler"] == "sparse":
        raise DPValueError(f"reps × p = {reps * p:,} is too large for the sparse sampler's keys; lower reps.")
    tau, q_hat = _taus(counts, cal, reps, g)
    if cal.params["sampler"] == "dense":
        _check_dense(p)
        rows = _dense_rows(p, reps)
        dense = counts.to_dense().astype(float)
        parts = []
        for lo in range(0, reps, rows):
            hi = min(reps, lo + rows)
            x = dense[None, :] + _noise(kind, b, (hi - lo, p), g)
            r, c = np.nonzero(x > tau[lo:hi, None])
            parts.append((r + lo, c.astype(np.int64), x[r, c]))
        rep = np.concatenate([a for a, _, _ in parts])
        cells = np.concatenate([c for _, c, _ in parts])
        vals = np.concatenate([v for _, _, v in parts])
    else:
        q = counts.q
        x = counts.counts[None, :] + _noise(kind, b, (reps, q), g)          # occupied cells, explicitly
        r_o, j_o = np.nonzero(x > tau[:, None])
        M = p - q                                                            # empty cells
        F = g.binomial(M, survival_probability(kind, b, tau)) if M > 0 else np.zeros(reps, np.int64)
        replace = cal.params.get("locations") == "with replacement"
        r_e, ranks = _distinct_ranks(np.asarray(F, np.int64), M, g, replace) if M > 0 else (
            np.empty(0, np.int64), np.empty(0, np.int64))
        shift = counts.cells - np.arange(q)                                 # empty cells before each occupied one
        cells_e = ranks + np.searchsorted(shift, ranks, side="right")
        vals_e = _tail_values(kind, b, tau[r_e], g)
        rep = np.concatenate([r_o, r_e]).astype(np.int64)
        cells = np.concatenate([counts.cells[j_o], cells_e]).astype(np.int64)
        vals = np.concatenate([x[r_o, j_o], vals_e])
        order = np.lexsort((cells, rep))
        rep, cells, vals = rep[order], cells[order], vals[order]
    if cal.params["postprocess"] == "round":
        vals = np.round(vals)
        keep = vals != 0
        rep, cells, vals = rep[keep], cells[keep], vals[keep]
    return BatchHistogram(reps, p, rep, cells, vals, tau, q_hat)


# -- releases -----------------------------------------------------------------------------------------------
def true_counts(data: Any, config: Any) -> np.ndarray:
    """The non-private count vector (length p; small p). Not a mechanism."""
    return as_counts(data, config.p).to_dense()


def _diagnostics(counts: SparseCounts, value: Any) -> Diagnostics:
    return Diagnostics(values={"occupied cells q (non-private)": counts.q, "records n": counts.n,
                               **{f"{k} error (non-private)": v for k, v in histogram_errors(value, counts).items()}})


def histogram_release(data: Any, config: HistogramConfig, *, rng: RNGLike = None,
                      override: Optional[Callable[[Calibration], Calibration]] = None) -> Release:
    """One release of the per-cell mechanism: ``value`` is the length-p vector of released counts.

    ``data``: :class:`~dpcore.histograms.tables.SparseCounts` over ``config.p`` cells, or integer records.
    """
    counts = as_counts(data, config.p)
    cal = calibrate_histogram(config)
    cal = override(cal) if override else cal
    value = sample_histogram(counts, cal, 1, rng)[0]
    notes = (Note("info", f"{_noise_text(config.noise)} = {cal.constant:.4g} in each of the p = {config.p:,} cells; "
                          f"expected ℓ1 error p·E|Z| ≈ {config.p * cal.constant:,.4g}."),)
    return Release("histograms/laplace", value, cal.cost(1), cal, True, notes, _diagnostics(counts, value), config)


def threshold_release(data: Any, config: ThresholdConfig, *, rng: RNGLike = None,
                      override: Optional[Callable[[Calibration], Calibration]] = None) -> Release:
    """One thresholded release: ``value`` is a :class:`~dpcore.histograms.tables.SparseHistogram`
    (cells sorted by index; τ and, with the noisy-q rule, q̂ are part of the release)."""
    counts = as_counts(data, config.p)
    cal = calibrate_threshold(config)
    cal = override(cal) if override else cal
    value = sample_threshold(counts, cal, 1, rng).replicate(0)
    fp = (config.p - counts.q) * float(survival_probability(config.noise, cal.constant, value.tau))
    # with the noisy-q rule τ is a function of the released q̂: both notes restate the noised output ("output")
    kind = "info" if value.q_hat is None else "output"
    notes = [Note(kind, f"τ = {value.tau:.4g}; an empty cell survives with probability "
                          f"{float(survival_probability(config.noise, cal.constant, value.tau)):.3g}"
                          + (" = 1/(2p)" if config.tau_rule == "log p" and config.noise == "laplace" else "") + ".")]
    if value.q_hat is not None:
        notes.append(Note("output", f"released noisy number of occupied cells q̂ = {value.q_hat:.0f} "
                                    f"(ε_q = {cal.params['epsilon_q']:.4g} of the total ε)."))
    if config.sampler == "sparse":
        notes.append(Note("warning", "The sparse sampler's running time grows with q (the number of occupied cells): "
                                     "the time a release takes is not part of the DP guarantee."))
    diag = _diagnostics(counts, value)
    diag = Diagnostics(values={**diag.values, "expected false positives (non-private: uses q)": fp})
    return Release("histograms/threshold", value, cal.cost(1), cal, True, tuple(notes), diag, config)


@dataclass(frozen=True, eq=False)
class PairValue:
    """One noisy draw of every cell (``laplace``, length p) and its thresholded version (``threshold``)."""

    laplace: np.ndarray
    threshold: SparseHistogram

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.threshold, dtype=dtype)


#: Readable names of the error measures of :func:`~dpcore.histograms.tables.histogram_errors` (issue 20: a
#: diagnostics header read "false_positives error").
ERROR_NAMES = {"l1": "ℓ1 error", "l2": "ℓ2 error", "max": "largest cell error", "false_positives": "false positives",
               "missed": "occupied cells released as 0"}


def laplace_and_threshold_release(data: Any, config: ThresholdConfig, *, rng: RNGLike = None) -> Release:
    """ONE noisy draw of all p cells, released as is AND thresholded at τ: the thresholded histogram is
    post-processing of the same draw, so the pair costs ε once (spec §1.4). Needs ``sampler="dense"``
    and a public τ (rule "log p" or "public q bound")."""
    if config.sampler != "dense" or config.tau_rule == "noisy q":
        raise DPValueError("the Laplace + thresholded pair needs sampler = 'dense' and a public τ (tau_rule 'log p' or "
                           "'public q bound').")
    counts = as_counts(data, config.p)
    cal = calibrate_threshold(config)
    # the per-cell draw is the audited histogram sampler's (histograms/laplace audits); thresholding is post-processing
    per_cell = calibrate_histogram(HistogramConfig(config.epsilon, config.p, config.neighbours, config.noise))
    x = sample_histogram(counts, per_cell, 1, as_generator(rng))[0]
    tau = cal.constant * math.log(config.p / cal.params["q_for_tau"])
    cells = np.flatnonzero(x > tau)
    vals = x[cells]
    if config.postprocess == "round":
        vals = np.round(vals)
        cells, vals = cells[vals != 0], vals[vals != 0]
    thr = SparseHistogram(config.p, cells.astype(np.int64), vals, tau)
    notes = (Note("info", "The per-cell vector and its thresholded version come from the same draw: thresholding is "
                          "post-processing, so the pair costs ε once."),
             Note("info", f"τ = {tau:.4g}; {_noise_text(config.noise)} = {cal.constant:.4g}."))
    diag = Diagnostics(values={**{f"{ERROR_NAMES.get(k, k)}, Laplace per cell (non-private)": v
                                  for k, v in histogram_errors(x, counts).items()},
                               **{f"{ERROR_NAMES.get(k, k)}, thresholded (non-private)": v
                                  for k, v in histogram_errors(thr, counts).items()},
                               "occupied cells q (non-private)": counts.q})
    return Release("histograms/threshold", PairValue(x, thr), cal.cost(1), cal, True, notes, diag, config)


def oracle_threshold(data: Any, config: ThresholdConfig, *, reps: int = 1, rng: RNGLike = None) -> BatchHistogram:
    """NON-PRIVATE ORACLE (for comparison only): thresholding at τ = b·log(p/q) with the data's own q.

    τ then depends on q, which changes between neighbours (spec correction 2): this is not
    differentially private and returns no Release, only the outputs for error comparisons.
    """
    counts = as_counts(data, config.p)
    cal = calibrate_threshold(ThresholdConfig(config.epsilon, config.p, config.neighbours, config.noise,
                                              sampler=config.sampler, postprocess=config.postprocess))
    cal = cal.replace(params={"tau_rule": "public q bound", "q_for_tau": max(counts.q, 1)})
    return sample_threshold(counts, cal, reps, rng)


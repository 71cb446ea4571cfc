"""Configs of the private histograms (Hall 2012, thesis slides Part 1; spec §1): frozen, self-validating.

:class:`HistogramConfig` — noise in every cell (Laplace or two-sided geometric) with optional
post-processing; :class:`ThresholdConfig` — the same noisy cells, hard-thresholded at τ = b·log(p/q′).
Their calibrations are in :mod:`dpcore.histograms.calibration`, releases in :mod:`dpcore.histograms.release`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .._validation import check_choice, check_epsilon, check_int
from ..errors import DPValueError
from ._tables import MAX_DENSE_CELLS, check_p

__all__ = ["NEIGHBOURS", "NOISES", "HISTOGRAM_POST", "TAU_RULES", "SAMPLERS", "THRESHOLD_POST", "DEFAULT_Q_SHARE",
           "HistogramConfig", "ThresholdConfig"]

NEIGHBOURS = ("replace-one", "add/remove-one")
NOISES = ("laplace", "geometric")
HISTOGRAM_POST = ("none", "clip-round", "simplex")
TAU_RULES = ("log p", "public q bound", "noisy q")
SAMPLERS = ("sparse", "dense")
THRESHOLD_POST = ("none", "round")
DEFAULT_Q_SHARE = 0.1


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
    noise: str = "geometric"
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
    noise: str = "geometric"
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

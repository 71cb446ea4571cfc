"""Configs of the private density estimators (Hall 2012 thesis, Parts 2–3; Hall, Rinaldo & Wasserman 2013):
frozen, self-validating dataclasses, one per family — GP-KDE, Fourier/Laplace, K-norm, private bandwidth,
kernel SVM. Their caps (grid points, coefficients, proposals, draws) are checked here, from public
parameters, before anything is computed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .._validation import check_choice, check_delta, check_epsilon, check_int, check_positive
from ..errors import DPValueError
from ._fourier import MAX_COEFFICIENTS, WEIGHTS
from ._kde import MAX_GRID_PER_AXIS, MAX_GRID_POINTS, check_bandwidth, check_draw_values, check_hall
from ._knorm import MAX_K, check_knorm_work

__all__ = ["GPKDEConfig", "FourierConfig", "KNormConfig", "BandwidthConfig", "SVMConfig", "METHODS",
           "CompareConfig"]


@dataclass(frozen=True)
class GPKDEConfig:
    """Public parameters of the GP-KDE release.

    Attributes
    ----------
    epsilon, delta : float
        (ε, δ) of ONE draw (the slides write (α, β)).
    bandwidth : float
        Public bandwidth h on the unit-cube scale (never computed from the data).
    grid : int
        Grid points per axis (≤ 4096; all axes together ≤ 262 144).
    d : int
        Dimension, 1 or 2.
    calibration : {"auto", "hall", "analytic"}
        Hall's c(δ) (only ε ≤ 2.7), the exact analytic Gaussian, or auto (Hall where allowed).
    binning : {"auto", "exact", "linear"}
        How f_D is computed: exact kernel sums, or linear binning on ``bins`` fine cells (same Δ).
    bins : int
        Fine cells per axis for linear binning.
    size : int
        Number of independent draws (costs compose: size × (ε, δ)).
    """

    epsilon: float = 1.0
    delta: float = 1e-3
    bandwidth: float = 0.05
    grid: int = 256
    d: int = 1
    calibration: str = "auto"
    binning: str = "auto"
    bins: int = 2048
    size: int = 1

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_bandwidth(self.bandwidth)
        check_int(self.d, "d", lo=1, hi=2)
        check_int(self.grid, "grid", lo=2, hi=MAX_GRID_PER_AXIS)
        if self.grid ** self.d > MAX_GRID_POINTS:
            raise DPValueError(f"grid = {self.grid} points per axis in d = {self.d} gives {self.grid ** self.d:,} grid "
                               f"points, above the cap {MAX_GRID_POINTS:,}; use grid ≤ "
                               f"{int(MAX_GRID_POINTS ** (1 / self.d))}.")
        check_choice(self.calibration, "calibration", ("auto", "hall", "analytic"))
        check_choice(self.binning, "binning", ("auto", "exact", "linear"))
        check_int(self.bins, "bins", lo=16, hi=16_384)
        check_int(self.size, "size", lo=1, hi=1000)
        check_draw_values(self.size, self.grid, self.d)
        check_hall(self.calibration, self.epsilon)


@dataclass(frozen=True)
class FourierConfig:
    """Public parameters of the Fourier/Laplace KDE.

    Attributes
    ----------
    epsilon : float
        ε of one draw (pure ε-DP; the slides write α).
    k : int
        Truncation: frequencies 1..k per axis (m = 2k + 1 basis functions per axis).
    bandwidth : float
        Public h of the periodic Gaussian kernel.
    grid : int
        Evaluation grid points per axis.
    d : int
        1 or 2.
    weights : {"wrapped_normal", "slide"}
    sensitivity : {"tight", "crude"}
        Δ₁ = 4k/n (d = 1 only) or 2·2^{d/2}(m^d − 1)/n.
    size : int
        Independent draws (cost size × ε).
    """

    epsilon: float = 1.0
    k: int = 8
    bandwidth: float = 0.05
    grid: int = 256
    d: int = 1
    weights: str = "wrapped_normal"
    sensitivity: str = "tight"
    size: int = 1

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_int(self.k, "k", lo=1, hi=2000)
        check_bandwidth(self.bandwidth)
        check_int(self.d, "d", lo=1, hi=2)
        check_int(self.grid, "grid", lo=2, hi=MAX_GRID_PER_AXIS)
        if self.grid ** self.d > MAX_GRID_POINTS:
            raise DPValueError(f"grid = {self.grid} per axis in d = {self.d} exceeds the cap of {MAX_GRID_POINTS:,} "
                               "grid points; lower grid.")
        if (2 * self.k + 1) ** self.d > MAX_COEFFICIENTS:
            raise DPValueError(f"k = {self.k} in d = {self.d} gives {(2 * self.k + 1) ** self.d:,} coefficients, above "
                               f"the cap {MAX_COEFFICIENTS:,}; lower k.")
        check_choice(self.weights, "weights", WEIGHTS)
        check_choice(self.sensitivity, "sensitivity", ("tight", "crude"))
        if self.sensitivity == "tight" and self.d != 1:
            raise DPValueError("sensitivity = 'tight' (4k/n) is derived for d = 1 only; use sensitivity = 'crude' "
                               "for d = 2.")
        check_int(self.size, "size", lo=1, hi=1000)
        check_draw_values(self.size, self.grid, self.d)


@dataclass(frozen=True)
class KNormConfig:
    """Public parameters of the K-norm KDE (d = 1).

    Attributes
    ----------
    epsilon : float
        ε (pure ε-DP with the exact sampler).
    k : int
        Truncation 1..5 (body of dimension 2k).
    bandwidth, grid, weights : as :class:`FourierConfig`.
    body_grid : int
        G: data are rounded to i/G and the body is built on the same grid.
    sampler : {"rejection", "hit-and-run"}
        Exact rejection (default) or hit-and-run (APPROXIMATELY private).
    steps : int
        Hit-and-run steps per draw (fresh chain per draw).
    size : int
    """

    epsilon: float = 1.0
    k: int = 3
    bandwidth: float = 0.05
    grid: int = 256
    weights: str = "wrapped_normal"
    body_grid: int = 256
    sampler: str = "rejection"
    steps: int = 200
    size: int = 1

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_int(self.k, "k", lo=1, hi=MAX_K)
        check_bandwidth(self.bandwidth)
        check_int(self.grid, "grid", lo=2, hi=MAX_GRID_PER_AXIS)
        check_choice(self.weights, "weights", WEIGHTS)
        check_int(self.body_grid, "body_grid", lo=2 * self.k + 2, hi=MAX_GRID_PER_AXIS)
        check_choice(self.sampler, "sampler", ("rejection", "hit-and-run"))
        check_int(self.steps, "steps", lo=1, hi=100_000)
        check_int(self.size, "size", lo=1, hi=200)
        if self.k >= 5 and self.size > 5:
            raise DPValueError(f"k = 5 accepts ≈ 0.7 % of proposals; size = {self.size} draws would take minutes; "
                               "use size ≤ 5 or k ≤ 4.")
        if self.sampler == "rejection":
            check_knorm_work(self.k, self.size)


@dataclass(frozen=True)
class BandwidthConfig:
    """ε for the bandwidth (split over the 2d quartiles), dimension d, public floor h_min, draws."""

    epsilon: float = 0.2
    d: int = 1
    h_min: float = 1e-3
    size: int = 1

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_int(self.d, "d", lo=1, hi=2)
        check_positive(self.h_min, "h_min")
        check_int(self.size, "size", lo=1, hi=100_000)


@dataclass(frozen=True)
class SVMConfig:
    """Public parameters: (ε, δ), λ, kernel width h, solver gap target g, grid points per axis (d = 2)."""

    epsilon: float = 1.0
    delta: float = 1e-3
    lam: float = 0.01
    bandwidth: float = 0.15
    gap: float = 1e-5
    grid: int = 40
    calibration: str = "auto"
    max_epochs: int = 2000
    size: int = 1

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_positive(self.lam, "lam")
        check_positive(self.bandwidth, "bandwidth")
        check_positive(self.gap, "gap")
        check_int(self.grid, "grid", lo=2, hi=512)
        check_choice(self.calibration, "calibration", ("auto", "hall", "analytic"))
        check_int(self.max_epochs, "max_epochs", lo=1, hi=100_000)
        check_int(self.size, "size", lo=1, hi=1000)
        check_hall(self.calibration, self.epsilon)


#: The estimates the page compares (:class:`CompareConfig`).
METHODS = ("gp", "fourier-laplace", "knorm")


@dataclass(frozen=True)
class CompareConfig:
    """Public settings shared by the three estimates (see each mechanism's config for the details).

    ``k``: Fourier truncation; ``knorm_k``: K-norm truncation (≤ 4 here: the exact sampler slows fast);
    ``draws``: independent draws per method (for the band; every draw is charged);
    ``bandwidth_epsilon`` > 0: h is NOT the public ``bandwidth`` but the HRW rule on private quartiles
    (:mod:`.release.bandwidth`), released first at this ε and charged too."""

    epsilon: float = 1.0
    delta: float = 1e-3
    bandwidth: float = 0.05
    grid: int = 128
    d: int = 1
    k: int = 8
    knorm_k: int = 3
    draws: int = 10
    methods: tuple = METHODS
    bandwidth_epsilon: float = 0.0

    def __post_init__(self):
        if self.bandwidth_epsilon:
            check_epsilon(self.bandwidth_epsilon, "bandwidth_epsilon")
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_int(self.draws, "draws", lo=1, hi=100)
        check_int(self.knorm_k, "knorm_k", lo=1, hi=4)
        object.__setattr__(self, "methods", tuple(self.methods))
        bad = [m for m in self.methods if m not in METHODS]
        if bad or not self.methods:
            raise DPValueError(f"methods = {list(self.methods)}: choose among {list(METHODS)}.")
        if self.d != 1 and "knorm" in self.methods:
            raise DPValueError("the K-norm estimate is for d = 1 only (sampling the d > 1 body is an open problem); "
                               "untick it or use one column.")
        self.configs()                      # validates bandwidth, grid, d, k through the mechanisms' configs

    def configs(self) -> Mapping[str, Any]:
        out: dict[str, Any] = {}
        if "gp" in self.methods:
            out["gp"] = GPKDEConfig(epsilon=self.epsilon, delta=self.delta, bandwidth=self.bandwidth,
                                    grid=self.grid, d=self.d, size=self.draws)
        if "fourier-laplace" in self.methods:
            out["fourier-laplace"] = FourierConfig(epsilon=self.epsilon, k=self.k, bandwidth=self.bandwidth,
                                                   grid=self.grid, d=self.d, size=self.draws,
                                                   sensitivity="tight" if self.d == 1 else "crude")
        if "knorm" in self.methods:
            out["knorm"] = KNormConfig(epsilon=self.epsilon, k=self.knorm_k, bandwidth=self.bandwidth,
                                       grid=self.grid, size=self.draws)
        return out

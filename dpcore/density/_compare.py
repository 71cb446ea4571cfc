"""The density page's one call: release GP, Fourier/Laplace and (d = 1) K-norm estimates on the same data.

Each mechanism is released independently with its own calibration; the total cost is their basic
composition (ε's and δ's add), each already multiplied by the number of draws. Data enter as a
:class:`~dpcore.data.Dataset` plus 1 or 2 columns with PUBLIC bounds (rescaled to the unit cube).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpcore._rng import as_generator
from dpcore._validation import check_delta, check_epsilon, check_int
from dpcore.errors import Cancelled, DPValueError
from dpcore.mechanism import Release, frozen_mapping
from dpcore.privacy import PrivacyCost
from dpcore.privacy.accounting import compose_entry

from . import bandwidth as Bw
from . import fourier as F
from . import kde as K
from . import knorm as Kn
from .designs import mixture, to_unit_cube

__all__ = ["CompareConfig", "Comparison", "compare_release", "unit_cube_columns", "mixture_dataset",
           "comparison_costs", "nonprivate_reference", "METHODS"]

METHODS = ("gp", "fourier-laplace", "knorm")


@dataclass(frozen=True)
class CompareConfig:
    """Public settings shared by the three estimates (see each mechanism's config for the details).

    ``k``: Fourier truncation; ``knorm_k``: K-norm truncation (≤ 4 here: the exact sampler slows fast);
    ``draws``: independent draws per method (for the band; every draw is charged);
    ``bandwidth_epsilon`` > 0: h is NOT the public ``bandwidth`` but the HRW rule on private quartiles
    (:mod:`.bandwidth`), released first at this ε and charged too."""

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
            out["gp"] = K.GPKDEConfig(epsilon=self.epsilon, delta=self.delta, bandwidth=self.bandwidth,
                                      grid=self.grid, d=self.d, size=self.draws)
        if "fourier-laplace" in self.methods:
            out["fourier-laplace"] = F.FourierConfig(epsilon=self.epsilon, k=self.k, bandwidth=self.bandwidth,
                                                     grid=self.grid, d=self.d, size=self.draws,
                                                     sensitivity="tight" if self.d == 1 else "crude")
        if "knorm" in self.methods:
            out["knorm"] = Kn.KNormConfig(epsilon=self.epsilon, k=self.knorm_k, bandwidth=self.bandwidth,
                                          grid=self.grid, size=self.draws)
        return out


def check_compare_work(config: CompareConfig, n: int) -> None:
    """Refuse, before any work, a comparison whose work on n (public) records exceeds a cap: draws × grid^d
    and the K-norm proposals are checked by the methods' configs; here the Fourier coefficients, n·(2k+1)^d."""
    if "fourier-laplace" in config.methods:
        F.check_coefficient_work(check_int(n, "n", lo=1), config.k, config.d)


def comparison_costs(config: CompareConfig, n: int) -> list[PrivacyCost]:
    """The cost of each method's draws (known before any draw: shown beside the button); refuses work over
    the caps first (:func:`check_compare_work`)."""
    check_compare_work(config, n)
    cal: dict[str, Any] = {"gp": K.calibrate_gp, "fourier-laplace": F.calibrate_fourier, "knorm": Kn.calibrate_knorm}
    out = [cal[m](c, n).cost(config.draws) for m, c in config.configs().items()]
    if config.bandwidth_epsilon:
        out.insert(0, Bw.calibrate_bandwidth(Bw.BandwidthConfig(epsilon=config.bandwidth_epsilon, d=config.d), n).cost(1))
    return out


@dataclass(frozen=True)
class Comparison:
    """The releases (one :class:`Release` per method) and their composed cost."""

    releases: Mapping[str, Release]
    cost: PrivacyCost
    grid: np.ndarray
    bandwidth: Release | None = None

    @property
    def h(self) -> float | None:
        """The released private bandwidth, or None when the public one was used."""
        return None if self.bandwidth is None else float(self.bandwidth.value[0])

    def frame(self) -> pd.DataFrame:
        """Long frame of the released draws (d = 1: method, draw, x, density; d = 2: x1, x2)."""
        parts = []
        for m, r in self.releases.items():
            v = np.asarray(r.value)
            if v.ndim == 2:
                for i, row in enumerate(v):
                    parts.append(pd.DataFrame({"method": m, "draw": i, "x": self.grid, "density": row}))
            else:
                x1, x2 = np.meshgrid(self.grid, self.grid, indexing="ij")
                for i, row in enumerate(v):
                    parts.append(pd.DataFrame({"method": m, "draw": i, "x1": x1.ravel(), "x2": x2.ravel(),
                                               "density": row.ravel()}))
        return pd.concat(parts, ignore_index=True)


def compare_release(x, config: CompareConfig, *, rng=None, progress=None) -> Comparison:
    """Release every chosen method's ``draws`` on the unit-cube data x (n, d); independent streams.

    ``progress(done, total) -> bool`` is called before each method and after the last (steps: the private
    bandwidth, then each method); False raises :class:`~dpcore.errors.Cancelled` (nothing is returned)."""
    check_compare_work(config, len(x))
    steps = len(config.methods) + bool(config.bandwidth_epsilon)

    def step(done: int) -> None:
        if progress is not None and progress(done, steps) is False:
            raise Cancelled("density release stopped", done=done, total=steps)
    g = as_generator(rng)
    bw = None
    step(0)
    if config.bandwidth_epsilon:
        bw = Bw.bandwidth_release(x, Bw.BandwidthConfig(epsilon=config.bandwidth_epsilon, d=config.d), rng=g.spawn(1)[0])
        config = dataclasses.replace(config, bandwidth=float(bw.value[0]), bandwidth_epsilon=0.0)
        step(1)
    fns: dict[str, Any] = {"gp": K.gp_release, "fourier-laplace": F.fourier_release, "knorm": Kn.knorm_release}
    cfgs = config.configs()
    streams = g.spawn(len(cfgs))
    rel = {}
    for (m, c), s in zip(cfgs.items(), streams):
        rel[m] = fns[m](x, c, rng=s)
        step(steps - len(cfgs) + len(rel))
    costs = ([bw.cost] if bw is not None else []) + [r.cost for r in rel.values()]
    return Comparison(frozen_mapping(rel), compose_entry(costs), K.grid_axis(config.grid), bw)


def unit_cube_columns(ds, columns) -> tuple[np.ndarray, int, list[tuple[float, float]]]:
    """The columns through the data package (n public: missing → public value, clipped to bounds), rescaled
    to [0, 1] by their PUBLIC bounds. Returns (x (n, d), records clipped, bounds)."""
    from dpcore.data import public_columns

    cols = list(columns)
    if len(cols) not in (1, 2):
        raise DPValueError(f"choose 1 or 2 columns for a density (got {len(cols)}).")
    pc = public_columns(ds, cols)
    x, clipped = to_unit_cube(pc.values, pc.lower, pc.upper)
    clipped = max(clipped, sum(p.diagnostics.n_clipped for p in pc.parts))
    return x, clipped, list(zip(pc.lower.tolist(), pc.upper.tolist()))


def mixture_dataset(n: int, d: int, *, rng) -> Any:
    """The figures' mixture as a public simulated Dataset with bounds [0, 1] per column."""
    from dpcore.data import Dataset

    n = check_int(n, "n", lo=2, hi=1_000_000)
    x = mixture(d).sample(n, rng)
    cols = tuple(f"x{j + 1}" for j in range(d))
    frame = pd.DataFrame(x, columns=cols)
    frame.index.name = "row"
    return Dataset(frame, cols, {c: (0.0, 1.0) for c in cols},
                   f"simulated two-component Gaussian mixture truncated to [0, 1]^{d}, n = {n}",
                   name="simulated mixture", kind="simulated")


def nonprivate_reference(x, config: CompareConfig, bandwidth: float | None = None) -> np.ndarray:
    """The non-private Gaussian KDE on the page's grid (NOT private: a teaching view / diagnostic), at
    ``bandwidth`` (default the config's; pass the released private h when one was used)."""
    h = config.bandwidth if bandwidth is None else float(bandwidth)
    return K.nonprivate_kde(x, K.GPKDEConfig(bandwidth=h, grid=config.grid, d=config.d))

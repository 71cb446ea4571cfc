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
from dpcore._validation import check_int
from dpcore.errors import Cancelled, DPValueError
from dpcore.mechanism import Release, frozen_mapping
from dpcore.privacy import PrivacyCost
from dpcore.privacy.accounting import compose_entry

from . import _fourier as F
from . import _kde as K
from . import release as releases
from .calibration import calibrate_bandwidth, calibrate_fourier, calibrate_gp, calibrate_knorm
from .configs import BandwidthConfig, CompareConfig, GPKDEConfig
from .designs import mixture, to_unit_cube

__all__ = ["Comparison", "compare_release", "unit_cube_columns", "mixture_dataset",
           "comparison_costs", "nonprivate_reference", "check_compare_work"]


def check_compare_work(config: CompareConfig, n: int) -> None:
    """Refuse, before any work, a comparison whose work on n (public) records exceeds a cap: draws × grid^d
    and the K-norm proposals are checked by the methods' configs; here the Fourier coefficients, n·(2k+1)^d."""
    if "fourier-laplace" in config.methods:
        F.check_coefficient_work(check_int(n, "n", lo=1), config.k, config.d)


def comparison_costs(config: CompareConfig, n: int) -> list[PrivacyCost]:
    """The cost of each method's draws (known before any draw: shown beside the button); refuses work over
    the caps first (:func:`check_compare_work`)."""
    check_compare_work(config, n)
    cal: dict[str, Any] = {"gp": calibrate_gp, "fourier-laplace": calibrate_fourier, "knorm": calibrate_knorm}
    out = [cal[m](c, (n,)).cost(config.draws) for m, c in config.configs().items()]
    if config.bandwidth_epsilon:
        out.insert(0, calibrate_bandwidth(BandwidthConfig(epsilon=config.bandwidth_epsilon, d=config.d), (n,)).cost(1))
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
        bw = releases.bandwidth.release(x, BandwidthConfig(epsilon=config.bandwidth_epsilon, d=config.d), rng=g.spawn(1)[0])
        config = dataclasses.replace(config, bandwidth=float(bw.value[0]), bandwidth_epsilon=0.0)
        step(1)
    fns: dict[str, Any] = {"gp": releases.kde.release, "fourier-laplace": releases.fourier.release,
                           "knorm": releases.knorm.release}
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
    return K.nonprivate_kde(x, GPKDEConfig(bandwidth=h, grid=config.grid, d=config.d))

"""Simulated datasets for the Data page: univariate laws.

Every random function takes ``rng``. Simulated datasets carry *public* bounds taken from the
simulator's design, never computed from the sample, and ``kind="simulated"`` (public demo data).
A topic's own designs (e.g. the KNG paper's regressions, :data:`dpcore.kng.REGRESSION_SIMULATORS`) are
:class:`SimulatorInfo` s of that topic, built with :func:`merge_params` and :func:`describe_rng`; this
shared module imports no topic.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from .._rng import RNGLike, as_generator
from .._validation import check_bounds, check_finite, check_int, check_positive
from ..errors import DataError
from ._format import fmt
from .dataset import Dataset

__all__ = [
    "MAX_DATASET_ROWS",
    "MAX_UNIVARIATE_N",
    "SIMULATORS",
    "UNIVARIATE_KINDS",
    "SimulatorInfo",
    "describe_rng",
    "merge_params",
    "simulate_dataset",
    "simulate_univariate",
]

#: Largest n for :func:`simulate_univariate`.
MAX_UNIVARIATE_N = 10_000_000
#: Largest number of rows of a simulated :class:`Dataset` (same as the CSV loader's default).
MAX_DATASET_ROWS = 1_000_000
UNIVARIATE_KINDS = ("normal", "uniform", "skewed", "heavy_tailed")
#: Tail mass Φ(−4) used for the design bounds of unbounded laws (normal: loc ± 4·scale).
_DESIGN_TAIL = 3.167124183311992e-05


@dataclass(frozen=True)
class SimulatorInfo:
    """A simulator the Data page can offer: its name, a label, a description and parameter defaults."""

    name: str
    label: str
    description: str
    defaults: Mapping[str, Any]


SIMULATORS: Mapping[str, SimulatorInfo] = MappingProxyType({
    "normal": SimulatorInfo("normal", "Normal", "x ~ N(loc, scale²); declared bounds loc ± 4·scale (design choice).",
                            MappingProxyType({"loc": 0.0, "scale": 1.0})),
    "uniform": SimulatorInfo("uniform", "Uniform", "x ~ U(low, high); declared bounds (low, high).",
                             MappingProxyType({"low": 0.0, "high": 1.0})),
    "skewed": SimulatorInfo("skewed", "Skewed (log-normal)",
                            "x = exp(mu + sigma·Z), Z ~ N(0,1); declared bounds (0, exp(mu + 4·sigma)).",
                            MappingProxyType({"mu": 0.0, "sigma": 1.0})),
    "heavy_tailed": SimulatorInfo("heavy_tailed", "Heavy-tailed (Student t)",
                                  "x ~ t(df); declared bounds ± the t(df) quantile at 1 − Φ(−4) (same tail mass "
                                  "as the normal's ± 4 sd).", MappingProxyType({"df": 2.0})),
})


def _float_param(params: dict, key: str, *, positive: bool = False) -> float:
    """A simulator parameter as a finite float (> 0 when ``positive``)."""
    return check_positive(params[key], key) if positive else check_finite(params[key], key)


def merge_params(info: SimulatorInfo, params: dict) -> dict:
    """The simulator's default parameters updated by ``params`` (an unknown one is refused, naming the known)."""
    defaults = dict(info.defaults)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise DataError(f"simulator {info.name!r} has no parameter(s) {', '.join(map(repr, unknown))}; "
                        f"its parameters are {', '.join(map(repr, defaults))}.")
    defaults.update(params)
    return defaults


def _merge_params(kind: str, params: dict) -> dict:
    return merge_params(SIMULATORS[kind], params)


def _check_kind(kind: Any, choices: tuple[str, ...]) -> str:
    if kind not in choices:
        raise DataError(f"kind = {kind!r} is not a simulator; choose one of {', '.join(map(repr, choices))}.")
    return kind


def _univariate_params(kind: str, params: dict) -> dict:
    p = _merge_params(kind, params)
    if kind == "normal":
        return {"loc": _float_param(p, "loc"), "scale": _float_param(p, "scale", positive=True)}
    if kind == "uniform":
        low, high = check_bounds(p["low"], p["high"], name="uniform (low, high)")
        return {"low": low, "high": high}
    if kind == "skewed":
        return {"mu": _float_param(p, "mu"), "sigma": _float_param(p, "sigma", positive=True)}
    return {"df": _float_param(p, "df", positive=True)}


def simulate_univariate(kind: str, n: int, *, rng: RNGLike, **params: Any) -> np.ndarray:
    """n draws from a univariate law.

    ``normal`` (loc=0, scale=1), ``uniform`` (low=0, high=1), ``skewed``: log-normal exp(mu + sigma·Z)
    (mu=0, sigma=1), ``heavy_tailed``: Student t (df=2; infinite variance for df ≤ 2).
    """
    kind = _check_kind(kind, UNIVARIATE_KINDS)
    n = check_int(n, "n", lo=1, hi=MAX_UNIVARIATE_N)
    p = _univariate_params(kind, params)
    g = as_generator(rng)
    if kind == "normal":
        return g.normal(p["loc"], p["scale"], size=n)
    if kind == "uniform":
        return g.uniform(p["low"], p["high"], size=n)
    if kind == "skewed":
        return g.lognormal(p["mu"], p["sigma"], size=n)
    return g.standard_t(p["df"], size=n)


def _univariate_design_bounds(kind: str, p: dict) -> tuple[float, float]:
    """Public bounds from the design (parameters only, never the sample)."""
    if kind == "normal":
        return p["loc"] - 4 * p["scale"], p["loc"] + 4 * p["scale"]
    if kind == "uniform":
        return p["low"], p["high"]
    if kind == "skewed":
        return 0.0, float(math.exp(p["mu"] + 4 * p["sigma"]))
    from scipy import stats  # local import: scipy is only needed here
    q = float(stats.t.isf(_DESIGN_TAIL, p["df"]))
    return -q, q


def describe_rng(rng: RNGLike) -> str:
    """How a simulated dataset's randomness was seeded, in words (for its provenance)."""
    if rng is None:
        return "seed: none (fresh OS entropy; not reproducible)"
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return f"seed = {int(rng)}"
    ss = getattr(getattr(rng, "bit_generator", None), "seed_seq", None) if isinstance(rng, np.random.Generator) \
        else rng if isinstance(rng, np.random.SeedSequence) else None
    if isinstance(ss, np.random.SeedSequence):
        key = f", spawn_key = {tuple(ss.spawn_key)}" if ss.spawn_key else ""
        if isinstance(rng, np.random.Generator):
            return (f"rng = Generator seeded with entropy {ss.entropy}{key} (the draws also depend on how much of "
                    "it was used before this call)")
        return f"SeedSequence entropy = {ss.entropy}{key}"
    return f"rng = {type(rng).__name__} supplied by the caller"


def simulate_dataset(kind: str, n: int, *, rng: RNGLike, **params: Any) -> Dataset:
    """A simulated univariate :class:`Dataset` (one column ``"x"``) for the Data page.

    Parameters: see :data:`SIMULATORS`. Declared public bounds come from the **design**, never from the
    sample: uniform (low, high); normal loc ± 4·scale; log-normal (0, exp(mu + 4·sigma)); Student t ± its
    quantile at tail mass Φ(−4). For the unbounded laws these are design choices: a few records may fall
    outside and are then clipped (and reported) by the mechanisms. (The KNG paper's regression designs:
    :func:`dpcore.kng.simulate_regression_dataset`.)
    """
    kind = _check_kind(kind, tuple(SIMULATORS))
    n = check_int(n, "n", lo=1, hi=MAX_DATASET_ROWS)
    seed_info = describe_rng(rng)
    p = _univariate_params(kind, params)
    x = simulate_univariate(kind, n, rng=rng, **p)
    frame = pd.DataFrame({"x": x}, index=pd.RangeIndex(1, n + 1, name="row"))
    lo, hi = _univariate_design_bounds(kind, p)
    pstr = ", ".join(f"{k}={fmt(v)}" for k, v in p.items())
    prov = (f"simulated {kind}({pstr}), n = {n}; {seed_info}; declared bounds x in [{fmt(lo)}, {fmt(hi)}] "
            "from the design.")
    return Dataset(frame, ("x",), {"x": (lo, hi)}, prov, notes=(SIMULATORS[kind].description,),
                   name=f"simulated {kind} (n={n})", kind="simulated")

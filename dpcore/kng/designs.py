"""The KNG paper's simulation designs: Algorithm 1 and the true parameters of Figures 1 and 2.

Reimherr & Awan (2019), "KNG: the K-norm gradient mechanism", §5: X[:, 0] = 1, X[:, j] ~ U(−1, 1)
(j ≥ 1), e ~ N(0, 1), y = Xθ* + e. As arrays (:func:`simulate_regression`), as chunked sufficient
statistics for n up to 10⁹ (:func:`regression_suffstats_chunked`), and the paper's rescaling of y by
R = maxᵢ|yᵢ| (:func:`paper_rescale`, not private: figures only). As datasets with bounds from the
design: the Data page's regression simulators (:data:`REGRESSION_SIMULATORS`,
:func:`simulate_regression_dataset`) and the KNG page's built-in simulation (:func:`simulated_dataset`).

This module imports nothing else from :mod:`dpcore.kng` (its ``__init__`` re-exports it).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from .._rng import RNGLike, spawn
from .._validation import check_finite_array, check_int
from ..data import MAX_DATASET_ROWS, Dataset, SimulatorInfo, describe_rng, merge_params, simulate_univariate
from ..data._format import fmt
from ..errors import DataError, DPValueError

__all__ = [
    "FIGURE1_D",
    "MAX_REGRESSION_D",
    "MAX_SIM_CELLS",
    "MAX_SUFFSTATS_N",
    "MAX_THETA_D",
    "MAX_SIM_D",
    "MAX_SIM_REGRESSION_D",
    "REGRESSION_SIMULATORS",
    "RegressionSuffStats",
    "algorithm1_theta",
    "figure1_theta",
    "figure2_theta",
    "paper_rescale",
    "regression_suffstats_chunked",
    "simulate_regression",
    "simulate_regression_dataset",
    "simulated_dataset",
    "max_simulated_d",
]

FIGURE1_D = 12
#: Largest n·d for :func:`simulate_regression` (400 MB of float64); use the chunked statistics beyond.
MAX_SIM_CELLS = 50_000_000
#: Largest n for :func:`regression_suffstats_chunked` (protects the server from runaway work).
MAX_SUFFSTATS_N = 1_000_000_000
#: Largest d for the simulated regression datasets.
MAX_REGRESSION_D = 50
#: Largest length of θ* accepted by the array/statistics simulators.
MAX_THETA_D = 1000
#: Largest block (rows × d) generated at once.
_MAX_BLOCK_CELLS = 25_000_000


def algorithm1_theta(d: int) -> np.ndarray:
    """θ* = (0, −1, −1 + 2/(d−1), …, 1 − 2/(d−1)) of length ``d`` (KNG paper §5).

    The intercept is 0 and the d−1 slopes are equally spaced on [−1, 1) with step 2/(d−1); d = 12 gives
    Figure 1's θ* and d = 2 gives Figure 2's θ* = (0, −1).

    >>> algorithm1_theta(3).tolist()
    [0.0, -1.0, 0.0]
    """
    d = check_int(d, "d", lo=2, hi=MAX_REGRESSION_D)
    return np.concatenate([[0.0], -1.0 + 2.0 * np.arange(d - 1) / (d - 1)])


def figure1_theta() -> np.ndarray:
    """θ* of the KNG paper's Figure 1 (linear regression, d = 12): (0, −1, −1+2/11, …, 1−2/11)."""
    return algorithm1_theta(FIGURE1_D)


def figure2_theta() -> np.ndarray:
    """θ* of the KNG paper's Figure 2 (median regression, d = 2): (0, −1)."""
    return algorithm1_theta(2)


def check_theta(theta_star: Any, name: str = "theta_star") -> np.ndarray:
    """θ* as a finite 1-D float array of at most ``MAX_THETA_D`` entries."""
    theta = check_finite_array(theta_star, name, ndim=(1,), min_rows=1)
    if theta.size > MAX_THETA_D:
        raise DataError(f"{name} has {theta.size} entries; the limit is {MAX_THETA_D} (it protects the server).")
    return theta


def _regression_chunks(n: int, theta: np.ndarray, rng: RNGLike, chunk: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield (X, y) blocks of Algorithm 1, ≤ ``chunk`` rows each.

    X and e are drawn from two independent streams spawned from ``rng`` (X row-major from the first,
    e from the second). NumPy's uniform and normal draws are consumed sequentially, so the
    concatenated blocks are *bit-identical whatever the chunk size*; y is accumulated column by column
    in a fixed order (no BLAS), so it is bit-identical too.
    """
    gx, ge = spawn(rng, 2)
    d = theta.size
    chunk = max(1, min(chunk, _MAX_BLOCK_CELLS // d))   # memory only: the draws do not depend on it
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        X = np.empty((m, d))
        X[:, 0] = 1.0
        if d > 1:
            X[:, 1:] = gx.uniform(-1.0, 1.0, size=(m, d - 1))
        e = ge.standard_normal(m)
        y = X[:, 0] * theta[0]
        for j in range(1, d):
            y += X[:, j] * theta[j]
        y += e
        yield X, y


def simulate_regression(n: int, theta_star: Any, *, rng: RNGLike, dtype: Any = float,
                        chunk: int = 250_000) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 of the KNG paper: X[:, 0] = 1, X[:, j] ~ U(−1, 1) (j ≥ 1), e ~ N(0, 1), y = Xθ* + e.

    Parameters
    ----------
    n : number of rows (n·d ≤ ``MAX_SIM_CELLS``; use :func:`regression_suffstats_chunked` beyond).
    theta_star : (d,) true parameter, intercept first (e.g. :func:`figure1_theta`).
    rng : seed or Generator. The draws do not depend on ``chunk``, and
        :func:`regression_suffstats_chunked` with the same seed sees exactly the same (X, y).
    dtype : floating dtype of the returned arrays (draws are made in float64, then cast).
    chunk : rows generated per block (memory only; it does not change the numbers).

    Returns
    -------
    X : (n, d) design including the intercept column; y : (n,) responses.
    """
    n = check_int(n, "n", lo=1)
    theta = check_theta(theta_star)
    d = theta.size
    if n * d > MAX_SIM_CELLS:
        raise DataError(
            f"n = {n} with d = {d} needs {n * d:,} cells; the limit is {MAX_SIM_CELLS:,}. "
            "Use regression_suffstats_chunked() for large n.")
    chunk = check_int(chunk, "chunk", lo=1, hi=10_000_000)
    dt = np.dtype(dtype)
    if dt.kind != "f":
        raise DataError(f"dtype = {dt} is not a floating type; use float (float64) or np.float32.")
    X = np.empty((n, d), dtype=dt)
    y = np.empty(n, dtype=dt)
    start = 0
    for Xb, yb in _regression_chunks(n, theta, rng, chunk):
        m = yb.size
        X[start:start + m] = Xb
        y[start:start + m] = yb
        start += m
    return X, y


@dataclass(frozen=True, eq=False)
class RegressionSuffStats:
    """Sufficient statistics of an Algorithm-1 data set (arrays are read-only).

    ``max_abs_y`` is the paper's R = maxᵢ|yᵢ| (data-dependent and *not* private; §5 protocol only).
    """

    n: int
    XtX: np.ndarray
    Xty: np.ndarray
    yty: float
    max_abs_y: float

    @property
    def d(self) -> int:
        return int(self.Xty.size)

    def rescaled(self) -> tuple[RegressionSuffStats, float]:
        """Statistics of (X, y/R) and R = ``max_abs_y`` — the paper's rescaling (see :func:`paper_rescale`)."""
        R = self.max_abs_y
        if not R > 0:
            raise DataError("max |y| = 0: all responses are zero, so y cannot be rescaled by max |y|.")
        return _suffstats(self.n, self.XtX, self.Xty / R, self.yty / R ** 2, 1.0), R

    def ols(self) -> np.ndarray:
        """The non-private least-squares estimate (XᵀX)⁻¹Xᵀy."""
        return np.linalg.solve(self.XtX, self.Xty)


def _suffstats(n, XtX, Xty, yty, max_abs_y) -> RegressionSuffStats:
    XtX = np.array(XtX, dtype=float)
    Xty = np.array(Xty, dtype=float)
    XtX.setflags(write=False)
    Xty.setflags(write=False)
    return RegressionSuffStats(int(n), XtX, Xty, float(yty), float(max_abs_y))


def regression_suffstats_chunked(n: int, theta_star: Any, *, rng: RNGLike,
                                 chunk: int = 250_000) -> RegressionSuffStats:
    """XᵀX, Xᵀy, yᵀy and R = max|y| of Algorithm-1 data, never holding more than ``chunk`` rows.

    Same law *and the same numbers* as :func:`simulate_regression` for the same seed (both generate
    block-wise from two spawned streams; see ``_regression_chunks``); only the summation order differs,
    so the statistics agree to rounding. Memory is O(chunk·d); n may go up to ``MAX_SUFFSTATS_N``.
    """
    n = check_int(n, "n", lo=1, hi=MAX_SUFFSTATS_N)
    theta = check_theta(theta_star)
    chunk = check_int(chunk, "chunk", lo=1, hi=10_000_000)
    d = theta.size
    XtX = np.zeros((d, d))
    Xty = np.zeros(d)
    yty = 0.0
    R = 0.0
    for Xb, yb in _regression_chunks(n, theta, rng, chunk):
        XtX += Xb.T @ Xb
        Xty += Xb.T @ yb
        yty += float(yb @ yb)
        R = max(R, float(np.max(np.abs(yb))))
    return _suffstats(n, XtX, Xty, yty, R)


def paper_rescale(y: Any) -> tuple[np.ndarray, float]:
    """(y / R, R) with R = maxᵢ|yᵢ| — the KNG paper's §5 simulation protocol.

    R is computed from the data and is **not private**: releasing anything scaled by R leaks R (the
    largest |response|). Use it only to reproduce the paper's figures; for uploaded data the app must
    use a declared public bound instead.

    >>> paper_rescale([1.0, -4.0])[1]
    4.0
    """
    arr = check_finite_array(y, "y", ndim=(1,), min_rows=1)
    R = float(np.max(np.abs(arr)))
    if R == 0:
        raise DataError("y is all zeros, so it cannot be rescaled by max |y| (R = 0).")
    return arr / R, R


#: True parameters of :func:`correlated_design` (intercept, two slopes).
CORRELATED_THETA = (0.2, 0.6, -0.4)


def correlated_design(n: int, *, rho: float = 0.98, rng: RNGLike, noise: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """A deliberately ill-conditioned regression: X = (1, x₁, x₂) with corr(x₁, x₂) = ρ, y = Xθ* + e.

    (x₁, x₂) = Φ(z)·2 − 1 for z ~ N(0, [[1, ρ], [ρ, 1]]) (Gaussian copula, uniform margins on [−1, 1],
    rank correlation ≈ ρ), θ* = :data:`CORRELATED_THETA`, e ~ N(0, noise²) clipped to ±3·noise, so
    |y| ≤ 1.2 + 3·noise: public bounds x ∈ [−1, 1], |y| ≤ 1.5 hold by construction. Not from the paper:
    the stress test of issue 9 (predictor correlation 0.98, cond(XᵀX) ≈ 150 with the intercept).
    """
    from scipy.special import ndtr

    n = check_int(n, "n", lo=2)
    if not -1.0 < rho < 1.0:
        raise DPValueError(f"rho = {rho!r} must lie strictly between −1 and 1 (a correlation).")
    if not noise >= 0:
        raise DPValueError(f"noise = {noise!r} must be ≥ 0.")
    g = spawn(rng, 1)[0] if not isinstance(rng, np.random.Generator) else rng
    z = g.standard_normal((n, 2))
    z[:, 1] = rho * z[:, 0] + np.sqrt(1.0 - rho * rho) * z[:, 1]
    x = 2.0 * ndtr(z) - 1.0
    X = np.column_stack([np.ones(n), x])
    e = np.clip(noise * g.standard_normal(n), -3 * noise, 3 * noise)
    return X, X @ np.asarray(CORRELATED_THETA) + e

# ----------------------------------------------------------------------------- datasets (Data and KNG pages)
#: The Data page's regression simulators (Algorithm 1), offered next to :data:`dpcore.data.SIMULATORS`.
REGRESSION_SIMULATORS: Mapping[str, SimulatorInfo] = MappingProxyType({
    "linear_regression": SimulatorInfo(
        "linear_regression", "Linear regression (KNG Algorithm 1)",
        "y = θ₀ + Σ θⱼ xⱼ + e, xⱼ ~ U(−1, 1), e ~ N(0, 1); θ* as in the KNG paper's Figure 1 (d = 12). "
        "Declared bounds: xⱼ in [−1, 1], y in ±(Σ|θⱼ| + 4).",
        MappingProxyType({"d": FIGURE1_D, "theta": None})),
    "quantile_regression": SimulatorInfo(
        "quantile_regression", "Quantile regression (KNG Algorithm 1)",
        "Algorithm 1 data as for linear regression, with θ* = (0, −1) as in the KNG paper's Figure 2 (d = 2). "
        "Declared bounds: xⱼ in [−1, 1], y in ±(Σ|θⱼ| + 4).",
        MappingProxyType({"d": 2, "theta": None})),
})


def simulate_regression_dataset(kind: str, n: int, *, rng: RNGLike, **params: Any) -> Dataset:
    """A simulated regression :class:`dpcore.data.Dataset` (Algorithm 1) for the Data page.

    ``kind`` is a key of :data:`REGRESSION_SIMULATORS`; columns ``"x1" … "x{d-1}"`` and ``"y"`` (the intercept
    column of Algorithm 1 is implicit). Parameters ``d`` and optionally ``theta`` of length d (default
    θ* = :func:`algorithm1_theta`). Declared public bounds come from the **design**, never from the sample:
    xⱼ ∈ [−1, 1] (exact) and y ∈ ±(Σ|θⱼ| + 4) (|Xθ| ≤ Σ|θⱼ| plus 4 noise sd; a few records may fall
    outside and are then clipped, and reported, by the mechanisms).
    """
    if kind not in REGRESSION_SIMULATORS:
        raise DataError(f"kind = {kind!r} is not a regression simulator; choose one of "
                        f"{', '.join(map(repr, REGRESSION_SIMULATORS))}.")
    n = check_int(n, "n", lo=1, hi=MAX_DATASET_ROWS)
    seed_info = describe_rng(rng)
    p = merge_params(REGRESSION_SIMULATORS[kind], params)
    d = check_int(p["d"], "d", lo=2, hi=MAX_REGRESSION_D)
    if p["theta"] is None:
        theta = algorithm1_theta(d)
    else:
        theta = check_theta(p["theta"], "theta")
        if theta.size != d:
            raise DataError(f"theta has {theta.size} entries but d = {d}; give d numbers (intercept first).")
    X, y = simulate_regression(n, theta, rng=rng)
    cols = {f"x{j}": X[:, j] for j in range(1, d)}
    cols["y"] = y
    frame = pd.DataFrame(cols, index=pd.RangeIndex(1, n + 1, name="row"))
    ybound = float(np.sum(np.abs(theta)) + 4.0)
    bounds = {f"x{j}": (-1.0, 1.0) for j in range(1, d)}
    bounds["y"] = (-ybound, ybound)
    tstr = "(" + ", ".join(fmt(t) for t in theta) + ")"
    prov = (f"simulated {kind} (KNG paper Algorithm 1): n = {n}, d = {d}, theta* = {tstr}, "
            f"x_j ~ U(-1, 1), e ~ N(0, 1), intercept column implicit; {seed_info}; declared bounds "
            f"x_j in [-1, 1], y in [{fmt(-ybound)}, {fmt(ybound)}] from the design.")
    return Dataset(frame, tuple(cols), bounds, prov, notes=(REGRESSION_SIMULATORS[kind].description,),
                   name=f"simulated {kind} (n={n}, d={d})", kind="simulated")


#: Most columns of the built-in simulation (mean / median / quantile), and coefficients (regressions, with the
#: intercept); the KNG page's widget takes its limits from here.
MAX_SIM_D = 10
MAX_SIM_REGRESSION_D = 20
#: Most rows of the built-in simulation.
MAX_SIM_N = 1_000_000


def max_simulated_d(problem: str) -> int:
    """The largest d :func:`simulated_dataset` accepts for ``problem``."""
    return MAX_SIM_REGRESSION_D if problem in ("linear_regression", "quantile_regression") else MAX_SIM_D


def simulated_dataset(problem: str, n: int, d: int, *, rng: RNGLike) -> Dataset:
    """A built-in synthetic :class:`dpcore.data.Dataset` for ``problem`` (public design bounds).

    Regressions: the paper's Algorithm 1 (x_j ~ U(−1, 1), e ~ N(0, 1); d coefficients including the
    intercept). Mean/median/quantile: d independent N(0, 1) columns x1…xd with design bounds ±4.
    """
    n = check_int(n, "n", lo=2, hi=MAX_SIM_N)
    if problem in ("linear_regression", "quantile_regression"):
        return simulate_regression_dataset(problem, n, rng=rng, d=check_int(d, "d", lo=2, hi=MAX_SIM_REGRESSION_D))
    d = check_int(d, "d", lo=1, hi=MAX_SIM_D)
    gens = spawn(rng, d)
    names = [f"x{j + 1}" for j in range(d)] if d > 1 else ["x"]
    cols = {c: simulate_univariate("normal", n, rng=g) for c, g in zip(names, gens)}
    frame = pd.DataFrame(cols, index=pd.RangeIndex(1, n + 1, name="row"))
    return Dataset(frame, tuple(names), {c: (-4.0, 4.0) for c in names},
                   f"simulated: {d} independent N(0, 1) column(s), n = {n}; declared bounds ±4 from the design.",
                   name=f"simulated normal (n={n}, d={d})")

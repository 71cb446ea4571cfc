"""Data for the explorer: the papers' simulation designs, CSV loading and validation, clipping.

Three jobs, all pure functions (no global state, every random function takes ``rng``):

* **Simulators.** The KNG paper's Algorithm 1 (Reimherr & Awan 2019, "KNG: the K-norm gradient
  mechanism", §5, Figures 1 and 2) for linear and quantile regression — as arrays
  (:func:`simulate_regression`), as chunked sufficient statistics for n up to 10⁹
  (:func:`regression_suffstats_chunked`), and as a :class:`Dataset` for the Data page
  (:func:`simulate_dataset`), plus simple univariate laws. Simulated datasets carry *public* bounds
  taken from the simulator's design, never computed from the sample.
* **CSV loading** (:func:`load_csv`). Bytes, a path or an uploaded file; encodings (UTF-8 with or
  without BOM, UTF-16 from Excel, Windows-1252), separators (``,`` ``;`` tab ``|``), decimal commas,
  thousands separators, missing-value tokens, ragged rows, binary files renamed ``.csv``. Every problem
  raises :class:`DataError` naming the line/column/value and the fix; everything loading *did* is
  recorded in :attr:`Dataset.notes`. No raw pandas/csv traceback escapes.
* **Validation and clipping** (:func:`column_values`, :func:`clip_to_bounds`). Missing rows are
  dropped *and reported*; values outside declared bounds are clipped *and reported*. Bounds taken from
  the data (:func:`bounds_from_data`) come with a warning that they void the privacy guarantee.

Plus output hygiene: :func:`to_safe_csv` (CSV-injection-safe export) and :func:`escape_markdown`.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import math
import re
import string
from array import array
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd

from dpcore._rng import RNGLike, as_generator, spawn
from dpcore._validation import (DPValueError, check_bounds, check_finite, check_finite_array, check_int,
                                check_positive)

__all__ = [
    "DataError", "FIGURE1_D", "algorithm1_theta", "figure1_theta", "figure2_theta",
    "simulate_regression", "RegressionSuffStats", "regression_suffstats_chunked", "paper_rescale",
    "UNIVARIATE_KINDS", "REGRESSION_KINDS", "SimulatorInfo", "SIMULATORS", "simulate_univariate",
    "simulate_dataset", "Dataset", "load_csv", "column_values", "ClipReport", "clip_to_bounds",
    "bounds_from_data", "to_safe_csv", "escape_markdown", "NA_TOKENS", "EXTREME_MAGNITUDE",
]


from .errors import DataError  # noqa: E402  (public home: dpcore.errors)


# --------------------------------------------------------------------------------------------------
# KNG paper, §5: Algorithm 1 and the true parameters of Figures 1 and 2
# --------------------------------------------------------------------------------------------------
FIGURE1_D = 12
#: Largest n·d for :func:`simulate_regression` (400 MB of float64); use the chunked statistics beyond.
MAX_SIM_CELLS = 50_000_000
#: Largest n for :func:`regression_suffstats_chunked` (protects the server from runaway work).
MAX_SUFFSTATS_N = 1_000_000_000
#: Largest n for :func:`simulate_univariate`.
MAX_UNIVARIATE_N = 10_000_000
#: Largest number of rows of a simulated :class:`Dataset` (same as the CSV loader's default).
MAX_DATASET_ROWS = 1_000_000
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
    """
    d = check_int(d, "d", lo=2, hi=MAX_REGRESSION_D)
    return np.concatenate([[0.0], -1.0 + 2.0 * np.arange(d - 1) / (d - 1)])


def figure1_theta() -> np.ndarray:
    """θ* of the KNG paper's Figure 1 (linear regression, d = 12): (0, −1, −1+2/11, …, 1−2/11)."""
    return algorithm1_theta(FIGURE1_D)


def figure2_theta() -> np.ndarray:
    """θ* of the KNG paper's Figure 2 (median regression, d = 2): (0, −1)."""
    return algorithm1_theta(2)


def _check_theta(theta_star: Any) -> np.ndarray:
    try:
        theta = check_finite_array(theta_star, "theta_star", ndim=(1,), min_rows=1)
    except DPValueError as exc:
        raise DataError(str(exc)) from None
    if theta.size > MAX_THETA_D:
        raise DataError(f"theta_star has {theta.size} entries; the limit is {MAX_THETA_D} (it protects the server).")
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
    theta = _check_theta(theta_star)
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

    def rescaled(self) -> tuple["RegressionSuffStats", float]:
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
    theta = _check_theta(theta_star)
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
    """
    try:
        arr = check_finite_array(y, "y", ndim=(1,), min_rows=1)
    except DPValueError as exc:
        raise DataError(str(exc)) from None
    R = float(np.max(np.abs(arr)))
    if R == 0:
        raise DataError("y is all zeros, so it cannot be rescaled by max |y| (R = 0).")
    return arr / R, R


# --------------------------------------------------------------------------------------------------
# Univariate simulators and the simulator catalogue
# --------------------------------------------------------------------------------------------------
UNIVARIATE_KINDS = ("normal", "uniform", "skewed", "heavy_tailed")
REGRESSION_KINDS = ("linear_regression", "quantile_regression")
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


def _float_param(params: dict, key: str, *, positive: bool = False) -> float:
    """A simulator parameter as a finite float (> 0 when ``positive``); errors as DataError."""
    try:
        return check_positive(params[key], key) if positive else check_finite(params[key], key)
    except DPValueError as exc:
        raise DataError(str(exc)) from None


def _merge_params(kind: str, params: dict) -> dict:
    defaults = dict(SIMULATORS[kind].defaults)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise DataError(f"simulator {kind!r} has no parameter(s) {', '.join(map(repr, unknown))}; "
                        f"its parameters are {', '.join(map(repr, defaults))}.")
    defaults.update(params)
    return defaults


def _check_kind(kind: Any, choices: tuple[str, ...]) -> str:
    if kind not in choices:
        raise DataError(f"kind = {kind!r} is not a simulator; choose one of {', '.join(map(repr, choices))}.")
    return kind


def _univariate_params(kind: str, params: dict) -> dict:
    p = _merge_params(kind, params)
    if kind == "normal":
        return {"loc": _float_param(p, "loc"), "scale": _float_param(p, "scale", positive=True)}
    if kind == "uniform":
        try:
            low, high = check_bounds(p["low"], p["high"], name="uniform (low, high)")
        except DPValueError as exc:
            raise DataError(str(exc)) from None
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


def _describe_rng(rng: RNGLike) -> str:
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


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def simulate_dataset(kind: str, n: int, *, rng: RNGLike, **params: Any) -> "Dataset":
    """A simulated :class:`Dataset` for the Data page.

    Univariate kinds give one column ``"x"``; the regression kinds give ``"x1" … "x{d-1}"`` and ``"y"``
    (the intercept column of Algorithm 1 is implicit). Parameters: see :data:`SIMULATORS`
    (regressions: ``d`` and optionally ``theta`` of length d; default θ* = :func:`algorithm1_theta`).

    Declared public bounds come from the **design**, never from the sample: uniform (low, high);
    normal loc ± 4·scale; log-normal (0, exp(mu + 4·sigma)); Student t ± its quantile at tail mass
    Φ(−4); regressions xⱼ ∈ [−1, 1] (exact) and y ∈ ±(Σ|θⱼ| + 4) (|Xθ| ≤ Σ|θⱼ| plus 4 noise sd). For
    the unbounded laws these are design choices: a few records may fall outside and are then clipped
    (and reported) by the mechanisms.
    """
    kind = _check_kind(kind, tuple(SIMULATORS))
    n = check_int(n, "n", lo=1, hi=MAX_DATASET_ROWS)
    seed_info = _describe_rng(rng)
    if kind in UNIVARIATE_KINDS:
        p = _univariate_params(kind, params)
        x = simulate_univariate(kind, n, rng=rng, **p)
        frame = pd.DataFrame({"x": x}, index=pd.RangeIndex(1, n + 1, name="row"))
        lo, hi = _univariate_design_bounds(kind, p)
        pstr = ", ".join(f"{k}={_fmt(v)}" for k, v in p.items())
        prov = (f"simulated {kind}({pstr}), n = {n}; {seed_info}; declared bounds x in [{_fmt(lo)}, {_fmt(hi)}] "
                "from the design.")
        return Dataset(frame, ("x",), {"x": (lo, hi)}, prov, notes=(SIMULATORS[kind].description,),
                       name=f"simulated {kind} (n={n})")
    p = _merge_params(kind, params)
    d = check_int(p["d"], "d", lo=2, hi=MAX_REGRESSION_D)
    if p["theta"] is None:
        theta = algorithm1_theta(d)
    else:
        theta = _check_theta(p["theta"])
        if theta.size != d:
            raise DataError(f"theta has {theta.size} entries but d = {d}; give d numbers (intercept first).")
    X, y = simulate_regression(n, theta, rng=rng)
    cols = {f"x{j}": X[:, j] for j in range(1, d)}
    cols["y"] = y
    frame = pd.DataFrame(cols, index=pd.RangeIndex(1, n + 1, name="row"))
    ybound = float(np.sum(np.abs(theta)) + 4.0)
    bounds = {f"x{j}": (-1.0, 1.0) for j in range(1, d)}
    bounds["y"] = (-ybound, ybound)
    tstr = "(" + ", ".join(_fmt(t) for t in theta) + ")"
    prov = (f"simulated {kind} (KNG paper Algorithm 1): n = {n}, d = {d}, theta* = {tstr}, "
            f"x_j ~ U(-1, 1), e ~ N(0, 1), intercept column implicit; {seed_info}; declared bounds "
            f"x_j in [-1, 1], y in [{_fmt(-ybound)}, {_fmt(ybound)}] from the design.")
    return Dataset(frame, tuple(cols), bounds, prov, notes=(SIMULATORS[kind].description,),
                   name=f"simulated {kind} (n={n}, d={d})")


# --------------------------------------------------------------------------------------------------
# Dataset
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Dataset:
    """A table plus what is known about it.

    Attributes
    ----------
    frame : the data; numeric columns are float64 (NaN = missing), other columns text. Loaded CSVs are
        indexed by file line number (index name ``"line"``), simulated ones by row number (``"row"``).
    numeric_columns : columns whose every non-missing cell is a number (and with at least one number).
    bounds : declared **public** bounds per column (possibly empty). Never derived from the data.
    provenance : where the data came from (file name/size/hash, or simulator, parameters and seed).
    notes : what loading did (encoding, separator, missing tokens, blank lines, …).
    name : a short display name.
    """

    frame: pd.DataFrame
    numeric_columns: tuple[str, ...]
    bounds: Mapping[str, tuple[float, float]]
    provenance: str
    notes: tuple[str, ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.frame, pd.DataFrame):
            raise DataError(f"Dataset.frame must be a pandas DataFrame; got {type(self.frame).__name__}.")
        cols = tuple(self.numeric_columns)
        missing = [c for c in cols if c not in self.frame.columns]
        if missing:
            raise DataError(f"numeric_columns {missing!r} are not columns of the frame.")
        checked = {}
        for col, b in dict(self.bounds).items():
            if col not in self.frame.columns:
                raise DataError(f"bounds given for {col!r}, which is not a column of the frame.")
            try:
                lo, hi = b
            except (TypeError, ValueError):
                raise DataError(f"bounds for column {col!r} must be a pair (lower, upper); got {b!r}.") from None
            try:
                checked[col] = check_bounds(lo, hi, name=f"bounds for column {col!r}")
            except DPValueError as exc:
                raise DataError(str(exc)) from None
        object.__setattr__(self, "numeric_columns", cols)
        object.__setattr__(self, "bounds", MappingProxyType(checked))
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def n_rows(self) -> int:
        return int(len(self.frame))

    def with_bounds(self, column: str, lower: Any, upper: Any) -> "Dataset":
        """A copy with declared public bounds for ``column`` (lower < upper, both finite)."""
        if column not in self.frame.columns:
            raise DataError(f"column {column!r} not found; available columns: {_list_names(self.frame.columns)}.")
        try:
            lo, hi = check_bounds(lower, upper, name=f"bounds for column {column!r}")
        except DPValueError as exc:
            raise DataError(str(exc)) from None
        new = dict(self.bounds)
        new[column] = (lo, hi)
        return dataclasses.replace(self, bounds=new)

    def fingerprint(self, *, include_bounds: bool = True) -> str:
        """A stable SHA-256 hex digest of the contents (column names, dtypes, index, values and, by
        default, the declared bounds) — for keying releases on this data. Notes/name/provenance excluded."""
        h = hashlib.sha256()
        h.update(repr(tuple(str(c) for c in self.frame.columns)).encode())
        h.update(repr(tuple(str(t) for t in self.frame.dtypes)).encode())
        h.update(pd.util.hash_pandas_object(self.frame, index=True).to_numpy().tobytes())
        if include_bounds:
            h.update(repr(sorted((str(k), tuple(map(float, v))) for k, v in self.bounds.items())).encode())
        return h.hexdigest()


# --------------------------------------------------------------------------------------------------
# CSV loading
# --------------------------------------------------------------------------------------------------
#: Cell texts (case-insensitive, surrounding spaces ignored) read as missing values.
NA_TOKENS = frozenset({
    "", "na", "n/a", "n.a.", "#n/a", "#na", "nan", "-nan", "+nan", "null", "none", "nil", "missing",
    "-", "--", "?", ".", "<na>",
})
#: |x| above this loses integer precision in float64 (2⁵³ ≈ 9e15): column_values warns.
EXTREME_MAGNITUDE = 1e15

_SEPARATORS = (",", "\t", ";", "|")
_SEP_NAMES = {",": "',' (comma)", "\t": "tab", ";": "';' (semicolon)", "|": "'|' (pipe)"}
_THOUSANDS_RE = r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?"
_DECIMAL_COMMA_RE = r"[+-]?(?:\d{1,3}(?:\.\d{3})+|\d*),\d*"
_SAVE_AS = "re-save it as 'CSV UTF-8 (comma delimited)' and upload that file"


def _short(value: Any, limit: int = 40) -> str:
    """repr of a user-supplied value, truncated."""
    s = str(value)
    if len(s) > limit:
        s = s[:limit] + "…"
    return repr(s)


def _list_names(names, limit: int = 12) -> str:
    names = [str(n) for n in names]
    shown = ", ".join(_short(n, 30) for n in names[:limit])
    if len(names) > limit:
        shown += f", … ({len(names)} in all)"
    return shown or "(none)"


def _mb(n: int) -> str:
    return f"{n:,} bytes" if n < 2 ** 20 else f"{n / 2 ** 20:.1f} MB"


def _read_source(source: Any, name: str, max_bytes: int) -> tuple[bytes, str]:
    """Bytes of ``source`` (never more than max_bytes + 1 read) and a display name."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
    elif isinstance(source, (str, Path)):
        if isinstance(source, str) and ("\n" in source or len(source) > 4096):
            raise DataError("source is a str that looks like CSV text, not a file path; pass bytes instead "
                            "(e.g. text.encode('utf-8')) or a path to the file.")
        path = Path(source)
        if name == "upload.csv":
            name = path.name
        if not path.is_file():
            raise DataError(f"file {_short(str(path), 80)} was not found (or is not a regular file); check the path.")
        size = path.stat().st_size
        if size > max_bytes:
            raise DataError(f"{_short(name)} is {_mb(size)}; the upload limit is {_mb(max_bytes)}. "
                            "Upload a smaller file, e.g. a random sample of rows or only the columns you need.")
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise DataError(f"could not read {_short(name)}: {exc.strerror or exc}.") from None
    elif hasattr(source, "read"):
        fname = getattr(source, "name", None)
        if name == "upload.csv" and isinstance(fname, str) and fname:
            name = Path(fname).name
        size = getattr(source, "size", None)
        if isinstance(size, (int, np.integer)) and size > max_bytes:
            raise DataError(f"{_short(name)} is {_mb(int(size))}; the upload limit is "
                            f"{_mb(max_bytes)}. Upload a smaller file, e.g. a random sample of rows.")
        if hasattr(source, "seek"):
            try:
                source.seek(0)
            except (OSError, ValueError):
                pass
        try:
            raw = source.read(max_bytes + 1)
        except (OSError, ValueError) as exc:
            raise DataError(f"could not read {_short(name)}: {exc}.") from None
        if isinstance(raw, str):
            raise DataError(f"{_short(name)} was opened in text mode; open it in binary mode ('rb') or pass bytes.")
        if not isinstance(raw, (bytes, bytearray)):
            raise DataError(f"reading {_short(name)} returned {type(raw).__name__}, not bytes.")
        raw = bytes(raw)
    else:
        raise DataError(f"load_csv: source must be bytes, a file path (str or Path) or an uploaded file; "
                        f"got {type(source).__name__}.")
    if len(raw) > max_bytes:
        raise DataError(f"{_short(name)} is larger than the upload limit of {_mb(max_bytes)} "
                        f"({len(raw):,}+ bytes read); upload a smaller file, e.g. a random sample of rows.")
    return raw, name


def _binary_kind(raw: bytes) -> str | None:
    """Name of a known binary format from its magic number, or None."""
    head = raw[:16]
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        window = raw[:1 << 16]
        if b"xl/" in window or (b"[Content_Types].xml" in window and b"word/" not in window):
            return ("an Excel workbook (.xlsx, a ZIP archive) renamed to .csv; open it in Excel or LibreOffice "
                    "and use File > Save As > 'CSV UTF-8 (Comma delimited) (*.csv)'")
        if b"word/" in window:
            return "a Word document (.docx); export the table as 'CSV UTF-8' from a spreadsheet program"
        return "a ZIP archive, not a CSV; extract the .csv file from it first and upload that"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return ("a legacy Excel workbook (.xls, or another old Microsoft Office file) renamed to .csv; open it "
                "in Excel or LibreOffice and use File > Save As > 'CSV UTF-8 (Comma delimited) (*.csv)'")
    if head.startswith(b"\x1f\x8b"):
        return "a gzip-compressed file (.gz), not a CSV; decompress it first (e.g. gunzip) and upload the .csv"
    if head.startswith(b"BZh") and len(head) >= 10 and head[3:4].isdigit() and head[4:10] == b"1AY&SY":
        return "a bzip2-compressed file (.bz2), not a CSV; decompress it first and upload the .csv"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "an xz-compressed file (.xz), not a CSV; decompress it first and upload the .csv"
    if head.startswith(b"(\xb5/\xfd"):
        return "a zstd-compressed file (.zst), not a CSV; decompress it first and upload the .csv"
    if head.startswith(b"7z\xbc\xaf'\x1c"):
        return "a 7-Zip archive, not a CSV; extract the .csv file from it first"
    if head.startswith(b"%PDF"):
        return "a PDF document, not a CSV; export the table from its source program as 'CSV UTF-8'"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "a PNG image, not a CSV; upload the data table itself as 'CSV UTF-8'"
    if head.startswith(b"\xff\xd8\xff"):
        return "a JPEG image, not a CSV; upload the data table itself as 'CSV UTF-8'"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "a GIF image, not a CSV; upload the data table itself as 'CSV UTF-8'"
    if head.startswith(b"PAR1"):
        return "a Parquet file, not a CSV; convert it (e.g. pandas.read_parquet(...).to_csv(...)) and upload the .csv"
    if head.startswith(b"SQLite format 3\x00"):
        return "an SQLite database, not a CSV; export the table as CSV first"
    if head.startswith(b"\x7fELF") or head.startswith(b"MZ"):
        return "an executable program, not a CSV"
    return None


def _line_of(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def _decode(raw: bytes, name: str, notes: list[str]) -> str:
    """Decode bytes to text; BOMs and encodings are recorded in ``notes``."""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        codec, label = "utf-32", "UTF-32"
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec, label = "utf-16", "UTF-16"
    else:
        codec = label = None
    if codec is None and b"\x00" in raw:
        sample = raw[:1 << 14]
        even, odd = sample[0::2], sample[1::2]
        z_even = even.count(0) / max(len(even), 1)
        z_odd = odd.count(0) / max(len(odd), 1)
        if z_odd > 0.4 and z_even < 0.05 and len(raw) % 2 == 0:
            codec, label = "utf-16-le", "UTF-16 little-endian (no byte-order mark)"
        elif z_even > 0.4 and z_odd < 0.05 and len(raw) % 2 == 0:
            codec, label = "utf-16-be", "UTF-16 big-endian (no byte-order mark)"
        else:
            off = raw.index(b"\x00")
            raise DataError(f"{_short(name)} contains NUL bytes (first at line {_line_of(raw, off)}, byte {off}): it is "
                            f"a binary or corrupted file, not CSV text. If it came from a spreadsheet, {_SAVE_AS}.")
    if codec is not None:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as exc:
            raise DataError(f"{_short(name)} starts like {label} text but cannot be decoded as such "
                            f"(byte {exc.start}: {exc.reason}); {_SAVE_AS}.") from None
        notes.append(f"encoding: {label} (as saved by Excel's 'Unicode Text'); decoded and converted.")
        text = text.lstrip("\ufeff")
    elif raw.startswith(b"\xef\xbb\xbf"):
        try:
            text = raw[3:].decode("utf-8")
        except UnicodeDecodeError as exc:
            off = exc.start + 3
            raise DataError(f"{_short(name)} has a UTF-8 byte-order mark but invalid UTF-8 at line "
                            f"{_line_of(raw, off)} (byte 0x{raw[off]:02X}); {_SAVE_AS}.") from None
        notes.append("encoding: UTF-8; the byte-order mark (BOM) at the start was removed.")
    else:
        try:
            text = raw.decode("utf-8")
            notes.append("encoding: UTF-8.")
        except UnicodeDecodeError as exc:
            off = exc.start
            where = f"byte 0x{raw[off]:02X} at line {_line_of(raw, off)}"
            try:
                text = raw.decode("cp1252")
                notes.append(f"encoding: not valid UTF-8 ({where}); decoded as Windows-1252 (cp1252). Check that "
                             f"accented characters look right; if not, {_SAVE_AS}.")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
                notes.append(f"encoding: not valid UTF-8 ({where}) nor Windows-1252; decoded as Latin-1. "
                             f"Check that accented characters look right; if not, {_SAVE_AS}.")
    if "\x00" in text:
        pos = text.index("\x00")
        raise DataError(f"{_short(name)} contains NUL characters (first at line {text.count(chr(10), 0, pos) + 1}); "
                        f"it is binary or corrupted, not CSV text. {_SAVE_AS[0].upper() + _SAVE_AS[1:]}.")
    sample = text[:1 << 16]
    if sample:
        ctrl = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
        if ctrl > max(2, 0.01 * len(sample)):
            raise DataError(f"{_short(name)} looks like a binary file ({ctrl} control characters in its first "
                            f"{len(sample):,} characters), not CSV text; upload a CSV text file ({_SAVE_AS}).")
    return text


def _is_blank(rec: list[str]) -> bool:
    return len(rec) == 0 or (len(rec) == 1 and not rec[0].strip())


def _sniff_separator(text: str) -> str:
    """Pick the separator whose field count is the same (and > 1) on the first records, header included."""
    sample = text[:1 << 16]
    truncated = len(text) > len(sample)
    if truncated and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    counts: dict[str, list[int]] = {}
    for sep in _SEPARATORS:
        c: list[int] = []
        try:
            for rec in csv.reader(io.StringIO(sample, newline=""), delimiter=sep):
                if _is_blank(rec):
                    continue
                c.append(len(rec))
                if len(c) >= 100:
                    break
        except csv.Error:
            continue
        if c:
            counts[sep] = c
    consistent = [s for s in _SEPARATORS if s in counts and counts[s][0] > 1 and len(set(counts[s])) == 1]
    if consistent:
        return max(consistent, key=lambda s: (counts[s][0], -_SEPARATORS.index(s)))
    multi = [s for s in _SEPARATORS if s in counts and counts[s][0] > 1]
    if multi:
        return max(multi, key=lambda s: (sum(x == counts[s][0] for x in counts[s]) / len(counts[s]),
                                         -_SEPARATORS.index(s)))
    return ","


def _is_number_text(s: str) -> bool:
    t = s.strip()
    if not t:
        return False
    try:
        float(t)
    except ValueError:
        return False
    return True


@dataclass
class _Scan:
    header: list[str]
    header_record: int
    data_records: array          # record index (0-based over all records) of each data row
    data_lines: array            # first file line of each data row
    n_records: int
    n_blank: int


def _scan_records(text: str, sep: str, name: str, max_rows: int, max_cols: int) -> _Scan:
    """Pass 1: structure only (header, field counts, line numbers); stores no cells."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quotechar='"', doublequote=True)
    header: list[str] | None = None
    header_record = -1
    m = 0
    recs, lines = array("q"), array("q")
    n_blank = 0
    idx = -1
    prev_line = 0
    try:
        for rec in reader:
            idx += 1
            start = prev_line + 1
            prev_line = reader.line_num
            if _is_blank(rec):
                n_blank += 1
                continue
            if header is None:
                header, header_record, m = rec, idx, len(rec)
                if m > max_cols:
                    raise DataError(f"{_short(name)} has {m} columns; the limit is {max_cols}. Remove unused "
                                    "columns and upload again.")
                continue
            if len(rec) != m:
                shown = sep.join(rec)
                fields = "field" if len(rec) == 1 else "fields"
                hint = (f" Check for an extra or missing {_SEP_NAMES[sep]} on that line; a text cell that contains "
                        f"the separator must be enclosed in double quotes.")
                if any("\n" in f or "\r" in f for f in rec):
                    hint = (f" The row spans several lines, which usually means an unbalanced double quote (\") "
                            f"opens a field at line {start}; close the quote or remove it.")
                elif sep == "," and re.search(r"\d,\d", shown):
                    hint += (" If the numbers use a decimal comma (e.g. 1,5), use '.' as decimal point or save the "
                             "file with ';' as separator.")
                raise DataError(f"line {start} has {len(rec)} {fields} but the header has {m}; every row needs "
                                f"exactly {m} (separator {_SEP_NAMES[sep]}). The line starts {_short(shown, 60)}.{hint}")
            recs.append(idx)
            lines.append(start)
            if len(recs) > max_rows:
                raise DataError(f"{_short(name)} has more than {max_rows:,} data rows; the limit is {max_rows:,}. "
                                "Upload a random sample of rows.")
    except csv.Error as exc:
        raise DataError(f"{_short(name)} could not be parsed near line {reader.line_num}: {exc}. This usually means an "
                        "unbalanced double quote (\"): close the quote or remove it.") from None
    if header is None:
        raise DataError(f"{_short(name)} contains only blank lines: no header and no data. Choose a CSV file with a "
                        "header line and at least one data row.")
    return _Scan(header, header_record, recs, lines, idx + 1, n_blank)


def _cells_pandas(text: str, sep: str, scan: _Scan) -> list[pd.Series] | None:
    """Pass 2: all cells as strings via pandas' C parser; None if it disagrees with pass 1."""
    m = len(scan.header)
    try:
        raw = pd.read_csv(io.StringIO(text), sep=sep, header=None, dtype=str, na_filter=False,
                          keep_default_na=False, skip_blank_lines=False, index_col=False, engine="c",
                          quotechar='"', doublequote=True, low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv.Error):
        return None
    if raw.shape != (scan.n_records, m):
        return None
    take = np.frombuffer(scan.data_records, dtype=np.int64) if len(scan.data_records) else np.zeros(0, np.int64)
    hdr = [str(v) for v in raw.iloc[scan.header_record].tolist()]
    if hdr != [str(h) for h in scan.header]:
        return None
    sub = raw.iloc[take]
    out = [sub.iloc[:, j].reset_index(drop=True) for j in range(m)]
    if any(s.isna().any() for s in out):
        return None
    return out


def _cells_csv(text: str, sep: str, scan: _Scan) -> list[pd.Series]:
    """Fallback pass 2 with the csv module (same segmentation as pass 1 by construction)."""
    keep = set(scan.data_records)
    rows = [rec for i, rec in enumerate(csv.reader(io.StringIO(text, newline=""), delimiter=sep,
                                                   quotechar='"', doublequote=True)) if i in keep]
    cols = list(zip(*rows)) if rows else [() for _ in scan.header]
    return [pd.Series(list(c), dtype="str") for c in cols]


@dataclass
class _ColumnParse:
    values: np.ndarray | None     # float64 with NaN for missing, or None if not numeric
    na_mask: np.ndarray
    bad_mask: np.ndarray          # non-missing cells that are not numbers (after conversions)
    note: str | None              # conversion note (decimal comma, thousands) or reason for text


def _parse_cells(cells: pd.Series, sep: str | None) -> _ColumnParse:
    """Numbers of a string column; missing tokens; conversions for decimal comma / thousands separators.

    ``sep`` is the file's separator (None: unknown). With a separator other than ',', a comma inside a
    number is a decimal comma (European spreadsheets); with ',', a quoted "1,234,567" is a thousands
    separator. Mixed '.'/',' decimals in one column are refused (left as text).
    """
    s = cells.astype("str")
    stripped = s.str.strip()
    na = (cells.isna().to_numpy(dtype=bool)
          | stripped.str.lower().isin(NA_TOKENS).fillna(False).to_numpy(dtype=bool))
    nums = pd.to_numeric(stripped.mask(na), errors="coerce").to_numpy(dtype=float)
    bad = ~na & np.isnan(nums)
    note = None
    if bad.any():
        bad_cells = stripped[bad]
        if sep is not None and sep != "," and bool(bad_cells.str.fullmatch(_DECIMAL_COMMA_RE).all()) \
                and bool(bad_cells.str.contains(r"\d").all()):
            good_with_point = (~na & ~bad) & stripped.str.contains(".", regex=False).to_numpy(dtype=bool)
            if good_with_point.any():
                note = "mixed decimal separators ('.' and ',') in one column"
            else:
                conv = pd.to_numeric(bad_cells.str.replace(".", "", regex=False).str.replace(",", ".", regex=False),
                                     errors="coerce").to_numpy(dtype=float)
                if not np.isnan(conv).any():
                    nums = nums.copy()
                    nums[bad] = conv
                    example = bad_cells.iloc[0]
                    note = (f"read ',' as the decimal separator in {int(bad.sum())} cell(s) "
                            f"(e.g. {_short(example)} -> {conv[0]:.15g})")
                    bad = np.zeros_like(bad)
        elif sep == "," and bool(bad_cells.str.fullmatch(_THOUSANDS_RE).all()):
            conv = pd.to_numeric(bad_cells.str.replace(",", "", regex=False), errors="coerce").to_numpy(dtype=float)
            if not np.isnan(conv).any():
                nums = nums.copy()
                nums[bad] = conv
                example = bad_cells.iloc[0]
                note = (f"removed thousands separators ',' in {int(bad.sum())} cell(s) "
                        f"(e.g. {_short(example)} -> {conv[0]:.15g})")
                bad = np.zeros_like(bad)
    if bad.any():
        return _ColumnParse(None, na, bad, note)
    values = nums.copy()
    values[na] = np.nan
    return _ColumnParse(values, na, bad, note)


def load_csv(source: Any, *, name: str = "upload.csv", max_bytes: int = 50 * 2 ** 20,
             max_rows: int = 1_000_000, max_cols: int = 200) -> Dataset:
    """Load a CSV file into a :class:`Dataset`, or raise :class:`DataError` saying what is wrong and how to fix it.

    Parameters
    ----------
    source : bytes, a path (str or Path) or a binary file-like object (e.g. Streamlit's ``UploadedFile``).
    name : display name for messages (taken from the path / uploaded file if left at the default).
    max_bytes, max_rows, max_cols : limits that protect the server (Streamlit's ``server.maxUploadSize``
        must also be set: the per-widget limit is only enforced in the browser).

    What loading does (each step recorded in ``notes``): refuses binary formats by their magic number
    (Excel .xlsx/.xls, gzip, PDF, PNG, …) and NUL bytes; decodes UTF-8 (BOM removed), UTF-16/32 (BOM,
    or UTF-16 without BOM by its NUL pattern), else Windows-1252, else Latin-1; detects the separator
    among ',', tab, ';', '|'; skips blank lines; reads every cell as text and makes a column numeric
    when every non-missing cell is a number (missing tokens: :data:`NA_TOKENS`, counted per column;
    with a non-comma separator a decimal comma is read, e.g. '1,5' → 1.5; in comma files quoted
    thousands separators are removed, e.g. '1,234,567' → 1234567). Non-finite numbers ('inf', '1e309')
    are kept and reported; :func:`column_values` refuses them. Errors: empty file, header only,
    ragged rows (line number and field counts), duplicate column names, a header that looks like data,
    too many rows/columns, file too large, unbalanced quotes.

    The frame's index is the file line number of each row (name ``"line"``); bounds are empty (the
    user must declare public bounds with :meth:`Dataset.with_bounds`).
    """
    max_bytes = check_int(max_bytes, "max_bytes", lo=1)
    max_rows = check_int(max_rows, "max_rows", lo=1)
    max_cols = check_int(max_cols, "max_cols", lo=1)
    raw, name = _read_source(source, str(name), max_bytes)
    if len(raw) == 0:
        raise DataError(f"{_short(name)} is empty (0 bytes); choose a CSV file with a header line and at least "
                        "one data row.")
    kind = _binary_kind(raw)
    if kind is not None:
        raise DataError(f"{_short(name)} is {kind}.")
    notes: list[str] = []
    text = _decode(raw, name, notes)
    if not text.strip():
        raise DataError(f"{_short(name)} contains only whitespace/blank lines: no header and no data. Choose a CSV "
                        "file with a header line and at least one data row.")
    sep = _sniff_separator(text)
    scan = _scan_records(text, sep, name, max_rows, max_cols)
    m = len(scan.header)
    names = [h.strip() for h in scan.header]
    if names != list(scan.header):
        notes.append("spaces around column names were removed.")
    if m > 1 or sep != ",":
        notes.append(f"separator: {_SEP_NAMES[sep]} (detected).")
    else:
        notes.append("single column (no separator found in the header line).")
    for j, h in enumerate(names):
        if not h:
            names[j] = f"column_{j + 1}"
            notes.append(f"column {j + 1} has no name in the header; it was named {names[j]!r}.")
    if all(_is_number_text(h) for h in names):
        shown = sep.join(scan.header)
        raise DataError(f"the first line {_short(shown, 60)} contains only numbers, so it looks like a data row, not "
                        "a header. Add a header line with column names (e.g. 'x,y') as the first line; if these "
                        "numbers really are names, prefix them with a letter (e.g. 'y2020').")
    seen: dict[str, list[int]] = {}
    for j, h in enumerate(names):
        seen.setdefault(h, []).append(j + 1)
    dups = {h: pos for h, pos in seen.items() if len(pos) > 1}
    if dups:
        desc = "; ".join(f"{_short(h)} (columns {', '.join(map(str, pos))})" for h, pos in list(dups.items())[:5])
        raise DataError(f"duplicate column names in the header: {desc}. Rename them so every column has a unique "
                        "name, then upload again.")
    n = len(scan.data_records)
    if n == 0:
        raise DataError(f"{_short(name)} has a header line (columns {_list_names(names)}) but no data rows; add "
                        "at least one data row below the header.")
    if scan.n_blank:
        notes.append(f"skipped {scan.n_blank} blank line(s).")

    cells = _cells_pandas(text, sep, scan)
    if cells is None:
        cells = _cells_csv(text, sep, scan)
    index = pd.Index(np.frombuffer(scan.data_lines, dtype=np.int64).copy(), name="line")
    data: dict[str, Any] = {}
    numeric: list[str] = []
    text_cols: list[str] = []
    for h, col in zip(names, cells):
        parsed = _parse_cells(col, sep)
        if parsed.values is None:
            data[h] = pd.Series(col.to_numpy(), index=index, dtype="str")
            text_cols.append(h)
            if parsed.note:
                notes.append(f"column {_short(h)}: {parsed.note}; kept as text.")
            continue
        vals = parsed.values
        data[h] = pd.Series(vals, index=index, dtype="float64")
        if parsed.note:
            notes.append(f"column {_short(h)}: {parsed.note}.")
        n_na = int(parsed.na_mask.sum())
        if n_na == n:
            notes.append(f"column {_short(h)}: every cell is missing; it is not offered as a numeric column.")
            continue
        numeric.append(h)
        if n_na:
            tokens = col[parsed.na_mask].str.strip().value_counts()
            tok = ", ".join(f"{_short(t)} x{int(c)}" for t, c in tokens.items())
            notes.append(f"column {_short(h)}: {n_na} missing cell(s) ({tok}).")
        inf = np.isinf(vals)
        if inf.any():
            pos = np.flatnonzero(inf)[:5]
            ex = ", ".join(f"line {int(index[p])}: {_short(str(col.iloc[p]).strip(), 20)}" for p in pos)
            notes.append(f"column {_short(h)}: {int(inf.sum())} non-finite value(s) ({ex}); fix them before "
                         "using this column.")
    if text_cols:
        notes.append(f"text (non-numeric) columns: {_list_names(text_cols)}.")
    frame = pd.DataFrame(data, index=index)
    notes.insert(0, f"read {n:,} row(s) x {m} column(s); numeric columns: {_list_names(numeric)}.")
    digest = hashlib.sha256(raw).hexdigest()[:12]
    prov = f"uploaded file {_short(name, 80)} ({len(raw):,} bytes, sha256 {digest}…), {n:,} rows x {m} columns."
    return Dataset(frame, tuple(numeric), {}, prov, notes=tuple(notes), name=name)


# --------------------------------------------------------------------------------------------------
# Column validation
# --------------------------------------------------------------------------------------------------
def _row_word(frame: pd.DataFrame) -> str:
    return "line" if frame.index.name == "line" else "row"


def _row_labels(frame: pd.DataFrame, positions: np.ndarray) -> list[int]:
    if frame.index.name in ("line", "row"):
        return [int(frame.index[p]) for p in positions]
    return [int(p) + 1 for p in positions]


def _fmt_rows(frame: pd.DataFrame, mask: np.ndarray, limit: int = 8) -> str:
    pos = np.flatnonzero(mask)
    labels = _row_labels(frame, pos[:limit])
    word = _row_word(frame) + ("s" if len(pos) > 1 else "")
    more = f" and {len(pos) - limit} more" if len(pos) > limit else ""
    return f"{word} {', '.join(map(str, labels))}{more}"


def _hints(examples: list[str]) -> str:
    """One hint per kind of near-number found among ``examples`` (decimal comma, %, currency, …)."""
    hints: dict[str, str] = {}
    for ex in examples:
        t = ex.strip()
        if re.fullmatch(_DECIMAL_COMMA_RE, t) and re.search(r"\d", t):
            hints.setdefault("dc", f"{_short(t)} looks like a number with a decimal comma: use '.' as the decimal "
                                   "point, or save the file with ';' as separator (decimal commas are then read)")
        elif re.fullmatch(r"[+-]?\d{1,3}(?:[ '\u2019\u00a0]\d{3})+(?:[.,]\d+)?", t):
            hints.setdefault("ts", f"{_short(t)} has spaces or apostrophes as thousands separators: remove them")
        elif t.endswith("%") and _is_number_text(t[:-1]):
            hints.setdefault("pct", f"{_short(t)} is a percentage: remove the % signs (store 12% as 12 or 0.12)")
        elif t[:1] in "$\u20ac\u00a3\u00a5" and _is_number_text(t[1:].replace(",", "")):
            hints.setdefault("cur", f"{_short(t)} has a currency symbol: remove it")
    return ("; ".join(hints.values()) + ".") if hints else ""


def column_values(dataset: Dataset, column: str, *, min_rows: int = 2) -> tuple[np.ndarray, list[str]]:
    """The finite numbers of one column, with missing rows dropped and reported.

    Returns ``(values, messages)``: messages report dropped missing rows, a constant column and
    extreme magnitudes (|x| > 1e15). Raises :class:`DataError` for an unknown column, a text or
    mixed column (how many cells are not numbers, with examples and their lines), an all-missing
    column, non-finite values (inf, 1e309) and fewer than ``min_rows`` usable values.
    """
    if not isinstance(dataset, Dataset):
        raise DataError(f"column_values needs a Dataset; got {type(dataset).__name__}.")
    min_rows = check_int(min_rows, "min_rows", lo=1)
    frame = dataset.frame
    if column not in frame.columns:
        raise DataError(f"column {_short(column)} not found; available columns: {_list_names(frame.columns)} "
                        f"(numeric: {_list_names(dataset.numeric_columns)}).")
    series = frame[column]
    if isinstance(series, pd.DataFrame):
        raise DataError(f"column name {_short(column)} occurs more than once; rename the duplicates.")
    messages: list[str] = []
    numeric_hint = f"numeric columns: {_list_names(dataset.numeric_columns)}"
    if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(series.dtype):
        if pd.api.types.is_bool_dtype(series.dtype):
            raise DataError(f"column {_short(column)} holds true/false values, not numbers; encode them as 0/1 "
                            f"or choose another column ({numeric_hint}).")
        parsed = _parse_cells(series, None)
        if parsed.values is None:
            bad = parsed.bad_mask
            n_bad = int(bad.sum())
            n_present = int((~parsed.na_mask).sum())
            pos = np.flatnonzero(bad)[:3]
            labels = _row_labels(frame, pos)
            ex_vals = [str(series.iloc[p]) for p in pos]
            ex = ", ".join(f"{_short(v, 30)} at {_row_word(frame)} {lab}" for v, lab in zip(ex_vals, labels))
            hint = _hints(ex_vals)
            if n_bad == n_present:
                raise DataError(f"column {_short(column)} is text, not numbers: none of its {n_present} non-missing "
                                f"cells is a number (e.g. {ex}). {hint + ' ' if hint else ''}Choose a numeric column "
                                f"({numeric_hint}).")
            raise DataError(f"column {_short(column)} has mixed types: {n_bad} of {n_present} non-missing cells are "
                            f"not numbers (e.g. {ex}). {hint + ' ' if hint else ''}Fix those cells or mark them missing "
                            f"(leave them empty or write NA), then upload again; or choose another column "
                            f"({numeric_hint}).")
        vals = parsed.values
    else:
        vals = series.to_numpy(dtype=float, na_value=np.nan)
    missing = np.isnan(vals)
    if missing.all():
        raise DataError(f"column {_short(column)} has no values: all {len(vals)} cells are missing. Choose another "
                        f"column ({numeric_hint}).")
    inf = np.isinf(vals)
    if inf.any():
        raise DataError(f"column {_short(column)} has {int(inf.sum())} non-finite value(s) (inf, or a number beyond "
                        f"±1.8e308 such as 1e309) at {_fmt_rows(frame, inf, 5)}. Replace them with finite numbers, or "
                        "leave those cells empty to mark them missing, and upload again.")
    if missing.any():
        messages.append(f"column {_short(column)}: dropped {int(missing.sum())} row(s) with missing values "
                        f"({_fmt_rows(frame, missing)}); {int((~missing).sum())} row(s) remain and are used.")
    values = np.ascontiguousarray(vals[~missing], dtype=float)
    if values.size < min_rows:
        raise DataError(f"column {_short(column)} has only {values.size} usable value(s)"
                        f"{f' after dropping {int(missing.sum())} missing' if missing.any() else ''}; this needs at "
                        f"least {min_rows} rows. Upload more data.")
    if values.size and np.all(values == values[0]):
        messages.append(f"column {_short(column)} is constant (every value is {_fmt(values[0])}): it carries no "
                        "information, and spread-based statistics are zero.")
    big = np.abs(values) > EXTREME_MAGNITUDE
    if big.any():
        i = int(np.argmax(np.abs(values)))
        pos_all = np.flatnonzero(~missing)
        lab = _row_labels(frame, pos_all[i:i + 1])[0]
        messages.append(f"column {_short(column)} has {int(big.sum())} value(s) with |x| > 1e15 (largest "
                        f"{values[i]:.3g} at {_row_word(frame)} {lab}): doubles lose precision at this magnitude "
                        "and noise scaled to such bounds swamps the data. Rescale the column (e.g. to thousands or "
                        "millions) and declare bounds in the new units.")
    return values, messages


# --------------------------------------------------------------------------------------------------
# Clipping to declared bounds
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClipReport:
    """How many values fell outside the declared public bounds and were clipped."""

    column: str
    lower: float
    upper: float
    n_total: int
    n_below: int
    n_above: int

    @property
    def n_clipped(self) -> int:
        return self.n_below + self.n_above

    @property
    def fraction(self) -> float:
        return self.n_clipped / self.n_total if self.n_total else 0.0

    def message(self) -> str:
        b = f"[{_fmt(self.lower)}, {_fmt(self.upper)}]"
        if self.n_clipped == 0:
            return (f"column {_short(self.column)}: all {self.n_total} values lie inside the declared bounds {b}; "
                    "nothing was clipped.")
        return (f"column {_short(self.column)}: {self.n_clipped} of {self.n_total} values ({100 * self.fraction:.1f}%) "
                f"were outside the declared bounds {b} and were clipped to them ({self.n_below} below "
                f"{_fmt(self.lower)}, {self.n_above} above {_fmt(self.upper)}). Clipping is what bounds the "
                "sensitivity; if many values are clipped, the bounds are too narrow for this data.")


def clip_to_bounds(values: Any, lower: Any, upper: Any, *, column: str = "x") -> tuple[np.ndarray, ClipReport]:
    """np.clip(values, lower, upper) with a report of how many values moved (never silent).

    The bounds must be declared publicly (not taken from the data); values must be finite.
    """
    try:
        lo, hi = check_bounds(lower, upper, name=f"bounds for column {column!r}")
        arr = check_finite_array(values, f"column {column!r}", min_rows=0)
    except DPValueError as exc:
        raise DataError(str(exc)) from None
    below = int(np.count_nonzero(arr < lo))
    above = int(np.count_nonzero(arr > hi))
    return np.clip(arr, lo, hi), ClipReport(str(column), lo, hi, int(arr.size), below, above)


def bounds_from_data(values: Any, *, column: str = "x") -> tuple[float, float, str]:
    """(min, max, warning): bounds read off the data — for exploration only.

    The minimum and maximum are functions of single records; using them as clipping bounds makes the
    sensitivity data-dependent and **voids the differential-privacy guarantee** (the bounds themselves
    leak the extreme records). The returned warning says so and must be shown.
    """
    try:
        arr = check_finite_array(values, f"column {column!r}", min_rows=1)
    except DPValueError as exc:
        raise DataError(str(exc)) from None
    lo, hi = float(np.min(arr)), float(np.max(arr))
    warning = (f"WARNING: bounds for column {_short(column)} were taken from the data (min {_fmt(lo)}, max "
               f"{_fmt(hi)}). This leaks information about the most extreme records and voids the privacy "
               "guarantee of every release that uses them. Use it only to explore; declare public bounds "
               "(from domain knowledge, not from this data) for a private release.")
    if lo == hi:
        warning += " The column is constant, so these bounds are empty; widen them."
    return lo, hi, warning


# --------------------------------------------------------------------------------------------------
# Output hygiene
# --------------------------------------------------------------------------------------------------
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _neutralise(v: Any) -> Any:
    if isinstance(v, str) and v.lstrip(" ").startswith(_FORMULA_START):
        return "'" + v
    return v


def to_safe_csv(frame: pd.DataFrame, *, index: bool = False) -> str:
    """CSV text with spreadsheet formula injection neutralised (OWASP "CSV injection").

    Every *string* cell — and column name — that starts (after spaces) with ``= + - @``, a tab or a
    carriage return gets a leading apostrophe, so spreadsheets show it as text instead of evaluating
    it. Numbers (numeric dtypes, and numeric objects in object columns) are written unchanged. Lines
    end with CRLF (RFC 4180), so cells containing a CR or LF are quoted. Use for every CSV the app
    writes back.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"to_safe_csv needs a pandas DataFrame; got {type(frame).__name__}.")
    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_datetime64_any_dtype(col.dtype):
            continue
        out[c] = col.astype(object).map(_neutralise)
    out.columns = [_neutralise(c) if isinstance(c, str) else c for c in out.columns]
    if index:
        if not pd.api.types.is_numeric_dtype(out.index.dtype):
            out.index = pd.Index([_neutralise(v) for v in out.index], name=_neutralise(out.index.name))
        elif isinstance(out.index.name, str):
            out.index = out.index.rename(_neutralise(out.index.name))
    return out.to_csv(index=index, lineterminator="\r\n")


_MD_ESCAPE = frozenset(string.punctuation)


def escape_markdown(text: Any) -> str:
    """User text made inert for ``st.markdown``/``st.error``: every ASCII punctuation character is
    backslash-escaped (CommonMark renders "\\c" as the literal c), so ``<script>``, ``**bold**``,
    links, ``$…$`` LaTeX and ``:red[…]`` directives show as typed; newlines become spaces.
    For Markdown contexts only (plain-text widgets such as ``st.dataframe`` need no escaping).
    """
    s = str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return "".join("\\" + ch if ch in _MD_ESCAPE else ch for ch in s)

"""Workloads as public point sets X ⊂ R^k (the mean point problem of Błasiok, Bun, Nikolov & Steinke 2019, §1).

A workload of k statistical queries over a finite universe U embeds each u ∈ U as
x_u = (q_1(u), …, q_k(u)); the answers on a dataset are its mean point x̄ = (1/n) Σ_i x_{u_i}.
The universe X is **public**: it is built from a declared schema (d binary attributes, an ordered
domain of size N, a public seed), never from the rows present in the data — otherwise σ (through
diam X), the nets, the hull and the local centre would leak. A dataset is a vector of indices into
X's fixed row order; records outside the schema are mapped into it by a public rule
(:func:`records_to_indices`), never dropped.

Why this module is long: four workload families (marginals, thresholds, random signs, the cone), each kept
beside its exact projector or linear-minimisation oracle (PAVA, the cone's triangle projection), so that a
workload and the geometry the projection mechanisms use on it are read together (415 lines).

Every builder checks the size of the universe (|X| rows × k columns) against
:data:`MAX_UNIVERSE_CELLS` *before* allocating anything, with a message that names the size and the cap.
"""
from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_int, check_positive
from ..errors import DataError, DPValueError

__all__ = [
    "MAX_UNIVERSE_CELLS",
    "Cone",
    "Marginals",
    "RandomSigns",
    "Thresholds",
    "Workload",
    "WorkloadSpec",
    "check_indices",
    "mean_point",
    "records_to_indices",
]

#: Largest |X|·k (float64 entries) a workload may have: 2·10^7 entries = 160 MB. Protects a shared server.
MAX_UNIVERSE_CELLS = 20_000_000


def _check_cells(what: str, n_points: int, k: int) -> None:
    cells = int(n_points) * int(k)
    if cells > MAX_UNIVERSE_CELLS:
        raise DPValueError(
            f"{what}: the universe would have |X| = {n_points:,} points × k = {k:,} queries = {cells:,} entries, "
            f"over the cap of {MAX_UNIVERSE_CELLS:,}; choose a smaller size (fewer attributes d, a smaller w, "
            f"N or k).")


@dataclass(frozen=True, eq=False)
class Workload:
    """A built workload: the public universe X (rows) and its metadata.

    Attributes
    ----------
    name : str
        Plain-words name, e.g. ``"2-way marginals over {0,1}^8"``.
    points : ndarray, shape (|X|, k)
        The universe, read-only, in a fixed public row order.
    diam2 : float
        The exact Euclidean diameter max ‖x − x'‖₂ (un-normalised), closed form where one exists.
    projector : callable or None
        Exact structured projection onto the convex hull (``y -> ŷ``), or None (use pairwise
        Frank–Wolfe on the points).
    lmo : callable or None
        Linear minimisation oracle ``c -> argmin_{x ∈ hull} ⟨c, x⟩`` over the set projected onto.
    labels : tuple of str
        A short label per query (column).
    spec : WorkloadSpec
        The public declaration it was built from.
    support : callable or None
        h(G) = max over the set projected onto of ⟨g, x⟩ for each column g of G (k, m), when that
        set is larger than conv X (the continuous cone); None means conv X itself.
    """

    name: str
    points: np.ndarray
    diam2: float
    spec: Any
    projector: Callable[[np.ndarray], np.ndarray] | None = None
    lmo: Callable[[np.ndarray], np.ndarray] | None = None
    labels: tuple = field(default=())
    support: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def size(self) -> int:
        """|X|."""
        return int(self.points.shape[0])

    @property
    def k(self) -> int:
        """Number of queries (the dimension)."""
        return int(self.points.shape[1])


class WorkloadSpec:
    """Base of the frozen, public workload declarations (``build()`` returns a :class:`Workload`)."""

    def build(self) -> Workload:
        return _build_cached(self)

    def _build(self) -> Workload:  # pragma: no cover - abstract
        raise NotImplementedError


@functools.lru_cache(maxsize=4)
def _build_cached(spec: WorkloadSpec) -> Workload:
    # A pure function of a frozen public declaration: caching is safe (no user data reaches it).
    wl = spec._build()
    wl.points.setflags(write=False)
    return wl


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.setflags(write=False)
    return a


# -- w-way marginals over {0,1}^d ---------------------------------------------------------------
@dataclass(frozen=True)
class Marginals(WorkloadSpec):
    """All w-way marginals over d binary attributes (BBNS §1; Bun, Ullman & Vadhan 2014 worst case).

    U = {0,1}^d (row u has attribute j equal to bit j of u); queries q_{S,c}(u) = 1[u_S = c] for
    |S| = w and c ∈ {0,1}^w, so k = C(d, w)·2^w and |X| = 2^d. Each x_u has exactly C(d, w) ones and
    ‖x_u − x_v‖² = 2·#{S : u_S ≠ v_S}, hence diam₂(X) = √(2·C(d, w)) (attained by complementary u, v).
    """

    d: int
    w: int = 2

    def __post_init__(self) -> None:
        check_int(self.d, "d (number of binary attributes)", lo=1, hi=20)
        check_int(self.w, "w (marginal order)", lo=1, hi=3)
        if self.w > self.d:
            raise DPValueError(f"w = {self.w} must be at most d = {self.d} (a w-way marginal needs w attributes).")
        _check_cells(f"{self.w}-way marginals over d = {self.d}", 2 ** self.d, math.comb(self.d, self.w) * 2 ** self.w)

    def _build(self) -> Workload:
        d, w = self.d, self.w
        N = 2 ** d
        bits = ((np.arange(N)[:, None] >> np.arange(d)[None, :]) & 1).astype(np.int64)
        subsets = list(itertools.combinations(range(d), w))
        k = len(subsets) * 2 ** w
        X = np.zeros((N, k))
        labels = []
        for s_i, S in enumerate(subsets):
            code = np.zeros(N, dtype=np.int64)
            for m, j in enumerate(S):
                code |= bits[:, j] << m
            X[np.arange(N), s_i * 2 ** w + code] = 1.0
            for c in range(2 ** w):
                labels.append("".join(f"a{j}={(c >> m) & 1}," for m, j in enumerate(S))[:-1])
        return Workload(name=f"{w}-way marginals over {{0,1}}^{d}", points=_readonly(X),
                        diam2=math.sqrt(2.0 * math.comb(d, w)), spec=self, labels=tuple(labels))

    @staticmethod
    def encode(bits: np.ndarray) -> np.ndarray:
        """Universe index of binary records (n, d): Σ_j bit_j 2^j."""
        b = np.asarray(bits, dtype=np.int64)
        return (b << np.arange(b.shape[1])[None, :]).sum(axis=1)


# -- thresholds -----------------------------------------------------------------------------------
def pava(y: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Isotonic (non-decreasing) least-squares fit by the pool-adjacent-violators algorithm, O(k)."""
    y = np.asarray(y, dtype=float)
    wts = np.ones_like(y) if weights is None else np.asarray(weights, dtype=float)
    vals, ws, lens = [], [], []
    for yi, wi in zip(y, wts):
        vals.append(yi)
        ws.append(wi)
        lens.append(1)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            w_new = ws[-2] + ws[-1]
            v_new = (vals[-2] * ws[-2] + vals[-1] * ws[-1]) / w_new
            l_new = lens[-2] + lens[-1]
            del vals[-1], ws[-1], lens[-1]
            vals[-1], ws[-1], lens[-1] = v_new, w_new, l_new
    return np.repeat(np.asarray(vals), lens)


def project_thresholds(y: np.ndarray) -> np.ndarray:
    """Exact Euclidean projection onto conv X for thresholds over [N].

    conv X = {0 ≤ y_1 ≤ … ≤ y_{N−1} ≤ 1, y_N = 1}: isotonic regression (PAVA) of the first N−1
    coordinates, clipped to [0, 1] (exact for box-bounded isotonic regression), and y_N = 1.
    """
    y = np.asarray(y, dtype=float)
    out = np.empty_like(y)
    if y.size > 1:
        out[:-1] = np.clip(pava(y[:-1]), 0.0, 1.0)
    out[-1] = 1.0
    return out


def project_thresholds_batch(Y: np.ndarray) -> np.ndarray:
    """The same projection for many rows at once by the max–min formula of isotonic regression,
    ŷ_i = max_{j ≤ i} min_{l ≥ i} mean(y_j..y_l), O(k³) per row (for small k, e.g. audits)."""
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    m = Y.shape[1] - 1
    out = np.ones_like(Y)
    if m >= 1:
        Z = Y[:, :m]
        cs = np.concatenate([np.zeros((Z.shape[0], 1)), np.cumsum(Z, axis=1)], axis=1)
        j = np.arange(m)[:, None]
        ll = np.arange(m)[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            avg = (cs[:, None, 1:] - cs[:, :m, None]) / (ll - j + 1)  # avg[:, j, l] for l >= j
        valid = ll >= j
        for i in range(m):
            sub = np.where(valid[: i + 1, i:], avg[:, : i + 1, i:], np.inf)   # j <= i, l >= i
            out[:, i] = np.clip(sub.min(axis=2).max(axis=1), 0.0, 1.0)
    return out


@dataclass(frozen=True)
class Thresholds(WorkloadSpec):
    """Threshold queries q_t(u) = 1[u ≤ t], t = 1..N, over the ordered domain U = {1..N} (BBNS §1).

    x_u is the staircase x_u[t] = 1[u ≤ t]; the last coordinate is identically 1 (kept, so k = N).
    d₂(x_u, x_v) = √(|u − v|/N) and diam₂(X) = √(N − 1).
    """

    N: int

    def __post_init__(self) -> None:
        check_int(self.N, "N (domain size)", lo=2, hi=100_000)
        _check_cells(f"thresholds over N = {self.N}", self.N, self.N)

    def _build(self) -> Workload:
        N = self.N
        u = np.arange(1, N + 1)
        X = (u[:, None] <= u[None, :]).astype(float)
        lmo = lambda c: X[int(np.argmin(X @ c))]
        return Workload(name=f"thresholds over [{N}]", points=_readonly(X), diam2=math.sqrt(N - 1.0), spec=self,
                        projector=project_thresholds, lmo=lmo, labels=tuple(f"u ≤ {t}" for t in u))


# -- random ±1 queries ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RandomSigns(WorkloadSpec):
    """k random ±1 queries over a universe of N elements, from a public seed (BBNS §1: no structure).

    Q is a k×N matrix of independent uniform signs drawn from ``seed``; X is its N columns (duplicate
    columns merged). ‖x‖ = √k; the diameter is computed exactly from the points.
    """

    k: int
    N: int
    seed: int = 0

    def __post_init__(self) -> None:
        check_int(self.k, "k (number of queries)", lo=1, hi=100_000)
        check_int(self.N, "N (universe size)", lo=2, hi=1_000_000)
        check_int(self.seed, "seed (public)", lo=0)
        _check_cells(f"random ±1 queries (k = {self.k}, N = {self.N})", self.N, self.k)

    def _build(self) -> Workload:
        from ._geometry import diameter

        g = np.random.default_rng(self.seed)
        X = g.choice(np.array([-1.0, 1.0]), size=(self.N, self.k))
        _, first = np.unique(X, axis=0, return_index=True)
        X = X[np.sort(first)]
        return Workload(name=f"{self.k} random ±1 queries, |U| = {self.N} (seed {self.seed})", points=_readonly(X),
                        diam2=diameter(X), spec=self, labels=tuple(f"q{j + 1}" for j in range(self.k)))


# -- the cone ------------------------------------------------------------------------------------------
def project_cone(y: np.ndarray, k: int, r: float) -> np.ndarray:
    """Exact projection onto the solid cone C = conv({0} ∪ (√k e₁ + r√k (B₂ ∩ e₁^⊥))).

    C is rotationally symmetric about e₁, so the projection of y lies in the plane spanned by e₁
    and y_⊥; there C is the triangle (0, 0), (h, 0), (h, b) with h = √k and b = r√k in coordinates
    (a, ρ) = (y₁, ‖y_⊥‖). We project onto the triangle exactly (2-D) and map back.
    """
    y = np.asarray(y, dtype=float)
    h, b = math.sqrt(k), r * math.sqrt(k)
    a, yp = y[0], y[1:]
    rad = float(np.linalg.norm(yp))
    pa, pr = _project_triangle(a, rad, h, b)
    out = np.zeros_like(y)
    out[0] = pa
    if rad > 0:
        out[1:] = yp * (pr / rad)
    return out


def _project_triangle(a: float, p: float, h: float, b: float) -> tuple[float, float]:
    """Projection of (a, p), p ≥ 0, onto the triangle with vertices (0,0), (h,0), (h,b)."""
    # inside: 0 <= a <= h and 0 <= p <= (b/h) a
    if 0 <= a <= h and 0 <= p <= b / h * a:
        return a, p
    cands = []
    for (x0, y0), (x1, y1) in (((0, 0), (h, 0)), ((h, 0), (h, b)), ((0, 0), (h, b))):
        dx, dy = x1 - x0, y1 - y0
        t = min(1.0, max(0.0, ((a - x0) * dx + (p - y0) * dy) / (dx * dx + dy * dy)))
        qx, qy = x0 + t * dx, y0 + t * dy
        cands.append(((a - qx) ** 2 + (p - qy) ** 2, qx, qy))
    _, qx, qy = min(cands)
    return qx, qy


def cone_lmo(c: np.ndarray, k: int, r: float) -> np.ndarray:
    """argmin_{x ∈ C} ⟨c, x⟩: the rim point √k e₁ − r√k c_⊥/‖c_⊥‖ if its value is < 0, else the apex 0."""
    c = np.asarray(c, dtype=float)
    rim = np.zeros_like(c)
    rim[0] = math.sqrt(k)
    cp = c[1:]
    nrm = float(np.linalg.norm(cp))
    if nrm > 0:
        rim[1:] = -r * math.sqrt(k) * cp / nrm
    return rim if float(rim @ c) < 0 else np.zeros_like(c)


def cone_support(G: np.ndarray, k: int, r: float) -> np.ndarray:
    """h_C(g) = max(0, √k g₁ + r√k ‖g_⊥‖) for each column g of G: the support function of the solid cone."""
    G = np.asarray(G, dtype=float)
    return np.maximum(0.0, math.sqrt(k) * G[0] + r * math.sqrt(k) * np.linalg.norm(G[1:], axis=0))


@dataclass(frozen=True)
class Cone(WorkloadSpec):
    """The cone example (BBNS §1, where coarse projection beats projection; parameters RECONSTRUCTED).

    Finite universe: the apex 0 and the points t(√k e₁ + r√k u) for t ∈ {1/L, …, 1} and u in a
    public set of ``n_dirs`` unit vectors ⊥ e₁ (drawn from ``seed``). The projection uses the
    continuous cone C = conv({0} ∪ (√k e₁ + r√k (B₂ ∩ e₁^⊥))) ⊇ conv X through its exact projector
    (and its linear minimisation oracle). Normalised axis length 1, base radius r.
    """

    k: int
    r: float = 0.05
    L: int = 10
    n_dirs: int = 32
    seed: int = 0

    def __post_init__(self) -> None:
        check_int(self.k, "k (dimension)", lo=2, hi=1_000_000)
        check_positive(self.r, "r (cone radius)")
        check_int(self.L, "L (axis levels)", lo=1, hi=10_000)
        check_int(self.n_dirs, "n_dirs (rim directions)", lo=1, hi=100_000)
        check_int(self.seed, "seed (public)", lo=0)
        _check_cells(f"cone (k = {self.k})", self.L * self.n_dirs + 1, self.k)

    def _build(self) -> Workload:
        from ._geometry import diameter

        k, r = self.k, float(self.r)
        g = np.random.default_rng(self.seed)
        U = g.standard_normal((self.n_dirs, k))
        U[:, 0] = 0.0
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        base = math.sqrt(k) * (np.eye(1, k, 0) + r * U)       # (n_dirs, k)
        ts = np.arange(1, self.L + 1) / self.L
        X = np.concatenate([np.zeros((1, k)), (ts[:, None, None] * base[None]).reshape(-1, k)])
        return Workload(name=f"cone (k = {k}, r = {r:g}, {self.L} levels × {self.n_dirs} directions)",
                        points=_readonly(X), diam2=diameter(X), spec=self,
                        projector=functools.partial(project_cone, k=k, r=r),
                        lmo=functools.partial(cone_lmo, k=k, r=r),
                        support=functools.partial(cone_support, k=k, r=r),
                        labels=tuple(f"q{j + 1}" for j in range(k)))


# -- data --------------------------------------------------------------------------------------------------
def check_indices(data: Any, workload: Workload, name: str = "data") -> np.ndarray:
    """A dataset as a 1-D integer array of universe indices in [0, |X|) (n ≥ 1)."""
    try:
        idx = np.asarray(data)
    except Exception:  # noqa: BLE001 - any conversion failure is a data error
        raise DataError(f"{name} must be an array of universe indices (integers).") from None
    if idx.ndim != 1 or idx.size < 1:
        raise DataError(f"{name} must be a non-empty 1-D array of universe indices; got shape {idx.shape}.")
    if not np.issubdtype(idx.dtype, np.integer):
        if not np.issubdtype(idx.dtype, np.floating) or not np.all(np.isfinite(idx)) or np.any(idx != np.round(idx)):
            raise DataError(f"{name} must hold whole-number universe indices; got dtype {idx.dtype}.")
        idx = idx.astype(np.int64)
    bad = (idx < 0) | (idx >= workload.size)
    if bad.any():
        i = int(np.argmax(bad))
        raise DataError(f"{name}[{i}] = {int(idx[i])} is not a row of the public universe (0..{workload.size - 1}); "
                        "map records into the universe with records_to_indices (a public rule), never drop them.")
    return idx.astype(np.int64)


def mean_point(idx: np.ndarray, workload: Workload) -> np.ndarray:
    """x̄ = (1/n) Σ_i x_{u_i}: the exact (non-private) answers to every query."""
    h = np.bincount(idx, minlength=workload.size) / idx.size
    return h @ workload.points


def records_to_indices(frame, columns: tuple, thresholds: tuple, *, missing_as: int = 0) -> np.ndarray:
    """Map records to the binary universe {0,1}^d of :class:`Marginals` by a PUBLIC rule.

    Attribute j is 1[value_j > thresholds[j]] with thresholds declared in advance (never computed
    from the data); a missing value becomes ``missing_as`` (0 or 1). No row is dropped.
    """
    if len(columns) != len(thresholds):
        raise DPValueError(f"columns ({len(columns)}) and thresholds ({len(thresholds)}) must have the same length.")
    if missing_as not in (0, 1):
        raise DPValueError(f"missing_as = {missing_as!r} must be 0 or 1.")
    bits = np.empty((len(frame), len(columns)), dtype=np.int64)
    for j, (c, t) in enumerate(zip(columns, thresholds)):
        if c not in frame:
            raise DataError(f"column {c!r} is not in the data; columns are: {', '.join(map(str, frame.columns))}.")
        v = np.asarray(frame[c], dtype=float)
        b = np.where(np.isnan(v), missing_as, (v > float(t)).astype(np.int64))
        bits[:, j] = b
    return Marginals.encode(bits)

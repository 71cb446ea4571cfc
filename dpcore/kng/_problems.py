"""Data preparation, gradients, objectives and non-private estimates of the KNG problems.

``prepare`` validates the data and the public parameters, clips the records to the public
domain the mechanism needs (and counts them: clipping is reported, never silent), and returns a
:class:`Prepared` problem whose ``gradient``/``objective`` are vectorised over rows of θ.
The non-private estimate is computed on the same (clipped) data the mechanism sees.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
from scipy.optimize import linprog

from .._validation import (DPValueError, check_bounds, check_finite_array, check_positive,
                           check_probability_level)
from ._calibration import cube_to_norm
from ._exact import quantile_loss_at
from ._objpert import project_l1_ball


@dataclass
class Prepared:
    """A validated problem instance (internal; arrays are not modified after construction)."""

    problem: str
    n: int
    d: int
    estimator: Callable[[], np.ndarray]     # the non-private estimate, computed on first use
    clipped: int = 0
    clip_note: str = ""
    lower: Optional[np.ndarray] = None      # box domain of θ
    upper: Optional[np.ndarray] = None
    l1_radius: Optional[float] = None       # ℓ1-ball domain of θ (regressions)
    kball: Optional[tuple] = None           # (centre, radius, norm) domain (mean, exponential)
    centre: np.ndarray = None               # data-independent start point (centre of Θ)
    width: float = 1.0                      # public data diameter (exponential mechanism constant)
    tau: float = 0.5
    scale_out: Optional[np.ndarray] = None  # regressions: θ_original = θ_scaled · scale_out
    data: dict = field(default_factory=dict)
    _estimate: Optional[np.ndarray] = None

    def sorted_y(self) -> np.ndarray:
        """The (clipped) 1-D data sorted, computed on first use (the exact KNG sampler does not need it)."""
        if "y_sorted" not in self.data:
            self.data["y_sorted"] = np.sort(self.data["y"])
        return self.data["y_sorted"]

    @property
    def nonprivate(self) -> np.ndarray:
        """The non-private estimate on the (clipped) data the mechanism sees — not private."""
        if self._estimate is None:
            self._estimate = np.asarray(self.estimator(), dtype=float).reshape(self.d)
        return self._estimate

    # -- domain ---------------------------------------------------------------------------
    def in_domain(self, th: np.ndarray) -> np.ndarray:
        ok = np.ones(th.shape[0], dtype=bool)
        if self.lower is not None:
            ok &= np.all((th >= self.lower) & (th <= self.upper), axis=1)
        if self.l1_radius is not None:
            ok &= np.abs(th).sum(axis=1) <= self.l1_radius * (1 + 1e-12)
        if self.kball is not None:
            c, r, nm = self.kball
            ok &= _norm(th - c, nm) <= r * (1 + 1e-12)
        return ok

    # -- gradient (the quantity inside ‖·‖_K; table in _calibration) ------------------------
    def gradient(self, th: np.ndarray) -> np.ndarray:
        D, p = self.data, self.problem
        if p == "mean":
            return 2.0 * self.n * (th - D["xbar"])
        if p in ("quantile", "median") and self.d == 1:
            y = self.sorted_y()
            t = th[:, 0]
            le = np.searchsorted(y, t, side="right")
            if p == "quantile":
                return (le - self.tau * self.n)[:, None].astype(float)
            lt = np.searchsorted(y, t, side="left")
            return (lt - (self.n - le))[:, None].astype(float)
        if p == "median":
            out = np.empty_like(th)
            for s in _chunks(th.shape[0], self.n * self.d):
                diff = D["x"][None, :, :] - th[s, None, :]
                nr = np.sqrt(np.sum(diff * diff, axis=2, keepdims=True))
                with np.errstate(invalid="ignore", divide="ignore"):
                    u = np.where(nr > 0, diff / nr, 0.0)
                out[s] = -u.sum(axis=1)
            return out
        if p == "linear_regression":
            return -2.0 * (D["b"][None, :] - th @ D["A"])
        if p == "quantile_regression":
            out = np.empty_like(th)
            X, y = D["X"], D["y"]
            for s in _chunks(th.shape[0], self.n):
                ind = (y[None, :] <= th[s] @ X.T).astype(float) - self.tau
                out[s] = ind @ X
            return out
        raise AssertionError(p)

    # -- objective ℓ_n(θ) up to a θ-free constant --------------------------------------------
    def objective(self, th: np.ndarray) -> np.ndarray:
        D, p = self.data, self.problem
        if p == "mean":
            diff = th - D["xbar"]
            return self.n * np.sum(diff * diff, axis=1)
        if p in ("quantile", "median") and self.d == 1:
            L = quantile_loss_at(self.sorted_y(), th[:, 0], self.tau)
            return 2.0 * L if p == "median" else L  # Σ|x − θ| = 2Σρ_{1/2}
        if p == "median":
            out = np.empty(th.shape[0])
            for s in _chunks(th.shape[0], self.n * self.d):
                diff = D["x"][None, :, :] - th[s, None, :]
                out[s] = np.sqrt(np.sum(diff * diff, axis=2)).sum(axis=1)
            return out
        if p == "linear_regression":
            return np.einsum("mi,ij,mj->m", th, D["A"], th) - 2.0 * th @ D["b"]
        if p == "quantile_regression":
            out = np.empty(th.shape[0])
            X, y = D["X"], D["y"]
            for s in _chunks(th.shape[0], self.n):
                r = y[None, :] - th[s] @ X.T
                out[s] = np.sum(r * (self.tau - (r <= 0)), axis=1)
            return out
        raise AssertionError(p)


def _chunks(m: int, per_row: int, budget: int = 4_000_000):
    step = max(1, budget // max(per_row, 1))
    for i in range(0, m, step):
        yield slice(i, min(m, i + step))


def _norm(v: np.ndarray, name: str) -> np.ndarray:
    a = np.abs(v)
    if name == "l1":
        return a.sum(axis=-1)
    if name == "l2":
        return np.sqrt(np.sum(a * a, axis=-1))
    return a.max(axis=-1)


def project_to_kball(x: np.ndarray, radius: float, name: str) -> np.ndarray:
    """Project each row onto the K-ball of ``radius`` (ℓ∞: clip, ℓ2: rescale, ℓ1: Duchi et al.)."""
    if name == "linf":
        return np.clip(x, -radius, radius)
    if name == "l2":
        nr = _norm(x, "l2")
        f = np.where(nr > radius, radius / np.where(nr > 0, nr, 1.0), 1.0)
        return x * f[:, None]
    return project_l1_ball(x, radius)


# ----------------------------------------------------------------------------- estimators
def geometric_median(x: np.ndarray, *, tol: float = 1e-12, max_iter: int = 10_000) -> np.ndarray:
    """Weiszfeld's algorithm (Vardi–Zhang modification for iterates on data points)."""
    y = np.median(x, axis=0)
    scale = max(1.0, float(np.max(np.abs(x))))
    for _ in range(max_iter):
        diff = x - y
        dist = np.sqrt(np.sum(diff * diff, axis=1))
        at = dist < 1e-14 * scale
        w = 1.0 / np.where(at, 1.0, dist)
        w[at] = 0.0
        T = (w[:, None] * x).sum(axis=0) / w.sum() if w.sum() > 0 else y
        eta = int(at.sum())
        if eta:
            R = (w[:, None] * (x - y)).sum(axis=0)
            rn = float(np.linalg.norm(R))
            if rn <= eta:  # y is the geometric median
                return y
            T = max(0.0, 1 - eta / rn) * T + min(1.0, eta / rn) * y
        if np.linalg.norm(T - y) <= tol * scale:
            return T
        y = T
    return y


def nonprivate_quantile_regression(X, y, tau: float) -> np.ndarray:
    """Exact quantile-regression estimate argmin_θ Σρ_τ(y_i − x_iᵀθ) by linear programming (HiGHS).

    Solves the dual (Koenker 2005, §6.2): max yᵀa s.t. Xᵀa = −s, τ − 1 ≤ a ≤ τ — n bounded variables
    and only d equality rows — and reads θ off the equality multipliers. For n > 5 000 the
    Portnoy–Koenker (1997) preprocessing keeps the exact answer at a fraction of the cost: a fit on a
    subsample selects a band of ≈ √d·n^{2/3} observations around the fitted hyperplane; the others
    are "globbed" (their dual variables fixed at τ − 1 below, τ above, which moves them into s);
    the reduced LP is solved and the answer is accepted only if every globbed observation is on its
    assumed side (then the full optimality conditions hold); otherwise the violators join the band
    and the LP is solved again. Accepts one problem (X (n, d), y (n,)) or a batch (X (R, n, d),
    y (R, n)) -> (d,) or (R, d).
    """
    tau = check_probability_level(tau, "tau")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim == 3:
        return np.stack([nonprivate_quantile_regression(X[r], y[r], tau) for r in range(X.shape[0])])
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise DPValueError(f"X must be (n, d) and y (n,) (or batches (R, n, d), (R, n)); got {X.shape}, {y.shape}.")
    n, d = X.shape
    if n <= 5_000:
        return _qr_dual_lp(X, y, tau, np.zeros(d))
    m = int(min(n, max(1_000, 2.0 * math.sqrt(d) * n ** (2.0 / 3.0))))
    sub = np.random.default_rng(20_240_601).choice(n, size=m, replace=False)  # fixed, data-free randomness
    theta = _qr_dual_lp(X[sub], y[sub], tau, np.zeros(d))
    r = y - X @ theta
    k_lo = max(0, int(tau * n - m / 2))
    k_hi = min(n - 1, int(tau * n + m / 2))
    part = np.partition(r, [k_lo, k_hi])
    keep = (r >= part[k_lo]) & (r <= part[k_hi])
    for _ in range(20):
        low, high = (~keep) & (r < 0), (~keep) & (r > 0)
        keep |= (~keep) & ~(low | high)
        s = (tau - 1.0) * X[low].sum(axis=0) + tau * X[high].sum(axis=0)
        theta = _qr_dual_lp(X[keep], y[keep], tau, -s)
        rn = y - X @ theta
        bad = (low & (rn > 0)) | (high & (rn < 0))
        if not bad.any():
            return theta
        keep |= bad
        r = rn
    return _qr_dual_lp(X, y, tau, np.zeros(d))


def _qr_dual_lp(X: np.ndarray, y: np.ndarray, tau: float, rhs: np.ndarray) -> np.ndarray:
    res = linprog(-y, A_eq=X.T, b_eq=rhs, bounds=(tau - 1.0, tau), method="highs")
    if res.status != 0:
        raise DPValueError(f"the quantile-regression LP failed ({res.message}); check the design matrix "
                           "(e.g. a constant or duplicated column).")
    return -np.asarray(res.eqlin.marginals, dtype=float)


def ols(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares from sufficient statistics (batched over leading axes; pseudo-inverse if singular)."""
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        if A.ndim == 2:
            return np.linalg.lstsq(A, b, rcond=None)[0]
        return np.stack([np.linalg.lstsq(A[r], b[r], rcond=None)[0] for r in range(A.shape[0])])


# ----------------------------------------------------------------------------- preparation
def _box(bounds: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    if bounds is None:
        raise DPValueError("bounds is required: declare a public range (lo, hi) for the data and the estimate, "
                           "fixed before looking at the data (e.g. bounds=(0, 100)).")
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise DPValueError(f"bounds must be a pair (lo, hi); got {bounds!r}.") from None
    lo = np.broadcast_to(np.asarray(lo, dtype=float), (d,)).copy() if np.ndim(lo) <= 1 else None
    hi = np.broadcast_to(np.asarray(hi, dtype=float), (d,)).copy() if np.ndim(hi) <= 1 else None
    if lo is None or hi is None or lo.shape != (d,) or hi.shape != (d,):
        raise DPValueError(f"bounds lo and hi must be numbers or arrays of length d = {d}.")
    for j in range(d):
        check_bounds(lo[j], hi[j], "bounds" if d == 1 else f"bounds[{j}]")
    return lo, hi


def _count_note(k: int, n: int, what: str) -> str:
    if k == 0:
        return ""
    return f"{k} of {n} records ({100.0 * k / n:.3g}%) were clipped to {what}."


def prepare(problem: str, data: Any, mechanism: str, *, norm: str, tau: float = 0.5, B: float = 1.0,
            C_X: Optional[float] = None, bounds: Any = None, radius: Optional[float] = None,
            center: Any = None, x_bound: Any = 1.0, y_bound: float = 1.0) -> Prepared:
    """Validate and clip the data for ``problem`` and ``mechanism``; see :func:`dpcore.kng.sample`."""
    if problem in ("linear_regression", "quantile_regression"):
        return _prepare_regression(problem, data, mechanism, norm=norm, tau=tau, B=B, C_X=C_X,
                                   x_bound=x_bound, y_bound=y_bound)
    if isinstance(data, tuple):
        raise DPValueError(f"problem={problem!r} takes one array of records, not a tuple (X, y).")
    x = check_finite_array(data, "data", ndim=(1, 2), min_rows=1)
    if x.ndim == 1:
        x = x[:, None]
    n, d = x.shape
    if problem == "mean":
        if radius is None:
            if bounds is None:
                raise DPValueError("the mean needs a public bound on the records: give radius (‖x_i − center‖ ≤ "
                                   "radius in the chosen norm) or bounds=(lo, hi) for a box.")
            lo, hi = _box(bounds, d)
            c = (lo + hi) / 2.0
            r = float(_norm(((hi - lo) / 2.0)[None, :], norm)[0])  # smallest K-ball around the box centre
        else:
            r = check_positive(radius, "radius")
            c = np.zeros(d) if center is None else np.broadcast_to(np.asarray(center, dtype=float), (d,)).copy()
            if not np.isfinite(c).all():
                raise DPValueError("center must be finite.")
        xc = project_to_kball(x - c, r, norm) + c
        k = int(np.sum(np.any(xc != x, axis=1)))
        P = Prepared(problem, n, d, lambda: xc.mean(axis=0), k, _count_note(k, n, f"the {norm}-ball of radius {r:g}"),
                     centre=c.copy(), data={"xbar": xc.mean(axis=0), "x": xc, "radius": r, "center": c})
        if mechanism == "exponential":
            P.kball = (c, r, norm)
        return P
    if problem == "quantile" and d != 1:
        raise DPValueError(f"problem='quantile' is 1-D: give one column of data; got {d} columns.")
    lo, hi = _box(bounds, d)
    xc = np.clip(x, lo, hi)
    k = int(np.sum(np.any(xc != x, axis=1)))
    note = _count_note(k, n, "the public bounds")
    if d == 1:
        y = xc[:, 0]
        if problem == "quantile":
            est = lambda: np.quantile(y, tau, method="inverted_cdf")  # noqa: E731
        else:
            est = lambda: np.median(y)  # noqa: E731
        P = Prepared(problem, n, 1, est, k, note, lower=lo, upper=hi,
                     centre=(lo + hi) / 2.0, width=float(hi[0] - lo[0]), tau=tau if problem == "quantile" else 0.5,
                     data={"y": y, "lo": float(lo[0]), "hi": float(hi[0])})
        return P
    return Prepared(problem, n, d, lambda: geometric_median(xc), k, note, lower=lo, upper=hi, centre=(lo + hi) / 2.0,
                    width=float(np.linalg.norm(hi - lo)), data={"x": xc})


def _prepare_regression(problem, data, mechanism, *, norm, tau, B, C_X, x_bound, y_bound) -> Prepared:
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        raise DPValueError(f"problem={problem!r} takes data=(X, y): X of shape (n, d) and y of shape (n,).")
    X = check_finite_array(data[0], "X", ndim=(1, 2), min_rows=1)
    if X.ndim == 1:
        X = X[:, None]
    y = check_finite_array(data[1], "y", ndim=(1,), min_rows=1)
    n, d = X.shape
    if y.shape[0] != n:
        raise DPValueError(f"X has {n} rows but y has {y.shape[0]}; they must describe the same records.")
    xb = np.broadcast_to(np.asarray(x_bound, dtype=float), (d,)).copy()
    if not (np.isfinite(xb).all() and (xb > 0).all()):
        raise DPValueError(f"x_bound must be > 0 and finite (public bound on |x_ij|); got {x_bound!r}.")
    yb = check_positive(y_bound, "y_bound")
    Xs, ys = X / xb, y / yb
    Xc = np.clip(Xs, -1.0, 1.0)
    clip_y = problem == "linear_regression" or mechanism == "exponential"
    yc = np.clip(ys, -1.0, 1.0) if clip_y else ys
    what = "|x_ij| ≤ x_bound" + (", |y| ≤ y_bound" if clip_y else "")
    if problem == "quantile_regression" and mechanism == "kng" and C_X is not None:
        Xk = project_to_kball(Xc, C_X, norm)
        if np.any(Xk != Xc):
            what += f", ‖x‖_{norm} ≤ C_X = {C_X:g}"
        Xc = Xk
    k = int(np.sum(np.any(Xc != Xs, axis=1) | (yc != ys)))
    scale_out = yb / xb
    common = dict(clipped=k, clip_note=_count_note(k, n, what), l1_radius=B, centre=np.zeros(d),
                  scale_out=scale_out, tau=tau)
    if problem == "linear_regression":
        A, b = Xc.T @ Xc, Xc.T @ yc
        return Prepared(problem, n, d, lambda: ols(A, b), data={"A": A, "b": b, "X": Xc, "y": yc}, **common)
    return Prepared(problem, n, d, lambda: nonprivate_quantile_regression(Xc, yc, tau), data={"X": Xc, "y": yc}, **common)

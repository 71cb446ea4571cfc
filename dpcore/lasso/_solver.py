"""Frank–Wolfe on the ℓ1 ball / simplex, private and not (Talwar, Thakurta & Zhang 2015, Algorithms 1–2),
and the constrained optimum by projected gradient (the baseline the excess risk is measured against).

One run keeps θ and either the residual r = Xθ − y (``"direct"`` path: one product Xᵀr per step, the
residual updated in O(n) because θ moves toward one vertex: r ← (1 − μ)r − μy + μ·(±r_C)X[:, j]) or,
when n ≫ p, the products XᵀX and Xᵀy computed once (``"gram"`` path: Gθ updated in O(p) per step).
Every function is vectorised over ``reps`` independent runs on the same data (audits, figures).

θ₁ = 0 (fixed, data-independent); step size μ_t = 2/(t + 2), t = 1..T.

:func:`noisy_gradient_fw` is the loop of the noisy-gradient variant for a general C (Theorem 2.6): Gaussian
noise on the whole gradient, then the linear minimisation over C (ℓ1 ball, simplex or ℓ∞ ball).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, cast

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_finite_array
from ..errors import Cancelled, DataError, DPValueError

__all__ = ["FWRun", "frank_wolfe", "loss", "gradient", "project_l1", "project_simplex", "constrained_optimum",
           "choose_path", "MAX_WORK", "gram_loss", "sklearn_equivalent", "vertex_scores", "vertex_to_theta", "clip_design",
           "noisy_gradient_fw"]

#: Largest work (multiply–adds) one call may do: refused up front with a message naming the product.
MAX_WORK = 1.2e11

Chooser = Callable[[np.ndarray, int], np.ndarray]   # (scores (reps, m), t) -> (reps,) vertex indices


@dataclass(frozen=True)
class FWRun:
    """theta: (reps, p) final iterates; vertices: (reps, T) chosen vertex indices; path used."""

    theta: np.ndarray
    vertices: np.ndarray
    path: str


def clip_data(data: Any, dtype: str = "float64") -> tuple[np.ndarray, np.ndarray, dict]:
    """:func:`clip_design` of ``data = (X, y)``; anything but a pair is a :class:`DataError`."""
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        raise DataError("data must be a pair (X, y): an (n, p) covariate matrix and a length-n response.")
    return clip_design(data[0], data[1], dtype=dtype)


def clip_design(X: Any, y: Any, dtype: str = "float64") -> tuple[np.ndarray, np.ndarray, dict]:
    """X clipped to [−1, 1] entry-wise and y to [−1, 1] (the public domain ‖x‖∞ ≤ 1, |y| ≤ 1), as
    ``dtype`` (no copy when X already has it and needs no clipping), and the NON-PRIVATE counts of
    clipped entries / records (never silent). The inputs are never modified."""
    dt = np.float32 if dtype == "float32" else np.float64
    try:
        X = np.asarray(X, dtype=dt)
    except (TypeError, ValueError):
        raise DataError("X (covariates) must be numeric; it could not be converted to numbers.") from None
    y = check_finite_array(y, "y (response)", ndim=(1,))
    if X.ndim != 2:
        raise DataError(f"X (covariates) must be a 2-d array (n rows × p covariates); got shape {X.shape}.")
    if X.shape[0] != y.shape[0]:
        raise DataError(f"X has {X.shape[0]} rows but y has {y.shape[0]}; give one response per row.")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise DataError(f"X has shape {X.shape}; it needs at least one row and one covariate.")
    rows = max(1, 2 ** 22 // max(X.shape[1], 1))          # checked in row blocks: no n × p temporaries
    bad_rows = np.zeros(X.shape[0], dtype=bool)
    n_bad = 0
    for a in range(0, X.shape[0], rows):
        blk = X[a:a + rows]
        if not np.isfinite(blk).all():
            i, j = np.argwhere(~np.isfinite(blk))[0]
            raise DataError(f"X (covariates) holds a non-finite value at row {a + i}, column {j}; remove or impute "
                            "it first.")
        out = np.abs(blk) > 1
        n_bad += int(out.sum())
        bad_rows[a:a + rows] = out.any(axis=1)
    bad_y = np.abs(y) > 1
    info = {"clipped covariate entries": n_bad, "clipped responses": int(bad_y.sum()),
            "records touched by clipping": int((bad_rows | bad_y).sum()), "n": int(X.shape[0])}
    if n_bad:
        X = np.clip(X, -1.0, 1.0)
    if bad_y.any():
        y = np.clip(y, -1.0, 1.0)
    return X, y, info


def loss(X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """L(θ; D) = (1/n)‖Xθ − y‖² for θ of shape (p,) or (k, p)."""
    th = np.atleast_2d(theta)
    r = th @ X.T - y[None, :]
    out = np.einsum("ij,ij->i", r, r) / X.shape[0]
    return out if np.ndim(theta) == 2 else out[0]


def gradient(X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """∇L(θ; D) = (2/n) Xᵀ(Xθ − y)."""
    return (2.0 / X.shape[0]) * ((X @ theta - y) @ X)


def vertex_scores(g: np.ndarray, radius: float, constraint: str) -> np.ndarray:
    """α_s = ⟨s, g⟩ for every vertex: ℓ1 ball → (…, 2p) [+r e_1..+r e_p, −r e_1..−r e_p]; simplex → (…, p)."""
    a = radius * g
    return np.concatenate([a, -a], axis=-1) if constraint == "l1" else a


def vertex_to_theta(k: np.ndarray, p: int, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """(coordinate j, signed value ±r) of vertex indices k (ℓ1 ordering; simplex indices are < p)."""
    k = np.asarray(k)
    return k % p, np.where(k < p, radius, -radius)


def choose_path(n: int, p: int, steps: int, path: str = "auto") -> str:
    """"gram" when requested, or on "auto" when n > p, p < T and p ≤ 3000 (set-up n·p² beats T·n·p)."""
    if path != "auto":
        return path
    return "gram" if (n > p and p < steps and p <= 3000) else "direct"


def _work(n: int, p: int, steps: int, reps: int, path: str) -> float:
    return float(n) * p * p + float(steps) * p * reps if path == "gram" else float(steps) * n * p * reps


def frank_wolfe(X: Optional[np.ndarray], y: Optional[np.ndarray], *, radius: float, steps: int, constraint: str = "l1",
                chooser: Optional[Chooser] = None, reps: int = 1, path: str = "auto", dtype: str = "float64",
                progress: Optional[Callable[[int, int], bool]] = None, gram: Optional[tuple] = None,
                n: Optional[int] = None) -> FWRun:
    """``reps`` Frank–Wolfe runs of ``steps`` steps from θ₁ = 0 (ℓ1 ball) or r/p (simplex); ``chooser(scores, t)`` picks the vertices
    (None: exact argmin, the non-private Algorithm 1). X, y must already lie in the public domain.

    ``gram`` = (XᵀX, Xᵀy) may be passed to reuse a set-up (benchmarks), or instead of X and y (then ``n``
    is needed: figures at large n never build X); ``progress(done, total)``
    returning False stops the run (:class:`~dpcore.errors.Cancelled`).
    """
    if X is None:                       # sufficient statistics only (figures on large n)
        if gram is None or n is None:
            raise DPValueError("frank_wolfe without X needs gram = (XᵀX, Xᵀy) and n.")
        p = gram[0].shape[0]
        path = "gram"
    else:
        n, p = X.shape
        path = choose_path(n, p, steps, path)
    work = float(steps) * p * reps if (path == "gram" and gram is not None) else _work(n, p, steps, reps, path)
    if work > MAX_WORK:
        raise DPValueError(f"this run needs about {work:.3g} multiply–adds (T·n·p = {steps}·{n}·{p}"
                           f"{f' × {reps} runs' if reps > 1 else ''}) > the cap {MAX_WORK:.3g}; lower T (steps), "
                           "n or p.")
    dt = np.float32 if dtype == "float32" else np.float64
    Xd: Any = None if X is None else np.asarray(X, dtype=dt)
    yd: Any = None if y is None else np.asarray(y, dtype=dt)
    # θ₁ = 0 for the ℓ1 ball; the simplex r·Δ_p does not contain 0, so start at its centre r/p (in C).
    theta = np.zeros((reps, p)) if constraint == "l1" else np.full((reps, p), radius / p)
    verts = np.empty((reps, steps), dtype=np.int64)
    rows = np.arange(reps)
    if path == "gram":
        G, b = gram if gram is not None else (Xd.T @ Xd, Xd.T @ yd)
        Gt = (theta @ G).astype(dt)                 # (XᵀX θ)ᵀ per run
    else:
        res = (theta.astype(dt) @ Xd.T - yd[None, :]).astype(dt)   # Xθ − y per run
    every = max(1, steps // 100)
    for t in range(1, steps + 1):
        g = (2.0 / n) * ((Gt - b[None, :]) if path == "gram" else res @ Xd)
        scores = vertex_scores(np.asarray(g, dtype=np.float64), radius, constraint)
        k = np.argmin(scores, axis=1) if chooser is None else np.asarray(chooser(scores, t))
        verts[:, t - 1] = k
        j, val = vertex_to_theta(k, p, radius)
        mu = 2.0 / (t + 2.0)
        theta *= 1.0 - mu
        theta[rows, j] += mu * val
        if path == "gram":
            Gt *= dt(1.0 - mu)
            Gt += (mu * val)[:, None].astype(dt) * G[:, j].T
        else:
            res *= dt(1.0 - mu)
            res -= dt(mu) * yd[None, :]
            res += (mu * val)[:, None].astype(dt) * Xd[:, j].T
        if progress is not None and (t % every == 0 or t == steps) and progress(t, steps) is False:
            raise Cancelled("Frank–Wolfe stopped", done=t, total=steps)
    return FWRun(theta, verts, path)


# ------------------------------------------------------------------------------------------------
# the constrained optimum (baseline): accelerated projected gradient
# ------------------------------------------------------------------------------------------------
def project_simplex(v: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection onto {θ ≥ 0, Σθ = r} (Duchi, Shalev-Shwartz, Singer & Chandra 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - radius
    idx = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / idx > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)


def project_l1(v: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection onto the ℓ1 ball of radius r (Duchi et al. 2008)."""
    if np.abs(v).sum() <= radius:
        return v.copy()
    return np.sign(v) * project_simplex(np.abs(v), radius)


@dataclass(frozen=True)
class Optimum:
    """θ* (approximate minimiser over C), L(θ*), and the Frank–Wolfe duality gap certificate
    (L(θ*) − min_C L ≤ gap)."""

    theta: np.ndarray
    loss: float
    gap: float
    iterations: int


def gram_loss(G: np.ndarray, b: np.ndarray, yy: float, n: int, theta: np.ndarray) -> float:
    """L(θ) = (θᵀXᵀXθ − 2θᵀXᵀy + yᵀy)/n from the sufficient statistics (G = XᵀX, b = Xᵀy, yy = yᵀy)."""
    return float((theta @ G @ theta - 2 * theta @ b + yy) / n)


def constrained_optimum(X: Optional[np.ndarray], y: Optional[np.ndarray], radius: float, constraint: str = "l1", *,
                        tol: float = 1e-9, max_iter: int = 20_000, suffstats: Optional[tuple] = None) -> Optimum:
    """min_{θ∈C} L(θ; D) by FISTA with projection (Beck & Teboulle 2009), stopped when the duality gap
    max_{s∈C}⟨∇L(θ), θ − s⟩ ≤ tol (a certificate: L(θ) − min L ≤ gap). NON-PRIVATE (the baseline).
    ``suffstats`` = (XᵀX, Xᵀy, yᵀy, n) replaces X and y."""
    if suffstats is not None:
        G0, b0, yy, n = suffstats
        p = G0.shape[0]
        use_gram = True
    else:
        X, y = cast(np.ndarray, X), cast(np.ndarray, y)
        n, p = X.shape
        use_gram = n > p and p <= 3000
        if use_gram:
            G0, b0, yy = X.T @ X, X.T @ y, float(y @ y)
    if use_gram:
        G, b = G0 / n, b0 / n

        def grad(th):
            return 2.0 * (G @ th - b)

        def hess_vec(v):
            return G @ v
    else:
        X_, y_ = cast(np.ndarray, X), cast(np.ndarray, y)

        def grad(th):
            return gradient(X_, y_, th)

        def hess_vec(v):
            return X_.T @ (X_ @ v) / n
    # λ_max of XᵀX/n by power iteration from a fixed start; the 1.05 margin keeps the step 1/lip safe
    v = np.ones(p) / math.sqrt(p) + np.linspace(0, 1e-3, p)
    for _ in range(60):
        w = hess_vec(v)
        v = w / max(np.linalg.norm(w), 1e-300)
    lip = max(2.0 * float(v @ hess_vec(v)) * 1.05, 1e-12)
    proj = project_l1 if constraint == "l1" else project_simplex
    th = np.zeros(p) if constraint == "l1" else np.full(p, radius / p)
    z, tk = th.copy(), 1.0
    gap = math.inf
    it = 0
    for it in range(1, max_iter + 1):
        new = proj(z - grad(z) / lip, radius)
        tn = 0.5 * (1 + math.sqrt(1 + 4 * tk * tk))
        z = new + ((tk - 1) / tn) * (new - th)
        th, tk = new, tn
        if it % 10 == 0 or it == max_iter:
            g = grad(th)
            s_val = -radius * np.max(np.abs(g)) if constraint == "l1" else radius * np.min(g)
            gap = float(g @ th - s_val)
            if gap <= tol:
                break
            if it % 200 == 0:   # restart the momentum (helps on ill-conditioned designs)
                z, tk = th.copy(), 1.0
    val = gram_loss(G0, b0, yy, n, th) if use_gram else float(loss(cast(np.ndarray, X), cast(np.ndarray, y), th))
    return Optimum(th, val, max(gap, 0.0), it)


def sklearn_equivalent(X: np.ndarray, y: np.ndarray, opt: Optimum, radius: float) -> tuple[float, np.ndarray]:
    """scikit-learn's ``Lasso`` on the penalty equivalent to the constraint ‖θ‖₁ ≤ r (NON-PRIVATE baseline).

    sklearn minimises (1/(2n))‖y − Xθ‖² + α‖θ‖₁, whose gradient part is ∇L/2; when the constraint binds,
    the KKT conditions of the constrained problem give α = ‖∇L(θ*)‖∞/2 (0 when it does not bind: least
    squares). Returns (α, sklearn's coefficients), which match θ* up to the solvers' tolerances.
    """
    from sklearn.linear_model import Lasso, LinearRegression
    binds = np.abs(opt.theta).sum() >= radius * (1 - 1e-6)
    if not binds:
        return 0.0, LinearRegression(fit_intercept=False).fit(X, y).coef_
    alpha = float(np.abs(gradient(X, y, opt.theta)).max()) / 2
    return alpha, Lasso(alpha=alpha, fit_intercept=False, tol=1e-10, max_iter=50_000).fit(X, y).coef_


def _lmo(g: np.ndarray, radius: float, constraint: str) -> np.ndarray:
    """argmin_{s∈C} ⟨s, g⟩ for each row of g (reps, p)."""
    reps, p = g.shape
    s = np.zeros_like(g)
    rows = np.arange(reps)
    if constraint == "linf":
        return -radius * np.where(g >= 0, 1.0, -1.0)
    if constraint == "l1":
        j = np.argmax(np.abs(g), axis=1)
        s[rows, j] = -radius * np.sign(g[rows, j])
        s[rows, j] = np.where(s[rows, j] == 0, radius, s[rows, j])
        return s
    s[rows, np.argmin(g, axis=1)] = radius
    return s


def noisy_gradient_fw(X: Optional[np.ndarray], y: Optional[np.ndarray], *, radius: float, steps: int, constraint: str,
                      sigma: float, reps: int = 1, rng: RNGLike = None, progress=None, gram: Optional[tuple] = None,
                      n: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` runs from θ₁ = 0 (ℓ1, ℓ∞) or θ₁ = (r/p)·1 (simplex); σ = 0 is the non-private Frank–Wolfe.
    ``gram`` = (XᵀX, Xᵀy) with ``n`` replaces X and y (O(p²) per step). Returns (θ of shape (reps, p),
    the first step's vertex s₁ of shape (reps, p) — what the audits see)."""
    if X is None:
        G, b = cast(tuple, gram)
        p = G.shape[0]
        work = float(steps) * p * p * reps
    else:
        n, p = X.shape
        work = 2.0 * steps * n * p * reps
    if work > MAX_WORK:
        raise DPValueError(f"this run needs about {work:.3g} multiply–adds (T·n·p) > the cap {MAX_WORK:.3g}; "
                           "lower T (steps), n or p.")
    g_ = as_generator(rng)
    theta = np.zeros((reps, p)) if constraint != "simplex" else np.full((reps, p), radius / p)
    y_ = cast(np.ndarray, y)                        # given with X (else the Gram form is used)
    rows = cast(int, n)                             # given with gram (else read off X)
    if X is None:
        Gt = theta @ G
    else:
        res = theta @ X.T - y_[None, :]
    first: np.ndarray | None = None
    every = max(1, steps // 100)
    for t in range(1, steps + 1):
        grad = (2.0 / rows) * ((Gt - b[None, :]) if X is None else res @ X)
        if sigma > 0:
            grad = grad + sigma * g_.standard_normal(grad.shape)
        s = _lmo(grad, radius, constraint)
        if first is None:
            first = s.copy()
        mu = 2.0 / (t + 2.0)
        theta = (1 - mu) * theta + mu * s
        if X is None:
            Gt = (1 - mu) * Gt + mu * (s @ G)
        else:
            res = (1 - mu) * res - mu * y_[None, :] + mu * (s @ X.T)
        if progress is not None and (t % every == 0 or t == steps) and progress(t, steps) is False:
            raise Cancelled("Frank–Wolfe stopped", done=t, total=steps)
    return theta, cast(np.ndarray, first)             # steps >= 1

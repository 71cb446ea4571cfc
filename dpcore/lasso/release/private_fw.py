"""Private LASSO by private Frank–Wolfe (Talwar, Thakurta & Zhang 2015, Algorithm 2): the release.

``release(data, cfg, *, rng)`` with ``data = (X, y)`` (X: n × p, y: n) in the public domain ‖x‖∞ ≤ 1,
|y| ≤ 1 (values outside are clipped, the counts reported among the non-private diagnostics) returns a
:class:`~dpcore.mechanism.Release` whose value is θ_priv ∈ C (shape (p,)), (ε, δ)-DP under replace-one
neighbours; the calibration (sensitivity, per-step ε₀, composition route) is derived in
:mod:`dpcore.lasso.calibration`. The non-private answer (:func:`nonprivate`) is Frank–Wolfe with exact
vertex selection and the same T; the constrained optimum (:func:`~dpcore.lasso._solver.constrained_optimum`)
is the baseline of the excess empirical risk.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..._rng import RNGLike, as_generator
from ...mechanism import Calibration, Diagnostics, Note, Release
from .._solver import FWRun, clip_data, constrained_optimum, frank_wolfe, gram_in_domain, loss, sklearn_equivalent
from ..calibration import calibrate
from ..configs import LassoConfig
from ..designs import SUPPORT_TOL

__all__ = ["release", "nonprivate", "make_chooser", "sample_run", "support", "support_recovery", "release_summary", "noisy_means",
           "centre"]


def make_chooser(cal: Calibration, rng: RNGLike) -> Callable[[np.ndarray, int], np.ndarray]:
    """The noisy vertex selection of ``cal``: argmin_s (α_s − b·G_s) (Gumbel: the exponential mechanism;
    ``params["gumbel_sign"]`` = +1 gives the broken argmin of α_s + b·G_s) or argmin_s (α_s + Lap(b))."""
    g = as_generator(rng)
    b = float(cal.constant)
    sel = cal.params["selection"]
    sign = float(cal.params.get("gumbel_sign", -1.0))

    def choose(scores: np.ndarray, t: int) -> np.ndarray:
        if sel == "exponential":
            noisy = scores + sign * b * g.gumbel(size=scores.shape)
        else:
            noisy = scores + g.laplace(scale=b, size=scores.shape)
        return np.argmin(noisy, axis=1)
    return choose


def noisy_means(X: np.ndarray, y: np.ndarray, cal: Calibration, rng: RNGLike, size: int = 1) -> np.ndarray:
    """Stage 1 of the intercept release: ``size`` draws of the p + 1 column means plus Laplace noise of scale
    ``cal.params["mean_scale"]`` = 2(p + 1)/(nε_m), clipped to [−1, 1]; shape (size, p + 1), y's mean last."""
    m = np.concatenate([X.mean(axis=0, dtype=float), [float(np.mean(y, dtype=float))]])
    noise = as_generator(rng).laplace(scale=float(cal.params["mean_scale"]), size=(int(size), m.size))
    return np.clip(m[None, :] + noise, -1.0, 1.0)


def centre(X: np.ndarray, y: np.ndarray, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The records centred at public (released) means and halved: ((x − m_x)/2, (y − m_y)/2) ∈ [−1, 1]."""
    p = X.shape[1]
    return (X - means[:p].astype(X.dtype)) * X.dtype.type(0.5), (y - means[p]) * 0.5


def _with_intercept(theta: np.ndarray, means: np.ndarray) -> np.ndarray:
    p = theta.shape[-1]
    return np.concatenate([[means[p] - float(means[:p] @ theta)], theta])


def sample_run(data: Any, cfg: LassoConfig, reps: int, rng: RNGLike, cal: Optional[Calibration] = None, *,
               progress=None) -> FWRun:
    """``reps`` independent private runs on the same data (vectorised; audits and figures). ``cal``
    overrides the calibration (audit mutants)."""
    X, y, _ = clip_data(data, dtype=cfg.dtype)
    cal = cal or calibrate(cfg, X.shape)
    return frank_wolfe(X, y, radius=cfg.radius, steps=int(cal.params["steps"]), constraint=cfg.constraint,
                       chooser=make_chooser(cal, rng), reps=reps, path=cfg.path, dtype=cfg.dtype, progress=progress)


def nonprivate(data: Any, cfg: LassoConfig) -> np.ndarray:
    """Non-private Frank–Wolfe (Algorithm 1: exact argmin) with the same T and start θ₁ = 0: θ of shape (p,)."""
    X, y, _ = clip_data(data, dtype=cfg.dtype)
    steps = int(calibrate(cfg, X.shape).params["steps"])
    means = None
    if cfg.intercept:  # the exact means (what the noisy ones estimate)
        means = np.concatenate([X.mean(axis=0, dtype=float), [float(np.mean(y, dtype=float))]])
        X, y = centre(X, y, means)
    theta = frank_wolfe(X, y, radius=cfg.radius, steps=steps, constraint=cfg.constraint, path=cfg.path,
                        dtype=cfg.dtype).theta[0]
    return theta if means is None else _with_intercept(theta, means)


def support(theta: np.ndarray, tol: float = SUPPORT_TOL) -> np.ndarray:
    """Indices of the non-zero coefficients (|θ_j| > tol; the units table shows the others as 0)."""
    return np.flatnonzero(np.abs(np.asarray(theta)) > tol)


def release_summary(value: np.ndarray, intercept: bool, radius: float) -> str:
    """One line about a released ``value`` ((intercept, θ) if ``intercept``, else θ): its non-zero coefficients,
    ‖θ‖₁ against the radius r of the ℓ1 ball and the intercept (scaled units). Post-processing of the release."""
    v = np.asarray(value, dtype=float)
    theta = v[1:] if intercept else v
    return (f"**Released** θ_priv: {len(support(theta))} non-zero coefficients of {len(theta)}, "
            f"‖θ‖₁ = {np.abs(theta).sum():.4g} ≤ r = {radius:g}" + (f"; intercept {v[0]:.4g} (scaled)." if intercept
                                                                   else "."))


def support_recovery(theta: np.ndarray, truth: np.ndarray, k: Optional[int] = None) -> dict:
    """How well the k largest |θ_j| (k = |supp(truth)|) recover supp(truth): precision, recall, and
    whether the signs agree on the recovered ones."""
    truth_s = set(support(truth).tolist())
    k = len(truth_s) if k is None else int(k)
    if k == 0:
        return {"k": 0, "recovered": 0, "recall": float("nan"), "precision": float("nan"), "signs agree": 0}
    top = [int(j) for j in np.argsort(-np.abs(theta), kind="stable")[:k] if abs(theta[j]) > 0]
    hit = [j for j in top if j in truth_s]
    return {"k": k, "recovered": len(hit), "recall": len(hit) / k, "precision": len(hit) / max(len(top), 1),
            "signs agree": int(sum(np.sign(theta[j]) == np.sign(truth[j]) for j in hit))}


def _gram_in_domain(data: Any, cfg: LassoConfig
                    ) -> tuple[Optional[tuple[np.ndarray, np.ndarray]], Optional[Calibration]]:
    """(:func:`~dpcore.lasso.solver.gram_in_domain`, the calibration it needed) for a release without intercept in
    float64; (None, None) when it does not apply."""
    if cfg.intercept or cfg.dtype != "float64" or not (isinstance(data, tuple) and len(data) == 2):
        return None, None
    X = data[0]
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[0] >= 1 and X.shape[1] >= 1):
        return None, None
    cal = calibrate(cfg, X.shape)
    pre = gram_in_domain(X, data[1], int(cal.params["steps"]), cfg.path)
    return (pre, cal) if pre is not None else (None, None)


def release(data: Any, cfg: LassoConfig, *, rng: RNGLike = None, progress: Callable[[int, int], Any] | None = None,
            diagnostics: bool = True) -> Release:
    """θ_priv by private Frank–Wolfe, (ε, δ)-DP (replace-one; n and p public).

    Parameters
    ----------
    data : (X, y)
        Covariates (n, p) and response (n,); clipped to [−1, 1] (public domain).
    cfg : LassoConfig
    rng : seed or Generator
    progress : callable, optional
        ``progress(done, total) -> bool``; False stops the run (nothing released).
    diagnostics : bool
        Also compute the NON-PRIVATE comparison (non-private Frank–Wolfe, the constrained optimum θ*,
        losses, excess empirical risk, clipping counts) into ``Release.diagnostics``.
    """
    pre, cal = _gram_in_domain(data, cfg)
    if pre is not None:           # X, y already in the domain: XᵀX, Xᵀy and the checks in one pass over X
        (X, y), (n, p) = data, data[0].shape
        clip_info: dict[str, Any] = {"clipped covariate entries": 0, "clipped responses": 0,
                                     "records touched by clipping": 0, "n": int(n)}
    else:
        X, y, clip_info = clip_data(data, dtype=cfg.dtype)
        n, p = X.shape
    cal = cal if cal is not None else calibrate(cfg, (n, p))
    g = as_generator(rng)
    means = None
    if cfg.intercept:  # stage 1: released means (ε_m); stage 2 runs on the records centred at them
        means = noisy_means(X, y, cal, g)[0]
        X, y = centre(X, y, means)
    run = frank_wolfe(X, y, radius=cfg.radius, steps=int(cal.params["steps"]), constraint=cfg.constraint,
                      chooser=make_chooser(cal, g), reps=1, path=cfg.path, dtype=cfg.dtype, progress=progress,
                      gram=pre)
    theta = run.theta[0]
    notes = [Note("info", f"T = {cal.params['steps']} Frank–Wolfe steps ({cal.params['steps_source']}), each "
                          f"ε₀ = {cal.params['eps0']:.4g}-DP; {cal.params['route']}."),
             Note("info", f"θ is a convex combination of at most T = {cal.params['steps']} vertices of C "
                          f"({'±r e_j' if cfg.constraint == 'l1' else 'r e_j'}, r = {cfg.radius:g}); "
                          f"{'Gram path: XᵀX, Xᵀy once, O(p) per step' if run.path == 'gram' else 'one Xᵀr per step'}.")]
    vals = dict(clip_info)
    if diagnostics:
        Xf, yf = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        fw = frank_wolfe(X, y, radius=cfg.radius, steps=int(cal.params["steps"]), constraint=cfg.constraint,
                         path=cfg.path, dtype=cfg.dtype).theta[0]
        opt = constrained_optimum(Xf, yf, cfg.radius, cfg.constraint, tol=1e-8)
        l_priv, l_fw = float(loss(Xf, yf, theta)), float(loss(Xf, yf, fw))
        vals.update({"non-private Frank–Wolfe θ": fw, "constrained optimum θ*": opt.theta,
                     "L(θ_priv)": l_priv, "L(θ_FW)": l_fw, "L(θ*)": opt.loss, "optimum gap certificate": opt.gap,
                     "excess risk (private)": l_priv - opt.loss, "excess risk (non-private FW)": l_fw - opt.loss,
                     "L(0)": float(np.mean(yf * yf)), "excess risk of θ = 0": float(np.mean(yf * yf)) - opt.loss})
        if cfg.constraint == "l1" and float(n) * p <= 5e6:
            alpha, coef = sklearn_equivalent(Xf, yf, opt, cfg.radius)
            vals.update({"scikit-learn Lasso α (equivalent penalty)": alpha,
                         "max |θ_sklearn − θ*|": float(np.abs(coef - opt.theta).max())})
    if means is not None:
        notes.append(Note("info", "Intercept: the released value is (intercept, θ); the data were centred at released "
                                  f"noisy means (ε_m = {cal.params['mean_epsilon']:.4g}) and halved — the loss, risks "
                                  "and θ* refer to the centred data."))
        for k in ("non-private Frank–Wolfe θ", "constrained optimum θ*"):
            if k in vals:
                vals[k] = _with_intercept(np.asarray(vals[k], dtype=float), means)
        theta = _with_intercept(theta, means)
    return Release(cal.mechanism, theta, cal.cost(1), cal, True, tuple(notes), Diagnostics(values=vals), cfg)

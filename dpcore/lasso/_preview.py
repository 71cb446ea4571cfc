"""The accuracy preview of the LASSO mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument).

Private Frank–Wolfe (Talwar, Thakurta & Zhang 2015, Algorithm 2) on a public sparse design of the user's n and p,
by sufficient statistics: the design's G = XᵀX, b = Xᵀy, yᵀy once (n·p²), then the ``reps`` private runs
vectorised on the Gram path (T·p per run and step) with the release's own chooser (:func:`make_chooser` of the
release's calibration), and the excess risk L(θ) − min_C L with L(θ) = (θᵀGθ − 2bᵀθ + yᵀy)/n — the quantity the
release reports as ``"excess risk (private)"`` among its diagnostics.

With an intercept the release first draws noisy means m = (m_x, m_y) and runs on ((x − m_x)/2, (y − m_y)/2); the
sufficient statistics of those records follow exactly from XᵀX, Xᵀy, yᵀy, the column sums and m:
(XᵀX − m_x S_xᵀ − S_x m_xᵀ + n m_x m_xᵀ)/4, (Xᵀy − m_y S_x − S_y m_x + n m_y m_x)/4 and
(yᵀy − 2 m_y S_y + n m_y²)/4, so each run costs p² + T·p plus its own constrained optimum (the baseline moves
with m, as in the release).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._rng import as_generator
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, from_samples, unavailable
from ._solver import constrained_optimum, frank_wolfe, vertex_scores, vertex_to_theta
from .calibration import calibrate, risk_bound
from .designs import sparse_regression
from .release.private_fw import make_chooser, noisy_means

#: Largest public design (n·p cells) the preview builds in memory.
MAX_PREVIEW_CELLS = 1e7
#: Work units charged per constrained optimum (about its iterations × p²; each intercept run needs one).
OPTIMUM_ITERATIONS = 300


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """Private Frank–Wolfe: the excess risk of simulated private runs on a public sparse design."""
    if name not in ("lasso/private-fw", "lasso/private-fw-intercept"):
        return unavailable(name, label, "no accuracy preview is declared for this mechanism")
    return _lasso(name, config, n, d, reps, rng, label)


def public_design(n: int, p: int, rng: Any) -> tuple[np.ndarray, np.ndarray]:
    """The preview's public design: :func:`~dpcore.lasso.designs.sparse_regression` with the user's n and p and
    min(5, p) non-zeros (x uniform on [−1, 1]^p), drawn from ``rng``'s first spawned child."""
    X, y, _ = sparse_regression(max(int(n), 2), int(p), min(5, int(p)), rng=as_generator(rng).spawn(1)[0])
    return X, y


def _work_check(config: Any, n: int, p: int, reps: int, steps: int) -> str:
    """'' when ``reps`` simulated runs fit the preview's cap, else why not (public)."""
    per_run = steps * p + (p * p * OPTIMUM_ITERATIONS if config.intercept else 0)
    work = float(n) * p * p + float(reps) * per_run
    if work > MAX_PREVIEW_WORK or float(n) * p > MAX_PREVIEW_CELLS or reps < 1:
        return (f"{reps} simulated runs on a public design of n = {n:,}, p = {p} need n·p² + reps·(T·p"
                f"{' + optimum' if config.intercept else ''}) = {work:.2g} operations, over the preview's cap "
                f"{MAX_PREVIEW_WORK:.0g}: lower n, p or T to see it")
    return ""


def simulate_runs(config: Any, n: int, p: int, reps: int, rng: Any, *, per_run_optimum: bool = True
                  ) -> dict[str, np.ndarray]:
    """``reps`` private runs on the public design (:func:`public_design`), vectorised by sufficient statistics:
    per run the excess risk L(θ) − min_C L, the distance ‖θ − θ*‖₂ to the constrained optimum (scaled units) and
    the excess risk of θ = 0 (predicting 0). Public inputs only.

    With an intercept and ``per_run_optimum`` (the accuracy preview's measure, as the release's diagnostics) the
    loss, θ* and θ = 0 refer to each run's data centred at its noisy means; without it (the outlook), to the data
    centred at their exact means — min_C L is then the best fit with a free intercept, θ = 0 predicts the exact mean,
    and the noisy means' error counts against the release (one optimum instead of ``reps``)."""
    cal = calibrate(config, (n, p))
    steps = int(cal.params["steps"])
    g = as_generator(rng)
    X, y = public_design(n, p, g)
    n = X.shape[0]
    G, b, yy = X.T @ X, X.T @ y, float(y @ y)
    if config.intercept:
        return _intercept_runs(X, y, G, b, yy, config, cal, steps, reps, g, per_run_optimum)
    run = frank_wolfe(None, None, gram=(G, b), n=n, reps=reps, chooser=make_chooser(cal, g), radius=config.radius,
                      steps=steps, constraint=config.constraint)
    th = run.theta
    risk = (np.einsum("ij,jk,ik->i", th, G, th) - 2 * th @ b + yy) / n
    opt = constrained_optimum(None, None, config.radius, config.constraint, tol=1e-8, suffstats=(G, b, yy, n))
    return {"excess": risk - opt.loss, "distance": np.linalg.norm(th - opt.theta[None, :], axis=1),
            "zero": np.full(reps, yy / n - opt.loss)}


def _lasso(name: str, config: Any, n: int, p: int, reps: Any, rng: Any, label: str) -> ErrorLaw:
    steps = int(calibrate(config, (n, p)).params["steps"])
    reps = int(reps or 100)
    why = _work_check(config, n, p, reps, steps)
    if why:
        return unavailable(name, label, why)
    errs = simulate_runs(config, n, p, reps, rng)["excess"]
    return from_samples(np.maximum(errs, 0.0), name, label, "excess risk L(θ) − min_C L",
                        f"simulated: {reps} private runs on a public design (sparse regression, n = {max(n, 2):,}, "
                        f"p = {p}, {min(5, p)} non-zeros, x uniform on [−1, 1]^p; seeded), by sufficient statistics"
                        + ("; each run centred at its own noisy means, as the release" if config.intercept else ""))


@dataclass(frozen=True)
class Outlook:
    """What the preview expects of one release at this (n, p, ε, …), before the click (public: no data).

    ``distance`` and ``excess``: (median, 90 % quantile) over the simulated runs of ‖θ − θ*‖₂ and of the excess
    risk; ``mean_excess``: its mean (the expected excess risk); ``zero``: the mean excess risk of θ = 0 on the same
    design; ``p_worse``: the share of runs whose excess risk is at least θ = 0's; ``bound``: the worst-case bound on the expected excess risk over every dataset
    (:func:`~dpcore.lasso.calibration.risk_bound`); ``steps``: T. ``reason`` non-empty: no simulation (why)."""

    steps: int
    bound: float
    distance: tuple[float, float] = (math.nan, math.nan)
    excess: tuple[float, float] = (math.nan, math.nan)
    zero: float = math.nan
    p_worse: float = math.nan
    reps: int = 0
    reason: str = ""
    mean_excess: float = math.nan

    @property
    def improvement(self) -> float:
        """1 − E[excess risk]/excess risk of θ = 0: the share of θ = 0's excess risk the release is expected to
        remove (≤ 0: none)."""
        return 1.0 - self.mean_excess / self.zero if self.zero > 0 else math.nan

    @property
    def no_improvement(self) -> bool:
        """True when the preview expects little or no improvement over θ = 0: the expected excess risk removes less
        than :data:`MIN_IMPROVEMENT` of θ = 0's (at ε = 1 and n = 442 the medians of the two are within a few %)."""
        return not self.reason and not self.improvement >= MIN_IMPROVEMENT

    def lines(self, intercept: bool) -> list[str]:
        """The outlook in words (markdown), for the page before the click."""
        zero = "predicting the mean (θ = 0 after centring)" if intercept else "θ = 0 (predicting 0)"
        out = [f"Worst case over every dataset in the public domain: expected excess risk ≤ **{self.bound:.3g}** "
               f"after T = {self.steps:,} steps (the bound the risk-bound step rule minimises)."]
        if self.reason:
            return out + [f"No simulation: {self.reason}."]
        out.insert(0, f"On the public design (x uniform on [−1, 1]^p, {self.reps} seeded simulated releases — no data): "
                      f"‖θ̂ − θ*‖₂ ≤ **{self.distance[0]:.3g}** half of the time (≤ {self.distance[1]:.3g} nine times "
                      f"in ten) from the constrained optimum θ*, in the scaled units; excess risk ≤ "
                      f"{self.excess[0]:.3g} (≤ {self.excess[1]:.3g}; mean {self.mean_excess:.3g}) against **{self.zero:.3g} for "
                      f"{zero}**.")
        if self.no_improvement:
            out.append(f"⚠ At this n and ε the preview expects **little or no improvement over {zero}**: the expected "
                       f"excess risk removes {max(self.improvement, 0.0):.0%} of {zero}'s, and the release is worse "
                       f"than it in {self.p_worse:.0%} of the simulations. Raise ε or n (or try the risk-bound step "
                       "rule) before spending budget on it.")
        return out


#: The outlook warns when the expected excess risk removes less than this share of θ = 0's.
MIN_IMPROVEMENT = 0.2
#: Simulated releases behind an outlook (its quantiles are coarse — the median and the 90 % point of 20 runs —
#: but it is drawn on every change of a setting; the accuracy preview beside it runs 100).
OUTLOOK_REPS = 20


def outlook(config: Any, n: int, p: int, *, reps: int = OUTLOOK_REPS, rng: Any = 0) -> Outlook:
    """The :class:`Outlook` of ``config`` at the public shape (n, p): ``reps`` seeded runs of
    :func:`simulate_runs` and the worst-case :func:`~dpcore.lasso.calibration.risk_bound`. Public inputs only."""
    cal = calibrate(config, (n, p))
    steps = int(cal.params["steps"])
    eps_fw = float(cal.params.get("fw_epsilon", config.epsilon))
    bound = float(risk_bound(n, p, eps_fw, config.delta, config.radius, steps, config.selection, config.composition,
                             config.constraint))
    why = _work_check(config, n, p, reps, steps)
    if why:
        return Outlook(steps, bound, reason=why)
    r = simulate_runs(config, n, p, reps, rng, per_run_optimum=False)
    ex, dist = np.maximum(r["excess"], 0.0), r["distance"]
    return Outlook(steps, bound, (float(np.median(dist)), float(np.quantile(dist, 0.9))),
                   (float(np.median(ex)), float(np.quantile(ex, 0.9))), float(np.mean(r["zero"])),
                   float(np.mean(ex >= r["zero"])), reps, mean_excess=float(np.mean(ex)))


def _intercept_runs(X: np.ndarray, y: np.ndarray, G: np.ndarray, b: np.ndarray, yy: float, config: Any, cal: Any,
                    steps: int, reps: int, g: np.random.Generator, per_run_optimum: bool = True
                    ) -> dict[str, np.ndarray]:
    """The excess risks (and distances to θ*, and θ = 0's excess risks) of ``reps`` intercept releases, vectorised
    over the runs.

    With c = x̄ − m_x and e = ȳ − m_y (m: the run's noisy means) the centred, halved records have
    Gc = (G₀ + n c cᵀ)/4, bc = (b₀ + n c e)/4, yyc = (yy₀ + n e²)/4, where G₀ = XᵀX − n x̄x̄ᵀ, b₀ = Xᵀy − n x̄ȳ,
    yy₀ = yᵀy − nȳ² are the exactly centred statistics; so the gradient of run r is the shared G₀θ − b₀ plus a
    rank-one term n c_r (c_rᵀθ − e_r), kept in O(p) per step. The steps are those of
    :func:`~dpcore.lasso._solver.frank_wolfe` (same scores, chooser, vertices and step sizes 2/(t + 2)).
    """
    n, p = X.shape
    xbar, ybar = X.mean(axis=0), float(np.mean(y))
    G0, b0, yy0 = G - n * np.outer(xbar, xbar), b - n * ybar * xbar, yy - n * ybar * ybar
    m = noisy_means(xbar[None, :], np.array([ybar]), cal, g, size=reps)   # the release's stage 1, reps draws
    c, e = xbar[None, :] - m[:, :p], ybar - m[:, p]
    radius, constraint = float(config.radius), config.constraint
    theta = np.zeros((reps, p)) if constraint == "l1" else np.full((reps, p), radius / p)
    A, s = theta @ G0, (theta * c).sum(axis=1)           # G₀θ and cᵀθ per run
    rows, choose = np.arange(reps), make_chooser(cal, g)
    for t in range(1, steps + 1):
        grad = (2.0 / n) * 0.25 * (A - b0[None, :] + n * c * (s - e)[:, None])
        k = np.asarray(choose(vertex_scores(grad, radius, constraint), t))
        j, val = vertex_to_theta(k, p, radius)
        mu = 2.0 / (t + 2.0)
        theta *= 1.0 - mu
        theta[rows, j] += mu * val
        A *= 1.0 - mu
        A += (mu * val)[:, None] * G0[j]
        s = (1.0 - mu) * s + mu * val * c[rows, j]
    risk = 0.25 * ((np.einsum("ij,jk,ik->i", theta, G0, theta) - 2 * theta @ b0 + yy0) / n
                   + ((theta * c).sum(axis=1) - e) ** 2)
    if not per_run_optimum:      # against the exactly centred data: one optimum, θ = 0 predicts the exact mean
        o = constrained_optimum(None, None, radius, constraint, tol=1e-8, suffstats=(G0 / 4.0, b0 / 4.0, yy0 / 4.0, n))
        return {"excess": risk - o.loss, "distance": np.linalg.norm(theta - o.theta[None, :], axis=1),
                "zero": np.full(reps, 0.25 * yy0 / n - o.loss)}
    opts = [constrained_optimum(None, None, radius, constraint, tol=1e-8,
                                suffstats=((G0 + n * np.outer(cr, cr)) / 4.0, (b0 + n * er * cr) / 4.0,
                                           (yy0 + n * er * er) / 4.0, n)) for cr, er in zip(c, e)]
    best = np.array([o.loss for o in opts])
    return {"excess": risk - best, "distance": np.linalg.norm(theta - np.array([o.theta for o in opts]), axis=1),
            "zero": 0.25 * (yy0 / n + e ** 2) - best}

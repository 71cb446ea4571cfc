"""Linear and quantile regression on Θ = {‖θ‖₁ ≤ B} (Reimherr & Awan 2019, §4.2–4.3, §4.5, §7).

The data are divided by the public bounds (|x_ij| ≤ x_bound_j, |y| ≤ y_bound) and clipped to
‖x‖∞ ≤ 1, |y| ≤ 1 (clipping counted, never silent); the estimates are multiplied back
(post-processing). Gradients (the quantity inside ‖·‖_K):

==================== ===============================================================
linear regression    ∇ℓ = −2(Xᵀy − XᵀXθ)                     (ℓ = Σ(y_i − x_iᵀθ)²)
quantile regression  ∇ℓ = Σ x_i (1{y_i ≤ x_iᵀθ} − τ)          (ℓ = Σρ_τ(y_i − x_iᵀθ))
==================== ===============================================================
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import spawn
from .._validation import DPValueError, check_finite_array
from ..errors import Cancelled
from ..mechanism import Calibration
from ..noise import knorm_noise
from ._estimators import nonprivate_quantile_regression, ols
from ._exact_regression import sample_linear_exact
from ._objpert import l1_constrained_qp
from ._problem import Prepared, Problem, chunks, project_to_kball
from ._targets import BOX_MIN_N, LinearRegressionTarget, quantile_regression_target
from .configs import LinearRegressionConfig, QuantileRegressionConfig


def regression_data(data: Any, cfg: Any, problem: str, clip_y: bool, C_X: Any = None) -> tuple:
    """Validated (X, y) divided by the public bounds and clipped: (Xc, yc, clipped count, scale_out)."""
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        raise DPValueError(f"problem={problem!r} takes data=(X, y): X of shape (n, d) and y of shape (n,).")
    X = check_finite_array(data[0], "X", ndim=(1, 2), min_rows=1)
    if X.ndim == 1:
        X = X[:, None]
    y = check_finite_array(data[1], "y", ndim=(1,), min_rows=1)
    n, d = X.shape
    if y.shape[0] != n:
        raise DPValueError(f"X has {n} rows but y has {y.shape[0]}; they must describe the same records.")
    xb = np.broadcast_to(np.asarray(cfg.x_bound, dtype=float), (d,)).copy()
    Xs, ys = X / xb, y / cfg.y_bound
    Xc = np.clip(Xs, -1.0, 1.0)
    yc = np.clip(ys, -1.0, 1.0) if clip_y else ys
    if C_X is not None:
        Xc = project_to_kball(Xc, C_X, cfg.norm)
    k = int(np.sum(np.any(Xc != Xs, axis=1) | (yc != ys)))
    return Xc, yc, k, cfg.y_bound / xb


# ----------------------------------------------------------------------------- linear regression
class LinearRegression(Problem):
    """Least squares: KNG, the exponential mechanism and objective perturbation (§4.2–4.3, §7.1–7.2)."""

    name, title, config, section = "linear_regression", "linear regression", LinearRegressionConfig, "§4.3"

    def prepare(self, data: Any, cfg: LinearRegressionConfig) -> Prepared:
        Xc, yc, k, scale_out = regression_data(data, cfg, self.name, clip_y=True)
        n, d = Xc.shape
        A, b = Xc.T @ Xc, Xc.T @ yc
        return Prepared(n, d, lambda: ols(A, b), k, l1_radius=cfg.B, centre=np.zeros(d), scale_out=scale_out,
                        data={"A": A, "b": b, "X": Xc, "y": yc})

    def gradient(self, P, th):
        return -2.0 * (P.data["b"][None, :] - th @ P.data["A"])

    def objective(self, P, th):
        return np.einsum("mi,ij,mj->m", th, P.data["A"], th) - 2.0 * th @ P.data["b"]

    def exact_sampler(self, cfg, d):
        """Objective perturbation: the exact QP. KNG and the exponential mechanism: the exact rejection sampler
        of :mod:`dpcore.kng._exact_regression` (its gradient is affine in θ), MCMC only as a fallback."""
        if cfg.mechanism == "objective_perturbation":
            return self._draw_objective_perturbation
        return self._draw_exact

    def exact_may_stop(self, cfg):
        """The rejection sampler of KNG / the exponential mechanism stops when Θ has too little mass (data)."""
        return cfg.mechanism != "objective_perturbation"

    @staticmethod
    def _draw_exact(P, cal, size, g, progress=None):
        return sample_linear_exact(P.data["A"], P.data["b"], cal.params["kind"], cal.constant, cal.params["norm"],
                                   P.l1_radius, size, g, progress=progress)

    def mcmc_kind(self, P, cfg):
        """The fallback MCMC runs where θ̂ is far outside Θ or XᵀX is (nearly) singular: ill-conditioned
        targets, so full-vector preconditioned moves (O(d²) per proposal on the sufficient statistics)."""
        return "preconditioned"

    @staticmethod
    def _draw_objective_perturbation(P, cal, size, g, progress=None):
        return objective_perturbation(P.data["A"][None], P.data["b"][None], cal, P.l1_radius, spawn(g, size),
                                      progress)

    def move_cost(self, P, cfg):
        return P.d * P.d, "sufficient-statistic entries"

    def incremental_target(self, P, cal, cfg):
        return LinearRegressionTarget(P.data["A"][None], P.data["b"][None], cfg.mechanism, cal.constant, cfg.norm)


def objective_perturbation(A: np.ndarray, b: np.ndarray, cal: Calibration, B: float, gens,
                           progress: Any = None) -> np.ndarray:
    """One release per generator: θ = argmin_{‖θ‖₁≤B} θᵀAθ − 2θᵀb + (γ/2)θᵀθ + θᵀβ, β ∝ exp(−c‖β‖_K).

    A (R or 1, d, d), b (R or 1, d); gens: R generators (replicate/draw r uses gens[r] only).
    ``progress(done, R)`` is called every 256 draws; returning False raises
    :class:`dpcore.errors.Cancelled`.
    """
    d = b.shape[-1]
    R = len(gens)
    A = np.broadcast_to(A, (R, d, d))
    b = np.broadcast_to(b, (R, d))
    out = np.empty((R, d))
    eye = np.eye(d)
    gamma, name = cal.params["gamma"], cal.params["norm"]
    for r in range(R):
        noise = knorm_noise(d, cal.constant, name, 1, gens[r])[0]
        out[r] = l1_constrained_qp(2.0 * A[r] + gamma * eye, 2.0 * b[r] - noise, B)
        if progress is not None and (r + 1) % 256 == 0 and progress(r + 1, R) is False:
            raise Cancelled(f"objective perturbation cancelled after {r + 1} of {R} draws.", done=r + 1, total=R)
    return out


# ----------------------------------------------------------------------------- quantile regression
#: Largest n·d for which quantile regression's release uses the preconditioned (full-evaluation) MCMC.
PRECOND_MAX_VALUES = 40_000
#: Work-budget units of one chain's slice search per move in the box-banded target (measured, see move_cost).
BOX_CHAIN_OVERHEAD = 3_000
#: Work-budget units per record of the exponential mechanism's full check-loss evaluation (n < BOX_MIN_N).
EXP_FULL_COST = 3


def _n(x: int) -> str:
    return f"{int(x):,}".replace(",", " ")


class QuantileRegression(Problem):
    """τ-quantile regression: KNG and the exponential mechanism (§4.5; not strongly convex: no objective
    perturbation)."""

    name, title, config, section = "quantile_regression", "quantile regression", QuantileRegressionConfig, "§4.5"

    def prepare(self, data: Any, cfg: QuantileRegressionConfig) -> Prepared:
        kng = cfg.mechanism == "kng"
        Xc, yc, k, scale_out = regression_data(data, cfg, self.name, clip_y=not kng,
                                               C_X=cfg.C_X if kng else None)
        n, d = Xc.shape
        tau = cfg.tau
        return Prepared(n, d, lambda: nonprivate_quantile_regression(Xc, yc, tau), k, l1_radius=cfg.B,
                        centre=np.zeros(d), scale_out=scale_out, tau=tau, data={"X": Xc, "y": yc})

    def gradient(self, P, th):
        out = np.empty_like(th)
        X, y = P.data["X"], P.data["y"]
        for s in chunks(th.shape[0], P.n):
            ind = (y[None, :] <= th[s] @ X.T).astype(float) - P.tau
            out[s] = ind @ X
        return out

    def objective(self, P, th):
        out = np.empty(th.shape[0])
        X, y = P.data["X"], P.data["y"]
        for s in chunks(th.shape[0], P.n):
            r = y[None, :] - th[s] @ X.T
            out[s] = np.sum(r * (P.tau - (r <= 0)), axis=1)
        return out

    def incremental_target(self, P, cal, cfg):
        return quantile_regression_target(P.data["X"][None], P.data["y"][None], P.tau, cfg.mechanism, cal.constant,
                                          cfg.norm)

    def values_per_step(self, P, chains):
        return chains * P.n

    def temperatures(self, P, cfg):
        """KNG: parallel tempering down to β = 2/ε. Its log density −c‖G(θ)‖_K is a terrace — G jumps by
        ±x_i when a residual changes sign — whose steps are up to c·C_X ≤ cΔ = ε/2 high: at large ε chains stop
        on plateaus (measured on the diabetes design at ε = 1000: 4 chains on 2 different plateaus, R-hat 2.3).
        The hottest chain sees steps of height ≤ 1; inverse temperatures halve from 1 to min(1/4, 2/ε)
        (1 + ⌈log₂(1/β_min)⌉ of them; public). Measured on the correlation-0.98 design (d = 3): a ratio of 4
        withheld half the releases at ε = 1000 (R-hat up to 1.6), a ratio of 2 none. Even at ε = 1 hot chains
        help: min ESS of 4 chains × 1 000 sweeps 13–119 without them, 148–221 with one at β = 1/4.
        The exponential mechanism's target is log-concave: no tempering."""
        if cfg.mechanism != "kng":
            return (1.0,)
        lo = min(0.25, 2.0 / cfg.epsilon)
        K = 1 + int(math.ceil(math.log2(1.0 / lo) - 1e-9))
        return tuple(float(b) for b in np.geomspace(1.0, lo, K))

    def mcmc_kind(self, P, cfg):
        """Preconditioned full-vector moves (they mix on correlated designs, e.g. bmi and the intercept of the
        diabetes data) while one target evaluation touches at most :data:`PRECOND_MAX_VALUES` values (n·d) and
        the whole run fits the work budget; beyond, the banded coordinate-wise targets (O(√n) per move) keep
        large n and many draws affordable. Decided from public inputs (n, d, size, sweeps) only."""
        from .release._engine import MAX_WORK, MIN_CHAINS

        work = max(cfg.size, MIN_CHAINS) * cfg.sweeps * P.d * P.n * P.d * len(self.temperatures(P, cfg))
        return "preconditioned" if P.n * P.d <= PRECOND_MAX_VALUES and work <= MAX_WORK else "coordinate"

    def move_cost(self, P, cfg):
        """Records a coordinate move touches: the band of :func:`quantile_regression_target` (≈ 8√n) for
        large n, else all n. The exponential mechanism's box band searches each chain's slice in a Python
        loop: measured ≈ 3 000 record-equivalents per chain and move on top of its ≈ 8√n records."""
        if self.mcmc_kind(P, cfg) == "preconditioned":
            K = len(self.temperatures(P, cfg))
            return P.n * P.d * K, (f"record-coordinates (one full evaluation of the target per proposal, at {K} "
                                   "temperatures)" if K > 1 else "record-coordinates (one full evaluation of the "
                                   "target per proposal)")
        band = max(256, int(8 * np.sqrt(P.n)))
        if cfg.mechanism == "kng":
            return (band if band * 4 <= P.n else P.n), "records"
        if P.n >= BOX_MIN_N:
            return band + BOX_CHAIN_OVERHEAD, f"record-equivalents ({_n(band)} records + a per-chain slice search)"
        # the full check loss of every record: measured 2.6 × KNG's gradient per record (n = 1 000, d = 2,
        # 100 chains × 1 000 sweeps: 16.4 s vs 6.4 s on the 2-core machine, load ≈ 6), counted as 3
        return EXP_FULL_COST * P.n, f"record-equivalents ({_n(P.n)} records × {EXP_FULL_COST}, the full check loss)"

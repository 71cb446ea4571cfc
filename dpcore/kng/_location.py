"""The mean, the median (geometric median for d ≥ 2) and the quantile (Reimherr & Awan 2019, §4.1, §4.4, §4.5).

Gradients (the quantity inside ‖·‖_K):

==================== ===============================================================
mean                 ∇ℓ = 2n(θ − x̄)                         (ℓ = Σ‖x_i − θ‖₂²)
median, d = 1        ∇ℓ = #{x_i < θ} − #{x_i > θ}             (ℓ = Σ|x_i − θ|)
geometric median     ∇ℓ = −Σ (x_i − θ)/‖x_i − θ‖₂            (ℓ = Σ‖x_i − θ‖₂)
quantile             ∇ℓ = #{y_i ≤ θ} − τn                     (ℓ = Σρ_τ(y_i − θ))
==================== ===============================================================

The sensitivities are derived in :mod:`dpcore.kng.calibration`.
"""
from __future__ import annotations

import math
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import numpy as np

from .._validation import DPValueError
from ..exact import discrete_laplace, to_grid
from ..mechanism import Calibration
from ..noise import knorm_noise
from ..norms import norm
from ._estimators import geometric_median
from ._exact import (quantile_exponential_pieces, quantile_kng_pieces, quantile_loss_at, sample_quantile_kng,
                     sample_truncated_normal)
from ._problem import Prepared, Problem, box, chunks, project_to_kball, records
from ._targets import GeometricMedianTarget
from .configs import MeanConfig, MedianConfig, QuantileConfig


def _clipped_rows(xc: np.ndarray, x: np.ndarray) -> int:
    return int(np.sum(np.any(xc != x, axis=1)))


def _outside(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> int:
    """Records of one column outside [lo, hi] (order-free: the exact sampler reorders the clipped copy)."""
    return int(np.count_nonzero((x[:, 0] < lo[0]) | (x[:, 0] > hi[0])))


# ----------------------------------------------------------------------------- mean
class Mean(Problem):
    """Mean of records in a public K-ball (``radius``, ``center``) or box (``bounds``), §4.1."""

    name, title, config, section = "mean", "mean", MeanConfig, "§4.1"

    @staticmethod
    def ball(cfg: MeanConfig, d: int) -> tuple[np.ndarray, float]:
        """(centre, radius) of the public K-ball of the records (the smallest one around ``bounds``' box)."""
        if cfg.radius is None:
            lo, hi = box(cfg.bounds, d)
            return (lo + hi) / 2.0, float(norm(((hi - lo) / 2.0)[None, :], cfg.norm)[0])
        c = np.zeros(d) if cfg.center is None else np.broadcast_to(np.asarray(cfg.center, dtype=float), (d,)).copy()
        return c, cfg.radius

    def prepare(self, data: Any, cfg: MeanConfig) -> Prepared:
        x = records(data, self.name)
        n, d = x.shape
        c, r = self.ball(cfg, d)
        xc = project_to_kball(x - c, r, cfg.norm) + c
        P = Prepared(n, d, lambda: xc.mean(axis=0), _clipped_rows(xc, x), centre=c.copy(),
                     data={"xbar": xc.mean(axis=0), "x": xc, "radius": r, "center": c})
        if cfg.mechanism == "exponential":
            P.kball = (c, r, cfg.norm)
        return P

    def gradient(self, P, th):
        return 2.0 * P.n * (th - P.data["xbar"])

    def objective(self, P, th):
        diff = th - P.data["xbar"]
        return P.n * np.sum(diff * diff, axis=1)

    def exact_sampler(self, cfg, d):
        if cfg.mechanism == "kng":
            return self._draw_kng
        return self._draw_exponential if (d == 1 or cfg.norm == "linf") else None

    def move_cost(self, P, cfg):
        return P.d, "coordinate operations"

    @staticmethod
    def _draw_kng(P, cal, size, g, progress=None):
        if cal.params.get("noise") == "grid":
            # hardened: γ·(r(x̄) + Z), Z iid exact discrete Laplace of scale Δ_g/ε grid units (derived in
            # dpcore.kng.calibration.mean_noise); × a mutant's factor on c (1 for a real release)
            gamma, dg = cal.params["grid"], cal.params["grid_sensitivity"]
            t = Fraction(dg) / Fraction(cal.epsilon) * Fraction(cal.params["grid_constant"] / cal.constant)
            k = to_grid(P.data["xbar"], gamma)[None, :] + discrete_laplace(t, (size, P.d), g)
            return gamma * k.astype(float)
        # f ∝ exp(−c‖∇ℓ‖) = exp(−2nc‖θ − x̄‖_K): the K-norm mechanism, exact (Gamma radius × uniform ball)
        return P.data["xbar"] + knorm_noise(P.d, 2.0 * P.n * cal.constant, cal.params["norm"], size, g)

    @staticmethod
    def _draw_exponential(P, cal, size, g, progress=None):
        # N(x̄, 1/(2nc)) truncated to the ball = box (1-D or ℓ∞)
        ctr, r = P.data["center"], P.data["radius"]
        return sample_truncated_normal(P.data["xbar"], 1.0 / math.sqrt(2.0 * P.n * cal.constant), ctr - r, ctr + r,
                                       size, g)

    def target_width(self, P, cal, cfg):
        return 2.4 / math.sqrt(2.0 * cal.constant * P.n)  # the exact Gaussian sd of the target

    def mcmc_box(self, P):
        if P.kball is not None:  # exponential mechanism: Θ = K-ball ⊂ box of half-width r
            ctr, r, _ = P.kball
            return ctr - r, ctr + r
        return P.lower, P.upper

    def step_cap(self, P):
        return float(P.data["radius"])


# ----------------------------------------------------------------------------- median / geometric median
class Median(Problem):
    """Median of one column (exact samplers) or geometric median of d ≥ 2 columns (MCMC), §4.4."""

    name, title, config, section = "median", "median", MedianConfig, "§4.4"

    def prepare(self, data: Any, cfg: MedianConfig) -> Prepared:
        x = records(data, self.name)
        n, d = x.shape
        lo, hi = box(cfg.bounds, d)
        xc = np.clip(x, lo, hi)
        if d == 1:
            y = xc[:, 0]
            # the median's constants refer to Σ|x − θ| and #{<} − #{>} = 2(#{≤} − n/2) a.e.: the 1-D laws are the
            # quantile's (τ = 1/2) with twice the constant
            return Prepared(n, 1, lambda: np.median(y), lambda: _outside(x, lo, hi), lower=lo, upper=hi,
                            centre=(lo + hi) / 2.0, width=float(hi[0] - lo[0]),
                            data={"y": y, "lo": float(lo[0]), "hi": float(hi[0]), "c_factor": 2.0})
        k = _clipped_rows(xc, x)
        return Prepared(n, d, lambda: geometric_median(xc), k, lower=lo, upper=hi, centre=(lo + hi) / 2.0,
                        width=float(np.linalg.norm(hi - lo)), data={"x": xc})

    def gradient(self, P, th):
        if P.d == 1:
            y = P.sorted_y()
            t = th[:, 0]
            le = np.searchsorted(y, t, side="right")
            lt = np.searchsorted(y, t, side="left")
            return (lt - (P.n - le))[:, None].astype(float)
        out = np.empty_like(th)
        for s in chunks(th.shape[0], P.n * P.d):
            diff = P.data["x"][None, :, :] - th[s, None, :]
            nr = np.sqrt(np.sum(diff * diff, axis=2, keepdims=True))
            with np.errstate(invalid="ignore", divide="ignore"):
                u = np.where(nr > 0, diff / nr, 0.0)
            out[s] = -u.sum(axis=1)
        return out

    def objective(self, P, th):
        if P.d == 1:
            return 2.0 * quantile_loss_at(P.sorted_y(), th[:, 0], 0.5)  # Σ|x − θ| = 2Σρ_{1/2}
        out = np.empty(th.shape[0])
        for s in chunks(th.shape[0], P.n * P.d):
            diff = P.data["x"][None, :, :] - th[s, None, :]
            out[s] = np.sqrt(np.sum(diff * diff, axis=2)).sum(axis=1)
        return out

    @staticmethod
    def width(cfg, d: int) -> float:
        """Public data diameter: hi − lo in 1-D, the box diagonal ‖hi − lo‖₂ for the geometric median."""
        lo, hi = box(cfg.bounds, d)
        return float(hi[0] - lo[0]) if d == 1 else float(np.linalg.norm(hi - lo))

    def exact_sampler(self, cfg, d):
        if d != 1:
            return None
        return _draw_quantile_kng if cfg.mechanism == "kng" else _draw_quantile_exponential

    def incremental_target(self, P, cal, cfg):
        if P.d == 1:
            return None
        return GeometricMedianTarget(P.data["x"], cfg.mechanism, cal.constant, cfg.norm)

    def values_per_step(self, P, chains):
        return chains * P.n * P.d if P.d > 1 else 0

    def mcmc_kind(self, P, cfg):
        """The geometric median (d ≥ 2): preconditioned full-vector moves (correlated columns make the
        target's level sets tilted ellipses) when the run fits the work budget (public n, d, size, sweeps),
        else the incremental coordinate-wise target."""
        from .release._engine import MAX_WORK, MIN_CHAINS

        work = max(cfg.size, MIN_CHAINS) * cfg.sweeps * P.d * P.n * P.d
        return "preconditioned" if P.d > 1 and work <= MAX_WORK else "coordinate"

    def move_cost(self, P, cfg):
        if P.d > 1 and self.mcmc_kind(P, cfg) == "preconditioned":
            return P.n * P.d, "record-coordinates (one full evaluation of the target per proposal)"
        return (P.n, "records") if P.d > 1 else (1, "operation(s)")


# ----------------------------------------------------------------------------- quantile
class Quantile(Problem):
    """τ-quantile of one column on a public interval (Smith's private quantile for KNG), §4.5."""

    name, title, config, section = "quantile", "quantile", QuantileConfig, "§4.5"

    def prepare(self, data: Any, cfg: QuantileConfig) -> Prepared:
        x = records(data, self.name)
        n, d = x.shape
        if d != 1:
            raise DPValueError(f"problem='quantile' is 1-D: give one column of data; got {d} columns.")
        lo, hi = box(cfg.bounds, 1)
        xc = np.clip(x, lo, hi)
        y = xc[:, 0]
        tau = cfg.tau
        return Prepared(n, 1, lambda: np.quantile(y, tau, method="inverted_cdf"), lambda: _outside(x, lo, hi),
                        lower=lo, upper=hi, centre=(lo + hi) / 2.0, width=float(hi[0] - lo[0]), tau=tau,
                        data={"y": y, "lo": float(lo[0]), "hi": float(hi[0]), "c_factor": 1.0})

    def gradient(self, P, th):
        le = np.searchsorted(P.sorted_y(), th[:, 0], side="right")
        return (le - P.tau * P.n)[:, None].astype(float)

    def objective(self, P, th):
        return quantile_loss_at(P.sorted_y(), th[:, 0], P.tau)

    def exact_sampler(self, cfg, d):
        return _draw_quantile_kng if cfg.mechanism == "kng" else _draw_quantile_exponential


# ----------------------------------------------------------------------------- exact 1-D laws
def _quantile_constant(P: Prepared, cal: Calibration) -> float:
    """The constant of the quantile-form law: 2c for the median (see :meth:`Median.prepare`), c for a quantile."""
    return P.data["c_factor"] * cal.constant


def _draw_quantile_kng(P: Prepared, cal: Calibration, size: int, g, progress=None) -> np.ndarray:
    # y is the release's own clipped copy: partitioned in place (its order changes, not the statistics read from it)
    return sample_quantile_kng(P.data["y"], P.data["lo"], P.data["hi"], P.tau, _quantile_constant(P, cal), size,
                               g, overwrite_input=True)[:, None]


def _draw_quantile_exponential(P: Prepared, cal: Calibration, size: int, g, progress=None) -> np.ndarray:
    pieces = quantile_exponential_pieces(P.sorted_y(), P.data["lo"], P.data["hi"], P.tau, _quantile_constant(P, cal))
    return pieces.sample(size, g)[:, None]


_LAWS = MappingProxyType({"kng": quantile_kng_pieces, "exponential": quantile_exponential_pieces})


def exact_law(P: Prepared, cal: Calibration) -> Any:
    """The exact 1-D law (``Pieces``) of the median/quantile mechanisms (tests and plots)."""
    return _LAWS[cal.params["kind"]](P.sorted_y(), P.data["lo"], P.data["hi"], P.tau, _quantile_constant(P, cal))


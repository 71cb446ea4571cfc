"""Audit data for the single-parameter topic: neighbouring datasets and vectorised samplers.

The neighbouring pairs are built deterministically (fixed seeds) by replacing one observation
adversarially (Asi, Duchi & Talwar 2025, the stability checks behind Corollaries 3.1–3.3):

* ``curvature`` — the point carrying most curvature along the bottom eigenvector u_min is replaced by
  x′ = r·u_min with a huge residual (h″ ≈ 0): λ_min drops, and the chosen seed makes the count K
  drop by exactly one (the sensitivity is attained);
* ``flip`` — the point most aligned with H⁻¹u_min is replaced by itself with the opposite huge
  residual: the per-example gradient flips sign, so ‖θ̂′ − θ̂‖ is close to the bound Δ_n(λ_min).

Samplers have the signature of :class:`dpcore.audit.Audit`; mutants act through the calibration's
``params`` (``count_noise``, ``count_shift``, ``gauss_scale``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..audit import halfline_events
from ..mechanism import Calibration
from ._analysis import analyse
from ._losses import ROBUST
from .calibration import calibrate_eigen_bounds, calibrate_functional, calibrate_lambda_min, calibrate_theta, \
    calibrate_theta_generic
from .configs import (EigenBoundsConfig, FunctionalConfig, GenericConfig, LambdaMinConfig, NoisyGDConfig,
                      ObjectivePerturbationConfig, OutputPerturbationConfig, ThetaConfig)
from .designs import example_data, robust_regression
from .release import functional, noisy_gd, objective_perturbation, output_perturbation
from .release.eigen_bounds import sample_eigen_bounds
from .release.functional import sample_functional
from .release.lambda_min import sample_lambda_min
from .release.theta import sample_theta
from .release.theta_generic import sample_theta_generic

__all__ = ["neighbours", "pair"]


def neighbours(X, y, cfg, mode: str):
    """(X′, y′): one observation of (X, y) replaced adversarially (``mode`` = "curvature" or "flip")."""
    an = analyse((X, y), cfg)
    assert an.fit is not None               # simulated designs are never degenerate
    th, H = an.fit.theta, an.fit.H
    _, V = np.linalg.eigh(H)
    u = V[:, 0]
    r = X @ th - y
    X2, y2 = X.copy(), y.copy()
    if mode == "curvature":
        i = int(np.argmax(ROBUST.h2(r) * (X @ u) ** 2))
        X2[i] = u * (1 - 1e-9) * cfg.radius
        y2[i] = X2[i] @ th + 50.0
    else:
        i = int(np.argmax(np.abs(X @ np.linalg.solve(H, u)) * np.abs(np.tanh(r / 2))))
        y2[i] = X[i] @ th - 50.0 * np.sign(r[i])
    return X2, y2


def pair(n: int, d: int, seed: int, mode: str, cfg=None) -> tuple[tuple, tuple]:
    """A neighbouring pair ((X, y), (X′, y′)) of robust-regression data (normal noise, sd 0.5).

    ``flip``: observation 0 is planted at x = r·u_min with residual +50 (h′ ≈ 1) in D and −50 in D′,
    so the gradients differ by ≈ 2r·u_min, the direction that moves θ̂ the most.
    """
    cfg = cfg or LambdaMinConfig()
    X, y, _ = robust_regression(n, d, theta_norm=1.0, noise="normal", noise_scale=0.5, rng=seed)
    if mode == "curvature":
        return (X, y), neighbours(X, y, cfg, mode)
    an = analyse((X, y), cfg)
    assert an.fit is not None
    u = np.linalg.eigh(an.fit.H)[1][:, 0]
    X = X.copy()
    y = y.copy()
    X[0] = u * (1 - 1e-9) * cfg.radius
    y[0] = X[0] @ an.fit.theta + 50.0
    fit2 = analyse((X, y), cfg).fit
    assert fit2 is not None
    th = fit2.theta
    y2 = y.copy()
    y2[0] = X[0] @ th - 50.0
    return (X, y), (X, y2)


def _cal_override(cal, override):
    return cal if override is None else override(cal)


def lambda_min_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = LambdaMinConfig(epsilon=epsilon, delta=0.01)
    an = analyse(data, cfg)
    cal = _cal_override(calibrate_lambda_min(cfg, an.X.shape), override)
    return sample_lambda_min(an, epsilon, cfg.delta, n, rng, cal)


def eigen_bounds_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = EigenBoundsConfig(epsilon=epsilon, delta=2 * delta)
    an = analyse(data, cfg)
    cal = _cal_override(calibrate_eigen_bounds(cfg, an.X.shape), override)
    e1, e2 = cal.params["epsilons"]
    lh, Lh = sample_eigen_bounds(an, e1, delta, e2, delta, n, rng, cal)
    return np.column_stack([lh, Lh])


def theta_sampler(data, n, rng, *, epsilon, delta, override, share=0.25, generic=False):
    cls = GenericConfig if generic else ThetaConfig
    cfg = cls(epsilon=epsilon, delta=delta, share=share)
    an = analyse(data, cfg, generic=generic)
    calibrate: Callable[..., Calibration] = calibrate_theta_generic if generic else calibrate_theta
    cal = _cal_override(calibrate(cfg, an.X.shape), override)
    f = sample_theta_generic if generic else sample_theta
    return f(an, share * epsilon, delta / 2, (1 - share) * epsilon, delta / 2, n, rng, cal)


def functional_sampler_factory(eps_split, delta_split=(0.25, 0.25, 0.25, 0.25), direction=None):
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = FunctionalConfig(epsilon=epsilon, delta=delta, eps_split=eps_split, delta_split=delta_split,
                               direction=direction)
        an = analyse(data, cfg)
        cal = _cal_override(calibrate_functional(cfg, an.X.shape), override)
        return sample_functional(an, cfg, n, rng, cal)["value"]
    return sampler


def bottom_and_halflines(thresholds, projection=None):
    """Events {⊥} and {⟨x, p⟩ > t}, {⟨x, p⟩ ≤ t} among released values, for each threshold t."""
    t = np.asarray(thresholds, dtype=float)

    def ev(out):
        x = np.asarray(out, dtype=float).reshape(len(out), -1)
        bot = np.isnan(x).any(axis=1)
        z = x @ np.asarray(projection, dtype=float) if projection is not None else x[:, 0]
        z = np.where(bot, 0.0, z)
        above = (z[:, None] > t[None, :]) & ~bot[:, None]
        below = (z[:, None] <= t[None, :]) & ~bot[:, None]
        return np.concatenate([bot[:, None], above, below], axis=1)
    return ev


def rung_events(values, thresholds):
    """Events {λ̂ = b} for each rung b, and {Λ̂ > t} / {Λ̂ ≤ t} (outputs are (λ̂, Λ̂) rows)."""
    b = np.asarray(values, dtype=float)
    t = np.asarray(thresholds, dtype=float)

    def ev(out):
        out = np.asarray(out, dtype=float).reshape(len(out), -1)
        e = [out[:, 0][:, None] == b[None, :]]
        if out.shape[1] > 1:
            e += [out[:, 1][:, None] > t[None, :], out[:, 1][:, None] <= t[None, :]]
        return np.concatenate(e, axis=1)
    return ev


def tune_ptr_split(data_a, data_b, epsilon: float, delta: float):
    """ε-split for the propose-test-release audit: ε₄ lies halfway between the un-noised test statistics
    of the two datasets, so a test on the un-noised counts passes on one and fails on the other."""
    base = (0.3, 0.3, 0.2, 0.2)
    vals = []
    for data in (data_a, data_b):
        cfg = FunctionalConfig(epsilon=epsilon, delta=delta, eps_split=base)
        an = analyse(data, cfg)
        cal = calibrate_functional(cfg, an.X.shape).replace(params={"count_noise": 0.0, "count_shift": False})
        vals.append(float(sample_functional(an, cfg, 1, 0, cal)["eps_var"][0]))
    e4 = 0.5 * (vals[0] + vals[1])
    share4 = e4 / epsilon
    if not 0 < share4 < 0.7:
        raise RuntimeError(f"audit tuning failed: ε_var values {vals} do not fit ε = {epsilon}.")
    rest = (1 - share4) / 0.8
    return (0.3 * rest, 0.3 * rest, 0.2 * rest, share4), vals


def moving_direction(pair_):
    """The unit vector along θ̂(D) − θ̂(D′) (the functional that moves the most)."""
    cfg = LambdaMinConfig()
    a, b = (analyse(d, cfg).fit.theta for d in pair_)  # type: ignore[union-attr]  # simulated: fitted
    v = a - b
    return tuple(float(x) for x in v / np.linalg.norm(v))


# --- baselines ---------------------------------------------------------------------------------
def tiny_pair(n: int = 10, seed: int = 0):
    """d = 1, x = ±1 (on the boundary of the unit ball); observation 0 has residual +30 in D, −30 in D′."""
    g = np.random.default_rng(seed)
    X = np.where(g.random((n, 1)) < 0.5, -1.0, 1.0) * (1 - 1e-12)
    y = 0.5 * X[:, 0] + 0.3 * g.standard_normal(n)
    X[0, 0] = 1 - 1e-12
    y[0] = 30.0
    y2 = y.copy()
    y2[0] = -30.0
    return (X, y), (X, y2)


def baseline_sampler(kind: str, **kw):
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg: object
        if kind == "output":
            cfg = OutputPerturbationConfig(epsilon=epsilon, delta=delta, **kw)
            return output_perturbation.sample_output_perturbation(data, cfg, n, rng, override)[0]
        if kind == "objective":
            cfg = ObjectivePerturbationConfig(epsilon=epsilon, **kw)
            return objective_perturbation.sample_objective_perturbation(data, cfg, n, rng, override)[0]
        cfg = NoisyGDConfig(epsilon=epsilon, delta=delta, **kw)
        return noisy_gd.sample_noisy_gd(data, cfg, n, rng, override)[0]
    return sampler


def shift_events(kind: str, **kw):
    """Half-lines around the two non-private answers of a baseline (fixed before sampling)."""
    def events(D, Dp, eps, delta):
        cfg: object
        if kind == "output":
            f, cfg = output_perturbation.nonprivate, OutputPerturbationConfig(**kw)
        elif kind == "objective":
            f, cfg = objective_perturbation.nonprivate, ObjectivePerturbationConfig(**kw)
        else:
            f, cfg = noisy_gd.nonprivate, NoisyGDConfig(**kw)
        a, b = float(f(D, cfg)[0]), float(f(Dp, cfg)[0])
        lo, hi = min(a, b), max(a, b)
        w = hi - lo
        return halfline_events(np.linspace(lo - 3 * w, hi + 3 * w, 41))
    return events


def surface_pairs():
    """Public-surface pairs (same n = 20 000, d = 3): record 0's covariates moved far outside the ball (clipped),
    record 0's response moved far out (changes θ̂ and LS_v), and a degenerate design (covariate column 0
    identically zero, so λ_min = 0) against the same design with one entry of that column non-zero; and, since
    the public text may not depend on the data at all, the example against twice its response (the residuals'
    scale, so the Hessian, θ̂ and LS_v change by O(1), not O(1/n): a leaked LS_v shows in 4 digits)."""
    X, y = example_data()
    Xc, yc = X.copy(), y.copy()
    Xc[0] = 50.0
    yc[0] = 1e3
    Z = X.copy()
    Z[:, 0] = 0.0
    Zp = Z.copy()
    Zp[0, 0] = 0.5
    return [((X, y), (Xc, y)), ((X, y), (X, yc)), ((Z, y), (Zp, y)), ((X, y), (X, 2.0 * y))]


def rungs(data):
    an = analyse(data, LambdaMinConfig())
    return np.concatenate([[0.0], an.ladder.B[1:]])


def ladder_events(D, Dp, eps, delta):
    return rung_events(rungs(D), [])


def eigen_events(D, Dp, eps, delta):
    cap = analyse(D, LambdaMinConfig()).consts.cap
    return rung_events(rungs(D), np.linspace(0.2, cap, 25))


def theta_events(D, Dp, eps, delta):
    cfg = ThetaConfig()
    a, b = analyse(D, cfg), analyse(Dp, cfg)
    assert a.fit is not None and b.fit is not None  # the audit pair is not degenerate
    p = a.fit.theta - b.fit.theta
    p = p / np.linalg.norm(p)
    mid = 0.5 * (a.fit.theta + b.fit.theta) @ p
    return bottom_and_halflines(mid + np.linspace(-0.02, 0.04, 31), p)


def functional_events(D, Dp, eps, delta, direction=None):
    cfg = FunctionalConfig(direction=direction)
    a, b = functional.nonprivate(D, cfg), functional.nonprivate(Dp, cfg)
    lo, hi = min(a, b), max(a, b)
    return bottom_and_halflines(np.linspace(lo - 0.03, hi + 0.03, 31))

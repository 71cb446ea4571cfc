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


import numpy as np

from . import algorithms as A
from .designs import robust_regression
from .losses import ROBUST

__all__ = ["neighbours", "pair"]


def neighbours(X, y, cfg, mode: str):
    """(X′, y′): one observation of (X, y) replaced adversarially (``mode`` = "curvature" or "flip")."""
    an = A.analyse((X, y), cfg)
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
    cfg = cfg or A.LambdaMinConfig()
    X, y, _ = robust_regression(n, d, theta_norm=1.0, noise="normal", noise_scale=0.5, rng=seed)
    if mode == "curvature":
        return (X, y), neighbours(X, y, cfg, mode)
    an = A.analyse((X, y), cfg)
    assert an.fit is not None
    u = np.linalg.eigh(an.fit.H)[1][:, 0]
    X = X.copy()
    y = y.copy()
    X[0] = u * (1 - 1e-9) * cfg.radius
    y[0] = X[0] @ an.fit.theta + 50.0
    fit2 = A.analyse((X, y), cfg).fit
    assert fit2 is not None
    th = fit2.theta
    y2 = y.copy()
    y2[0] = X[0] @ th - 50.0
    return (X, y), (X, y2)


def _cal_override(cal, override):
    return cal if override is None else override(cal)


def lambda_min_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = A.LambdaMinConfig(epsilon=epsilon, delta=0.01)
    cal = _cal_override(A.calibrate_lambda_min(cfg), override)
    return A.sample_lambda_min(A.analyse(data, cfg), epsilon, cfg.delta, n, rng, cal)


def eigen_bounds_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = A.EigenBoundsConfig(epsilon=epsilon, delta=2 * delta)
    cal = _cal_override(A.calibrate_eigen_bounds(cfg), override)
    e1, e2 = cal.params["epsilons"]
    lh, Lh = A.sample_eigen_bounds(A.analyse(data, cfg), e1, delta, e2, delta, n, rng, cal)
    return np.column_stack([lh, Lh])


def theta_sampler(data, n, rng, *, epsilon, delta, override, share=0.25, generic=False):
    cls = A.GenericConfig if generic else A.ThetaConfig
    cfg = cls(epsilon=epsilon, delta=delta, share=share)
    cal = _cal_override(A.calibrate_theta(cfg, generic=generic), override)
    an = A.analyse(data, cfg, generic=generic)
    f = A.sample_theta_generic if generic else A.sample_theta
    return f(an, share * epsilon, delta / 2, (1 - share) * epsilon, delta / 2, n, rng, cal)


def functional_sampler_factory(eps_split, delta_split=(0.25, 0.25, 0.25, 0.25), direction=None):
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = A.FunctionalConfig(epsilon=epsilon, delta=delta, eps_split=eps_split, delta_split=delta_split,
                                 direction=direction)
        cal = _cal_override(A.calibrate_functional(cfg), override)
        return A.sample_functional(A.analyse(data, cfg), cfg, n, rng, cal)["value"]
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
        cfg = A.FunctionalConfig(epsilon=epsilon, delta=delta, eps_split=base)
        cal = A.calibrate_functional(cfg).replace(params={"count_noise": 0.0, "count_shift": False})
        an = A.analyse(data, cfg)
        vals.append(float(A.sample_functional(an, cfg, 1, 0, cal)["eps_var"][0]))
    e4 = 0.5 * (vals[0] + vals[1])
    share4 = e4 / epsilon
    if not 0 < share4 < 0.7:
        raise RuntimeError(f"audit tuning failed: ε_var values {vals} do not fit ε = {epsilon}.")
    rest = (1 - share4) / 0.8
    return (0.3 * rest, 0.3 * rest, 0.2 * rest, share4), vals


def moving_direction(pair_):
    """The unit vector along θ̂(D) − θ̂(D′) (the functional that moves the most)."""
    cfg = A.LambdaMinConfig()
    a, b = (A.analyse(d, cfg).fit.theta for d in pair_)  # type: ignore[union-attr]  # simulated: fitted
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
    from . import baselines as Bl

    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg: object
        if kind == "output":
            cfg = Bl.OutputPerturbationConfig(epsilon=epsilon, delta=delta, **kw)
            return Bl.sample_output_perturbation(data, cfg, n, rng, override)[0]
        if kind == "objective":
            cfg = Bl.ObjectivePerturbationConfig(epsilon=epsilon, **kw)
            return Bl.sample_objective_perturbation(data, cfg, n, rng, override)[0]
        cfg = Bl.NoisyGDConfig(epsilon=epsilon, delta=delta, **kw)
        return Bl.sample_noisy_gd(data, cfg, n, rng, override)[0]
    return sampler


def shift_events(kind: str, **kw):
    """Half-lines around the two non-private answers of a baseline (fixed before sampling)."""
    from . import baselines as Bl

    def events(D, Dp, eps, delta):
        cfg: object
        if kind == "output":
            f, cfg = Bl.nonprivate_ridge, Bl.OutputPerturbationConfig(**kw)
        elif kind == "objective":
            f, cfg = Bl.nonprivate_objective, Bl.ObjectivePerturbationConfig(**kw)
        else:
            f, cfg = Bl.nonprivate_gd, Bl.NoisyGDConfig(**kw)
        a, b = float(f(D, cfg)[0]), float(f(Dp, cfg)[0])
        lo, hi = min(a, b), max(a, b)
        w = hi - lo
        from dpcore.audit import halfline_events
        return halfline_events(np.linspace(lo - 3 * w, hi + 3 * w, 41))
    return events

"""Shared helpers of the KNG tests: configs with default public parameters, prepared problems, data."""
from __future__ import annotations

import numpy as np

from dpcore import kng
from dpcore.kng.calibration import mechanism_calibration
from dpcore.kng.release import _engine as _release

NORMS = ("l1", "l2", "linf")
#: Public parameters a problem needs when a test does not care about them.
DEFAULTS = {"mean": {"radius": 1.0}, "median": {"bounds": (-1.0, 1.0)}, "quantile": {"bounds": (-1.0, 1.0)},
            "linear_regression": {}, "quantile_regression": {}}


def config(problem: str, mechanism: str = "kng", epsilon: float = 1.0, **kw):
    return kng.make(problem, mechanism=mechanism, epsilon=epsilon, **{**DEFAULTS[problem], **kw})


def calibrate(problem: str, mechanism: str, epsilon: float, *, d: int, **kw):
    """The calibration of (problem, mechanism) in dimension d (public inputs only)."""
    return mechanism_calibration(config(problem, mechanism, epsilon, **kw), d)


def prep(problem: str, data, mechanism: str = "kng", epsilon: float = 1.0, **kw):
    """(problem object, prepared data, calibration, config)."""
    cfg = config(problem, mechanism, epsilon, **kw)
    prob, P, cal = kng.prepared(data, cfg)
    return prob, P, cal, cfg


def grad(problem, data, th, norm="linf", **kw):
    prob, P, _, _ = prep(problem, data, "kng", norm=norm, **kw)
    return prob.gradient(P, np.atleast_2d(th))


def loss(problem, data, th, norm="linf", **kw):
    prob, P, _, _ = prep(problem, data, "exponential", norm=norm, **kw)
    return prob.objective(P, np.atleast_2d(th))


def mcmc_raw(prob, P, cal, cfg, chains, sweeps, seed):
    """Final states of ``chains`` chains of ``sweeps`` sweeps (the release path's MCMC), and diagnostics."""
    from dataclasses import replace

    return _release.draw_mcmc(prob, P, cal, replace(cfg, n_sweeps=sweeps, burn_in=None), chains,
                              np.random.default_rng(seed))


def reg_data(n=300, d=3, seed=17):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.uniform(-1, 1, (n, d - 1))]
    y = np.clip(X @ np.array([0.1, -0.3, 0.2])[:d] + 0.2 * rng.normal(size=n), -1, 1)
    return X, y


def reg2(n, seed):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.uniform(-1, 1, n)]
    y = np.clip(0.2 - 0.4 * X[:, 1] + 0.3 * rng.normal(size=n), -1, 1)
    return X, y


def nonprivate(release) -> np.ndarray:
    return release.diagnostics.values["non-private estimate"]


#: Directions onto which 2-D draws are projected for KS tests (two marginals, two oblique directions).
PROJ = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]])


def grid_projection_cdfs(logpdf, lo=-1.0, hi=1.0, m=601):
    """CDFs of θ·v (v = rows of PROJ) under the 2-D density normalised on an m × m grid of cell centres."""
    h = (hi - lo) / m
    ctr = lo + h * (np.arange(m) + 0.5)
    T1, T2 = np.meshgrid(ctr, ctr, indexing="ij")
    pts = np.column_stack([T1.ravel(), T2.ravel()])
    lp = logpdf(pts)
    w = np.exp(lp - np.max(lp[np.isfinite(lp)]))
    w /= w.sum()
    cdfs = []
    for v in PROJ:
        z = pts @ v
        o = np.argsort(z)
        cdfs.append(lambda t, zs=z[o], cw=np.cumsum(w[o]): np.interp(t, zs, cw))
    return cdfs

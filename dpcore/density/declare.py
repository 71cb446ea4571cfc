"""Density topic declaration: mechanisms, audits (with mutants) and figures (read by :mod:`dpcore.registry`).

Audits put the moved record where the sensitivity is attained:
* GP-KDE: n = 5 records at 0; D′ moves one to 1. On the 9-point grid (0 and 1 are grid points, h = 0.1)
  the Mahalanobis distance of f_D − f_D′ is c_n√(2 − 2K(0, 1)) ≈ Δ. Events: half-lines of the
  likelihood-ratio projection M⁻¹(f_D − f_D′), M the sampled covariance. Claim (1, 0.05) with the
  analytic calibration (tight: Hall's c(δ) is conservative, so a mutant would hide under it).
"""
from __future__ import annotations

import numpy as np

from dpcore.audit import Audit, Mutant, halfline_events
from dpcore.mechanism import MechanismSpec, frozen_mapping
from dpcore.registry import Topic

from . import kde as K

REFERENCE = ("Hall (2012), New Statistical Applications for Differential Privacy, CMU thesis (defence slides); "
             "Hall, Rinaldo & Wasserman (2013), JMLR 14:703–727")


def _ex_gp():
    g = np.random.default_rng(11)                       # public example data
    return g.beta(2, 5, 400), {"epsilon": 1.0, "delta": 1e-3, "bandwidth": 0.08, "grid": 64}


MECHANISMS = (
    MechanismSpec("density/gp-kde", "Gaussian-process (RKHS) KDE", K.GPKDEConfig, K.gp_release, K.nonprivate_kde,
                  _ex_gp, budget=("epsilon", "delta"), huge=frozen_mapping({"epsilon": 1e9}), atol=1e-3),
)

# -- audits ---------------------------------------------------------------------------------------------------
_GP_AUDIT_CFG = dict(bandwidth=0.1, grid=9, calibration="analytic", binning="exact")
_GP_PAIR = (np.zeros(5), np.array([0.0, 0.0, 0.0, 0.0, 1.0]))


def _gp_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = K.GPKDEConfig(epsilon=epsilon, delta=delta, **_GP_AUDIT_CFG)
    return K.gp_sample(data, cfg, n, rng, override=override)


def _gp_events(d_a, d_b, epsilon, delta):
    cfg = K.GPKDEConfig(epsilon=epsilon, delta=delta, **_GP_AUDIT_CFG)
    ma, mb = K.nonprivate_kde(d_a, cfg), K.nonprivate_kde(d_b, cfg)
    L = K.gp_factors(cfg.grid, cfg.bandwidth, 1)
    M = L @ L.T
    p = np.linalg.solve(M, ma - mb)
    sigma = K.calibrate_gp(cfg, len(d_a)).constant
    sd = sigma * float(np.sqrt(p @ M @ p))
    mid = 0.5 * float(p @ (ma + mb))
    return halfline_events(mid + sd * np.linspace(-4.0, 4.0, 33), projection=p)


def _gp_half_noise(cal):
    """Mutant: GP noise scale too small (σ/2, e.g. Δ without √2 and a halved constant)."""
    return cal.replace(params={"noise_factor": 0.5})


AUDITS = (
    Audit(id="density/gp-kde", mechanism="density/gp-kde",
          title="GP-KDE on a 9-point grid (h = 0.1): one record moved from 0 to 1", datasets=_GP_PAIR,
          neighbours="replace-one: one of 5 records moved from 0 to 1 (RKHS sensitivity attained)",
          sampler=_gp_sampler, events=_gp_events, epsilon=1.0, delta=0.05,
          mutant=Mutant("GP noise scale too small", "σ halved (the analytic σ for Δ/2)", _gp_half_noise),
          n_samples=200_000, output_label="f̃ on the grid"),
)

TOPIC = Topic(name="density", title="Private density estimation (Hall)", reference=REFERENCE,
              mechanisms=MECHANISMS, audits=AUDITS, experiments=())

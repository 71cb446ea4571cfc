"""KNG's mean on a public grid (noise='grid', the default for norm ℓ1 or d = 1): exact discrete Laplace noise in grid
units (χ² against the exact PMF, a wrong scale rejected), the grid sensitivity checked on every neighbour of a
small dataset, the choice of noise said by the calibration, and the error within 3.2 % of the float law's."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpcore import exact, kng
from dpcore.errors import DPValueError
from dpcore.kng.calibration import calibrate_location

ALPHA = 1e-6


def _chi2_pvalue(k: np.ndarray, t: Fraction) -> float:
    """χ² of integer draws against the discrete Laplace PMF of scale t (bins ±4t, tails pooled)."""
    half = max(2, int(math.ceil(4 * float(t))))
    edges = np.linspace(-half, half + 1, 41).astype(np.int64)
    ks = np.arange(-60 * half, 60 * half + 1)
    p = np.bincount(np.searchsorted(edges, ks, side="right"), weights=exact.discrete_laplace_pmf(ks, t),
                    minlength=edges.size + 1)
    obs = np.bincount(np.searchsorted(edges, k, side="right"), minlength=edges.size + 1)
    keep = p * k.size > 5
    return stats.chisquare(obs[keep], p[keep] / p[keep].sum() * obs[keep].sum()).pvalue


@pytest.mark.stat
@pytest.mark.parametrize("norm, d", [("l1", 3), ("linf", 1)])
def test_grid_mean_has_the_declared_discrete_law(norm, d):
    n, r, eps = 40, 1.5, 0.8
    x = np.random.default_rng(3).uniform(-0.4, 0.4, (n, d))
    cfg = kng.make("mean", mechanism="kng", epsilon=eps, radius=r, norm=norm, size=20_000)
    rel = kng.release_for(cfg)(x, cfg, rng=5)
    cal = rel.calibration
    assert cal.params["noise"] == "grid" and cal == calibrate_location(cfg, (n, d))
    gamma, dg = cal.params["grid"], cal.params["grid_sensitivity"]
    k = rel.value / gamma - exact.to_grid(x.mean(axis=0), gamma)[None, :]
    assert np.all(k == np.round(k))                                 # every output on the public grid
    t = Fraction(dg) / Fraction(eps)
    z = k.astype(np.int64).ravel()
    assert _chi2_pvalue(z, t) > ALPHA
    assert _chi2_pvalue(z, t * Fraction(7, 10)) < ALPHA             # power: a 30 % smaller scale is rejected
    delta1 = 2 * r / n
    assert dg == math.ceil(delta1 / gamma) + d - 1 and delta1 / gamma >= 64 * d
    float_rate = n * eps / (2 * r)                                   # the float law exp(−(nε/(2r))‖θ − x̄‖₁)
    assert 1.0 < 1.0 / (2 * n * cal.constant) * float_rate <= 1 + 2 / 64


def test_grid_sensitivity_holds_on_every_neighbour():
    """‖r(x̄) − r(x̄′)‖₁ ≤ Δ_g for a dataset and every replacement of its first record by a point of the ℓ1 ball
    (vertices, edge points, and points near grid-cell boundaries)."""
    n, r, d = 7, 1.0, 2
    cfg = kng.make("mean", mechanism="kng", epsilon=1.0, radius=r, norm="l1")
    cal = calibrate_location(cfg, (n, d))
    gamma, dg = cal.params["grid"], cal.params["grid_sensitivity"]
    g = np.random.default_rng(0)
    base = g.uniform(-0.3, 0.3, (n, d))
    u = g.uniform(-1, 1, (4000, d))
    cand = np.r_[np.eye(d), -np.eye(d), u / np.abs(u).sum(axis=1, keepdims=True)]   # on the sphere ‖·‖₁ = r
    stack = np.broadcast_to(base, (cand.shape[0], n, d)).copy()
    stack[:, 0] = r * cand
    rounded = exact.to_grid(stack.mean(axis=1), gamma)             # r(x̄) of every dataset, as the release computes
    worst = max(int(np.abs(rounded - rounded[i]).sum(axis=1).max()) for i in range(rounded.shape[0]))
    assert 0 < worst <= dg


def test_the_calibration_says_which_noise_ran():
    x1 = np.random.default_rng(1).uniform(-1, 1, (30, 1))
    x2 = np.random.default_rng(1).uniform(-1, 1, (30, 2))

    def noise(x, **kw):
        cfg = kng.make("mean", epsilon=1.0, radius=1.0, **kw)
        rel = kng.release_for(cfg)(x, cfg, rng=0)
        return rel.calibration.params["noise"], rel

    assert noise(x1, mechanism="kng", norm="l2")[0] == "grid"         # d = 1: every norm is |·|
    assert noise(x2, mechanism="kng", norm="l1")[0] == "grid"
    assert noise(x2, mechanism="kng", norm="l2")[0] == "float"        # auto: no discrete K-norm sampler in ℓ2
    assert noise(x2, mechanism="kng", norm="l1", noise="float")[0] == "float"
    assert noise(x2, mechanism="exponential", norm="linf")[0] == "float"
    kind, rel = noise(x2, mechanism="kng", norm="l1", noise="float")
    assert rel.calibration.constant == 1.0 / 4.0                      # the float law keeps c = ε/(4r)
    with pytest.raises(DPValueError, match="noise='grid'.*norm='l2'"):
        noise(x2, mechanism="kng", norm="l2", noise="grid")
    with pytest.raises(DPValueError, match="noise='grid' applies to mechanism='kng'"):
        kng.make("mean", mechanism="exponential", epsilon=1.0, radius=1.0, noise="grid")
    with pytest.raises(DPValueError, match="sampler='mcmc'"):
        noise(x1, mechanism="kng", norm="l1", noise="grid", sampler="mcmc")


@pytest.mark.stat
def test_grid_error_within_a_few_percent_of_float():
    n, d = 200, 2
    x = np.random.default_rng(2).uniform(-1, 1, (n, d))
    out = {}
    for noise in ("grid", "float"):
        cfg = kng.make("mean", mechanism="kng", epsilon=0.5, radius=2.0, norm="l1", size=100_000, noise=noise)
        v = kng.release_for(cfg)(x, cfg, rng=9).value
        out[noise] = np.sqrt(np.mean((v - x.mean(axis=0)) ** 2))
    assert 0.98 < out["grid"] / out["float"] < 1.045

"""The Gaussian baseline on a public grid (sampler='grid', the default): outputs on γℤ^k, exact discrete Gaussian
noise of the stated variance, ρ-zCDP from the grid sensitivity (checked on every neighbour of a small dataset), σ
within 1.6 % of the float σ, an audit mutant's smaller σ reaching the grid sampler."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import exact, query_release
from dpcore.query_release import _central as C
from dpcore.query_release.audits import normalised_diameter
from dpcore.query_release.release._common import sample_outputs
from dpcore.query_release._workloads import Marginals, mean_point

SPEC = Marginals(5, 2)
DATA = np.array([0, 31, 4, 4, 9, 17, 2])


def _cal(sampler, rho=0.3, n=7):
    return query_release.calibrate_gaussian(query_release.GaussianConfig(SPEC, rho, sampler=sampler), (n,))


@pytest.mark.parametrize("rho", [1e-4, 0.3, 1e12])
def test_grid_calibration_is_rho_zcdp_and_close_to_float(rho):
    g, f = _cal("grid", rho), _cal("float", rho)
    k = SPEC.build().k
    gamma, dg, s2 = g.params["grid"], g.params["grid_sensitivity"], g.params["grid_variance"]
    assert g.params["sampler"] == "grid" and f.params["sampler"] == "float"
    assert math.log2(gamma) == int(math.log2(gamma))                 # a power of two
    assert dg >= g.sensitivity / gamma + math.sqrt(k) and dg ** 2 / (2 * float(s2)) <= rho
    assert f.constant == pytest.approx(f.sensitivity / math.sqrt(2 * rho))
    assert f.constant < g.constant <= f.constant * (1 + 1 / 64) * (1 + 2 ** -12)
    assert g.rho == f.rho == rho and g.cost(1) == f.cost(1)


def test_grid_sensitivity_holds_on_every_neighbour():
    """‖r(x̄) − r(x̄′)‖₂ ≤ Δ_g over every replacement of one record of DATA by any universe row."""
    cal = _cal("grid")
    gamma, dg = cal.params["grid"], cal.params["grid_sensitivity"]
    wl = SPEC.build()
    rounded = []
    for u in range(wl.size):
        D = DATA.copy()
        D[0] = u
        rounded.append(exact.to_grid(mean_point(D, wl), gamma))
    R = np.array(rounded)
    worst = max(float(np.linalg.norm(R - R[i], axis=1).max()) for i in range(R.shape[0]))
    assert cal.sensitivity / gamma * 0.99 < worst <= dg


@pytest.mark.stat
def test_grid_release_has_the_declared_law_and_the_mutant_less_noise():
    cfg = query_release.GaussianConfig(SPEC, 0.3)
    cal = _cal("grid")
    gamma, s2 = cal.params["grid"], float(cal.params["grid_variance"])
    rel = query_release.release.gaussian.release(DATA, cfg, rng=3)
    assert rel.calibration == cal and np.all(rel.value / gamma == np.round(rel.value / gamma))
    out = sample_outputs(DATA, cfg, 4000, 4)                          # the audits' vectorised path, same law
    k = out / gamma - exact.to_grid(mean_point(DATA, SPEC.build()), gamma)[None, :]
    assert np.all(k == np.round(k))
    z = k.ravel()                                                     # 4 000 × 40 iid draws
    assert abs(z.var() / s2 - 1) < 0.05 and abs(z.mean()) < 5 * math.sqrt(s2 / z.size)
    mut = sample_outputs(DATA, cfg, 4000, 4, override=normalised_diameter)
    km = mut / gamma - exact.to_grid(mean_point(DATA, SPEC.build()), gamma)[None, :]
    assert np.all(km == np.round(km)) and km.var() / s2 == pytest.approx(1 / SPEC.build().k, rel=0.1)


def test_release_and_sampler_agree_and_float_is_still_available():
    cfg = query_release.GaussianConfig(SPEC, 0.3, sampler="float")
    rel = query_release.release.gaussian.release(DATA, cfg, rng=0)
    assert rel.calibration.params["sampler"] == "float"
    assert not np.all(rel.value / 2.0 ** -20 == np.round(rel.value / 2.0 ** -20))
    plan = C.plan_for(cfg)
    assert C._grid(rel.calibration, plan, 7) is None

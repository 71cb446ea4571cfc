"""Goodness of fit of the samplers against their exact laws, with power checks (a wrong scale fails)."""
import math

import numpy as np
import pytest
from scipy import stats

from dpcore import query_release
from dpcore.query_release.release._common import sample_outputs
from dpcore.query_release import _central as C
from dpcore.query_release._workloads import Marginals, Thresholds, mean_point

pytestmark = pytest.mark.stat


def test_gaussian_noise_step_ks_and_power():
    spec = Marginals(4, 2)
    data = np.array([0, 5, 5, 15, 9])
    cfg = query_release.configs.GaussianConfig(spec, 0.3)
    out = sample_outputs(data, cfg, 5000, 7)
    sigma = spec.build().diam2 / (5 * math.sqrt(2 * 0.3))
    z = (out - mean_point(data, spec.build()))[:, 3]
    assert stats.kstest(z / sigma, "norm").pvalue > 1e-6
    assert stats.kstest(z / (1.3 * sigma), "norm").pvalue < 1e-6
    assert stats.kstest(z / (0.7 * sigma), "norm").pvalue < 1e-6


def test_pmw_first_selection_is_the_exponential_mechanism():
    spec = Thresholds(6)
    wl = spec.build()
    data = np.array([0, 0, 1, 4, 5, 5, 5])
    cfg = query_release.configs.PMWConfig(spec, 0.8, rounds=1)
    cal = query_release.calibration._pmw_calibration(cfg, wl, data.size)
    a = mean_point(data, wl)
    tr = C._pmw_run(a, wl.points, cal, np.random.default_rng(3), 40_000, transcript=True)
    picks = tr[:, 0].astype(int)
    diff = a - wl.points.mean(axis=0)
    scores = np.concatenate([diff, -diff])

    def law(eps0):
        logits = eps0 * scores / (2 * cal.sensitivity)
        p = np.exp(logits - logits.max())
        return p / p.sum()

    eps0 = 2 * math.sqrt(cal.params["rho_per_round"])
    counts = np.bincount(picks, minlength=scores.size)
    keep = law(eps0) * picks.size > 5
    def pval(p):
        exp = p[keep] / p[keep].sum() * counts[keep].sum()
        return stats.chisquare(counts[keep], exp).pvalue
    assert pval(law(eps0)) > 1e-6
    assert pval(law(1.5 * eps0)) < 1e-6                      # power: a wrong ε0 is detected
    m = tr[:, 1]
    sel = picks % wl.k
    resid = (m - a[sel]) / cal.constant                      # measurement N(a_j, σ_m²)
    assert stats.kstest(resid, "norm").pvalue > 1e-6
    assert stats.kstest(resid / 1.3, "norm").pvalue < 1e-6

"""Central mechanisms: σ ↔ ρ, accounting, budgets, error bounds, the data-access sentinel, real data."""
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from dpcore import query_release
from dpcore.query_release.release._common import sample_outputs
from dpcore.privacy import zcdp_delta
from dpcore.query_release import _central as C
from dpcore.query_release import _local as L
from dpcore.query_release._geometry import mean_width
from dpcore.query_release._workloads import (
    Marginals,
    Thresholds,
    mean_point,
    records_to_indices,
)


def test_sigma_gives_exactly_rho():
    spec = Marginals(5, 2)
    data = np.array([0, 31, 4, 4, 9, 17, 2])
    rel = query_release.release.gaussian.release(data, query_release.configs.GaussianConfig(spec, 0.3, sampler="float"),
                                                 rng=0)
    cal = rel.calibration
    n, diam = 7, math.sqrt(2 * math.comb(5, 2))
    assert cal.sensitivity == pytest.approx(diam / n)
    assert cal.params["sigmas"][0] == pytest.approx(diam / (n * math.sqrt(2 * 0.3)))
    assert cal.sensitivity ** 2 / (2 * cal.params["sigmas"][0] ** 2) == pytest.approx(0.3)
    assert rel.cost.rho == 0.3 and rel.cost.count == 1


@pytest.mark.parametrize("rho", [0.05, 0.5, 2.0])
def test_zcdp_conversion_tight_below_closed_form(rho):
    for eps in (rho + 0.5, rho + 2.0, 3 * rho + 1):
        assert zcdp_delta(rho, eps) <= math.exp(-(eps - rho) ** 2 / (4 * rho)) + 1e-15
    g = C.approx_guarantee(rho, 1e-6)
    assert g["epsilon_tight"] <= g["epsilon_simple"]
    assert g["epsilon_simple"] == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e6)))


@pytest.mark.parametrize("budget", query_release.configs.BUDGET_SPLITS)
def test_chaining_budgets_sum_to_rho(budget):
    plan = C.plan_for(query_release.configs.ChainingConfig(Thresholds(64), 0.7, 0.1, budget))
    assert len(plan.rhos) >= 2 and sum(plan.rhos) == pytest.approx(0.7, rel=1e-12)
    cal = query_release.calibration._local_calibration(query_release.configs.LocalChainingConfig(Thresholds(64), 1.3, 0.1), L._plan(query_release.configs.LocalChainingConfig(Thresholds(64), 1.3, 0.1)))
    assert sum(cal.params["level_epsilons"]) == pytest.approx(1.3)


def test_pmw_budget_split_sums_to_rho():
    cal = query_release.calibration._pmw_calibration(query_release.configs.PMWConfig(Thresholds(8), 0.4, rounds=7), Thresholds(8).build(), 50)
    T, rho_t = cal.params["rounds"], cal.params["rho_per_round"]
    eps0, sigma_m = 2 * math.sqrt(rho_t), cal.constant
    assert T * (eps0 ** 2 / 8 + cal.sensitivity ** 2 / (2 * sigma_m ** 2)) == pytest.approx(0.4)


def test_gaussian_rms_error_is_sigma_and_projection_bound():
    spec = Marginals(4, 2)
    wl = spec.build()
    data = np.full(20, 5)
    truth = mean_point(data, wl)
    sigma = wl.diam2 / (20 * math.sqrt(2 * 0.5))
    out = sample_outputs(data, query_release.configs.GaussianConfig(spec, 0.5), 4000, 1)
    assert np.sqrt(np.mean((out - truth) ** 2)) == pytest.approx(sigma, rel=0.02)
    proj = sample_outputs(data, query_release.configs.ProjectionConfig(spec, 0.5), 300, 2)
    sq = np.sum((proj - truth) ** 2, axis=1)
    w, _ = mean_width(wl.points, 4000, rng=0)
    assert sq.mean() <= sigma * w * 1.1                       # E‖ŷ − x̄‖² ≤ σ w(X) (RECONSTRUCTED bound)


def test_projection_never_worse_than_its_own_noise():
    spec = Thresholds(32)
    data = np.full(10, 3)
    rel = query_release.release.projection.release(data, query_release.configs.ProjectionConfig(spec, 0.2), rng=4)
    noisy = rel.diagnostics.values["noisy answers before projection (private, post-noise)"]
    truth = C.nonprivate_answers(data, rel.config)
    assert np.linalg.norm(rel.value - truth) <= np.linalg.norm(noisy - truth) + 1e-12


def test_coarse_has_a_rounding_floor_and_chaining_error_small():
    spec = Thresholds(128)
    data = np.full(10 ** 6, 77)
    truth = mean_point(data, spec.build())
    c = query_release.release.coarse.release(data, query_release.configs.CoarseConfig(spec, 0.5, 0.25), rng=1).value
    assert 0 < C.rms_error(c, truth) <= 0.125 + 1e-3          # ≤ α/2 even at huge n, but not 0
    ch = query_release.release.chaining.release(data, query_release.configs.ChainingConfig(spec, 0.5, 0.25), rng=1).value
    assert C.rms_error(ch, truth) <= 0.125 + 1e-3


def test_pmw_worst_case_error_decreases_with_n():
    spec = Thresholds(32)
    errs = []
    for n in (30, 3000):
        data = np.full(n, 5)
        out = sample_outputs(data, query_release.configs.PMWConfig(spec, 0.5), 20, 3)
        errs.append(C.max_error(out, mean_point(data, spec.build())).mean())
    assert errs[1] < 0.5 * errs[0]


class ReadOnce:
    """A dataset that can be read exactly once (into the histogram); any later access raises."""

    def __init__(self, idx):
        self._idx = np.asarray(idx)
        self.reads = 0

    def __array__(self, dtype=None, copy=None):
        self.reads += 1
        if self.reads > 1:
            raise AssertionError("the raw data were read again after the noise step")
        return self._idx if dtype is None else self._idx.astype(dtype)

    def __len__(self):
        raise AssertionError("len(data) used: n must come from the single read")

    def __getitem__(self, i):
        raise AssertionError("raw records accessed after the noise step")

    def __iter__(self):
        raise AssertionError("raw records iterated after the noise step")


@pytest.mark.parametrize("make", [
    lambda s: (query_release.release.gaussian.release, query_release.configs.GaussianConfig(s, 0.5)),
    lambda s: (query_release.release.projection.release, query_release.configs.ProjectionConfig(s, 0.5)),
    lambda s: (query_release.release.coarse.release, query_release.configs.CoarseConfig(s, 0.5, 0.3)),
    lambda s: (query_release.release.chaining.release, query_release.configs.ChainingConfig(s, 0.5, 0.2)),
    lambda s: (query_release.release.pmw.release, query_release.configs.PMWConfig(s, 0.5)),
    lambda s: (query_release.release.local_projection.release, query_release.configs.LocalProjectionConfig(s, 1.0)),
    lambda s: (query_release.release.local_coarse.release, query_release.configs.LocalCoarseConfig(s, 1.0, 0.3)),
    lambda s: (query_release.release.local_chaining.release, query_release.configs.LocalChainingConfig(s, 1.0, 0.2)),
], ids=["gaussian", "projection", "coarse", "chaining", "pmw", "local-projection", "local-coarse", "local-chaining"])
def test_sentinel_data_read_once_before_noise(make):
    spec = Marginals(5, 2)
    release, cfg = make(spec)
    data = ReadOnce(np.array([0, 3, 3, 31, 17, 8, 8, 8]))
    rel = release(data, cfg, rng=0)
    assert data.reads == 1 and np.all(np.isfinite(rel.value))


def test_l1_diameter_is_not_a_privacy_bug():
    """The ℓ1 diameter is ≥ the ℓ2 one (‖v‖₁ ≥ ‖v‖₂), so σ from it over-noises: it cannot serve as a mutant."""
    spec = Marginals(3, 2)
    plan = C.plan_for(query_release.configs.GaussianConfig(spec, 0.5))
    cal = query_release.calibration._calibrate("query_release/gaussian", query_release.configs.GaussianConfig(spec, 0.5), plan, 5, "x")
    l1 = C._sigmas(cal.replace(params={"diameter_rule": "l1"}), plan, 5)[0]
    l2 = C._sigmas(cal, plan, 5)[0]
    norm = C._sigmas(cal.replace(params={"diameter_rule": "normalised"}), plan, 5)[0]
    assert l1 == pytest.approx(l2 * math.sqrt(6))          # ℓ1 diam = 2·C(3,2) = 6 vs ℓ2 diam = √6
    assert norm == pytest.approx(l2 / math.sqrt(12))       # the declared mutant: √k too little noise


# Public binarisation of breast-cancer features (domain cut-offs, declared here, not computed from the data):
# mean radius > 15 mm, mean texture > 20, mean area > 700 mm², mean smoothness > 0.1, mean concavity > 0.1,
# worst area > 1000 mm².
BC_COLUMNS = ("mean radius", "mean texture", "mean area", "mean smoothness", "mean concavity", "worst area")
BC_THRESHOLDS = (15.0, 20.0, 700.0, 0.1, 0.1, 1000.0)


def _breast_cancer_indices():
    bunch = load_breast_cancer()
    frame = pd.DataFrame(bunch.data, columns=bunch.feature_names)
    return records_to_indices(frame, BC_COLUMNS, BC_THRESHOLDS)


@pytest.mark.parametrize("make,huge", [
    (lambda s, b: query_release.configs.GaussianConfig(s, b), 1e12), (lambda s, b: query_release.configs.ProjectionConfig(s, b), 1e12),
    (lambda s, b: query_release.configs.CoarseConfig(s, b, 0.1), 1e12), (lambda s, b: query_release.configs.ChainingConfig(s, b, 0.1), 1e12),
], ids=["gaussian", "projection", "coarse", "chaining"])
def test_real_data_breast_cancer_two_way_marginals(make, huge):
    spec = Marginals(6, 2)
    idx = _breast_cancer_indices()
    assert idx.size == 569                                     # no record dropped
    truth = mean_point(idx, spec.build())
    release = {query_release.configs.GaussianConfig: query_release.release.gaussian.release, query_release.configs.ProjectionConfig: query_release.release.projection.release,
               query_release.configs.CoarseConfig: query_release.release.coarse.release, query_release.configs.ChainingConfig: query_release.release.chaining.release}
    cfg = make(spec, 0.5)                                      # ε = 1 pure ⇒ ρ = ε²/2 = 0.5
    rel = release[type(cfg)](idx, cfg, rng=0)
    assert rel.released and C.rms_error(rel.value, truth) < 0.1
    cfg_h = make(spec, huge)
    rel_h = release[type(cfg_h)](idx, cfg_h, rng=0)
    # coarse/chaining keep their public rounding bias (≤ α/2): the huge-budget answer is the rounded x̄
    tol = 1e-3 if isinstance(cfg_h, (query_release.configs.GaussianConfig, query_release.configs.ProjectionConfig)) else 0.05
    assert C.rms_error(rel_h.value, truth) < tol


def test_real_data_breast_cancer_pmw_and_local():
    spec = Marginals(6, 2)
    idx = _breast_cancer_indices()
    truth = mean_point(idx, spec.build())
    assert C.max_error(query_release.release.pmw.release(idx, query_release.configs.PMWConfig(spec, 0.5), rng=0).value, truth) < 0.3
    assert C.max_error(query_release.release.pmw.release(idx, query_release.configs.PMWConfig(spec, 1e12), rng=0).value, truth) < 0.06
    for eps in (1.0, 1e9):
        for release, cfg in ((query_release.release.local_projection.release, query_release.configs.LocalProjectionConfig(spec, eps)),
                             (query_release.release.local_coarse.release, query_release.configs.LocalCoarseConfig(spec, eps, 0.1)),
                             (query_release.release.local_chaining.release, query_release.configs.LocalChainingConfig(spec, eps, 0.1))):
            rel = release(idx, cfg, rng=0)
            # n = 569 parties: the local error stays of order R·C_ε·(w/(k√n))^{1/2} even at a huge ε
            assert np.all(np.isfinite(rel.value)) and C.rms_error(rel.value, truth) < 0.35


def test_real_data_optimised_chaining_budget():
    spec = Marginals(6, 2)
    idx = _breast_cancer_indices()
    truth = mean_point(idx, spec.build())
    rel = query_release.release.chaining.release(idx, query_release.configs.ChainingConfig(spec, 0.5, 0.1, "optimised (our addition)"), rng=0)
    assert sum(rel.calibration.params["rhos"]) == pytest.approx(0.5) and C.rms_error(rel.value, truth) < 0.1

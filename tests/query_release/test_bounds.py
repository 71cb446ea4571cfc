"""Sample-complexity calculator: lower bound monotone, upper ≥ lower, empirical n* of the Gaussian."""
import itertools
import math

import numpy as np
import pytest

from dpcore.query_release._bounds import (
    empirical_sample_complexity,
    geometry,
    local_bounds,
    lower_bound,
    upper_bounds,
)
from dpcore.query_release._workloads import Cone, Marginals, RandomSigns, Thresholds

SPECS = [Thresholds(128), Marginals(6, 2), RandomSigns(32, 128, 0), Cone(400, r=0.05, L=8, n_dirs=16)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: type(s).__name__)
def test_lower_bound_monotone_and_below_upper_bounds(spec):
    geo = geometry(spec, np.geomspace(0.02, 2.0, 12), draws=300)
    alphas = [0.02, 0.05, 0.1, 0.2, 0.4]
    lbs = [lower_bound(geo, a, 0.5) for a in alphas]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(lbs))          # non-increasing in α
    for a, lb in zip(alphas, lbs):
        ub = upper_bounds(spec, a, 0.5, draws=300)
        assert min(ub["gaussian"], ub["projection"], ub["coarse"], ub["chaining"]) >= lb


def test_empirical_gaussian_sample_complexity_matches_formula():
    spec = Thresholds(64)
    for alpha in (0.1, 0.05):
        n = empirical_sample_complexity("gaussian", spec, alpha, 0.5, reps=200)
        assert n == pytest.approx(math.sqrt(63) / (alpha * 1.0), rel=0.1)   # diam₂/(α√(2ρ)), ρ = 0.5


def test_local_bounds_scale_as_alpha_to_the_minus_four():
    a, b = local_bounds(Thresholds(32), 0.2, 1.0), local_bounds(Thresholds(32), 0.1, 1.0)
    assert b["local projection"] / a["local projection"] == pytest.approx(16.0, rel=1e-6)
    assert b["local raw average"] / a["local raw average"] == pytest.approx(4.0, rel=1e-6)


@pytest.mark.parametrize("spec", [Thresholds(64), Cone(300, r=0.05)], ids=["thresholds", "cone"])
def test_empirical_projection_within_its_upper_bound(spec):
    """The explicit projection bound uses the width of the set actually projected onto (for the cone, C ⊋ conv X)."""
    rec = spec.build().size - 1
    for alpha in (0.1, 0.05):
        ub = upper_bounds(spec, alpha, 0.5, draws=1000)
        assert empirical_sample_complexity("projection", spec, alpha, 0.5, record=rec, reps=30) <= 1.1 * ub["projection"]

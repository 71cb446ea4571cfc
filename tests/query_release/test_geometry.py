"""Nets, packing profile, mean width and the chaining decomposition."""
import math

import numpy as np
import pytest

from dpcore.query_release._geometry import (
    chaining_depth,
    decompose,
    diameter,
    diameter_bound,
    greedy_net,
    mean_width,
    packing_profile,
)
from dpcore.query_release._workloads import Cone, Marginals, RandomSigns, Thresholds

SPECS = [Marginals(5, 2), Thresholds(40), RandomSigns(16, 60, 2), Cone(50, r=0.3, L=5, n_dirs=8)]


def _d2(P, a, b):
    return np.linalg.norm(P[a] - P[b]) / math.sqrt(P.shape[1])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("t", [0.15, 0.3, 0.6])
def test_greedy_net_is_separated_and_covering(spec, t):
    P = spec.build().points
    net = greedy_net(P, t)
    C = P[net.centers]
    D = np.sqrt(np.maximum(((C[:, None, :] - C[None, :, :]) ** 2).sum(-1), 0) / P.shape[1])
    np.fill_diagonal(D, np.inf)
    assert D.min() > t                                            # t-separated
    dist = np.linalg.norm(P - C[net.assign], axis=1) / math.sqrt(P.shape[1])
    assert dist.max() <= t + 1e-12                                # t-cover: d(x, π(x)) ≤ t
    full = np.linalg.norm(P[:, None, :] - C[None, :, :], axis=2)
    np.testing.assert_allclose(full[np.arange(len(P)), net.assign], full.min(axis=1))   # π is the nearest point


@pytest.mark.parametrize("N,alpha", [(40, 0.3), (100, 0.17), (128, 0.25), (57, 0.51)])
def test_thresholds_closed_form_sep2(N, alpha):
    """sep₂(X, α) = ⌊(N−1)/g⌋ + 1 with g = ⌊α²N⌋ + 1 (d₂(x_u, x_v) = √(|u−v|/N)); greedy attains it."""
    g = math.floor(alpha ** 2 * N) + 1
    assert greedy_net(Thresholds(N).build().points, alpha).size == (N - 1) // g + 1


def test_linf_net():
    P = Thresholds(10).build().points
    assert greedy_net(P, 0.5, "linf").size == 10                 # sep_∞(X, α) = N for α < 1


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("alpha", [0.5, 0.2, 0.07])
def test_telescoping_levels_radii(spec, alpha):
    P = spec.build().points
    k = P.shape[1]
    dec = decompose(P, alpha)
    assert dec.T == chaining_depth(alpha) and 2.0 ** -dec.T <= alpha / 2
    total = dec.residual + sum(lv.points[lv.index] for lv in dec.levels)
    np.testing.assert_allclose(total, P, atol=1e-12, rtol=0)                 # Σ f_i(x) = x
    for i, lv in enumerate(dec.levels[1:], start=1):
        assert np.linalg.norm(lv.points, axis=1).max() <= 3 * 2.0 ** -i * math.sqrt(k) + 1e-9
        assert lv.size <= dec.nets[i].size * dec.nets[i - 1].size
    assert np.linalg.norm(dec.residual, axis=1).max() <= 2.0 ** -dec.T * math.sqrt(k) + 1e-9


def test_mean_width_monte_carlo():
    # X = {±e_j}: w = E max_j |g_j|; for k = 1 that is E|g| = √(2/π)
    w, se = mean_width(np.array([[1.0], [-1.0]]), 20_000, rng=1)
    assert abs(w - math.sqrt(2 / math.pi)) < 4 * se
    P = RandomSigns(32, 200, 0).build().points
    w, _ = mean_width(P, 2000, rng=0)
    assert w <= np.linalg.norm(P, axis=1).max() * math.sqrt(2 * math.log(len(P)))   # finite-set bound
    # translation invariance: same draws, shifted set, shift by ⟨g, c⟩ averages to 0
    shifted, se = mean_width(P + 0.5, 2000, rng=0)
    assert abs(shifted - w) < 5 * se


def test_packing_profile_monotone_and_diameter_bound():
    P = Marginals(6, 2).build().points
    ts = np.geomspace(0.05, 1.0, 8)
    ls = packing_profile(P, ts)
    assert np.all(np.diff(ls) <= 1e-12) and ls[0] == pytest.approx(math.log(64))
    assert diameter_bound(P) >= diameter(P) - 1e-12

"""Random DP (no noise on empty cells): γ formula vs Monte Carlo, the guarantee text, and privacy audits
showing it is NOT ε-DP on a singleton pair but satisfies the ε-DP inequality when the supports agree."""
import numpy as np
import pytest

from dpcore.audit import audit, halfline_events, singleton_events
from dpcore.mechanism import Release
from dpcore import histograms


def test_gamma_formula_and_monte_carlo():
    probs = np.array([0.5, 0.3, 0.15, 0.05])
    n = 40
    gamma = histograms.rdp_gamma(probs, n)
    assert gamma == pytest.approx(2 * sum(p * (1 - p) ** (n - 1) for p in probs))
    mc = histograms.rdp_failure_rate(probs, n, 200_000, rng=1)
    assert mc <= gamma + 4 * np.sqrt(gamma / 200_000)           # γ is a union bound: mc ≤ γ
    assert mc >= 0.5 * gamma                                      # and not vacuous here
    assert histograms.rdp_gamma([1.0], 5) == 0.0
    assert histograms.rdp_gamma(np.full(1000, 1e-3), 100) > 0.9           # many rare cells: no protection


def test_release_is_not_a_dp_release_and_states_its_guarantee():
    rel = histograms.rdp_release(np.array([0, 0, 3, 7]), histograms.RDPConfig(1.0, 10), probs=np.full(10, 0.1), rng=0)
    assert not isinstance(rel, Release)
    assert rel.value.cells.tolist() == [0, 3, 7] and rel.gamma is not None
    assert "NOT ε-DP" in rel.guarantee and "γ ≤ 2 Σ_c p_c (1 − p_c)^{n−1}" in rel.guarantee


def _support_codes(data, n, seed):
    out = []
    g = np.random.default_rng(seed)
    for _ in range(n):
        v = histograms.rdp_release(data, histograms.RDPConfig(1.0, 4), rng=g).value
        out.append(int(sum(2 ** c for c in v.cells)))
    return np.array(out)


@pytest.mark.stat
def test_audit_rejects_dp_on_a_singleton_pair_and_passes_on_a_shared_support_pair():
    # X_n alone in its cell: D = (0, 0, 1), D' = (0, 0, 0) → the released support differs: not ε-DP.
    a, b = _support_codes(np.array([0, 0, 1]), 2000, 1), _support_codes(np.array([0, 0, 0]), 2000, 2)
    assert audit(a, b, singleton_events([1, 3]), epsilon=1.0).rejected
    # supports agree (cells 0 and 1 occupied in both): the values move by ℓ1 = 2 → the ε-DP inequality holds
    g = np.random.default_rng(3)
    da, db = np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])
    xa = np.array([histograms.rdp_release(da, histograms.RDPConfig(1.0, 4), rng=g).value.values for _ in range(20_000)])
    xb = np.array([histograms.rdp_release(db, histograms.RDPConfig(1.0, 4), rng=g).value.values for _ in range(20_000)])
    proj = np.array([1.0, -1.0])
    assert not audit(xa, xb, halfline_events(np.linspace(-4, 4, 9), projection=proj), epsilon=1.0).rejected


def test_demo_structural_zeroes_small_gamma():
    d = histograms.rdp_demo(2**16, 50, 20_000, 1.0, concentration=5.0, rng=0)
    assert d.gamma < 0.05 and d.occupied_cells <= 50
    e = d.errors
    assert e["random DP (no noise on empty cells)"] < e["thresholded (ε-DP)"] < e["Laplace in every cell (ε-DP; exact law)"]

"""Spec correction 7, checked exactly on count outputs: the exponential-family form exp{−(ε/GS)·d(z, θ(D))}.

On all of ℤ (the two-sided geometric used here) the normaliser does not depend on θ, so the rate ε/GS
gives ε-DP. On a FINITE output set (counts truncated to {0..K}: a discrete output space whose normaliser
depends on θ) the same rate gives only 2ε-DP; the exponential mechanism's rate ε/(2·GS) restores ε.
"""
import math

import numpy as np
import pytest
from dpcore import histograms



def _log_pmf(theta: int, rate: float, support: np.ndarray) -> np.ndarray:
    w = -rate * np.abs(support - theta)
    return w - np.logaddexp.reduce(w)


def _max_loss(rate: float, support: np.ndarray, gs: int = 1) -> float:
    lo, hi = int(support.min()), int(support.max())
    worst = 0.0
    for th in range(lo, hi - gs + 1):                      # neighbours: θ(D′) = θ(D) + GS (one count moves)
        worst = max(worst, np.abs(_log_pmf(th, rate, support) - _log_pmf(th + gs, rate, support)).max())
    return worst


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_geometric_on_all_integers_is_eps_dp_at_rate_eps_over_gs(eps):
    wide = np.arange(-400, 401)                            # ℤ, truncated far from θ ∈ [−10, 10] (tails ~ e^{−390ε})
    loss = max(np.abs(_log_pmf(t, eps, wide) - _log_pmf(t + 1, eps, wide))[150:-150].max() for t in range(-10, 10))
    assert loss == pytest.approx(eps, rel=1e-9)
    # and the calibration used by the histogram mechanism is exactly this rate: 1/b = ε/Δ
    cal = histograms.calibrate_histogram(histograms.HistogramConfig(eps, 4, noise="geometric", neighbours="add/remove-one"), (1,))
    assert 1 / cal.constant == pytest.approx(eps / cal.sensitivity)
    assert "translation invariance" in cal.derivation


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_finite_output_set_needs_rate_eps_over_2gs(eps):
    finite = np.arange(0, 6)                               # counts restricted to {0..5}: normaliser depends on θ
    at_eps = _max_loss(eps, finite)
    assert eps * 1.05 < at_eps <= 2 * eps + 1e-12          # α/GS: NOT α-DP, only 2α-DP (correction 7)
    assert _max_loss(eps / 2, finite) <= eps + 1e-12       # α/(2GS): α-DP
    # two cells (one record moved: one count −1, another +1, GS = 2 in ℓ1) on the box {0..5}²: the losses add
    box = 2 * _max_loss(eps / 2, finite)                   # the pmf factorises over cells, rate ε/GS = ε/2 each
    assert box > 1.05 * eps and 2 * _max_loss(eps / 4, finite) <= eps + 1e-12
    assert math.isfinite(box)

"""dpcore.data.impute: the private mean that fills missing cells (issue 20 item 3) — its sensitivity by brute
force, an audit on neighbouring datasets with a mutant the same audit rejects, huge ε gives the mean of the
observed cells, and the non-private effect table."""
from itertools import product

import numpy as np
import pytest

from dpcore.audit import assert_passes, assert_rejected, audit, halfline_events
from dpcore.data import impute as I

LO, HI = 0.0, 1.0


def test_sensitivity_is_three_halves_by_brute_force():
    """Every record of a 3-row column taking each of {missing, lo, mid, hi} and every replacement of one record:
    max ‖f(D) − f(D′)‖₁ = 3/2, attained (missing ↔ a bound)."""
    cells = [np.nan, LO, (LO + HI) / 2, HI]
    worst = 0.0
    for rec in product(cells, repeat=3):
        a = I._statistics(np.array(rec), (LO, HI))
        for new in cells:
            b = I._statistics(np.array((new, *rec[1:])), (LO, HI))
            worst = max(worst, float(np.abs(a - b).sum()))
    assert worst == I.MEAN_SENSITIVITY == 1.5


def _values(column, n, rng, factor=1.0):
    """n draws of the released value through the release's own steps (Laplace of the audited mechanism, then
    the same post-processing), vectorised; ``factor`` scales the Laplace scale (the mutant: ½)."""
    stats = np.tile(I._statistics(np.array(column), (LO, HI)), (n, 1))
    cal = I.mean_imputation_config(1.0)
    noisy = I.laplace_statistics(stats, cal.replace(constant=cal.constant * factor), rng)
    return I._mean_from_noisy(noisy, (LO, HI))


@pytest.mark.stat
def test_audit_passes_and_half_scale_mutant_is_rejected():
    """D = [lo], D′ = [hi] (one record moved across the bounds): ε = 1 claimed; empirical lower bound ≈ 0.63 for
    the mechanism, ≈ 1.28 for the mutant with half the Laplace scale (rejected), N = 200 000, same seed."""
    events = halfline_events(np.linspace(0.05, 0.95, 19))
    for factor, check in ((1.0, assert_passes), (0.5, assert_rejected)):
        g = np.random.default_rng(20)
        a, b = _values([LO], 200_000, g, factor), _values([HI], 200_000, g, factor)
        check(audit(a, b, events, epsilon=1.0))


def test_release_is_the_observed_mean_at_huge_epsilon_and_carries_its_cost():
    g = np.random.default_rng(0)
    x = g.uniform(0, 5000, 200)
    x[g.choice(200, 6, replace=False)] = np.nan
    r = I.release_mean_imputation(x, (0.0, 5000.0), 1e9, rng=1)
    assert r.value == pytest.approx(np.nanmean(x), rel=1e-6)
    assert r.cost.epsilon == 1e9 and r.calibration.sensitivity == 1.5
    r1 = I.release_mean_imputation(x, (0.0, 5000.0), 1.0, rng=1)
    assert 0.0 <= r1.value <= 5000.0 and r1.cost.epsilon == 1.0
    assert r1.cost == I.mean_imputation_config(1.0).cost(1)      # the cost known before the draw


def test_effect_table_shows_the_shift_of_the_mean():
    """The issue's case: 6 of 200 cells missing, bounds [0, 5000], values near 1000: the midpoint 2500 moves the
    mean by about 4 %; a fill at the observed mean does not move it."""
    g = np.random.default_rng(2)
    x = g.normal(1000, 200, 200).clip(0, 5000)
    x[:6] = np.nan
    t = I.imputation_effect(x, (0.0, 5000.0), {"midpoint": 2500.0, "private mean": float(np.nanmean(x))})
    assert list(t["rows"]) == [194, 200, 200]
    assert t["shift of the mean"].iloc[1] / t["mean"].iloc[0] == pytest.approx(0.045, abs=0.01)
    assert abs(t["shift of the mean"].iloc[2]) < 1e-9


def test_bad_bounds_and_epsilon_are_clear_errors():
    with pytest.raises(ValueError, match="bounds"):
        I.release_mean_imputation([1.0], (1.0, 1.0), 1.0, rng=0)
    with pytest.raises(ValueError, match="ε|epsilon"):
        I.release_mean_imputation([1.0], (0.0, 1.0), -1.0, rng=0)

"""Budget notions (dpcore.privacy.notions) and the PLD total (dpcore.privacy.pld), checked against exact values and
against Google's dp-accounting."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.privacy import PrivacyCost, approx_to_zcdp_rho, zcdp_to_approx
from dpcore.privacy.notions import NotionRefused, Spend, capacity, fits, spend, suggest_notion
from dpcore.privacy.pld import tight_epsilon

RHO_DEFAULT = approx_to_zcdp_rho(3.0, 1e-5)


def test_issue_33_capacities_of_the_default_budget():
    assert 0.2242 < RHO_DEFAULT < 0.2243
    assert capacity(PrivacyCost.zcdp(0.01), "zcdp", rho=RHO_DEFAULT) >= 22
    assert capacity(PrivacyCost.zcdp(0.005), "zcdp", rho=RHO_DEFAULT) >= 44
    assert capacity(PrivacyCost.pure(0.3), "pure", epsilon=3.0) == 10
    # basic composition holds fewer Gaussian releases than the filter (4 vs 22, 6 vs 44)
    assert capacity(PrivacyCost.zcdp(0.01), "approx", epsilon=3.0, delta=1e-5) < 22


def test_conversions_are_exact():
    assert spend(PrivacyCost.pure(0.5, count=4), "pure", delta_remaining=0) == Spend(epsilon=2.0)
    assert spend(PrivacyCost.approx(0.5, 1e-7, count=2), "approx", delta_remaining=1e-5) == Spend(1.0, 2e-7)
    assert spend(PrivacyCost.pure(0.5, count=4), "zcdp", delta_remaining=0).rho == pytest.approx(4 * 0.125, rel=1e-15)
    assert spend(PrivacyCost.ldp(2.0), "zcdp", delta_remaining=0).rho == pytest.approx(2.0, rel=1e-15)
    assert spend(PrivacyCost.zcdp(0.01, count=3), "zcdp", delta_remaining=0).rho == pytest.approx(0.03, rel=1e-15)
    s = spend(PrivacyCost.zcdp(0.02), "approx", delta_remaining=4e-6)
    assert s.delta == 2e-6 and s.epsilon == zcdp_to_approx(0.02, 2e-6) and "half of the δ" in s.how
    # two zCDP costs in one click halve what remains in turn
    two = spend([PrivacyCost.zcdp(0.02), PrivacyCost.zcdp(0.02)], "approx", delta_remaining=4e-6)
    assert two.delta == pytest.approx(3e-6) and two.epsilon == pytest.approx(zcdp_to_approx(0.02, 2e-6)
                                                                            + zcdp_to_approx(0.02, 1e-6))


@pytest.mark.parametrize("cost,notion,why", [
    (PrivacyCost.zcdp(0.1), "pure", "ρ-zCDP"),
    (PrivacyCost.approx(1.0, 1e-6), "pure", "δ > 0"),
    (PrivacyCost.approx(1.0, 1e-6), "zcdp", "no ρ-zCDP guarantee"),
])
def test_what_a_notion_cannot_count_is_refused_with_the_reason_and_the_fix(cost, notion, why):
    with pytest.raises(NotionRefused, match=why) as e:
        spend(cost, notion, delta_remaining=1e-5)
    assert "load the data again" in str(e.value)


def test_a_zcdp_release_needs_some_delta_left_under_an_approx_budget():
    with pytest.raises(NotionRefused, match="none of the budget's δ remains"):
        spend(PrivacyCost.zcdp(0.1), "approx", delta_remaining=0.0)


def test_no_fixed_conversion_delta_a_large_table_admits_a_zcdp_release():
    """n = 10⁶: the default δ = 1e-7 is below the old fixed 1e-6; the release is converted at half of it."""
    n = 10**6
    delta = min(1e-5, 1 / (10 * n))
    s = spend(PrivacyCost.zcdp(0.01), "approx", delta_remaining=delta)
    assert fits("approx", spent=Spend(), new=s, epsilon=3.0, delta=delta) and s.delta < 1 / n
    assert capacity(PrivacyCost.zcdp(0.01), "zcdp", rho=approx_to_zcdp_rho(3.0, delta)) >= 10


def test_fits_and_bad_notion():
    assert not fits("zcdp", spent=Spend(rho=0.2), new=Spend(rho=0.03), rho=0.22)
    assert fits("zcdp", spent=Spend(rho=0.19), new=Spend(rho=0.03), rho=0.22)
    with pytest.raises(DPValueError, match="unknown"):
        spend(PrivacyCost.pure(1.0), "renyi", delta_remaining=0)


def test_suggestion_prefers_the_notion_that_holds_more_of_the_picked_kinds():
    best, caps = suggest_notion([PrivacyCost.zcdp(0.005)], epsilon=3.0, delta=1e-5)
    assert best == "zcdp" and caps == {"pure": 0, "approx": 6, "zcdp": 44}
    best, caps = suggest_notion([PrivacyCost.pure(1.0)], epsilon=3.0, delta=0.0)
    assert best == "pure" and caps == {"pure": 3, "approx": 3, "zcdp": 0}   # no ρ guarantees (3, 0)-DP


def test_tight_total_agrees_with_dp_accounting_and_is_below_basic_composition():
    """Our PLD total is dp-accounting's own composition: recomputed here independently for pure/approx mixtures."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from dp_accounting.pld.common import DifferentialPrivacyParameters as P

    for eps, k, delta in [(0.1, 100, 1e-5), (0.3, 10, 1e-6), (1.0, 5, 1e-5), (0.5, 20, 1e-3)]:
        ref = pld.from_privacy_parameters(P(eps, 0.0), value_discretization_interval=1e-4).self_compose(k)
        ours = tight_epsilon([PrivacyCost.pure(eps, count=k)], delta)
        assert ours == pytest.approx(ref.get_epsilon_for_delta(delta), rel=1e-9) and ours <= k * eps + 1e-9
    # a zCDP-only list is the tight conversion of Σρ
    assert tight_epsilon([PrivacyCost.zcdp(0.01, count=20)], 1e-5) == zcdp_to_approx(0.2, 1e-5)
    # mixtures: valid (at least the largest single release) and below basic composition with the zCDP part at δ/2
    mix = [PrivacyCost.pure(0.5, count=5), PrivacyCost.approx(1.0, 1e-7, count=2), PrivacyCost.zcdp(0.01)]
    t = tight_epsilon(mix, 1e-5)
    assert 2.0 <= t < 2.5 + 2.0 + zcdp_to_approx(0.01, 5e-6)
    assert math.isinf(tight_epsilon([PrivacyCost.approx(1.0, 1e-4)], 1e-5))
    assert tight_epsilon([], 1e-5) == 0.0


def test_kov_curve_and_pld_total_agree_on_pure_composition():
    """Two independent routes to the same k-fold composition of ε-DP: the exact KOV trade-off curve read at δ(ε) and
    the PLD accountant's ε at that δ."""
    from dpcore.privacy.tradeoff import max_power_composed

    eps, k, delta = 0.3, 10, 1e-3
    e_tight = tight_epsilon([PrivacyCost.pure(eps, count=k)], delta)
    alpha = np.linspace(0, 1, 20001)
    # (e_tight, delta)-DP bounds every test: the exact curve lies under δ + e^ε α
    assert np.all(max_power_composed(alpha, eps, k) <= delta + math.exp(e_tight) * alpha + 1e-6)


def test_tight_total_of_a_huge_epsilon_is_the_basic_total_without_building_a_pld():
    """ε = 10⁶ (the pages' "huge ε" check): dp-accounting overflows on e^ε and the PLD's support would be 10¹⁰ bins;
    past MAX_PLD_EPSILON the valid basic total is returned at once."""
    import time

    from dpcore.privacy.pld import MAX_PLD_EPSILON

    t = time.perf_counter()
    assert tight_epsilon([PrivacyCost.pure(1e6)], 1e-6) == 1e6
    assert tight_epsilon([PrivacyCost.pure(40.0, count=2)], 1e-6) == 80.0 > MAX_PLD_EPSILON
    assert math.isinf(tight_epsilon([PrivacyCost.approx(1e3, 1e-3)], 1e-6))     # its own δ exceeds the target
    assert time.perf_counter() - t < 5

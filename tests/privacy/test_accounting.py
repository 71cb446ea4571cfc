import math

import numpy as np
import pytest

from dpcore import privacy as P
from dpcore._validation import DPValueError


@pytest.mark.parametrize("eps,delta,sigma", [
    (1, 1e-5, 3.7306), (0.5, 1e-6, 8.0576), (2, 1e-5, 1.9938), (8, 1e-5, 0.6002), (0.1, 1e-5, 30.7496),
])
def test_analytic_gaussian_sigma_table(eps, delta, sigma):
    # reference table of spec/single_parameter.md §3.1
    assert P.analytic_gaussian_sigma(eps, delta) == pytest.approx(sigma, abs=6e-5)


def test_analytic_gaussian_sigma_scales_with_sensitivity_and_is_tight():
    s = P.analytic_gaussian_sigma(1.0, 1e-5)
    assert P.analytic_gaussian_sigma(1.0, 1e-5, sensitivity=3.0) == pytest.approx(3 * s, rel=1e-9)
    assert P.gaussian_delta(s, 1.0) <= 1e-5
    assert P.gaussian_delta(s * 0.999, 1.0) > 1e-5  # smallest valid sigma


def test_analytic_gaussian_beats_classical_and_is_monotone():
    for eps in (0.1, 0.5, 1.0, 2.0):
        classical = math.sqrt(2 * math.log(1.25 / 1e-5)) / eps
        assert P.analytic_gaussian_sigma(eps, 1e-5) < classical
    sig = [P.analytic_gaussian_sigma(e, 1e-6) for e in (0.1, 0.3, 1, 3, 10)]
    assert all(a > b for a, b in zip(sig, sig[1:]))
    sig_d = [P.analytic_gaussian_sigma(1.0, d) for d in (1e-9, 1e-6, 1e-3, 0.1)]
    assert all(a > b for a, b in zip(sig_d, sig_d[1:]))


def test_gaussian_delta_monotone_in_sigma():
    ds = [P.gaussian_delta(s, 1.0) for s in (0.5, 1, 2, 4, 8)]
    assert all(a > b for a, b in zip(ds, ds[1:]))


def test_zcdp_sigma():
    assert P.gaussian_sigma_zcdp(0.5, 1.0) == pytest.approx(1.0)
    assert P.gaussian_sigma_zcdp(2.0, 4.0) == pytest.approx(2.0)


def test_pure_to_zcdp():
    assert P.pure_to_zcdp(1.0) == 0.5
    assert P.pure_to_zcdp(0.2) == pytest.approx(0.02)


def test_zcdp_conversions_simple_and_tight():
    rho, delta = 0.5, 1e-6
    simple = P.zcdp_to_approx_simple(rho, delta)
    assert simple == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)))
    tight = P.zcdp_to_approx(rho, delta)
    assert tight < simple
    # round trip: delta(eps(delta)) == delta
    assert P.zcdp_delta(rho, tight) == pytest.approx(delta, rel=1e-6)
    # monotone: more rho -> more eps; smaller delta -> more eps
    assert P.zcdp_to_approx(1.0, delta) > tight
    assert P.zcdp_to_approx(rho, 1e-9) > tight


def test_zcdp_tight_matches_bruteforce_minimum_over_lambda():
    rho, eps = 0.3, 2.0
    lam = np.linspace(1.0001, 50, 200000)
    vals = np.exp((lam - 1) * (lam * rho - eps)) / (lam - 1) * (1 - 1 / lam) ** lam
    assert P.zcdp_delta(rho, eps) == pytest.approx(vals.min(), rel=1e-4)


def test_gaussian_zcdp_conversion_is_valid_against_exact_gaussian_delta():
    # sigma = 1/sqrt(2 rho) Gaussian is rho-zCDP; its exact delta at the converted eps must be <= delta
    rho, delta = 0.5, 1e-5
    eps = P.zcdp_to_approx(rho, delta)
    assert P.gaussian_delta(P.gaussian_sigma_zcdp(rho, 1.0), eps) <= delta


def test_cost_validation_and_describe():
    c = P.PrivacyCost.pure(1.0)
    assert c.notion == "pure" and c.neighbours == "replace-one"
    assert "ε = 1" in c.describe() and "replace-one" in c.describe()
    assert "δ" in P.PrivacyCost.approx(1.0, 1e-5).describe()
    assert "ρ" in P.PrivacyCost.zcdp(0.1).describe()
    with pytest.raises(DPValueError, match="epsilon"):
        P.PrivacyCost.pure(-1)
    with pytest.raises(DPValueError, match="delta"):
        P.PrivacyCost.approx(1, 1.5)
    with pytest.raises(DPValueError, match="rho"):
        P.PrivacyCost.zcdp(0)
    with pytest.raises(DPValueError):
        P.PrivacyCost("pure", epsilon=1.0, delta=0.1)
    with pytest.raises(DPValueError):
        P.PrivacyCost("nonsense", epsilon=1.0)


def test_compose_basic_and_zcdp():
    a, b = P.PrivacyCost.pure(1.0), P.PrivacyCost.pure(0.5)
    tot = P.compose_basic([a, b])
    assert tot.notion == "pure" and tot.epsilon == pytest.approx(1.5)
    mixed = P.compose_basic([a, P.PrivacyCost.approx(1.0, 1e-6)])
    assert mixed.notion == "approx" and mixed.epsilon == pytest.approx(2.0) and mixed.delta == pytest.approx(1e-6)
    z = P.compose_zcdp([a, b, P.PrivacyCost.zcdp(0.1)])
    assert z.rho == pytest.approx(0.5 + 0.125 + 0.1)
    assert P.compose_zcdp([a, P.PrivacyCost.approx(1.0, 1e-6)]) is None
    m = P.compose_basic([a, P.PrivacyCost.ldp(0.5)])
    assert m.notion == "pure" and m.epsilon == pytest.approx(1.5)
    zb = P.compose_basic([P.PrivacyCost.zcdp(0.5)], delta_for_zcdp=1e-6)
    assert zb.epsilon == pytest.approx(P.zcdp_to_approx(0.5, 1e-6)) and zb.delta == pytest.approx(1e-6)
    with pytest.raises(DPValueError):
        P.compose_basic([])


def test_compose_entry_keeps_per_draw_form_so_zcdp_is_not_over_charged():
    # 10 draws of each of two ε = 1 pure methods in one ledger entry: basic 20, zCDP 20·½ = 10 (not 20²/2 = 200)
    e = P.compose_entry([P.PrivacyCost.pure(1.0, count=10), P.PrivacyCost.pure(1.0, count=10)])
    assert e.total_epsilon == pytest.approx(20.0) and e.as_zcdp_rho() == pytest.approx(10.0)
    led = P.PrivacyLedger()
    led.add("two methods", e)
    t = led.totals()
    assert t.basic_epsilon == pytest.approx(20.0) and t.zcdp_rho == pytest.approx(10.0)
    mixed = P.compose_entry([P.PrivacyCost.pure(1.0, count=10), P.PrivacyCost.approx(1.0, 1e-3, count=10)])
    assert mixed.notion == "approx" and mixed.total_epsilon == pytest.approx(20.0)
    assert mixed.total_delta == pytest.approx(1e-2)
    with pytest.raises(DPValueError):
        P.compose_entry([])


def test_compose_advanced_formula_and_benefit():
    eps0, k, dp = 0.01, 1000, 1e-6
    c = P.compose_advanced(eps0, 0.0, k, dp)
    expected = eps0 * math.sqrt(2 * k * math.log(1 / dp)) + k * eps0 * math.expm1(eps0)
    assert c.epsilon == pytest.approx(expected)
    assert c.delta == pytest.approx(dp)
    assert c.epsilon < k * eps0  # beats basic composition for many small steps
    with pytest.raises(DPValueError, match="k"):
        P.compose_advanced(0.1, 0, 0, 1e-6)


def test_ledger_counts_once_per_key_and_totals():
    led = P.PrivacyLedger()
    assert led.totals().n_releases == 0
    assert led.add("mean", P.PrivacyCost.pure(1.0), key=("d", "mean", 1))
    assert not led.add("mean again", P.PrivacyCost.pure(1.0), key=("d", "mean", 1))
    assert led.add("median", P.PrivacyCost.pure(0.5), key=("d", "median", 1))
    t = led.totals(delta=1e-6)
    assert t.n_releases == 2 and t.basic_epsilon == pytest.approx(1.5) and t.basic_delta == 0
    assert t.zcdp_rho == pytest.approx(0.5 + 0.125)
    assert t.zcdp_epsilon == pytest.approx(P.zcdp_to_approx(0.625, 1e-6))
    led.add("gauss", P.PrivacyCost.approx(1.0, 1e-5))
    t2 = led.totals()
    assert t2.zcdp_rho is None and t2.basic_delta == pytest.approx(1e-5)
    frame = led.to_frame()
    assert list(frame["release"]) == ["mean", "median", "gauss"]
    led.clear()
    assert len(led) == 0


def test_ledgers_are_independent():
    a, b = P.PrivacyLedger(), P.PrivacyLedger()
    a.add("x", P.PrivacyCost.pure(1))
    assert len(b) == 0

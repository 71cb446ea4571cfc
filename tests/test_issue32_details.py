"""Issue 32, item 5: the details that misled an analyst (each test failed on main b44e7ac)."""
from __future__ import annotations

import re

from dpcore import privacy as P
from dpcore.numbers import number


def test_issue32_5_budget_shows_any_spending_without_exponents():
    """A budget of ε = 10⁶ after ε = 30 was spent: main printed the total as "1e+06" (and a click's ε = 999970 as
    "1e+06" too), so the spending did not show."""
    acct = P.DatasetAccount("k", "survey.csv", 10**7, P.Budget(1e6, 0.0, notion="pure"))
    acct.record(P.LedgerEntry("mean", P.PrivacyCost.pure(30.0)))
    s = acct.summary()
    shown = [s.remaining_text, s.total_text, s.spent_text, acct.budget.describe(), P.short_cost(P.PrivacyCost.pure(999970.0)),
             P.PrivacyCost.pure(999970.0).describe()]
    assert not any("e+" in t for t in shown), shown
    assert "999970" in s.remaining_text and "1000000" in acct.budget.describe() and "30" in s.spent_text


def test_issue32_5_one_number_rule_has_no_float_noise():
    assert number(1.0100000000000002) == "1.01" and number(0.1 + 0.2) == "0.3"
    assert number(1e6) == "1000000" and number(999970.0, 8) == "999970"
    assert number(1e-5) == "1e-05"   # δ keeps its usual notation
    assert number(13.5914, 3, "up") == "13.6" and number(13.5914, 3, "down") == "13.5"
    assert re.fullmatch(r"[0-9.]+", number(123456789.0, 12))


def test_issue32_5_logistic_coefficient_is_read_in_log_odds():
    """main described a logistic coefficient as the "change in y per unit of x"; it is a change in log-odds."""
    from dpcore.single_parameter import breast_cancer_dataset, coefficient_units

    ds = breast_cancer_dataset()
    y, xs = "malignant", ["mean radius", "mean texture"]
    units = coefficient_units(ds, y, xs, intercept=True, scale_response=False, loss="logistic")
    assert all("log-odds" in meaning for _, _, meaning in units), units
    assert not any(meaning.startswith("change in " + repr(y)) for _, _, meaning in units)
    robust = coefficient_units(ds, y, xs, intercept=True)
    assert [u[:2] for u in units] == [u[:2] for u in robust]      # the same numbers, read on another scale


def test_issue32_5_density_preview_is_in_the_plot_units():
    """main measured the density preview "in density units on [0, 1]^d" beside a plot per unit of the column."""
    import numpy as np

    from dpcore import density
    from dpcore.preview import preview

    cfg = density.CompareConfig(epsilon=1.0, d=1, grid=64).configs()["gp"]
    unit = preview("density/gp-kde", cfg, n=500, d=1, rng=3)
    cols = preview("density/gp-kde", cfg, n=500, d=1, rng=3, bounds=((20.0, 70.0),))
    assert "per unit of the column" in cols.measure and "[0, 1]^d" not in cols.measure
    np.testing.assert_allclose(cols.samples, unit.samples / 50.0)

"""The ledger: entries counted as DP vs. not, totals, the CSV frame in words."""
from __future__ import annotations

import pytest

from dpcore.errors import DPValueError
from dpcore.privacy import PrivacyCost, PrivacyLedger


def test_not_dp_entries_are_listed_apart_and_excluded_from_totals():
    led = PrivacyLedger()
    led.add("a", PrivacyCost.pure(1.0, count=3), key=("a",))
    led.add("b", PrivacyCost.pure(5.0), key=("b",), counted_as_dp=False, reason="not DP: bounds taken from the data")
    t = led.totals()
    assert (t.n_releases, t.n_not_dp, t.basic_epsilon, t.zcdp_rho) == (1, 1, 3.0, 1.5)
    assert [e.label for e in led.counted] == ["a"] and [e.label for e in led.not_counted] == ["b"]
    frame = led.to_frame()
    assert list(frame["counted as DP"]) == ["yes", "no"]
    assert list(frame["draws"]) == [3, 1] and list(frame["ε per draw"]) == [1.0, 5.0]
    assert frame.loc[1, "not DP because"].startswith("not DP")
    assert not [c for c in frame.columns if "_" in c or "epsilon" in c or "rho" in c]


def test_not_dp_entry_needs_a_reason():
    with pytest.raises(DPValueError, match="reason"):
        PrivacyLedger().add("x", PrivacyCost.pure(1.0), counted_as_dp=False)


def test_only_not_dp_entries_give_zero_totals():
    led = PrivacyLedger()
    led.add("x", PrivacyCost.pure(1.0), counted_as_dp=False, reason="teaching view")
    t = led.totals()
    assert (t.n_releases, t.basic_epsilon, t.n_not_dp) == (0, 0.0, 1)

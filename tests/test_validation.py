import math

import numpy as np
import pytest

from dpcore import _validation as V


@pytest.mark.parametrize("bad,words", [
    (0, "must be > 0"), (-1, "must be > 0"), (float("nan"), "NaN"), (float("inf"), "not finite"),
    ("abc", "must be a number"), (True, "boolean"),
])
def test_check_epsilon_messages(bad, words):
    with pytest.raises(V.DPValueError) as e:
        V.check_epsilon(bad)
    assert "epsilon" in str(e.value) and words in str(e.value)


def test_epsilon_warning_above_10():
    assert V.epsilon_warning(1.0) is None
    w = V.epsilon_warning(20.0)
    assert w and "20" in w


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, float("nan")])
def test_check_delta(bad):
    with pytest.raises(V.DPValueError, match="delta"):
        V.check_delta(bad)
    assert V.check_delta(0, allow_zero=True) == 0


def test_delta_warning():
    assert V.delta_warning(1e-3, 100) is None
    assert "1/n" in V.delta_warning(0.02, 100)


def test_rho_tau_bounds_int_norm_choice():
    with pytest.raises(V.DPValueError, match="rho"):
        V.check_rho(0)
    for bad in (0, 1, -0.2, 1.2):
        with pytest.raises(V.DPValueError, match="tau"):
            V.check_probability_level(bad)
    with pytest.raises(V.DPValueError, match="swap"):
        V.check_bounds(2, 1)
    with pytest.raises(V.DPValueError, match="finite"):
        V.check_bounds(-math.inf, 1)
    assert V.check_bounds(0, 1) == (0.0, 1.0)
    with pytest.raises(V.DPValueError, match="limit is 10"):
        V.check_int(11, "reps", lo=1, hi=10)
    with pytest.raises(V.DPValueError, match="at least 1"):
        V.check_int(0, "reps", lo=1)
    with pytest.raises(V.DPValueError, match="whole number"):
        V.check_int(2.5, "reps")
    assert V.check_norm("L2") == "l2" and V.check_norm("inf") == "linf" and V.check_norm("ℓ1") == "l1"
    with pytest.raises(V.DPValueError, match="'l3'"):
        V.check_norm("l3")
    with pytest.raises(V.DPValueError, match="'kng'"):
        V.check_choice("x", "mechanism", ("kng",))


def test_check_finite_array():
    with pytest.raises(V.DPValueError, match="non-finite"):
        V.check_finite_array([1.0, np.nan])
    with pytest.raises(V.DPValueError, match="at least 3"):
        V.check_finite_array([1.0, 2.0], min_rows=3)
    with pytest.raises(V.DPValueError, match="dimension"):
        V.check_finite_array(np.zeros((2, 2, 2)), ndim=(1, 2))
    with pytest.raises(V.DPValueError, match="numeric"):
        V.check_finite_array(["a", "b"])

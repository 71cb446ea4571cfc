"""Issue 18, finding 4: settings a page allowed that ended in a traceback ("This app has encountered an
error"), now refused with a message naming the parameter, the value and the limit (or kept in range)."""
from __future__ import annotations

import re

import pytest

from tests.app.pagetest import page_runner

pytestmark = pytest.mark.app

kng_page = page_runner("kng.py")
density_page = page_runner("density.py")


def _errors(at) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(str(e.value) for e in at.error))   # show_error escapes Markdown


@pytest.mark.parametrize("d", [11, 12])
def test_kng_simulation_columns_stay_within_the_simulators_limit(d):
    """The widget allowed 12 columns, simulated_dataset caps d at 10 (uncaught DPValueError before)."""
    from dpcore import kng

    at = kng_page(kng_problem="mean", kng_sim_n=100, kng_sim_d=d)          # page_runner asserts no exception
    w = at.number_input(key="kng_sim_d")
    assert w.max == kng.max_simulated_d("mean") == kng.MAX_SIM_D == 10
    assert w.value == 10


def test_kng_regression_with_a_huge_B_is_refused_with_the_cap():
    """B ≥ 1.3e154 overflowed (1 + B)² in kng/_regression.py (OverflowError before)."""
    at = kng_page(kng_problem="linear_regression", kng_sim_n=100, kng_sim_d=2, kng_B=1.3e154)
    text = _errors(at)
    assert "B = 1.3e+154" in text and "cap" in text and "1e+06" in text


def test_density_bandwidth_1e300_is_refused_with_its_minimum():
    """h = 1e-300 made kde_sensitivity divide by zero (ZeroDivisionError before)."""
    at = density_page(dn_h=1e-300)
    text = _errors(at)
    assert "bandwidth = 1e-300" in text and "0.0001" in text

"""Issue 32 on the LASSO and certified-bounds pages: the step rule that converges and the outlook before the click
(item 2), θ = 0 beside weak releases and the ε-independent floor stated before the click (item 3), and the item-5
details (the λ_max field's float noise, the widget given a default and a Session State value, the preview toggle)."""
from __future__ import annotations

import logging

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner
from tests.app.test_lasso_page import PAGE as LASSO_PAGE, _diabetes_as_upload

_lasso = page_runner("lasso.py")
_eigen = page_runner("eigenvalues.py")
DIABETES_SP = "Diabetes (built-in, robust regression)"

pytestmark = pytest.mark.app


def _md(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def test_issue32_2_lasso_page_offers_the_risk_bound_rule_and_states_the_distance_before_the_click():
    at = _lasso(lasso_source="Diabetes (built-in)", lasso_steps_rule="risk bound (converges as ε grows)",
                lasso_eps_typed=1e5)
    assert not any("Released" in s.value for s in at.success)          # built-in data: nothing without a click
    text = _md(at)
    assert "What to expect from this release" in text and "‖θ̂ − θ*‖₂ ≤" in text and "Worst case" in text
    steps = at.table[0].value.loc["steps T", "value"]
    assert steps.startswith("3") and "risk-bound rule" in steps         # T = 3,642 (ε − ε_m with the intercept)
    at.session_state["lasso_steps_rule"] = "Theorem 2.5"
    at.run()
    _ok(at)
    assert at.table[0].value.loc["steps T", "value"].startswith("20000")


def test_issue32_3_lasso_page_says_before_the_click_when_theta_zero_is_expected_to_do_as_well():
    at = _lasso(lasso_source="Diabetes (built-in)", lasso_eps_typed=1.0)
    text = _md(at)
    assert "for predicting the mean" in text and "no improvement over predicting the mean" in text
    at.session_state["lasso_eps_typed"] = 1e4
    at.run()
    _ok(at)
    assert "no improvement" not in _md(at) and "for predicting the mean" in _md(at)


def test_issue32_3_teaching_view_shows_theta_zero_risk_beside_the_private_risk():
    import ui
    at = AppTest.from_file(LASSO_PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = _diabetes_as_upload()
    at.session_state["lasso_source"] = "Dataset from the Data page"
    at.session_state["lasso_view"] = "Teaching view (not private)"
    at.session_state["lasso_eps_typed"] = 0.5
    at.run()
    _ok(at)
    at.button(key="lasso_go").click().run()
    _ok(at)
    labels = [m.label for m in at.metric]
    assert "excess risk, θ = 0 (predicting the mean)" in labels and "excess risk, private" in labels
    private = float(at.metric[labels.index("excess risk, private")].value)
    zero = float(at.metric[labels.index("excess risk, θ = 0 (predicting the mean)")].value)
    assert (private >= zero) == any("worse than θ = 0" in w.value for w in at.warning)


def test_issue32_3_eigen_page_states_the_floor_before_the_click():
    at = _eigen(sp_source=DIABETES_SP)
    assert not any("⊥" in w.value for w in at.warning)                 # nothing released yet
    floor = next(c.value for c in at.caption if "abstains (⊥) at every ε" in c.value)
    assert "n = 442 and d = 11" in floor and "0.5461" in floor


def test_issue32_5_lambda_max_field_has_no_float_noise():
    """Robust regression on the hypercube with d = 2 (bmi and the intercept), ρ = 0.01: the public cap
    M1 + ρ = 1 + 0.01 is 1.0100000000000002 in floating point; the "what would certify" field showed it so."""
    at = _eigen(sp_source=DIABETES_SP, **{"sp_x_Diabetes (built-in, robust regression)_target": ["bmi"]})
    at.button(key="sp_go").click().run()
    _ok(at)
    assert any("⊥" in w.value for w in at.warning)
    field = at.number_input(key="sp_assume_Lam")
    assert field.value == 1.01 and field.max == 1.01


def test_issue32_5_no_widget_gets_a_default_and_a_session_state_value(monkeypatch):
    """The server log warned 'The widget with key "sp_x_…" was created with a default value but also had its value
    set via the Session State API' when a remembered covariate choice came back. Streamlit checks this only with a
    runtime (a server) and warns once per process, so the test turns both on."""
    from streamlit.elements.lib import policies

    monkeypatch.setattr(policies.runtime, "exists", lambda: True)
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    seen: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    log = logging.getLogger("streamlit.elements.lib.policies")
    handler = Catch(level=logging.WARNING)
    log.addHandler(handler)
    try:
        # remembered choices (ui.persist's copies) that the page writes back into the state during the run
        at = _eigen(sp_source=DIABETES_SP, **{"_keep::sp_y_Diabetes (built-in, robust regression)": "target",
                                             "_keep::sp_x_Diabetes (built-in, robust regression)_target": ["bmi", "bp"]})
        at.button(key="sp_go").click().run()
        _ok(at)
        lasso_at = _lasso(lasso_source="Diabetes (built-in)", **{"_keep::lasso_y_Diabetes (built-in)": "target",
                                                                 "_keep::lasso_x_Diabetes (built-in)_target": ["bmi"]})
        _ok(lasso_at)
    finally:
        log.removeHandler(handler)
    assert not [m for m in seen if "default value" in m], seen
    assert at.multiselect(key="sp_x_Diabetes (built-in, robust regression)_target").value == ["bmi", "bp"]


def test_issue32_5_preview_toggle_stays_on_after_a_first_release():
    at = _eigen(sp_source=DIABETES_SP)
    assert at.toggle(key="sp_accuracy_preview_on").value is True
    at.button(key="sp_go").click().run()
    _ok(at)
    assert at.toggle(key="sp_accuracy_preview_on").value is True
    at.run()
    assert at.toggle(key="sp_accuracy_preview_on").value is True

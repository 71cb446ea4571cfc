"""AppTest checks of the ui package on tiny scripts: the release path (explicit click, cache,
ledger, fresh entropy vs. a reproducible demo, bounds from the data), ε input, errors, downloads."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import TIMEOUT

pytestmark = pytest.mark.app


def _release_script():
    """A page in the documented pattern: widgets → request → one call → display."""
    import numpy as np
    import pandas as pd
    import streamlit as st

    from dpcore import data as dpdata
    from dpcore.privacy import PrivacyCost
    import ui

    ui.init_session()
    if ui.get_dataset() is None:
        frame = pd.DataFrame({"age": np.arange(20.0, 60.0), "income": np.arange(40.0)})
        ui.set_dataset(dpdata.Dataset(frame, ("age", "income"), {"age": (0.0, 100.0), "income": (0.0, 50.0)},
                                      "test data", name="people.csv"))
    ds = ui.get_dataset()
    if st.session_state.get("leaky") and ds.bound_source("age") == "declared":  # as "Fill from data" does
        ds = ds.with_bounds("age", 20.0, 59.0, source="from data")
        ui.set_dataset(ds)
    col = st.selectbox("column", ["age", "income"], key="col")       # outside any form
    eps = st.number_input("eps", value=1.0, key="eps")
    calls = st.session_state.setdefault("calls", [0])
    try:
        req = ui.request((ds.fingerprint(), "toy mean", col, eps), f"toy mean of {col}, ε = {eps:g}", ds, [col],
                         cost=PrivacyCost.pure(eps))
    except ValueError as exc:
        ui.show_error(exc)
        st.stop()
    clicked, slot = ui.release_button("Release", key="go", requests=req)

    def compute(rng):
        calls[0] += 1
        ui.progress(slot, "toy")(1, 1)
        return float(rng.normal())

    out = ui.run_release(req, compute, submitted=clicked, cost_of=lambda r: PrivacyCost.pure(eps))
    if out is not None:
        ui.show_outcome(out, button="Release")
        if out.ready:
            st.markdown(f"value={out.result!r}")
    st.markdown(f"computed={calls[0]}")
    st.markdown(f"ledger={len(ui.get_ledger())}")


def _md(at, prefix):
    found = [m.value for m in at.markdown if m.value.startswith(prefix)]
    assert len(found) == 1, (prefix, [m.value for m in at.markdown])
    return found[0][len(prefix):]


def _has(at, prefix):
    return any(m.value.startswith(prefix) for m in at.markdown)


def _all_text(at) -> str:
    parts = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "error", "success")
             for e in getattr(at, kind)]
    return "\n".join(parts)


def _run():
    at = AppTest.from_function(_release_script, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_release_on_user_data_needs_a_click_and_is_cached_and_counted_once():
    at = _run()
    assert not _has(at, "value=") and _md(at, "computed=") == "0" and _md(at, "ledger=") == "0"
    assert any("press **Release**" in i.value for i in at.info)
    assert any("This click costs" in c.value and "ε = 1" in c.value for c in at.caption)  # before the click
    assert at.button(key="go").label == "Release — ε = 1, δ = 0"
    at.button(key="go").click().run()
    v1 = _md(at, "value=")
    assert (_md(at, "computed="), _md(at, "ledger=")) == ("1", "1")
    at.run()  # a rerun: the stored result, not recomputed, not recounted
    assert (_md(at, "value="), _md(at, "computed="), _md(at, "ledger=")) == (v1, "1", "1")
    at.button(key="go").click().run()  # a second click with the same settings: still the same release
    assert (_md(at, "value="), _md(at, "ledger=")) == (v1, "1")
    entry = at.session_state["dp_ledger"].entries[0]
    assert entry.counted_as_dp and entry.label == "toy mean of age, ε = 1"


def test_changing_a_widget_outside_a_form_does_not_release():
    """Issue 8 §6: before, after one click every selectbox change released again (2 changes → 4–6
    releases); now a changed setting waits for a click and the ledger keeps 1 entry."""
    at = _run()
    at.button(key="go").click().run()
    for value in ("income", "age", "income"):
        at.selectbox(key="col").set_value(value).run()
        assert _md(at, "ledger=") == "1"
    assert not _has(at, "value=") or at.selectbox(key="col").value == "age"
    at.selectbox(key="col").set_value("age").run()   # back to the released settings: the cached result
    assert _has(at, "value=") and _md(at, "computed=") == "1" and _md(at, "ledger=") == "1"


def test_default_release_on_user_data_is_not_reproducible_from_any_displayed_seed():
    """Issue 8 §1: before, seed 0 (shown in the sidebar) + the data fixed the release; now two sessions
    with identical data, settings and sidebar seed release different values, and nothing shows a seed."""
    values = []
    for _ in range(2):
        at = _run()
        at.button(key="go").click().run()
        values.append(_md(at, "value="))
        assert "seed" not in _all_text(at).lower()
        assert at.session_state["dp_ledger"].entries[0].counted_as_dp
    assert values[0] != values[1]


def test_reproducible_demo_on_user_data_is_listed_as_not_dp():
    at = AppTest.from_function(_release_script, default_timeout=TIMEOUT)
    at.session_state["dp_reproducible"] = True
    at.session_state["dp_seed"] = 11
    at.run()
    assert any("**Not private**" in m.value and "knows the seed" in m.value for m in at.markdown)  # before the click
    at.button(key="go").click().run()
    ledger = at.session_state["dp_ledger"]
    (entry,) = ledger.entries
    assert not entry.counted_as_dp and "not private against anyone who knows the seed" in entry.reason
    assert ledger.totals().n_releases == 0 and ledger.totals().basic_epsilon == 0.0
    assert any("Not differentially private" in w.value for w in at.warning)


def test_bounds_taken_from_the_data_give_no_dp_ledger_entry():
    """Issue 8 §2: before, a column whose bounds were filled from its min/max was charged as ε-DP with
    no warning; now the entry is "not DP: bounds taken from the data" and no total counts it."""
    at2 = AppTest.from_function(_release_script, default_timeout=TIMEOUT)
    at2.session_state["leaky"] = True
    at2.run()
    at2.button(key="go").click().run()
    (entry,) = at2.session_state["dp_ledger"].entries
    assert not entry.counted_as_dp and entry.reason == "not DP: bounds taken from the data (age)"
    assert at2.session_state["dp_ledger"].totals().basic_epsilon == 0.0


def test_column_without_bounds_is_refused():
    def script():
        import pandas as pd

        from dpcore import data as dpdata
        import ui

        ui.init_session()
        ds = dpdata.Dataset(pd.DataFrame({"x": [1.0, 2.0]}), ("x",), {}, "t")
        try:
            ui.request(("k",), "x", ds, ["x"], cost=None)
        except ValueError as exc:
            ui.show_error(exc)

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception and "no bounds" in at.error[0].value


def test_release_errors_are_not_cached_or_counted():
    def script():
        import streamlit as st

        from dpcore import privacy as P
        from dpcore._validation import check_epsilon
        import ui

        ui.init_session()
        eps = st.number_input("eps", value=-1.0, key="eps")
        ui.release_session().open_dataset("ab" * 32, n=100)
        req = P.ReleaseRequest(("bad", eps), "bad", P.USER, P.randomness_for(P.USER),
                               bounds=P.check_bounds({"x": "declared"}), dataset="ab" * 32,
                               cost=P.PrivacyCost.pure(abs(eps)))
        ui.run_release(req, lambda rng: check_epsilon(eps), submitted=True, cost_of=lambda r: P.PrivacyCost.pure(r))
        st.markdown(f"ledger={len(ui.get_ledger())}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(at.error) == 1 and "ε = -1.0 must be > 0" in re.sub(r"\\(.)", r"\1", at.error[0].value)
    assert _md(at, "ledger=") == "0"
    at.number_input(key="eps").set_value(0.5).run()
    assert not at.error and _md(at, "ledger=") == "1"


def test_cancelled_release_says_so_and_charges_nothing():
    def script():
        import streamlit as st

        from dpcore import privacy as P
        from dpcore.errors import Cancelled
        import ui

        ui.init_session()
        ui.release_session().open_dataset("ab" * 32, n=100)
        req = P.ReleaseRequest(("c",), "c", P.USER, P.randomness_for(P.USER), bounds=P.check_bounds({"x": "declared"}),
                               dataset="ab" * 32, cost=P.PrivacyCost.pure(1.0))

        def compute(rng):
            raise Cancelled(done=1, total=5)

        ui.run_release(req, compute, submitted=True)
        st.markdown(f"ledger={len(ui.get_ledger())}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception and any("nothing was released" in i.value for i in at.info)
    assert _md(at, "ledger=") == "0"


def _demo_script():
    import streamlit as st

    from dpcore import privacy as P
    import ui

    ui.init_session()
    eps = st.number_input("eps", value=1.0, key="eps")
    req = P.ReleaseRequest(("demo", eps), "demo", P.SIMULATED, ui.randomness(P.SIMULATED))
    out = ui.run_release(req, lambda rng: float(rng.normal()), submitted=False,
                         cost_of=lambda r: P.PrivacyCost.pure(1.0))
    st.markdown(f"value={out.result!r}")
    st.markdown(f"ledger={len(ui.get_ledger())}")


def test_demo_data_release_at_once_with_the_sidebar_seed_and_are_not_charged():
    a = AppTest.from_function(_demo_script, default_timeout=TIMEOUT).run()
    b = AppTest.from_function(_demo_script, default_timeout=TIMEOUT).run()
    assert _md(a, "value=") == _md(b, "value=") and _md(a, "ledger=") == "0"
    b.session_state["dp_seed"] = 7
    b.run()
    assert _md(a, "value=") != _md(b, "value=")


def test_epsilon_input_is_log_scale_typed_and_warns_above_10():
    def script():
        import streamlit as st

        import ui

        eps = ui.epsilon_input(key="e", default=0.9, typed=True)
        st.markdown(f"eps={eps!r}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    slider = at.select_slider(key="e")
    assert min(slider.options, key=float) == "0.01" and max(slider.options, key=float) == "1000000"
    assert slider.value == 1.0  # 0.9 snapped to the nearest choice on the slider
    assert _md(at, "eps=") == "0.9"  # the typed default is kept exactly
    slider.set_value(20.0).run()
    assert _md(at, "eps=") == "20.0" and at.number_input(key="e_typed").value == 20.0
    assert len(at.warning) == 1 and "ε = 20 > 10" in at.warning[0].value
    at.number_input(key="e_typed").set_value(0.37).run()
    assert _md(at, "eps=") == "0.37" and at.select_slider(key="e").value == 0.3


def test_epsilon_input_works_inside_a_form():
    def script():
        import streamlit as st

        import ui

        with st.form("f"):
            eps = ui.epsilon_input(key="e")
            st.form_submit_button("go")
        st.markdown(f"eps={eps!r}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception and _md(at, "eps=") == "1.0"


def test_show_error_hides_non_value_errors_and_escapes_markdown():
    def script():
        import ui

        ui.show_error(ValueError("column '**<b>x</b>**' is not numeric; epsilon = 2, tau = 0.5, theta_x"))
        ui.show_error(KeyError("secret internals"))

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    first, second = at.error[0].value, at.error[1].value
    assert "**<b>" not in first and "not numeric" in first
    assert "ε = 2, τ = 0.5" in re.sub(r"\\(.)", r"\1", first) and "theta\\_x" in first  # whole words only
    assert "secret internals" not in second and "KeyError" in second


def test_download_csv_neutralises_formulas_and_does_not_rerun(monkeypatch):
    import streamlit as st

    captured = []
    original = st.download_button

    def capture(label, data, **kwargs):           # the button as Streamlit gets it; its data is written on click
        captured.append((data, kwargs["mime"], kwargs["file_name"]))
        return original(label, data, **kwargs)

    monkeypatch.setattr(st, "download_button", capture)

    def script():
        import pandas as pd

        import ui

        ui.download_csv(pd.DataFrame({"a": ["=1+1", "ok"], "b": [-1.5, 2.0]}), "out put", "Get it")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    (button,) = at.get("download_button")
    assert button.proto.label == "Get it" and button.proto.ignore_rerun
    ((data, mimetype, filename),) = captured
    assert callable(data), "the CSV is written when the button is clicked (deferred), not on every rerun"
    text = data()
    assert mimetype.startswith("text/csv") and filename == "out_put.csv"
    assert text.splitlines() == ["a,b", "'=1+1,-1.5", "ok,2.0"]


def test_nonprivate_box_is_labelled():
    def script():
        import streamlit as st

        import ui

        with ui.nonprivate("θ̂ and clipping"):
            st.markdown("theta-hat=1.23")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    texts = [m.value for m in at.markdown]
    assert any("θ̂ and clipping" in t and "Not private" in t for t in texts)
    assert any("not differentially private" in c.value for c in at.caption)

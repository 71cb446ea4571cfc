"""AppTest of pages/audit.py: defaults pass, the declared mutant is rejected, the sample cap is refused with a
clear message, and a newer run supersedes an older one (an interrupted run leaves the old result whole)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner

from dpcore.audit import explore as X
from dpcore.registry import audits

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "audit.py")
_run = page_runner("audit.py", timeout=60)

pytestmark = pytest.mark.app


def _click(at) -> AppTest:
    at.button(key="audit_go").click().run()
    _ok(at)
    return at


def _stored(at):
    return at.session_state["audit_result"] if "audit_result" in at.session_state else None


def test_defaults_laplace_audit_passes_and_nothing_is_charged():
    at = _run()
    assert _stored(at) is None and any("Run the audit" in i.value for i in at.info)
    assert any("never on your uploaded data" in i.value for i in at.info)
    aid = at.session_state["audit_id"]
    assert aid == "noise/laplace"                               # the simplest mechanism opens the page
    _click(at)
    settings, s = _stored(at)
    assert settings[0] == aid and not s.mutant and not s.result.rejected
    assert any("Not rejected" in m.value for m in at.success)
    assert 0 < s.result.epsilon_lower_bound < s.result.epsilon
    assert len(at.get("plotly_chart")) == 2  # the outputs, and what ε means (trade-off curve)
    assert len(s.overlay) > 10 and set(s.overlay.columns) >= {"density_D", "density_D′"}
    import ui
    assert len(at.session_state[ui.LEDGER_KEY].entries) == 0   # an audit is not a release


def test_mutant_is_rejected_and_its_bound_exceeds_the_claim():
    at = _click(_run(audit_id="noise/laplace", audit_mutant=True))
    _, s = _stored(at)
    assert s.mutant and s.result.rejected
    assert s.result.epsilon_lower_bound > s.result.epsilon
    assert any("Rejected" in e.value for e in at.error)
    assert any("Broken on purpose" in w.value for w in at.warning)


def test_sample_size_over_the_cap_is_refused_clearly():
    a = audits()["noise/laplace"]
    cap = X.sample_cap(a)
    at = _click(_run(audit_id="noise/laplace", **{"audit_n::noise/laplace": cap + 1}))
    msgs = [e.value.replace("\\", "") for e in at.error]  # (markdown-escaped)
    assert any("sample size n" in m and f"{cap + 1:,}" in m and f"{cap:,}" in m and "lower n" in m for m in msgs), msgs
    assert _stored(at) is None


def test_edited_pair_and_presets():
    at = _run(audit_id="noise/laplace", **{"audit_preset::noise/laplace": X.IDENTICAL})
    _click(at)
    settings, s = _stored(at)
    assert settings[2] == X.IDENTICAL and not s.result.rejected and s.result.epsilon_lower_bound < 0.05


def test_a_newer_run_supersedes_and_an_interrupted_one_leaves_the_old_result(monkeypatch):
    at = _click(_run(audit_id="noise/laplace"))
    old = _stored(at)
    assert not old[1].mutant
    # A newer rerun arriving mid-way: Streamlit raises its StopException at the next progress update.
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException
    real, calls = X.run_audit, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise StopException()
        return real(*args, **kwargs)

    monkeypatch.setattr(X, "run_audit", interrupted)
    at.session_state["audit_mutant"] = True
    at.button(key="audit_go").click().run()
    assert len(calls) == 4
    assert _stored(at) is old                              # untouched: the old result, whole
    monkeypatch.setattr(X, "run_audit", real)
    _click(at)
    new = _stored(at)
    assert new is not old and new[1].mutant and new[1].result.rejected and new[0][1] is True
    assert not any("settings changed" in c.value for c in at.caption)


def _tradeoff_traces(at) -> dict[str, dict]:
    import json
    spec = json.loads(at.get("plotly_chart")[1].proto.spec)
    return {t["name"]: t for t in spec["data"]}


def test_tradeoff_curve_with_the_audit_points_inside_and_the_mutants_across():
    at = _click(_run(audit_id="noise/laplace"))
    names = list(_tradeoff_traces(at))
    assert any("(ε = 1, δ = 0)-DP bound" in n for n in names) and "random guessing" in names
    assert not any("OUTSIDE" in n for n in names) and any("inside the bound" in n for n in names)
    assert any("wrongly accuses at most 5 % of the time is right at most 13.6 %" in m.value for m in at.markdown)
    at = _click(_run(audit_id="noise/laplace", audit_mutant=True))
    assert any("OUTSIDE the bound" in n for n in _tradeoff_traces(at))


def test_gaussian_audit_draws_the_exact_gaussian_curve():
    at = _click(_run(audit_id="noise/gaussian"))
    assert any(n.startswith("Gaussian mechanism, exact (μ = Δ/σ") for n in _tradeoff_traces(at))


def test_floating_point_attack_panel_counts_naive_above_zero_and_hardened_zero():
    at = _run()
    assert "fp_attack_result" not in at.session_state
    at.button(key="fp_attack_go").click().run()
    _ok(at)
    r = at.session_state["fp_attack_result"]
    assert r.releases == 10_000 and r.naive_unexplained == 0
    assert r.naive_identified > 0 and r.hardened_identified == 0
    shown = {m.label: m.value for m in at.metric}
    assert shown["hardened (grid + exact discrete Laplace)"] == "0"
    assert int(shown["naive float Laplace: certain identifications per 10 000"].replace(",", "")) > 0

"""AppTest of pages/kng.py: demo data shown freely; on a user's data a teaching view (not private) and a
release (explicit click, cost shown first, value + calibration only); the issue-8 release rules on the
page; settings that survive navigation; ε typed; the norm hidden in 1-D; B explained."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, TIMEOUT
from tests.app.pagetest import page_charts

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "kng.py")
TEACH, RELEASE = "Teaching view (not private)", "Release"

pytestmark = pytest.mark.app


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _run(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state["kng_sim_n"] = 100
    for k, v in state.items():
        at.session_state[k] = v
    return _ok(at.run())


def _user_ds(n=80, missing=(), kind="user", source="declared"):
    from dpcore import data as dpdata

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.uniform(20, 60, n), "income": rng.uniform(0, 50, n)})
    frame.loc[list(missing), "age"] = np.nan
    ds = dpdata.Dataset(frame, ("age", "income"), {"age": (0.0, 100.0), "income": (0.0, 50.0)}, "test data",
                        name="people.csv", kind=kind)
    return ds.with_bounds("age", 0.0, 100.0, source=source) if source != "declared" else ds


def _on_user(view=RELEASE, ds=None, budget=100.0, **state) -> AppTest:
    """The page on a user's dataset; the Release view with both mechanisms unless ``kng_mechs_r`` is given
    (the default is one), under a budget of ε = ``budget`` (these tests are about other rules)."""
    from dpcore.privacy import Budget
    import ui

    ds = ds if ds is not None else _user_ds()
    state.setdefault("kng_mechs_r", ["kng", "exponential"])
    at = _run(dp_dataset=ds, kng_source="Dataset from the Data page", kng_view=view, **state)
    session = at.session_state[ui.SESSION_KEY]
    acct = session.account(session.identity(ds))
    if acct is not None:        # an account from the workspace is a snapshot: its total is set through the session
        session.set_budget(acct.fingerprint, Budget(budget, 1e-5, n=ds.n_rows))
    return _ok(at.run())


def _click(at: AppTest) -> AppTest:
    return _ok(at.button(key="kng_go").click().run())


def _ledger(at: AppTest):
    return at.session_state["dp_ledger"]


def _charts(at: AppTest) -> list:
    return [json.loads(c.proto.spec)["data"] for c in page_charts(at)]


def _texts(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "error", "title", "subheader")
             for e in getattr(at, kind)]
    parts += [str(getattr(w, "label", "")) for kind in ("radio", "selectbox", "multiselect", "number_input",
                                                        "select_slider", "checkbox", "button") for w in getattr(at, kind)]
    parts += [d.value.to_csv() for d in at.dataframe]
    return "\n".join(parts)


# -- demo data: everything shown, nothing charged -------------------------------------------
def test_simulated_defaults_show_draws_density_and_theta_hat_free_and_epsilon_changes_them():
    at = _run()
    (chart,) = _charts(at)
    assert {"KNG: draws", "KNG: density"} <= {t.get("name") for t in chart}
    assert "non-private θ̂" in _texts(at) and "Not charged" in _texts(at)
    assert len(_ledger(at)) == 0
    at.select_slider(key="kng_eps").set_value(0.1).run()
    after = _charts(_ok(at))[0]
    draws = lambda c: next(t for t in c if t.get("name") == "KNG: draws")["x"]  # noqa: E731
    assert draws(after) != draws(chart) and len(_ledger(at)) == 0


@pytest.mark.parametrize("problem", ["mean", "median", "quantile", "linear_regression", "quantile_regression"])
def test_every_problem_runs(problem):
    at = _run(kng_problem=problem, kng_sweeps=200)
    assert not at.error, [e.value for e in at.error]
    assert len(page_charts(at)) >= 1
    if problem in ("linear_regression", "quantile_regression"):
        kinds = {t["type"] for t in _charts(at)[0]}
        assert "contour" in kinds and "scatter" in kinds


@pytest.mark.parametrize("problem,widget,value,match", [
    ("quantile", "kng_tau", 1.5, "τ"),
    ("linear_regression", "kng_B", 0.0, "B"),
    ("quantile_regression", "kng_tau", 0.0, "τ"),
])
def test_invalid_parameters_show_clear_errors(problem, widget, value, match):
    at = _run(kng_problem=problem, kng_sweeps=200)
    _ok(at.number_input(key=widget).set_value(value).run())
    assert any(match in e.value for e in at.error), [e.value for e in at.error]


def test_objective_perturbation_refused_for_quantile_regression():
    at = _run(kng_problem="quantile_regression", kng_sweeps=200, kng_draws_tq=20,
              kng_mechs_t=["kng", "objective_perturbation"])
    assert any("linear regression only" in e.value for e in at.error)
    assert len(page_charts(at)) == 1  # KNG still shown


def test_geometric_median_pairs_and_coordinates():
    at = _run(kng_problem="median", kng_sweeps=500, kng_draws_t=20, kng_sim_d=3, kng_cols=["x1", "x2", "x3"])
    assert len(page_charts(at)) == 2  # 2-D view + pairs
    _ok(at.selectbox(key="kng_cj").set_value(2).run())


# -- issue 9 §2: the explorer in front of a class ----------------------------------------------
def test_norm_choice_hidden_for_one_dimensional_problems():
    at = _run(kng_problem="median")
    assert "kng_norm" not in [r.key for r in at.radio]
    at = _run(kng_problem="median", kng_sim_d=2, kng_cols=["x1", "x2"], kng_sweeps=200, kng_draws_t=10)
    assert "kng_norm" in [r.key for r in at.radio]


def test_switching_to_the_data_page_dataset_picks_its_columns():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    at.switch_page("pages/kng.py")
    at.session_state["kng_sim_n"] = 100
    _ok(at.run())
    _ok(at.radio(key="kng_source").set_value("Dataset from the Data page").run())
    assert any("No dataset loaded yet" in i.value for i in at.info)  # a hint and a link, no error
    at.session_state["dp_dataset"] = _user_ds()
    _ok(at.run())
    assert at.multiselect(key="kng_cols").value == ["age"] and not at.error


def test_typed_epsilon_is_used():
    at = _run(kng_problem="median")
    _ok(at.number_input(key="kng_eps_typed").set_value(0.37).run())
    (table,) = [d.value for d in at.dataframe if "ε per draw" in d.value.columns]
    assert list(table["ε per draw"]) == [0.37, 0.37]
    assert at.select_slider(key="kng_eps").value == 0.3  # the slider follows (nearest choice)


def test_settings_survive_navigation():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    at.switch_page("pages/kng.py")
    at.session_state["kng_sim_n"] = 100
    _ok(at.run())
    at.selectbox(key="kng_problem").set_value("quantile").run()
    at.number_input(key="kng_tau").set_value(0.9).run()
    at.number_input(key="kng_eps_typed").set_value(0.5).run()
    _ok(at.switch_page("pages/home.py").run())
    _ok(at.switch_page("pages/kng.py").run())
    assert at.selectbox(key="kng_problem").value == "quantile"
    assert at.number_input(key="kng_tau").value == 0.9 and at.number_input(key="kng_eps_typed").value == 0.5


def test_b_is_explained_with_a_suggestion_and_theta_hat_outside_the_ball_is_said():
    at = _run(kng_problem="linear_regression", kng_sweeps=200, kng_draws_t=10)
    assert any("Scaled units" in c.value and "suggest B ≈" in c.value for c in at.caption)
    _ok(at.number_input(key="kng_B").set_value(0.05).run())
    assert any("θ̂ lies outside the B-ball" in i.value for i in at.info)


def test_words_and_paper_link():
    at = _run(kng_problem="quantile_regression", kng_sweeps=200, kng_draws_tq=10)
    text = _texts(at)
    assert "arxiv.org/abs/1905.09436" in text and "τ" in text and "θ" in text and "ε" in text
    for word in ("epsilon", "tau", "theta", "spec", "§3 of the spec"):
        assert not re.search(rf"\b{word}\b", text), word


# -- a user's data: teaching view vs release (issue 9 §2) and the release rules (issue 8) --------------
def test_release_on_user_data_needs_a_click_shows_cost_first_and_only_value_and_calibration():
    at = _run(dp_dataset=_user_ds(), kng_source="Dataset from the Data page", kng_view=RELEASE)  # the defaults
    assert len(_ledger(at)) == 0 and any("press **Release**" in i.value for i in at.info)
    assert any(c.value.startswith("This click costs ε = 1") for c in at.caption)  # before the click
    assert at.button(key="kng_go").label == "Release — ε = 1, δ = 0"              # the click's total
    assert at.number_input(key="kng_draws").value == 1  # one draw by default
    assert at.multiselect(key="kng_mechs").value == ["kng"]  # one mechanism by default: the click costs ε
    _click(at)
    t = _ledger(at).totals()
    assert (t.n_releases, t.basic_epsilon) == (1, 1.0)
    text = _texts(at)
    assert "Sensitivity Δ" in text and "non-private θ̂" not in text and not page_charts(at)
    assert "clipped" not in text.lower() and "imputed" not in text.lower()
    labels = [e.label for e in _ledger(at).entries]
    assert labels[0] == "KNG, mean of age — people.csv; ε = 1; 1 draw" and all("_" not in x for x in labels)


def test_changing_a_widget_after_a_release_does_not_release_again():
    """Issue 8 §6: before, after one click every change of problem/column/response released at once
    (two selectbox changes: 4–6 releases, ε = 20 charged); now the ledger keeps its 2 entries."""
    at = _click(_on_user())
    assert len(_ledger(at)) == 2
    at.selectbox(key="kng_problem").set_value("median").run()
    at.multiselect(key="kng_cols").set_value(["income"]).run()
    at.selectbox(key="kng_problem").set_value("quantile").run()
    _ok(at)
    assert len(_ledger(at)) == 2 and _ledger(at).totals().basic_epsilon == 2.0
    at.selectbox(key="kng_problem").set_value("mean").run()
    at.multiselect(key="kng_cols").set_value(["age"]).run()
    assert len(_ledger(at)) == 2 and any("shown again: not charged again" in c.value for c in at.caption)


def test_default_release_on_user_data_is_not_reproducible_from_any_displayed_seed():
    """Issue 8 §1: before, the defaults (fresh randomness off, seed 0 shown in the sidebar) made the release
    a function of the data; now two sessions with the same data, settings and seed release different
    values and no seed is displayed."""
    values = []
    for _ in range(2):
        at = _click(_on_user())
        values.append(at.dataframe[0].value.iloc[0, 0])
        assert "seed" not in _texts(at).lower()
    assert values[0] != values[1]


def test_bounds_from_the_data_yield_no_dp_ledger_entry():
    """Issue 8 §2: before, bounds filled from min/max were charged as ε-DP without a warning; now the entry
    says "not DP: bounds taken from the data" and the ε total stays 0."""
    at = _on_user(ds=_user_ds(source="from data"))
    assert any("**Not private**" in m.value and "bounds taken from the data" in m.value for m in at.markdown)
    _click(at)
    ledger = _ledger(at)
    assert ledger.totals().basic_epsilon == 0.0 and ledger.totals().n_not_dp == 2
    assert all(e.reason == "not DP: bounds taken from the data (age)" for e in ledger.entries)
    assert any("Not differentially private" in w.value for w in at.warning)


def test_n_is_public_and_no_counts_are_printed_beside_a_release():
    """Issue 8 §3: before, a missing cell dropped its row and the page printed "1 row(s) … were left out"
    (n = 79 vs 80); now n stays 80 and no imputed/clipped count appears beside a release."""
    at = _click(_on_user(ds=_user_ds(missing=(3,))))
    text = _texts(at).lower()
    assert "left out" not in text and "imputed" not in text and "clipped" not in text
    assert "n = 79" not in text and "79 row" not in text
    at.radio(key="kng_view").set_value(TEACH).run()
    _click(at)
    (row,) = [d.value for d in at.dataframe if "missing → imputed" in d.value.columns][0].to_dict("records")[:1]
    assert row["rows (n)"] == 80 and row["missing → imputed"] == 1  # only inside the non-private box


def test_page_defaults_two_mechanisms_times_100_draws_give_rho_100():
    """Issue 8 §4: 2 mechanisms × 100 draws at ε = 1: ρ = 100 (it was 10 000: (kε)²/2 per release)."""
    at = _click(_on_user(kng_draws_r=100, budget=300.0))
    t = _ledger(at).totals()
    assert t.zcdp_rho == pytest.approx(100.0) and t.basic_epsilon == pytest.approx(200.0)


def test_teaching_view_on_user_data_is_labelled_not_private_and_recorded_apart():
    at = _on_user(view=TEACH)
    assert at.number_input(key="kng_draws").value == 100 and any("press **Show the teaching view**" in i.value
                                                                    for i in at.info)
    _click(at)
    assert len(page_charts(at)) == 1 and "non-private θ̂" in _texts(at)
    assert any("Not private" in m.value and "Teaching view" in m.value for m in at.markdown)
    ledger = _ledger(at)
    assert ledger.totals().n_releases == 0 and ledger.totals().n_not_dp == 2
    assert all("teaching view" in e.reason for e in ledger.entries)


def test_unmixed_draw_is_released_its_verdict_only_in_the_teaching_box(monkeypatch):
    """Issue 9 §2, changed by issue 29 item 5 (simulated data, fixed seed 0: deterministic): a quantile-regression
    KNG draw whose chains fail a strict R-hat rule is released anyway; no "withheld" warning beside it; the
    density and the diagnostics (with the verdict naming R-hat, not ESS) stay in the teaching view."""
    from dpcore.kng.release import _engine as _release

    monkeypatch.setattr(_release, "RHAT_MAX", 1.0 + 1e-6)
    monkeypatch.setattr(_release, "ESS_MIN", 1.0)
    at = _run(kng_problem="quantile_regression", kng_mechs_t=["kng"], kng_sweeps=200, kng_draws_t=8, kng_sim_n=1000)
    assert not [w.value for w in at.warning if "withheld" in w.value]
    (chart,) = _charts(at)
    assert "contour" in {t["type"] for t in chart}
    (diag,) = [d.value for d in at.dataframe if "max R-hat" in d.value.columns]
    assert list(diag["released"]) == [True] and list(diag["mixed"]) == [False]


def test_release_shows_no_diagnostics_and_the_teaching_view_shows_them_in_the_labelled_box():
    """Issue 8 §8 page side: diagnostics never beside a release; in the teaching view only inside the
    box labelled not private."""
    at = _on_user(view=TEACH, kng_problem="median", kng_cols=["age", "income"], kng_mechs_t=["kng"],
                  kng_mechs_r=["kng"], kng_sweeps=200, kng_draws_t=8)
    _click(at)
    assert any("max R-hat" in d.value.columns for d in at.dataframe)
    assert any("Not private" in m.value and "Teaching view" in m.value for m in at.markdown)
    at.radio(key="kng_view").set_value(RELEASE).run()
    _click(at)
    assert not any("max R-hat" in d.value.columns for d in at.dataframe) and not page_charts(at)
    assert not any("Not private" in m.value for m in at.markdown)


def test_work_over_the_cap_is_refused_up_front_with_dpcore_message():
    """Issue 8 §7 page side: dpcore refuses MCMC work over its cap before any work; the page shows its
    message and charges nothing."""
    at = _on_user(ds=_user_ds(n=10_000), kng_problem="median", kng_cols=["age", "income"], kng_draws_r=2000,
                  kng_mechs_r=["kng"], budget=5000.0)  # a budget that fits: the cap refuses
    _click(at)
    errors = re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.error))
    assert "exceeds the cap 3e+08" in errors and "fewer draws" in errors, errors
    assert len(_ledger(at)) == 0


def test_progress_bar_sits_beside_the_release_button():
    at = _on_user(kng_problem="median", kng_cols=["age", "income"], kng_mechs_r=["kng"], kng_sweeps=200)
    _click(at)
    (row,) = [b for b in at.main.children.values() if getattr(b, "type", "") == "flex_container"
              and any(getattr(c, "key", None) == "kng_go" for c in _walk(b))]
    assert [c for c in _walk(row) if getattr(c, "type", "") == "progress"]  # in the button's row


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def test_builtin_demo_data_is_shown_freely_and_its_release_is_recorded_but_not_counted_as_dp():
    at = _on_user(ds=_user_ds(kind="built-in"), view=TEACH)
    assert len(page_charts(at)) == 1 and "non-private θ̂" in _texts(at) and len(_ledger(at)) == 0
    _ok(at.radio(key="kng_view").set_value(RELEASE).run())  # real people's records: a click, then a ledger entry
    assert len(_ledger(at)) == 0 and "Not private" in _texts(at)
    _click(at)
    assert at.dataframe and "Sensitivity Δ" in _texts(at)
    entries = _ledger(at).entries
    assert len(entries) == 2 and all(not e.counted_as_dp for e in entries)
    assert all("known" in e.reason or "seed" in e.reason for e in entries)


def test_routed_through_app_and_ledger_redrawn():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    at.session_state["dp_dataset"] = _user_ds()
    at.switch_page("pages/kng.py")
    at.session_state["kng_source"] = "Dataset from the Data page"
    at.session_state["kng_view"] = RELEASE
    at.session_state["kng_mechs_r"] = ["kng", "exponential"]
    _ok(at.run())
    _click(at)
    side = "\n".join(m.value for m in at.sidebar.markdown)
    assert "2 releases counted as DP" in side


def test_new_draw_makes_the_same_settings_a_new_charged_release():
    from dpcore.privacy import Budget
    import ui

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    at.session_state["dp_dataset"] = ds = _user_ds()
    at.session_state[ui.SESSION_KEY].open_dataset(ds.fingerprint(include_bounds=False), ds.n_rows, "people.csv",
                                                  budget=Budget(10.0, 1e-5, n=ds.n_rows))
    at.switch_page("pages/kng.py")
    at.session_state["kng_source"] = "Dataset from the Data page"
    at.session_state["kng_view"] = RELEASE
    at.session_state["kng_mechs_r"] = ["kng", "exponential"]
    _click(_ok(at.run()))
    first = at.dataframe[0].value.iloc[0, 0]
    _click(at)  # the same settings again: the stored release, not charged again
    assert len(_ledger(at)) == 2 and at.dataframe[0].value.iloc[0, 0] == first
    _ok(at.button(key="dp_new_draw").click().run())
    assert any("press **Release**" in i.value for i in at.info) and len(_ledger(at)) == 2
    _click(at)
    assert len(_ledger(at)) == 4 and at.dataframe[0].value.iloc[0, 0] != first


def test_quantile_regression_teaching_default_is_small_and_the_click_is_capped_as_a_whole():
    # issue 18: its default (100 draws of two MCMC mechanisms, n = 1 000) took 34 s; now 25 draws (11 s)
    at = _run(kng_problem="quantile_regression", kng_sweeps=200)
    assert at.number_input(key="kng_draws").value == 25
    assert len(page_charts(at)) >= 1 and not at.error
    at = _run(kng_problem="quantile_regression", kng_sim_n=1000, kng_draws_tq=100, kng_sweeps=1000,
              kng_mechs_t=["kng"])
    at.number_input(key="kng_draws").set_value(60)
    at.multiselect(key="kng_mechs").set_value(["kng", "exponential"])
    at.run()
    assert any("of one interaction" in e.value and "fewer mechanisms" in e.value for e in at.error), \
        [e.value for e in at.error]

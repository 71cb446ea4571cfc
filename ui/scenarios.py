"""For teachers, on the Data page: one-click classroom scenarios (a built-in table treated as private data, its
documented public ranges as declared bounds, a budget and a task) and "Start a fresh demo workspace" — a NEW, empty
workspace, never a refund.

What holds where (dpcore.store): inside a workspace, a table's spending stays with its rows — loading it again, or a
near copy (≥ 90 % of the same rows, by the server's keyed identity), spends from the same budget, and loading a
scenario never lowers what was spent. A new workspace has no record of any other: the same table loaded there
starts with a new budget. So the guarantee is per workspace; a fresh workspace is for demos on public tables.

Owns the scenario and fresh-workspace messages. Must never: lower a budget's spending or raise a total that has
spending against it (a scenario sets its budget only on a table with nothing spent in this workspace), delete the
old workspace when starting a fresh one (its ledger stays on the server), or call a new workspace a reset.
"""
from __future__ import annotations

import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore.data import scenarios as dpscen
from ui.bounds import COLUMNS_KEY
from ui.datasource import new_dataset
from ui.workspace import budget_of, get_dataset, release_session, start_workspace

NOTE_KEY = "data_scenario_note"        # (scenario key, sentence on its budget) of the scenario just loaded
FRESH_KEY = "data_fresh_note"
esc = dpdata.escape_markdown
WHAT_HOLDS = (
    "**Start a fresh demo workspace** moves this browser to a new, empty workspace: a new ledger, and every table "
    "loaded there gets a new budget. It is not a refund: the current workspace is not changed or deleted — its "
    "ledger and spending stay on the server where they were (this browser no longer opens it). Inside one "
    "workspace nothing gives budget back: loading the same table again, a scenario again, or a near copy (≥ 90 % "
    "of the same rows) spends from the same budget. Across workspaces nothing is shared: the same table in the new "
    "workspace starts from zero. The guarantee therefore holds per workspace — use a fresh one for a new class on "
    "public demo tables, never to reset the budget of real private data.")


#: What each scenario's task sets on the KNG explorer (its widgets' keys, declared by ui.links): the problem, the
#: Data page's dataset, the release view and the scenario's ε — so "Go to the task's page" opens the task ready.
TASK_PROBLEMS = {"diabetes_bmi": "mean", "diabetes_regression": "linear_regression", "wine_alcohol": "median",
                 "breast_cancer_benign": "mean"}


def task_settings(key: str) -> dict[str, object]:
    """The KNG explorer's widget values for scenario ``key``'s task (public: the scenario's declaration only)."""
    sc = dpscen.SCENARIOS[key]
    cols = ({"kng_y": sc.columns[-1], "kng_x": list(sc.columns[:-1])} if TASK_PROBLEMS[key] == "linear_regression"
            else {"kng_cols": list(sc.columns[:1])})      # a regression: the last column is the response
    return {"kng_problem": TASK_PROBLEMS[key], "kng_source": "Dataset from the Data page", "kng_view": "Release",
            "kng_eps": sc.epsilon, "kng_eps_typed": sc.epsilon, **cols}


def scenario_budget(sc: dpscen.Scenario, n: int) -> P.Budget:
    """The scenario's total: ε = its budget, δ the app's default for n rows, counted as (ε, δ)."""
    return P.Budget(sc.budget_epsilon, P.default_budget(n).delta, n=n)


def load_scenario(key: str) -> None:
    """Button callback: the scenario's table loaded (its budget opened in this workspace), its columns chosen, and
    its budget set — only when nothing was spent on this table in this workspace."""
    sc, ds = dpscen.SCENARIOS[key], dpscen.scenario_dataset(key)
    new_dataset(ds)
    st.session_state[COLUMNS_KEY] = list(sc.columns)
    for k, v in task_settings(key).items():        # kept for the task's page (its persist reads the _keep:: copy)
        st.session_state[k] = st.session_state[f"_keep::{k}"] = v
    acct, target = budget_of(ds), scenario_budget(sc, ds.n_rows)
    if acct is None:
        note = "the server's database cannot be opened: the budget lives in this tab only."
    elif acct.used().epsilon > 0 or acct.used().rho > 0:
        eps, _ = acct.spent()
        note = (f"this table already spent ε = {eps:.6g} in this workspace: its budget ({acct.budget.describe()}) "
                "and its spending are kept — a scenario never gives budget back. For a new class, start a fresh "
                "demo workspace below.")
    else:
        try:
            release_session().set_budget(acct.fingerprint, target)
            note = f"its budget is {target.describe()} — {sc.releases} release(s) at ε = {sc.epsilon:g}."
        except ValueError as exc:
            note = f"its budget could not be set to {target.describe()} ({exc}); it stays {acct.budget.describe()}."
    st.session_state[NOTE_KEY] = (key, note)


def fresh_workspace() -> None:
    """Button callback: a new, empty workspace for this browser (the old one stays on the server, untouched)."""
    start_workspace(delete_current=False, make=True)
    st.session_state[FRESH_KEY] = True


def classroom_panel() -> None:
    """The scenario buttons, what the loaded one asks, and "Start a fresh demo workspace" with what holds where."""
    ss = st.session_state
    with st.container(border=True):
        st.markdown("**Classroom scenarios** (one click: a public table treated as private data, its documented "
                    "public ranges declared, a budget and a task)")
        for c, (key, sc) in zip(st.columns(len(dpscen.SCENARIOS)), dpscen.SCENARIOS.items()):
            c.button(sc.label, key=f"data_scenario_{key}", icon=":material/school:", width="stretch",
                     on_click=load_scenario, args=(key,))
        ds = get_dataset()
        if (got := ss.get(NOTE_KEY)) is not None and ds is not None and ds.name == dpscen.table_name(got[0]):
            sc = dpscen.SCENARIOS[got[0]]
            st.success(f"**{esc(sc.label)}** loaded: {esc(got[1])}  \n{esc(sc.task)}", icon=":material/school:")
            st.page_link(sc.page, label="Go to the task's page", icon=":material/arrow_forward:")
        with st.expander("Start a fresh demo workspace (a new workspace, not a refund)"):
            st.markdown(WHAT_HOLDS)
            st.button("Start a fresh demo workspace", key="data_fresh_workspace", icon=":material/add_box:",
                      on_click=fresh_workspace)
        if ss.pop(FRESH_KEY, None):
            ss.pop(NOTE_KEY, None)
            st.info("This browser is now in a new, empty workspace. The previous workspace, its ledger and its "
                    "spending stay on the server as they were.", icon=":material/add_box:")

"""The ledger and the budgets as the sidebar and a release button show them: each dataset's budget lines, the
ledger panel (totals, releases, the ones not DP), the remaining budget beside a release button, redrawing
them after a release in the same run, and the form that sets a dataset's total budget.

Owns this run's ledger and budget placeholders. Must never: change a budget or the ledger's spending (clearing
the list gives nothing back; the rules are dpcore.privacy), or draw a widget inside the ledger panel (app.py
draws it twice a run).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd
import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore.numbers import number
from dpcore.privacy import tradeoff
from dpcore.privacy.notions import MAX_CAPACITY
from ui.widgets import show_error
from ui.workspace import budget_of, data_match, get_dataset, get_ledger, open_budget, release_session

LEDGER_DRAWN_KEY = "_dp_ledger_drawn"  # what this run's ledger placeholder shows (redraw_ledger)
LEDGER_SLOT_KEY = "_dp_ledger_slot"  # this run's sidebar placeholder (set by app.py every run)
BUDGET_SLOT_KEY = "_dp_budget_slot"  # this run's placeholder for the remaining budget beside a release button
HIDDEN_KEY = "_dp_ledger_hidden"  # the workspace's entries listed when "Clear ledger list" was pressed (a display)
FORM_TAGS_KEY = "_dp_budget_form_tags"  # identity -> a small number naming its budget form's widgets
SAME_BUDGET_RULE = (
    "Which data shares a budget: a load whose rows coincide, on at least 90 % of the rows (of the larger table), "
    "with a dataset already in this workspace — same columns or a superset, any row or column order, any file "
    "format — is the same people, and spends from that dataset's budget. Anything else is another dataset with "
    "its own budget.")


def redraw_budget_line() -> None:
    """The remaining budget beside this run's release button (redrawn after a release in the same run)."""
    entry = st.session_state.get(BUDGET_SLOT_KEY)
    if entry is None:
        return
    slot, fingerprint, costs = entry
    acct = release_session().account(fingerprint)
    if acct is None:
        return
    s = acct.summary()
    line = (f"Budget of “{dpdata.escape_markdown(acct.name)}” ({s.notion_label}): {s.remaining_text} of "
            f"{s.total_text} remain.")
    with slot.container():
        try:
            new = acct.check(costs) if costs else None
        except P.BudgetExceeded as exc:
            st.warning(line + " A click of this cost does not fit: it would be refused. "
                       + dpdata.escape_markdown(str(exc)),
                       icon=":material/block:")
        else:
            st.caption(line + ("" if new is None else f" This click takes {new.text(s.notion)}"
                               + (f" ({new.how})" if new.how else "") + "."))


def _entry_key(e: P.LedgerEntry) -> tuple:
    return e.time, e.label, e.dataset or "", P.short_cost(e.cost), e.counted_as_dp


def clear_ledger() -> None:
    """Empty the ledger's list (a display). Budgets keep their spending: nothing is given back, and
    cached releases stay (showing them again reveals nothing new)."""
    get_ledger().clear()
    st.session_state[HIDDEN_KEY] = Counter(_entry_key(e) for e in release_session().all_entries())


def listed() -> P.PrivacyLedger:
    """The ledger the sidebar lists: every release of the workspace (other tabs' too, after a rerun) but those
    listed when this tab last pressed "Clear ledger list"."""
    hidden = Counter(st.session_state.get(HIDDEN_KEY) or {})
    out = []
    for e in release_session().all_entries():
        k = _entry_key(e)
        if hidden[k] > 0:
            hidden[k] -= 1
        else:
            out.append(e)
    return P.PrivacyLedger(out)


def ledger_slot(slot: Any) -> None:
    """Register this run's sidebar placeholder for the ledger (app.py does it each run)."""
    st.session_state[LEDGER_SLOT_KEY] = slot
    st.session_state.pop(BUDGET_SLOT_KEY, None)  # a release button of this run registers its own
    st.session_state.pop(LEDGER_DRAWN_KEY, None)  # nothing drawn in this run's placeholder yet
    redraw_ledger()


@st.fragment
def ledger_sidebar() -> None:
    """The sidebar's ledger and its "Clear ledger list" button (app.py), a fragment: pressing the button reruns
    only this (issue 35). A release reruns the whole app, which redraws the ledger here (:func:`redraw_ledger`)."""
    ledger_slot(st.empty())
    st.button("Clear ledger list", key="dp_clear_ledger", on_click=clear_ledger, icon=":material/delete_sweep:",
              width="stretch", help="Empties the list above. Budgets keep what was spent: clearing gives nothing "
                                    "back. Releases already shown stay cached and are not counted again.")


def _ledger_state() -> tuple:
    """Everything :func:`ledger_panel` shows depends on: the list, each account (budget, releases) and which
    dataset is loaded."""
    session = release_session()
    current = budget_of(get_dataset())
    return (len(listed().entries), len(session.demo_entries), None if current is None else current.fingerprint,
            tuple((a.fingerprint, a.name, a.n, a.budget, len(a.entries), a.budget_open)
                  for a in session.accounts.values()))


def redraw_ledger() -> None:
    """Draw the ledger into this run's placeholder, if the app registered one (pages run alone: no).

    app.py draws it before the page and again after it (a release in the page changes it); the second
    drawing is skipped when nothing it shows changed (it was ≈ 5 % of the server's time under load)."""
    slot = st.session_state.get(LEDGER_SLOT_KEY)
    if slot is None:
        return
    state = _ledger_state()
    if st.session_state.get(LEDGER_DRAWN_KEY) == state:
        return
    with slot.container():
        ledger_panel()
    st.session_state[LEDGER_DRAWN_KEY] = state


def budget_lines(acct: P.DatasetAccount, *, current: bool = False) -> None:
    """One dataset's budget in its notion: remaining, total, spent, and the tight PLD total (for information)."""
    s = acct.summary()
    n_not = len(acct.entries) - s.n_releases
    name = dpdata.escape_markdown(acct.name)
    bold = re.sub(r"= ([^,]+)", r"= **\1**", s.remaining_text)
    st.markdown(f"**{name}**{' (loaded)' if current else ''}: remaining {bold} "
                f"of {acct.budget.describe()} — {s.notion_label}")
    tight = f" Tight total (PLD): {s.tight_text}." if s.tight_text else ""
    st.caption(f"Spent: {s.spent_text} in {s.n_releases} release{'s' if s.n_releases != 1 else ''}"
               + (f" (+{n_not} not DP, in no budget)" if n_not else "") + f".{tight}")


def ledger_panel() -> None:
    """The ledger: each user dataset's budget (always shown, never cleared), the totals of the listed
    releases counted as DP, the releases (time, cost; full names in an expander) and apart the ones
    that are not DP as run. No widgets (app.py draws it before and after the page)."""
    session = release_session()
    ledger = listed()
    current = budget_of(get_dataset())
    key = None if current is None else current.fingerprint
    accounts = sorted(session.accounts.values(), key=lambda a: a.fingerprint != key)
    if accounts:
        st.markdown("**Privacy budgets** (per dataset)")
        for acct in accounts:
            budget_lines(acct, current=acct.fingerprint == key)
    t = ledger.totals()
    st.markdown(f"**Privacy ledger** — {t.n_releases} release{'s' if t.n_releases != 1 else ''} counted as DP"
                + (f", {t.n_not_dp} not DP" if t.n_not_dp else ""))
    if not ledger.entries:
        st.caption("No release listed. Every new private output on your data (new data, mechanism, parameters "
                   "or draw) is recorded here with its cost; reruns of the same release are not.")
        return
    if t.n_releases:
        st.markdown(f"Listed, basic composition: ε = **{_fmt(t.basic_epsilon)}**, δ = **{_fmt(t.basic_delta)}**"
                    + (f" + ρ = **{_fmt(t.basic_rho)}** (zCDP releases)" if t.basic_rho else ""))
        if t.zcdp_rho is None:
            st.markdown("zCDP: not available — an (ε, δ)-DP release with δ > 0 has no zCDP bound.")
        else:
            st.markdown(f"zCDP: ρ = **{_fmt(t.zcdp_rho)}**")
        # for the whole list, said so (issue 32: beside a button's "13.6 %" for one click, a bare "35.1 %" read as a
        # contradiction); the tightest valid bound of the listed costs (one release: exactly the button's sentence)
        st.caption(f"All {t.n_releases} listed release{'s' if t.n_releases != 1 else ''} together (not one click: "
                   "each release button says its own): " + tradeoff.reading([e.cost for e in ledger.counted]) + ".")
        shown = pd.DataFrame({"release": [e.label for e in ledger.counted],
                              "cost": [P.short_cost(e.cost) for e in ledger.counted],
                              "time (UTC)": [e.time[11:19] for e in ledger.counted]})
        st.dataframe(shown, hide_index=True, width="stretch", height=min(38 + 35 * len(shown), 250),
                     column_config={"release": st.column_config.TextColumn(
                         "release", help="Full names: “Releases in full” below")})
    if t.n_not_dp:
        st.markdown("**Not DP** (in no total, no budget):")
        st.dataframe(pd.DataFrame({"release": [e.label for e in ledger.not_counted],
                                   "cost": [P.short_cost(e.cost) for e in ledger.not_counted],
                                   "why": [e.reason for e in ledger.not_counted]}),
                     hide_index=True, width="stretch", key="dp_ledger_not_dp")
    with st.expander("Releases in full"):
        for e in ledger.entries:
            st.text(f"{e.time} · {P.short_cost(e.cost)}{'' if e.counted_as_dp else ' · not DP'}\n{e.label}")
    neighbours = sorted({e.cost.neighbours for e in ledger.counted})
    if len(neighbours) > 1:
        st.caption("Releases use different neighbouring relations (" + ", ".join(neighbours)
                   + "): a total is only meaningful for one relation.")


def _fmt(x: float | None) -> str:
    return "—" if x is None else number(x, 4)


def _set_budget(acct, keys: tuple[str, ...]) -> None:
    """Form callback: set the dataset's total in its workspace — (ε, δ) in the chosen notion, or a ρ typed directly
    for a ρ-zCDP budget; an error is kept for the next run to show."""
    ss = st.session_state
    try:
        notion, rho = ss.get(keys[3], acct.budget.notion), float(ss.get(keys[4]) or 0.0)
        budget = (P.Budget.from_rho(rho, ss[keys[1]], n=acct.n, allow_large_delta=bool(ss[keys[2]]))
                  if notion == "zcdp" and rho > 0 else
                  P.Budget(ss[keys[0]], ss[keys[1]], n=acct.n, allow_large_delta=bool(ss[keys[2]]), notion=notion))
        release_session().set_budget(acct.fingerprint, budget)
    except ValueError as exc:
        ss["data_budget_error"] = str(exc)


#: The kinds of release the notion chooser counts (one click each, at the pages' defaults).
NOTION_KINDS = (("Laplace / KNG draw, ε = 1", P.PrivacyCost.pure(1.0)), ("Laplace, ε = 0.3", P.PrivacyCost.pure(0.3)),
                ("Gaussian, ρ = 0.01", P.PrivacyCost.zcdp(0.01)), ("Gaussian, ρ = 0.005", P.PrivacyCost.zcdp(0.005)),
                ("GP density, ε = 1, δ = 1e-7", P.PrivacyCost.approx(1.0, 1e-7)))


def _notion_help(epsilon: float, delta: float) -> None:
    """How many releases of each kind every notion holds for the totals entered, and the notion that holds most."""
    try:
        rows = {label: P.suggest_notion([cost], epsilon=float(epsilon), delta=float(delta))[1]
                for label, cost in NOTION_KINDS}
        best, _ = P.suggest_notion([c for _, c in NOTION_KINDS], epsilon=float(epsilon), delta=float(delta))
    except ValueError as exc:
        show_error(exc)
        return
    st.dataframe(pd.DataFrame({"release (one click)": list(rows)} | {P.NOTION_LABELS[n]: [r[n] for r in rows.values()]
                                                                       for n in P.BUDGET_NOTIONS}),
                 hide_index=True, width="stretch")
    st.caption(f"How many of each, one after the other, the totals ε = {number(epsilon, 6)}, δ = {number(delta, 3)} hold in each notion "
               f"(capped at {MAX_CAPACITY:,}). Holding most of all these kinds together: "
               f"**{P.NOTION_LABELS[best]}**. A ρ-zCDP budget is the largest ρ that guarantees the (ε, δ) entered.")


def _form_tag(identity: str) -> str:
    """A small number naming a dataset's budget widgets in this session (widget keys end up in the page's CSS
    classes: nothing derived from the data goes into them)."""
    tags = st.session_state.setdefault(FORM_TAGS_KEY, {})
    return str(tags.setdefault(identity, len(tags) + 1))


def budget_editor(ds: dpdata.Dataset) -> None:
    """The privacy budget of a user's dataset where it is set (the Data page): which budget it spends from and why,
    total (ε, δ), spent, remaining, and a form to set the total — editable before the dataset's first release,
    afterwards only lowered (unload and load again to raise it; spending is kept). Widget keys
    ``data_budget_*_<n>``, n a number per dataset in this session."""
    ss = st.session_state
    acct = budget_of(ds) or open_budget(ds)
    st.subheader("Privacy budget of this dataset")
    if (match := data_match(ds)) is not None:
        st.markdown(dpdata.literal("This data: " + match.describe(ds.name or "")))
    st.caption(SAME_BUDGET_RULE)
    budget_lines(acct, current=True)
    st.caption(f"Every release on this data is checked against what remains before anything is computed, and "
               f"refused if it does not fit. Each cost is converted into the budget's notion when it is charged "
               f"(under (ε, δ) a zCDP release takes its (ε, δ) at half of the δ that remains; under ρ-zCDP an ε-DP "
               f"draw takes ε²/2). Default: ε = {P.DEFAULT_BUDGET_EPSILON:g}, "
               f"δ = min(1e-5, 1/(10n)). Spending stays with the data: clearing the ledger's list or loading the "
               "same file again gives nothing back.")
    tag = _form_tag(acct.fingerprint)
    keys = (f"data_budget_eps_{tag}", f"data_budget_delta_{tag}", f"data_budget_override_{tag}",
            f"data_budget_notion_{tag}", f"data_budget_rho_{tag}")
    if not acct.budget_open or ss.get("_data_budget_shown") != (tag, acct.budget):
        ss[keys[0]], ss[keys[1]], ss[keys[2]] = acct.budget.epsilon, acct.budget.delta, acct.budget.allow_large_delta
        ss["_data_budget_shown"] = (tag, acct.budget)
    with st.form(f"data_budget_form_{tag}", border=False):
        c1, c2, c3 = st.columns([2, 2, 3], vertical_alignment="bottom")
        c1.number_input("total ε", min_value=1e-6, max_value=1e6, key=keys[0], format="%g")
        c2.number_input("total δ", min_value=0.0, max_value=0.999, key=keys[1], format="%g",
                        help=f"Keep δ below 1/n = {1 / acct.n:.3g}.")
        c3.checkbox("Override: allow δ ≥ 1/n (a release may then publish a record)", key=keys[2])
        n1, n2 = st.columns([3, 2], vertical_alignment="bottom")
        n1.radio("How the budget counts", P.BUDGET_NOTIONS, key=keys[3], horizontal=True,
                 index=P.BUDGET_NOTIONS.index(acct.budget.notion), format_func=P.NOTION_LABELS.get)
        n2.number_input("or total ρ directly (ρ-zCDP; 0 = from ε, δ)", min_value=0.0, max_value=1e6, value=0.0,
                        key=keys[4], format="%g")
        st.form_submit_button("Set budget" if acct.budget_open else "Lower budget", on_click=_set_budget,
                              args=(acct, keys))
    if "data_budget_error" in ss:
        show_error(ValueError(ss.pop("data_budget_error")))
    if acct.budget_open:
        with st.expander("Which notion holds more of what you plan? (before the first release)"):
            _notion_help(ss[keys[0]], ss[keys[1]])
    if not acct.budget_open:
        st.caption("A release was made on this data since it was loaded: the total can only be lowered now. To "
                   "raise it, unload the dataset and load it again (what it spent stays counted).")

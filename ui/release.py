"""The release panel: a release request, the release button with its cost (and what the cost means), the
progress bar, running the release with its errors shown, its outcome, and the box for non-private diagnostics.

Owns which release buttons this session has drawn (a click needs one). Must never: compute or charge a release
outside dpcore.privacy.ReleaseSession.run, charge a click the budget does not fit (checked before computing),
or show a traceback to the user.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore.errors import Cancelled
from dpcore.privacy import tradeoff
from dpcore.viz.audit import cost_tradeoff_figure
from ui import budget
from ui.charts import plot
from ui.widgets import NONPRIVATE, nonprivate, show_error  # noqa: F401  (re-exported)
from ui.workspace import bound_sources, budget_of, data_identity, open_budget, randomness, release_session

DRAWN_BUTTONS_KEY = "_dp_drawn_release_buttons"  # release buttons drawn in this session (a click needs one)


def request(key: tuple, label: str, ds: Any, columns: Sequence[str], *, cost: Any, teaching: bool = False,
            kind: str | None = None, bounded: Sequence[str] | None = None,
            not_dp: Sequence[str] = ()) -> P.ReleaseRequest:
    """A :class:`~dpcore.privacy.ReleaseRequest` for a release on ``ds`` using ``columns``: checks
    the bounds of every column in ``bounded`` (default: all of ``columns``; raises DPValueError if one
    has none) and applies the sidebar's randomness. ``not_dp`` adds other data-derived public inputs
    (e.g. "x: categories read from the data"): the release is then recorded as not DP. ``cost``: the
    :class:`~dpcore.privacy.PrivacyCost` (or list of them) of the release, from its public
    calibration — a user's dataset's budget is checked against it before anything is computed."""
    kind = kind or P.data_kind(ds)
    bounds = None
    if kind == P.USER:
        if budget_of(ds) is None:  # loaded without the Data page (another front end, a test): the default budget
            open_budget(ds)
        bounded = list(columns if bounded is None else bounded)
        if bounded:
            P.check_bounds(bound_sources(ds, bounded))          # every column used has bounds (else a named error)
        bounds = P.BoundsCheck(tuple(columns), P.read_from_data(ds, bounded, settings=not_dp))
    return P.ReleaseRequest(key=key, label=label, kind=kind, randomness=randomness(kind), bounds=bounds,
                            teaching=teaching, dataset=data_identity(ds) if kind == P.USER else None, cost=cost)


def run_release(req: P.ReleaseRequest, compute: Callable[[np.random.Generator], Any], *, submitted: bool,
                cost_of: Callable[[Any], P.PrivacyCost] = lambda r: r.cost,
                value_of: Callable[[Any], Any] = lambda r: getattr(r, "value", r)) -> P.Outcome | None:
    """:meth:`ReleaseSession.run` with the errors shown: a DPValueError (bad parameter, a work cap, a
    release beyond the budget — refused before computing) as ``st.error``, a cancelled computation as a
    note; returns None then (nothing cached or charged). ``value_of``: the released value the ledger keeps."""
    try:
        outcome = release_session().run(req, compute, submitted=submitted, cost_of=cost_of, value_of=value_of)
        if outcome.status == "released":
            budget.redraw_ledger()  # now: the page may st.stop() later, after which nothing can be drawn
            if (st.session_state.get(budget.BUDGET_SLOT_KEY) or (None, None))[1] == req.dataset:
                budget.redraw_budget_line()
        return outcome
    except Cancelled:
        st.info("Stopped before it finished: nothing was released or charged.", icon=":material/stop_circle:")
    except ValueError as exc:
        show_error(exc)
    return None


def release_button(label: str, *, key: str, requests: P.ReleaseRequest | Sequence[P.ReleaseRequest]
                   ) -> tuple[bool, Any]:
    """The button of one click, carrying its total cost (“Release — ε = 2, δ = 0”), what remains of the
    dataset's budget, and a progress slot beside it.

    ``requests``: the release(s) the click makes (each with its declared cost). On a click, the
    whole click is checked against the budget first: if it does not fit, the refusal is shown (naming
    the cost and what remains) and ``clicked`` is False — nothing is computed.
    Returns ``(clicked, progress_slot)``; pass the slot to :func:`progress`.
    """
    reqs = [requests] if isinstance(requests, P.ReleaseRequest) else list(requests)
    charge = reqs[0].charge
    costs = [r.cost for r in reqs if r.cost is not None]
    total = P.spend_text(costs) if costs else ""
    session = release_session()
    if not charge.charged:
        st.caption(f"Not charged: {dpdata.literal(charge.reason)}.")
        text = f"{label} — free" if not total else f"{label} — {total} (free: {'simulated' if reqs[0].kind == P.SIMULATED else 'public'} data)"
    elif not charge.counted_as_dp:
        st.markdown(f"**Not private**: {dpdata.literal(charge.reason)}. Recorded in the ledger apart, in no ε total and no budget.")
        text = f"{label} — not DP" + (f" ({total})" if total else "")
    else:
        text = f"{label} — {total}" if total else label
        st.caption("This click costs " + "; ".join(c.describe() for c in costs)
                   + (" — in total " + total if len(costs) > 1 else "") + ".")
        if costs:
            cost_meaning(costs, key=key)
    acct = session.account(reqs[0].dataset) if reqs[0].kind == P.USER else None
    if acct is not None and charge.counted_as_dp:
        st.session_state[budget.BUDGET_SLOT_KEY] = (st.empty(), acct.fingerprint, costs)
        budget.redraw_budget_line()
    b, slot = st.columns([2, 3], vertical_alignment="center")
    clicked = b.button(text, key=key, type="primary", icon=":material/lock_open:")
    drawn = st.session_state.setdefault(DRAWN_BUTTONS_KEY, set())
    if clicked and key not in drawn:
        # Nobody can click a button this session never showed: this "click" is a stale one replayed after a server
        # restart or a reload (Streamlit keeps a trigger whose widget was not drawn yet). Never charge for it.
        clicked = False
        st.info("A click from before the restart was ignored: press the button to release.",
                icon=":material/touch_app:")
    drawn.add(key)
    if clicked and charge.counted_as_dp and reqs[0].kind == P.USER:
        try:
            session.check_budget(reqs)
        except ValueError as exc:
            show_error(exc)
            clicked = False
    return clicked, slot.empty()


@st.fragment
def cost_meaning(costs: Sequence[P.PrivacyCost], *, key: str) -> None:
    """What a cost means as a test (dpcore.privacy.tradeoff): one sentence, and the curve on request. A fragment:
    the curve's toggle reruns this only, not the page (the release button beside it reruns the page: its result
    and the ledger it charges are drawn there)."""
    st.caption("What this means: " + tradeoff.reading(costs) + ".")
    if st.toggle("Show the trade-off curve", key=f"{key}_curve", help=(
            "Any adversary who sees the output and tries to tell whether one person is in the data has a "
            "false-positive and a true-positive rate; the guarantee keeps it on or below this curve.")):
        plot(*cost_tradeoff_figure(costs), f"{key}_tradeoff")


def progress(slot: Any, what: str) -> Callable[[int, int], bool]:
    """A progress callback ``(done, total) -> True`` drawing a bar in ``slot``.

    Each update is a Streamlit yield point: a newer rerun (the user changed something) stops the
    computation there — nothing is cached or charged. Returning False would make dpcore raise
    :class:`~dpcore.errors.Cancelled`; :func:`run_release` shows that as "stopped".
    """
    def callback(done: int, total: int) -> bool:
        frac = 0.0 if total <= 0 else min(max(done / total, 0.0), 1.0)
        slot.progress(frac, text=f"{what}: {done} of {total}")
        return True
    return callback


def show_outcome(outcome: P.Outcome, *, button: str) -> None:
    """One line about a release's status: cached (not charged again), not DP (why), or needs a click."""
    if outcome.status == "needs submit":
        st.info(f"Nothing released yet: press **{button}**. Each new release on your data is recorded in the "
                "ledger; reruns of the same one are not.", icon=":material/touch_app:")
    elif outcome.status == "cached" and outcome.charge.charged:
        st.caption("The stored result of this release, shown again: not charged again. For another draw press "
                   "**New draw** in the sidebar (charged again).")
    if outcome.ready and outcome.charge.charged and not outcome.charge.counted_as_dp:
        st.warning(f"Not differentially private: {dpdata.literal(outcome.charge.reason)}.", icon=":material/warning:")

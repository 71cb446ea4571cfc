"""Widgets, the ledger panel and display helpers shared by the pages (no DP logic here).

The release rules — keys, the release cache, what is charged, fresh entropy vs. seeds, bounds
checks, explicit submit — are :mod:`dpcore.privacy.session`; this module only keeps one
:class:`~dpcore.privacy.ReleaseSession` per browser session in ``st.session_state`` and draws
things. Nothing mutable lives at module level and nothing here uses ``st.cache_*`` (uploaded data
must never enter a cache shared by all sessions). The page pattern is in docs/architecture.md
("Pages").
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import data as dpdata
from dpcore import privacy as P
from dpcore.privacy import tradeoff
from dpcore.viz.audit import cost_tradeoff_figure
from dpcore.errors import Cancelled
from pages._streamlit_compat import leave_legacy_pages_mode

leave_legacy_pages_mode()

# Session-state keys (namespaced so that widget keys chosen by pages cannot collide).
SESSION_KEY = "dp_releases"      # the ReleaseSession (cache + ledger)
LEDGER_KEY = "dp_ledger"         # the same session's ledger (tests and older callers read it here)
DATASET_KEY = "dp_dataset"
PAGE_KEY, PREV_PAGE_KEY = "_dp_page", "_dp_prev_page"  # the page this run shows, and the previous run's
LEDGER_DRAWN_KEY = "_dp_ledger_drawn"  # what this run's ledger placeholder shows (redraw_ledger)
LEDGER_SLOT_KEY = "_dp_ledger_slot"  # this run's sidebar placeholder (set by app.py every run)
SEED_WIDGET_KEY = "dp_seed"
DEMO_WIDGET_KEY = "dp_reproducible"
SEED_MAX = 2**32 - 1
LEDGER_DELTA = P.ZCDP_DELTA      # δ at which the ledger converts zCDP totals to (ε, δ) (= the budgets')
MAX_CACHED_RELEASES = 32
SESSION_PARAM = "session"        # the URL query parameter holding this browser tab's session token
TOKEN_KEY = "_dp_session_token"  # the token of this session (absent: a fresh session_state)
RESTART_KEY = "_dp_restarted"    # "restart" / "reload" while the notice is shown
LEDGER_UPLOAD_SEEN = "_dp_ledger_upload_seen"
LINK_DONE_KEY = "_dp_link_read"  # the session's first page run has read the link it was opened with
LINK_PROBLEM_KEY = "_dp_link_problem"  # (page, message) of a link that could not be opened as given
EXPORT_KEY = "_dp_export"        # + "::<page>": the last Script exported by a page (dpcore.export)
SESSION_UPLOAD_SEEN = "_dp_session_upload_seen"
DRAWN_BUTTONS_KEY = "_dp_drawn_release_buttons"  # release buttons drawn in this session (a click needs one)
BUDGET_SLOT_KEY = "_dp_budget_slot"  # this run's placeholder for the remaining budget beside a release button
#: Immutable per server process: a session token from another process means the server restarted.
BOOT_ID = secrets.token_hex(4)

#: Log-spaced ε choices, 1-1.5-2-3-5-7 per decade from 0.01 to 100.
EPSILON_CHOICES: tuple[float, ...] = tuple(
    float(f"{m * 10.0 ** e:.6g}") for e in range(-2, 2) for m in (1, 1.5, 2, 3, 5, 7)
) + (100.0,)

BANNER_TEXT = (
    "**Educational / research tool.** DP Mechanism Explorer shows how differential-privacy "
    "mechanisms behave. Its floating-point samplers are not hardened for production releases "
    "(floating-point side channels are not defended against): do not use its outputs to publish "
    "statistics about real people."
)
NONPRIVATE = "Not private"


# -- session ------------------------------------------------------------------------
def init_session() -> None:
    """Create this session's release session (cache + ledger) and dataset slot. Idempotent."""
    ss = st.session_state
    if not isinstance(ss.get(SESSION_KEY), P.ReleaseSession):
        ss[SESSION_KEY] = P.ReleaseSession(MAX_CACHED_RELEASES)
    ss[LEDGER_KEY] = ss[SESSION_KEY].ledger
    ss.setdefault(DATASET_KEY, None)


def session_guard() -> None:
    """Say it when this browser tab's session is not the one its page came from — before anything else.

    The URL keeps a token (``?session=…``) naming this session and the server process (:data:`BOOT_ID`).
    A fresh, empty ``session_state`` that arrives with a token means the old session is gone: the
    server restarted (another process id) or the page was reloaded / opened in a new tab (same
    process). The page then says that the data, releases and budgets of the old session are gone,
    offers to upload a saved ledger, and stops until the user continues.
    """
    ss = st.session_state
    if TOKEN_KEY not in ss:
        old = st.query_params.get(SESSION_PARAM)
        ss[TOKEN_KEY] = f"{BOOT_ID}-{secrets.token_hex(6)}"
        if old:
            ss[RESTART_KEY] = "reload" if str(old).split("-")[0] == BOOT_ID else "restart"
    if st.query_params.get(SESSION_PARAM) != ss[TOKEN_KEY]:
        st.query_params[SESSION_PARAM] = ss[TOKEN_KEY]
    why = ss.get(RESTART_KEY)
    if not why:
        return
    head = ("**The server restarted.**" if why == "restart" else
            "**This is a new session** (the page was reloaded or opened again).")
    st.error(f"{head} The data you had loaded, your releases and the privacy budgets of the previous session are "
             "gone: the server keeps nothing on disk, and anything the page still showed belonged to the old "
             "session. To keep counting against the same budgets, upload the session file or the ledger (JSON) you "
             "downloaded, then load the same data again on the Data page (a session file saved with the data "
             "loads it for you).", icon=":material/restart_alt:")
    ledger_upload(key="dp_ledger_upload_restart")
    session_upload(key="dp_session_upload_restart")
    st.button("Continue with a new session", key="dp_restart_ack", type="primary",
              on_click=lambda: ss.pop(RESTART_KEY, None), icon=":material/arrow_forward:")
    st.stop()


def ledger_upload(key: str = "dp_ledger_upload") -> None:
    """Upload a saved ledger (JSON) to continue counting its datasets' spending against their budgets."""
    up = st.file_uploader("Saved ledger (JSON) to continue counting", type=["json"], key=key,
                          max_upload_size=max(1, P.MAX_LEDGER_BYTES // 2**20),
                          help="The file from “Download ledger (JSON)”: the budgets and spending of your datasets. "
                               "Load the same data again afterwards; its budget continues where it was.")
    if up is None:
        return
    seen = st.session_state.get(LEDGER_UPLOAD_SEEN, {})
    if seen.get(key, (None,))[0] != up.file_id:
        try:
            names = release_session().restore(P.ledger_from_json(up.getvalue()))
            seen[key] = (up.file_id, None, names)
        except ValueError as exc:
            seen[key] = (up.file_id, str(exc), [])
        st.session_state[LEDGER_UPLOAD_SEEN] = seen
    _, error, names = seen[key]
    if error:
        show_error(ValueError(error))
    else:
        st.success("Ledger read: " + (", ".join(f"“{dpdata.escape_markdown(n)}”" for n in names) or "no dataset")
                   + " — its spending and budget continue when the same data is loaded.", icon=":material/check:")


def session_file_panel() -> None:
    """Save the session (ledger, budgets, the pages' settings; the raw data only if ticked) and resume one."""
    from dpcore.privacy import sessionfile

    ss = st.session_state
    include = st.checkbox("Include my data in the file", key="dp_session_include_data",
                          help="Off (default): the file holds the ledger, the budgets and the pages' settings, and "
                               "names the data by its fingerprint — load the same file again on the Data page to "
                               "continue its budget. On: the file also holds every record of the loaded dataset.")
    if include:
        st.caption("The file will contain the raw data: anyone who has it sees every record.")
    settings = {k: ss[k] for k in list(ss.keys()) if str(k).startswith("_keep::")}
    session, ds = release_session(), get_dataset()   # read now: the file is written later, outside this run
    st.download_button("Download session (JSON)", data=lambda: sessionfile.session_to_json(
        session, settings, ds, include_data=include).encode("utf-8"),
        file_name="dp_session.json", mime="application/json", key="dp_session_json", on_click="ignore",
        icon=":material/save:", width="stretch",
        help="Budgets, spending, releases and the pages' settings" + (" and the data." if include else
                                                                       " (not the data)."))
    session_upload()


def session_upload(key: str = "dp_session_upload") -> None:
    """Upload a saved session: its ledger continues (never giving budget back), its settings come back and,
    if the file holds the data, the data is loaded again (its budget re-attached by its fingerprint)."""
    from dpcore.privacy import sessionfile

    up = st.file_uploader("Resume a saved session (JSON)", type=["json"], key=key,
                          max_upload_size=max(1, sessionfile.MAX_SESSION_BYTES // 2**20),
                          help="The file from “Download session”. Spending already counted here is kept: an older "
                               "file never gives budget back.")
    if up is None:
        return
    ss = st.session_state
    seen = ss.get(SESSION_UPLOAD_SEEN, {})
    if seen.get(key, (None,))[0] != up.file_id:
        try:
            f = sessionfile.session_from_json(up.getvalue())
            names = release_session().restore(f.ledger)
            for k, v in f.settings.items():
                if k.startswith("_keep::"):
                    ss[k] = v
                    ss.pop(k.split("::", 1)[1], None)   # the page's widget takes the saved value (ui.persist)
            if f.dataset is not None:
                set_dataset(f.dataset)
                open_budget(f.dataset)
            data = (f"the data “{dpdata.escape_markdown(f.dataset.name)}” is loaded again" if f.dataset is not None else
                    f"load “{dpdata.escape_markdown(f.dataset_name)}” again on the Data page to continue its budget"
                    if f.dataset_name else "no dataset was loaded")
            msg = ("Session resumed: budgets of " + (", ".join(f"“{dpdata.escape_markdown(n)}”" for n in names) or
                                                     "no dataset") + f"; {sum(k.startswith('_keep::') for k in f.settings)} "
                   f"page settings; {data}.")
            seen[key] = (up.file_id, None, msg)
        except ValueError as exc:
            seen[key] = (up.file_id, str(exc), "")
        ss[SESSION_UPLOAD_SEEN] = seen
    _, error, msg = seen[key]
    if error:
        show_error(ValueError(error))
    else:
        st.success(msg, icon=":material/check:")


def release_session() -> P.ReleaseSession:
    """This session's :class:`~dpcore.privacy.ReleaseSession`."""
    init_session()
    return st.session_state[SESSION_KEY]


def get_ledger() -> P.PrivacyLedger:
    """This session's :class:`~dpcore.privacy.PrivacyLedger`."""
    return release_session().ledger


def get_dataset() -> dpdata.Dataset | None:
    """The session's current Dataset, or None if none was loaded."""
    init_session()
    return st.session_state[DATASET_KEY]


def set_dataset(ds: dpdata.Dataset | None) -> None:
    """Make ``ds`` the session's dataset (None clears it). Other pages read it with get_dataset()."""
    if ds is not None and not isinstance(ds, dpdata.Dataset):
        raise TypeError(f"set_dataset expects a dpcore.data.Dataset or None; got {type(ds).__name__}.")
    init_session()
    st.session_state[DATASET_KEY] = ds


def data_identity(ds: Any) -> str:
    """The identity a budget is kept under: the content fingerprint without bounds (editing bounds
    keeps the budget; a different file, even one cell, is another dataset)."""
    return ds.fingerprint(include_bounds=False)


def open_budget(ds: dpdata.Dataset | None) -> P.DatasetAccount | None:
    """A user's dataset was loaded: open its budget account (spending kept if loaded before). None for demo data."""
    if ds is None or P.data_kind(ds) != P.USER:
        return None
    return release_session().open_dataset(data_identity(ds), ds.n_rows, ds.name or "dataset")


def budget_of(ds: Any) -> P.DatasetAccount | None:
    """The budget account of a user's dataset (None for demo data or if never opened)."""
    if ds is None or P.data_kind(ds) != P.USER:
        return None
    return release_session().account(data_identity(ds))


def require_dataset() -> dpdata.Dataset:
    """Return the session's dataset; if there is none, say where to load one and ``st.stop()``."""
    ds = get_dataset()
    if ds is None:
        st.info("No dataset loaded yet: upload a CSV or pick an example on the **Data** page.")
        st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
        st.stop()
    return ds


def bounded_columns(ds: "dpdata.Dataset") -> list[str]:
    """The numeric columns with public bounds; if there are none, say where to declare them and ``st.stop()``."""
    cols = [c for c in ds.numeric_columns if c in ds.bounds]
    if not cols:
        st.info("Declare public bounds for numeric columns on the **Data** page first (a range fixed "
                "without looking at the data).")
        st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
        st.stop()
    return cols


def bound_sources(ds: "dpdata.Dataset", columns: Sequence[str]) -> dict[str, str | None]:
    """``{column: "declared" | "from data" | None}`` for the columns a release uses."""
    return P.bound_sources(ds, columns)


# -- randomness ---------------------------------------------------------------------
def demo_seed() -> int:
    """The sidebar's seed: used for simulated and built-in data (and a chosen reproducible demo)."""
    init_session()
    return int(st.session_state.get(SEED_WIDGET_KEY, 0) or 0)


def current_seed(*scope: Hashable) -> int:
    """The seed for a *public* simulation or sweep (the sidebar's seed). Never for a user's data."""
    return demo_seed()


def randomness(kind: str) -> P.Randomness:
    """The randomness rule for data of ``kind`` with the sidebar's settings (fresh OS entropy on a
    user's data unless "reproducible demo" is switched on)."""
    return P.randomness_for(kind, seed=demo_seed(), reproducible_demo=bool(st.session_state.get(DEMO_WIDGET_KEY)))


def randomness_sidebar() -> None:
    """The sidebar's randomness controls."""
    st.subheader("Randomness")
    st.number_input("Seed for built-in and simulated data", min_value=0, max_value=SEED_MAX, value=0, step=1,
                    key=SEED_WIDGET_KEY, help="Same seed and same settings give the same result on demo data.")
    st.toggle("Reproducible demo on my data (not private)", key=DEMO_WIDGET_KEY,
              help="Off (default): every release on your data draws 128 bits of fresh randomness from the "
                   "operating system, never shown, so nobody can recompute it. On: releases on your data use "
                   "the seed above; anyone who knows it can recompute the release under every candidate "
                   "dataset, so the ledger lists them as not private and counts none of their ε.")
    st.button("New draw", key="dp_new_draw", on_click=lambda: release_session().new_draw(),
              icon=":material/casino:", help="The next release of the same settings on your data is a new draw "
                                               "(it needs a click and is charged again).")


# -- releases -----------------------------------------------------------------------
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
            redraw_ledger()  # now: the page may st.stop() later, after which nothing can be drawn
            if (st.session_state.get(BUDGET_SLOT_KEY) or (None, None))[1] == req.dataset:
                redraw_budget_line()
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
        st.session_state[BUDGET_SLOT_KEY] = (st.empty(), acct.fingerprint, costs)
        redraw_budget_line()
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


def cost_meaning(costs: Sequence[P.PrivacyCost], *, key: str) -> None:
    """What a cost means as a test (dpcore.privacy.tradeoff): one sentence, and the curve on request."""
    st.caption("What this means: " + tradeoff.reading(costs) + ".")
    if st.toggle("Show the trade-off curve", key=f"{key}_curve", help=(
            "Any adversary who sees the output and tries to tell whether one person is in the data has a "
            "false-positive and a true-positive rate; the guarantee keeps it on or below this curve.")):
        plot(*cost_tradeoff_figure(costs), f"{key}_tradeoff")


PREVIEW_CACHE_KEY, MAX_CACHED_PREVIEWS = "_dp_previews", 16
#: Whether the accuracy preview is open when a page is first shown (its toggle remembers the user's choice).
PREVIEW_DEFAULT = True


def _preview_entry(items: tuple, public: tuple, share: bool = True) -> tuple:
    """(laws, figure, frame): dpcore.preview.previews of ``items`` at the public shape ``public`` and its figure,
    shared by every session (pages/_cached.preview_laws: its arguments are public — registry names, configs, n,
    d — never data, and it is seeded): a new visitor's first view of the LASSO or density page no longer
    recomputes its default preview (0.5–1 s of CPU), and no rerun rebuilds its figure (plotly's figure building
    was a third of the preview's time on every rerun). Kept per session too (its last few settings), so a
    rerun draws the same picture even after the shared cache dropped it."""
    from pages import _cached

    cache = st.session_state.setdefault(PREVIEW_CACHE_KEY, {})
    key = repr((items, public, share))
    if key not in cache:
        with st.spinner("Computing the accuracy preview…"):
            # settings read from the data (dpcore.privacy.shareable) never key a cache shared by sessions
            cache[key] = (_cached.preview_laws if share else _cached.preview)(items, public)
        while len(cache) > MAX_CACHED_PREVIEWS:
            cache.pop(next(iter(cache)))
    return cache[key]


def accuracy_preview(items: dict[str, tuple[str, Any]], *, key: str, requests: Any = None, **public: Any) -> None:
    """Accuracy before the click: for each ``{label: (registry name, config)}`` the law of the error one draw
    adds (dpcore.preview), drawn with its 50 %/90 % intervals. ``public``: n, d and other public shape only —
    this function takes no data, so the picture is the same on neighbouring datasets. ``requests``: the
    release request(s) the preview is for; when one has settings read from the data (bounds filled from the
    data, categories present, a size counted in the data: dpcore.privacy.shareable, the one rule), the preview
    is computed in this session only and drawn inside the non-private box."""
    if not items:
        return
    ss = st.session_state
    toggle_key = f"{key}_accuracy_preview_on"
    ss.setdefault(toggle_key, PREVIEW_DEFAULT)
    if not st.toggle("Accuracy before the click: the error this release will add", key=toggle_key,
                     help="Computed from ε, n, the public bounds and the settings above — never from the data — and "
                          "redrawn as they change. Exact where the noise law is known; otherwise simulated on a "
                          "public design (seeded)."):
        return
    share = P.shareable(requests, dataset=get_dataset() if requests is None else None)
    try:
        laws, fig, frame = _preview_entry(tuple(items.items()), tuple(sorted(public.items())), share)
    except ValueError as exc:
        show_error(exc)
        return
    with st.container(border=True) if share else nonprivate("Accuracy before the click, from settings read from "
                                                            "the data"):
        if any(law.available for law in laws):
            plot(fig, frame, f"{key}_accuracy_preview", caption=" ".join(law.describe() for law in laws))
        else:
            st.caption(dpdata.literal(" ".join(law.describe() for law in laws)))
        if share:
            st.caption("Computed before anything is released, from ε, n, the public bounds and the settings above "
                       "— never from the data; the same picture on any dataset of this shape. Per draw.")


def redraw_budget_line() -> None:
    """The remaining budget beside this run's release button (redrawn after a release in the same run)."""
    entry = st.session_state.get(BUDGET_SLOT_KEY)
    if entry is None:
        return
    slot, fingerprint, costs = entry
    acct = release_session().account(fingerprint)
    if acct is None:
        return
    r_eps, r_delta = acct.remaining()
    line = (f"Budget of “{dpdata.escape_markdown(acct.name)}”: ε = {_fmt(r_eps)} of {_fmt(acct.budget.epsilon)} "
            f"and δ = {_fmt(r_delta)} of {_fmt(acct.budget.delta)} remain.")
    with slot.container():
        if costs and not acct.fits(costs):
            st.warning(line + " A click of this cost does not fit: it would be refused.", icon=":material/block:")
        else:
            st.caption(line)


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


@contextmanager
def nonprivate(title: str = "Non-private diagnostics") -> Iterator[Any]:
    """A bordered box, labelled NOT PRIVATE, for anything computed from the data that is not part of
    a release (θ̂, clipping and imputation counts, MCMC diagnostics, densities)."""
    box = st.container(border=True)
    with box:
        st.markdown(f"**{title}** · :orange-badge[{NONPRIVATE}]")
        st.caption("Computed from the data and shown as is: not part of any release, not differentially "
                   "private.")
        yield box


# -- ledger ---------------------------------------------------------------------------
def clear_ledger() -> None:
    """Empty the ledger's list (a display). Budgets keep their spending: nothing is given back, and
    cached releases stay (showing them again reveals nothing new)."""
    get_ledger().clear()


def ledger_slot(slot: Any) -> None:
    """Register this run's sidebar placeholder for the ledger (app.py does it each run)."""
    st.session_state[LEDGER_SLOT_KEY] = slot
    st.session_state.pop(BUDGET_SLOT_KEY, None)  # a release button of this run registers its own
    st.session_state.pop(LEDGER_DRAWN_KEY, None)  # nothing drawn in this run's placeholder yet
    redraw_ledger()


def _ledger_state() -> tuple:
    """Everything :func:`ledger_panel` shows depends on: the list, each account (budget, releases) and which
    dataset is loaded."""
    session = release_session()
    current = budget_of(get_dataset())
    return (id(session.ledger), len(session.ledger.entries), None if current is None else current.fingerprint,
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
    """One dataset's budget: total, spent, remaining (basic composition) and its zCDP total."""
    s_eps, s_delta = acct.spent()
    r_eps, r_delta = acct.remaining()
    t = acct.totals()
    name = dpdata.escape_markdown(acct.name)
    st.markdown(f"**{name}**{' (loaded)' if current else ''}: remaining ε = **{_fmt(r_eps)}**, δ = **{_fmt(r_delta)}** "
                f"of {acct.budget.describe()}")
    z = ("zCDP: not available (an (ε, δ) release has no zCDP bound)" if t.zcdp_rho is None else
         f"zCDP: ρ = {_fmt(t.zcdp_rho)} ⇒ ε = {_fmt(t.zcdp_epsilon)} at δ = {LEDGER_DELTA:g}")
    st.caption(f"Spent (basic composition): ε = {_fmt(s_eps)}, δ = {_fmt(s_delta)} in {t.n_releases} "
               f"release{'s' if t.n_releases != 1 else ''}" + (f" (+{t.n_not_dp} not DP, in no budget)" if t.n_not_dp
                                                              else "") + f". {z}.")


def ledger_panel() -> None:
    """The ledger: each user dataset's budget (always shown, never cleared), the totals of the listed
    releases counted as DP, the releases (time, cost; full names in an expander) and apart the ones
    that are not DP as run. No widgets (app.py draws it before and after the page)."""
    session = release_session()
    ledger = session.ledger
    current = budget_of(get_dataset())
    accounts = sorted(session.accounts.values(), key=lambda a: a is not current)
    if accounts:
        st.markdown("**Privacy budgets** (per dataset)")
        for acct in accounts:
            budget_lines(acct, current=acct is current)
    t = ledger.totals(delta=LEDGER_DELTA)
    st.markdown(f"**Privacy ledger** — {t.n_releases} release{'s' if t.n_releases != 1 else ''} counted as DP"
                + (f", {t.n_not_dp} not DP" if t.n_not_dp else ""))
    if not ledger.entries:
        st.caption("No release listed. Every new private output on your data (new data, mechanism, parameters "
                   "or draw) is recorded here with its cost; reruns of the same release are not.")
        return
    if t.n_releases:
        st.markdown(f"Listed, basic composition: ε = **{_fmt(t.basic_epsilon)}**, δ = **{_fmt(t.basic_delta)}**")
        if t.zcdp_rho is None:
            st.markdown("zCDP: not available — an (ε, δ)-DP release with δ > 0 has no zCDP bound.")
        else:
            st.markdown(f"zCDP: ρ = **{_fmt(t.zcdp_rho)}** ⇒ ε = **{_fmt(t.zcdp_epsilon)}** at δ = {LEDGER_DELTA:g}")
            if t.zcdp_rho > 0:
                st.caption("All listed releases together: " + tradeoff.reading(P.PrivacyCost.zcdp(t.zcdp_rho)) + ".")
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
    if x is None:
        return "—"
    return "0" if x == 0 else f"{x:.4g}"


# -- widgets ------------------------------------------------------------------------
def epsilon_input(label: str = "ε", *, key: str, default: float = 1.0, help: str | None = None,
                  typed: bool = False) -> float:
    """ε as a log-scale slider over :data:`EPSILON_CHOICES` (0.01 … 100); with ``typed=True`` also a
    number field (``key + "_typed"``, any ε > 0) kept in step with the slider — the typed value wins.

    ``typed=True`` uses widget callbacks, so it cannot sit inside an ``st.form``. Warns when ε > 10.
    Returns a Python float.
    """
    ss = st.session_state
    persist(**{key: None, f"{key}_typed": None})   # kept while not drawn (a view or source switch: issue 20)
    tip = help or "Privacy-loss parameter (log scale). Smaller ε: more privacy, more noise."
    if key not in ss:
        ss[key] = _nearest_choice(default)
    if not typed:
        eps = st.select_slider(label, options=EPSILON_CHOICES, key=key, format_func=lambda v: f"{v:g}", help=tip)
    else:
        typed_key = f"{key}_typed"
        if typed_key not in ss:
            ss[typed_key] = float(default)

        def slid():
            ss[typed_key] = float(ss[key])

        def retyped():
            ss[key] = _nearest_choice(ss[typed_key])

        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        c1.select_slider(label, options=EPSILON_CHOICES, key=key, format_func=lambda v: f"{v:g}", on_change=slid,
                         help=tip)
        eps = c2.number_input(f"{label} (typed)", min_value=1e-6, max_value=1e9, key=typed_key, format="%g",
                              on_change=retyped, help="Type any ε > 0.")
    warning = P.epsilon_warning(float(eps))
    if warning:
        st.warning(greek(warning))
    return float(eps)


def _nearest_choice(x: float) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 1.0
    if not np.isfinite(x) or x <= 0:
        return 1.0
    return min(EPSILON_CHOICES, key=lambda c: abs(np.log(c) - np.log(x)))


GREEK = {"epsilon": "ε", "delta": "δ", "rho": "ρ", "tau": "τ", "theta": "θ"}


def greek(text: str) -> str:
    """Parameter names as users read them: ``epsilon`` → ε, ``delta`` → δ, ``rho`` → ρ, ``tau`` → τ,
    ``theta`` → θ (whole words only)."""
    return re.sub(r"\b(epsilon|delta|rho|tau|theta)\b", lambda m: GREEK[m.group(1)], text)


def show_error(exc: BaseException) -> None:
    """A user-facing error (``st.error``): the message of a ValueError (DPValueError, DataError), never
    a traceback. Other exception types get a generic message with their type."""
    if isinstance(exc, ValueError):
        msg = greek(str(exc) or type(exc).__name__)
    else:
        msg = f"Unexpected error ({type(exc).__name__}). Please report it with the steps that led here."
    st.error(dpdata.escape_markdown(msg), icon=":material/error:")
    if getattr(exc, "nonprivate", None):          # values read from the data (DataError): in the labelled box only
        with nonprivate("What the data hold (why this was refused)"):
            for what, value in exc.nonprivate.items():  # type: ignore[union-attr]
                st.caption(dpdata.literal(f"{what}: {value}"))


# -- output -------------------------------------------------------------------------
def _safe_name(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._")
    return s or "data"


def download_csv(frame: pd.DataFrame, filename: str, label: str = "Download CSV", *,
                 key: str | None = None) -> None:
    """A download button for ``frame`` as CSV (dpcore.data.to_safe_csv neutralises formula-like cells).
    Clicking it does not rerun the page. The CSV is written when the button is clicked (Streamlit's deferred
    download), not on every rerun: it was ≈ 6 % of the server's time under load (py-spy, benchmarks/load.py)."""
    filename = _safe_name(filename)
    if not filename.lower().endswith(".csv"):
        filename += ".csv"
    st.download_button(label, data=lambda: dpdata.to_safe_csv(frame), file_name=filename, mime="text/csv",
                       key=key or f"dp_download::{filename}", on_click="ignore", icon=":material/download:")


def plot(fig: Any, frame_for_csv: pd.DataFrame, name: str, caption: str | None = None) -> None:
    """Show a plotly figure (full width), its text alternative and a download button for the data behind it.

    Every text in the figure is shown literally (dpcore.data.plotly_literal_spec: data-borne names never render
    as HTML). The text alternative is the caption right under the chart: ``caption`` (the page's words: what
    the chart shows and its headline number) or else :func:`dpcore.viz.describe.describe` of the figure (title,
    axes, each series' last value or summary: only what the figure draws). Shown literally: it may quote
    column names.
    """
    from dpcore.viz.describe import describe

    name = _safe_name(name)
    st.plotly_chart(chart_spec(fig), width="stretch", key=f"dp_plot::{name}")
    st.caption(dpdata.literal(caption or describe(fig)))
    download_csv(frame_for_csv, f"{name}.csv", "Download the figure's data (CSV)", key=f"dp_plot_download::{name}")


def chart_spec(fig: Any) -> Any:
    """What :func:`plot` gives ``st.plotly_chart``: ``fig``'s JSON made literal (dpcore.data.plotly_literal_spec)
    with the app's template (dpcore.viz.style.template_json), as a figure plotly does not validate again.

    Handing Streamlit the JSON as a dict made it rebuild and validate a figure from it (≈ 20 ms a chart, as much
    as building it). The spec Streamlit sends is the one it sent before (tests/app/test_chart_spec.py)."""
    import plotly.graph_objects as go

    from dpcore.viz import style

    spec = dpdata.plotly_literal_spec(fig.to_plotly_json())
    spec["layout"]["template"] = style.template_json()
    return go.Figure(spec, _validate=False)


def stream(req: P.ReleaseRequest) -> Any:
    """The random stream of ``req`` as an exported script states it (dpcore.export.stream): a fixed seed's
    128-bit entropy on public data, fresh OS entropy on a user's (never the entropy the page drew)."""
    from dpcore import export

    return export.stream(req.randomness, release_session().full_key(req))


def export_code(script: Any, name: str) -> None:
    """“Download as Python script” and “Download as notebook” for ``script`` (a dpcore.export.Script built
    from the page's own config objects). The last one of each page is kept in the session (tests read it)."""
    from dpcore.export import ExportError

    try:
        py = script() if callable(script) else script
        text = py.to_python()        # renders (and checks) every step; the notebook renders the same steps
    except ExportError as exc:
        st.caption(f"Export as code is not available for these settings: {dpdata.literal(str(exc))}")
        return
    st.session_state[f"{EXPORT_KEY}::{name}"] = py
    c1, c2 = st.columns(2)
    c1.download_button("Download as Python script", data=text, file_name=f"{_safe_name(name)}.py", mime="text/x-python",
                       key=f"dp_export_py::{name}", on_click="ignore", icon=":material/code:",
                       help="The same dataset, configuration and dpcore call as this page, as a script that runs "
                            "without the app (it never contains your data).")
    c2.download_button("Download as notebook", data=py.to_notebook, file_name=f"{_safe_name(name)}.ipynb",
                       mime="application/x-ipynb+json", key=f"dp_export_nb::{name}", on_click="ignore",
                       icon=":material/book:", help="The same as a Jupyter notebook.")


def share_link(page: str) -> None:
    """Keep ``page``'s public settings in the URL (dpcore.links) and offer the link; call right after ``persist``.

    The first run of a session reads the link it was opened with: valid → its values become the widgets'
    (and their persisted copies); a parameter the page does not have, or a value of the wrong type or out of
    range → the defaults, and a message naming it (shown literally). Every run then writes the settings back
    into the query parameters (the ``session`` token is left alone) and offers “Copy link”: the page's
    address (``st.context.url``: what the browser asked for, since the server cannot know its public host)
    with the settings, never the session token, data or a release.
    """
    from dpcore import links
    from pages._links import PAGES

    params, ss = PAGES[page], st.session_state
    if LINK_DONE_KEY not in ss:
        ss[LINK_DONE_KEY] = True
        query = {k: st.query_params.get_all(k) for k in st.query_params}
        try:
            values = links.decode(params, query)
        except links.LinkProblem as exc:
            values = {}
            ss[LINK_PROBLEM_KEY] = (page, str(exc))
            for k in query:
                if k not in links.RESERVED:
                    del st.query_params[k]
        for k, v in values.items():
            ss[k] = ss[f"_keep::{k}"] = v
    problem = ss.get(LINK_PROBLEM_KEY)
    if problem and problem[0] == page:
        st.warning(dpdata.literal(f"This link could not be opened as it was: {problem[1]} The page opened with its "
                                  "default settings."), icon=":material/link_off:")
    current = links.encode(params, {p.key: ss[p.key] for p in params if p.key in ss})
    for k in list(st.query_params):
        if k not in links.RESERVED and k not in current:
            del st.query_params[k]
    for k, v in current.items():
        if st.query_params.get_all(k) != v:
            st.query_params[k] = v if len(v) != 1 else v[0]
    base = str(getattr(st.context, "url", "") or "").split("?")[0]
    with st.popover("Copy link", icon=":material/link:"):
        st.code(base + links.query_string(current), language=None, wrap_lines=True)
        st.caption("A link to this page with its current settings (never your data, a release or your session). "
                   "Copy it with the icon at the box's right.")


def educational_banner(compact: bool = False) -> None:
    """The 'educational/research tool' notice (compact: one caption line, e.g. for the sidebar)."""
    if compact:
        st.caption("Educational/research tool: floating-point samplers are not hardened for production releases.")
    else:
        st.warning(BANNER_TEXT, icon=":material/school:")


def note_page(name: str) -> None:
    """Record which page this run shows (app.py calls it every run; :func:`persist` reads it)."""
    ss = st.session_state
    ss[PREV_PAGE_KEY], ss[PAGE_KEY] = ss.get(PAGE_KEY), name


def persist(**defaults: Any) -> None:
    """Keep widgets' values when the user leaves the page and comes back (Streamlit forgets the state
    of widgets a run does not draw). Call before drawing them, with each key's default (None: none);
    then draw the widgets WITHOUT ``value=``/``index=`` (the default lives in the session state).
    """
    ss = st.session_state
    came_back = ss.get(PREV_PAGE_KEY) != ss.get(PAGE_KEY)  # the widgets' states are stale
    for k, default in defaults.items():
        store = f"_keep::{k}"
        if store in ss and default is not None and not _same_kind(ss[store], default):
            ss[store] = default            # e.g. a resumed session file naming a value of another type
        if store in ss and (came_back or k not in ss):
            ss[k] = ss[store]
        elif k not in ss and default is not None:
            ss[k] = default
        if k in ss:
            ss[store] = ss[k]


def _same_kind(value: Any, default: Any) -> bool:
    """Whether a remembered value can stand for ``default`` in its widget (bool, whole number, number, text, list)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, (int, np.integer)):
        return isinstance(value, (int, np.integer))
    if isinstance(default, (float, np.floating)):
        return isinstance(value, (int, float, np.integer, np.floating)) and bool(np.isfinite(value))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def kept(key: str) -> str:
    """``key``, for a widget drawn only under some choice (a view, a data source, a simulator, a mechanism):
    Streamlit forgets the state of a widget a run does not draw, so switching away and back would re-create it
    at its default (issue 20: the KNG draws). Its value is remembered (:func:`persist`) and given back when it
    is drawn again. Use as ``st.number_input(..., key=ui.kept(f"x_{choice}"))``."""
    persist(**{key: None})
    return key


def offered(key: str, options: Sequence[Any], default: Any) -> Sequence[Any]:
    """For a selectbox/multiselect drawn with ``key``: drop a remembered choice that is no longer among
    ``options`` (``default`` instead: a value, or a list for a multiselect). Returns ``options``."""
    ss = st.session_state
    v = ss.get(key)
    if isinstance(default, list):
        kept = [x for x in v if x in options] if isinstance(v, list) else []
        ss[key] = kept if kept or v == [] else list(default)  # (an empty choice made by the user stays empty)
    elif v not in options:
        ss[key] = default
    return options

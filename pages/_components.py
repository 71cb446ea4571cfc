"""Shared Streamlit widgets and session helpers for the pages of DP Mechanism Explorer.

No differential-privacy logic lives here: only session state, seeds, the release cache that
feeds the privacy ledger, and thin display helpers. Everything per user is kept in
``st.session_state`` (one browser session); nothing mutable lives at module level and nothing
here uses ``st.cache_*`` (uploaded data must never enter a cache shared by all sessions).

A page's typical flow::

    import streamlit as st
    from pages import _components as ui

    ds = ui.require_dataset()                       # st.stop()s with a hint if none loaded
    col = ui.select_bounded_column(ds, key="kng_col")   # values clipped to public bounds
    eps = ui.epsilon_input(key="kng_eps")
    scope = (ds.fingerprint(), "kng-mean", col.name, eps)   # what the release depends on
    seed = ui.current_seed(*scope)
    key = (*scope, seed)
    try:
        res = ui.release(key, f"KNG mean of {col.name}, ε={eps:g}",
                         compute=lambda: private_mean(col.values, cfg, rng=ui.rng_for(key)),
                         cost_of=lambda r: r.cost)
    except ValueError as exc:
        ui.show_error(exc)
        st.stop()
    ui.plot(fig, frame, "kng_mean")

Seeds and independence: pass ``rng=ui.rng_for(key)`` rather than the bare seed. Two releases
that differ only in ε but reuse one seed reuse one noise draw, and then an observer can cancel
the noise (f + b₁Z and f + b₂Z reveal f exactly) — basic composition would be a false claim.
``rng_for(key)`` derives an independent stream from the whole key and is still reproducible:
the same seed and the same parameters give the same release.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import secrets
from collections import OrderedDict
from typing import Any, Callable, Hashable, NamedTuple, Optional, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import data as dpdata
from dpcore._validation import epsilon_warning
from dpcore.privacy import PrivacyCost, PrivacyLedger

R = TypeVar("R")

# Session-state keys (namespaced so that widget keys chosen by pages cannot collide).
LEDGER_KEY = "dp_ledger"
DATASET_KEY = "dp_dataset"
RELEASES_KEY = "dp_releases"
FRESH_SEEDS_KEY = "dp_fresh_seeds"
SEEDS_THIS_RUN_KEY = "dp_seeds_this_run"
LEAKY_KEY = "dp_leaky_bounds"
SEED_WIDGET_KEY = "dp_seed"
FRESH_WIDGET_KEY = "dp_fresh"

SEED_MAX = 2**32 - 1
#: Releases kept per session for redisplay on reruns (older ones are recomputed identically).
MAX_CACHED_RELEASES = 32
#: Fresh seeds remembered per session (one per release scope).
MAX_FRESH_SEEDS = 256
#: δ at which the ledger converts zCDP totals to (ε, δ).
LEDGER_DELTA = 1e-6

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


# -- Streamlit's legacy "pages/ directory" mode -------------------------------------------
def _leave_legacy_pages_mode() -> None:
    """Make sure Streamlit routes through app.py's ``st.navigation``, never the ``pages/`` folder.

    Streamlit (≤ 1.67 at least) switches to its old multipage mode when a folder named ``pages``
    sits next to the main script, until the first ``st.navigation`` call in the process. So the
    very first request after a server start that deep-links to a page (``/data``) would run that
    page *without* app.py (no sidebar, no ledger; every file in pages/ listed as a page). This
    switches the process to ``st.navigation`` routing — what ``st.navigation`` itself does — and
    reruns, so app.py handles the same URL. Runs once per process (at import of this module).
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without this internal: nothing to fix
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_legacy_pages_mode()


# -- session ------------------------------------------------------------------------
def init_session() -> None:
    """Create this session's ledger, dataset slot, release cache and seed bookkeeping.

    Idempotent; ``app.py`` calls it at the start of every run (it also resets the list of seeds
    used in the current run, shown in the sidebar).
    """
    ss = st.session_state
    if LEDGER_KEY not in ss:
        ss[LEDGER_KEY] = PrivacyLedger()
    if DATASET_KEY not in ss:
        ss[DATASET_KEY] = None
    if RELEASES_KEY not in ss:
        ss[RELEASES_KEY] = OrderedDict()
    if FRESH_SEEDS_KEY not in ss:
        ss[FRESH_SEEDS_KEY] = OrderedDict()
    if LEAKY_KEY not in ss:
        ss[LEAKY_KEY] = {}
    ss[SEEDS_THIS_RUN_KEY] = []


def get_ledger() -> PrivacyLedger:
    """This session's :class:`~dpcore.privacy.PrivacyLedger`."""
    init_session_if_needed()
    return st.session_state[LEDGER_KEY]


def get_dataset() -> Optional["dpdata.Dataset"]:
    """The session's current :class:`~dpcore.data.Dataset`, or None if none was loaded."""
    init_session_if_needed()
    return st.session_state[DATASET_KEY]


def set_dataset(ds: Optional["dpdata.Dataset"]) -> None:
    """Make ``ds`` the session's dataset (None clears it). Other pages read it with get_dataset()."""
    if ds is not None and not isinstance(ds, dpdata.Dataset):
        raise TypeError(f"set_dataset expects a dpcore.data.Dataset or None; got {type(ds).__name__}.")
    init_session_if_needed()
    st.session_state[DATASET_KEY] = ds


def init_session_if_needed() -> None:
    """Like :func:`init_session` but never resets anything (for pages run on their own, e.g. in tests)."""
    if LEDGER_KEY not in st.session_state:
        init_session()


def require_dataset() -> "dpdata.Dataset":
    """Return the session's dataset; if there is none, say where to load one and ``st.stop()``."""
    ds = get_dataset()
    if ds is None:
        st.info("No dataset loaded yet: upload a CSV or simulate one on the **Data** page.")
        st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
        st.stop()
    return ds


def mark_leaky_bounds(ds: "dpdata.Dataset", column: str, lower: float, upper: float, warning: str) -> None:
    """Remember that ``(lower, upper)`` for ``column`` of this data were read off the data.

    While the column keeps exactly these bounds, :func:`leaky_bounds_warning` returns ``warning``
    (the Data page and :func:`select_bounded_column` show it): releases using them are not DP.
    """
    init_session_if_needed()
    key = (ds.fingerprint(include_bounds=False), str(column))
    st.session_state[LEAKY_KEY][key] = (float(lower), float(upper), str(warning))


def leaky_bounds_warning(ds: "dpdata.Dataset", column: str) -> Optional[str]:
    """The warning recorded by :func:`mark_leaky_bounds` if ``column``'s current bounds came from
    the data, else None."""
    init_session_if_needed()
    leaky = st.session_state[LEAKY_KEY]
    if not leaky or column not in ds.bounds:
        return None
    hit = leaky.get((ds.fingerprint(include_bounds=False), str(column)))
    if hit is None:
        return None
    lo, hi, warning = hit
    return warning if tuple(map(float, ds.bounds[column])) == (lo, hi) else None


# -- randomness ---------------------------------------------------------------------
def fresh_randomness() -> bool:
    """True when the sidebar's "fresh randomness" toggle is on."""
    return bool(st.session_state.get(FRESH_WIDGET_KEY, False))


def current_seed(*scope: Hashable) -> int:
    """The seed to use for the release identified by ``scope``.

    Parameters
    ----------
    *scope
        What the release depends on besides the seed (dataset fingerprint, mechanism, parameters).
        Hashable plain values.

    Returns
    -------
    int in [0, 2**32 - 1].
        Fixed mode (default): the sidebar's seed, whatever the scope. Fresh mode: a seed drawn
        from OS entropy (``secrets.randbits(32)``) the first time this scope is seen, then reused
        on reruns, so a rerun with unchanged parameters is the same release (cached, counted
        once) while every new parameter setting gets new entropy. The sidebar's "new draw" button
        forgets these seeds. The seeds used in a run are listed in the sidebar: entering one as
        the seed in fixed mode reproduces that release.
    """
    init_session_if_needed()
    ss = st.session_state
    if fresh_randomness():
        seeds: OrderedDict = ss[FRESH_SEEDS_KEY]
        skey = _canonical(scope)
        if skey in seeds:
            seeds.move_to_end(skey)
            seed = seeds[skey]
        else:
            seed = secrets.randbits(32)
            seeds[skey] = seed
            while len(seeds) > MAX_FRESH_SEEDS:
                seeds.popitem(last=False)
    else:
        seed = int(ss.get(SEED_WIDGET_KEY, 0))
    used = ss.setdefault(SEEDS_THIS_RUN_KEY, [])
    if seed not in used:
        used.append(seed)
    return int(seed)


def new_fresh_draw() -> None:
    """Forget the fresh seeds, so that the next release of every scope draws new entropy."""
    init_session_if_needed()
    st.session_state[FRESH_SEEDS_KEY].clear()


def rng_for(key: Hashable) -> np.random.Generator:
    """A Generator determined by the whole release ``key`` (which includes the seed).

    Reproducible (same key → same stream, in any process) and independent across keys, so
    releases that share a seed but differ in parameters do not share their noise.
    """
    digest = hashlib.sha256(repr(_canonical(key)).encode("utf-8")).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest[:16], "little")))


def _canonical(obj: Any) -> Any:
    """Plain-Python, repr-stable form of a key (numpy scalars → Python numbers, etc.)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return tuple(_canonical(o) for o in obj)
    if isinstance(obj, dict):
        return tuple(sorted((repr(_canonical(k)), _canonical(v)) for k, v in obj.items()))
    if isinstance(obj, (set, frozenset)):
        return tuple(sorted(repr(_canonical(o)) for o in obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__,) + tuple(
            (f.name, _canonical(getattr(obj, f.name))) for f in dataclasses.fields(obj)
        )
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        digest = hashlib.sha256(pd.util.hash_pandas_object(obj, index=True).to_numpy().tobytes())
        cols = tuple(map(str, obj.columns)) if isinstance(obj, pd.DataFrame) else (str(obj.name),)
        return (type(obj).__name__, obj.shape, cols, digest.hexdigest())
    if isinstance(obj, np.ndarray):
        return ("ndarray", str(obj.dtype), obj.shape, hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest())
    if isinstance(obj, float) and obj == 0.0:
        return 0.0  # -0.0 and 0.0 are one key
    return obj


# -- releases and the ledger --------------------------------------------------------
def release(key: Hashable, label: str, compute: Callable[[], R],
            cost_of: Callable[[R], PrivacyCost], *, synthetic: bool = False) -> R:
    """Compute a release once per key and record its privacy cost in the ledger once.

    Parameters
    ----------
    key
        Hashable identity of the release: (dataset fingerprint, mechanism, parameters, seed).
        Same key → the cached result is returned and nothing is recorded (a Streamlit rerun is
        not a new release). A new key is a new release and is counted, even if only the seed
        changed: that is honest accounting.
    label
        Short description shown in the ledger (e.g. ``"KNG median of age, ε=1"``).
    compute
        Zero-argument callable doing the dpcore call (give it ``rng=rng_for(key)``).
    cost_of
        Maps the result to its :class:`~dpcore.privacy.PrivacyCost` (usually ``lambda r: r.cost``).
    synthetic
        True when the input is a page's built-in simulation (synthetic data, no person's record):
        the result is cached but not charged to the ledger, which accounts for releases about the
        session's dataset only. Pages say so next to such results.

    Returns
    -------
    The result of ``compute()`` (cached in this session's state).

    Raises
    ------
    Whatever ``compute`` or ``cost_of`` raise (e.g. DPValueError); nothing is cached or recorded
    then. Show it with :func:`show_error`.
    """
    init_session_if_needed()
    cache: OrderedDict = st.session_state[RELEASES_KEY]
    ckey = _canonical(key)
    hash(ckey)  # a TypeError here means the key holds an unhashable value
    if ckey in cache:
        cache.move_to_end(ckey)
        return cache[ckey]
    result = compute()
    cost = cost_of(result)
    if not isinstance(cost, PrivacyCost):
        raise TypeError(f"cost_of must return a PrivacyCost; got {type(cost).__name__}.")
    if not synthetic:
        get_ledger().add(label, cost, key=ckey)
    cache[ckey] = result
    while len(cache) > MAX_CACHED_RELEASES:
        cache.popitem(last=False)
    return result


def clear_ledger() -> None:
    """Empty the ledger (the cached releases stay: showing them again reveals nothing new)."""
    get_ledger().clear()


def ledger_panel() -> None:
    """Display the ledger: totals under basic composition and zCDP, and the releases.

    Contains no widgets (app.py renders it twice per run, before and after the page).
    """
    ledger = get_ledger()
    t = ledger.totals(delta=LEDGER_DELTA)
    st.markdown(f"**Privacy ledger** — {t.n_releases} release{'s' if t.n_releases != 1 else ''}")
    if t.n_releases == 0:
        st.caption("No release yet. Every new private output (new data, mechanism, parameters "
                   "or seed) is recorded here with its cost; reruns of the same release are not.")
        return
    st.markdown(f"Basic composition: ε = **{_fmt(t.basic_epsilon)}**, δ = **{_fmt(t.basic_delta)}**")
    if t.zcdp_rho is None:
        st.markdown("zCDP: not available — an (ε, δ)-DP release with δ > 0 has no zCDP bound.")
    else:
        st.markdown(f"zCDP: ρ = **{_fmt(t.zcdp_rho)}** ⇒ ε = **{_fmt(t.zcdp_epsilon)}** "
                    f"at δ = {LEDGER_DELTA:g}")
    shown = pd.DataFrame({"release": [e.label for e in ledger.entries],
                          "cost": [_short_cost(e.cost) for e in ledger.entries]})
    st.dataframe(shown, hide_index=True, width="stretch", height=min(38 + 35 * len(shown), 250))
    neighbours = sorted({e.cost.neighbours for e in ledger.entries})
    if len(neighbours) > 1:
        st.caption("Releases use different neighbouring relations (" + ", ".join(neighbours)
                   + "): a total is only meaningful for one relation.")


def _short_cost(cost: PrivacyCost) -> str:
    if cost.notion == "zcdp":
        return f"ρ={cost.rho:.3g}"
    if cost.notion == "approx":
        return f"ε={cost.epsilon:.3g}, δ={cost.delta:.2g}"
    if cost.notion == "ldp":
        return f"ε={cost.epsilon:.3g} (local)"
    return f"ε={cost.epsilon:.3g}"


def _fmt(x: Optional[float]) -> str:
    if x is None:
        return "—"
    if x == 0:
        return "0"
    return f"{x:.4g}"


# -- widgets ------------------------------------------------------------------------
def epsilon_input(label: str = "ε", *, key: str, default: float = 1.0, help: Optional[str] = None) -> float:
    """A log-scale ε slider over :data:`EPSILON_CHOICES` (0.01 … 100); warns when ε > 10.

    ``default`` is snapped to the nearest choice on a log scale. Returns a Python float.
    """
    default = _nearest_choice(default)
    eps = st.select_slider(
        label, options=EPSILON_CHOICES, value=default, key=key, format_func=lambda v: f"{v:g}",
        help=help or "Privacy-loss parameter (log scale). Smaller ε: more privacy, more noise.",
    )
    warning = epsilon_warning(float(eps))
    if warning:
        st.warning(warning.replace("epsilon", "ε"))
    return float(eps)


def _nearest_choice(x: float) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 1.0
    if not math.isfinite(x) or x <= 0:
        return 1.0
    return min(EPSILON_CHOICES, key=lambda c: abs(math.log(c) - math.log(x)))


def show_error(exc: BaseException) -> None:
    """Show a user-facing error with ``st.error``: the message of a ValueError (DPValueError,
    DataError), never a traceback. Other exception types get a generic message with their type."""
    if isinstance(exc, ValueError):
        msg = str(exc) or type(exc).__name__
    else:
        msg = f"Unexpected error ({type(exc).__name__}). Please report it with the steps that led here."
    st.error(dpdata.escape_markdown(msg), icon=":material/error:")


class BoundedColumn(NamedTuple):
    """A numeric column clipped to its declared public bounds."""

    name: str
    values: np.ndarray        # clipped to [lower, upper], missing values dropped
    lower: float
    upper: float
    report: "dpdata.ClipReport"


def select_bounded_column(ds: "dpdata.Dataset", *, key: str, label: str = "Column",
                          min_rows: int = 1) -> BoundedColumn:
    """Pick a column that has declared public bounds; return its values clipped to them.

    Shows loader messages and the clipping report. If no column has bounds or the column is
    unusable, shows why and ``st.stop()``s.
    """
    bounded = [c for c in ds.numeric_columns if c in ds.bounds]
    if not bounded:
        st.info("Declare public bounds for at least one numeric column on the **Data** page: "
                "the mechanisms here need a range fixed before looking at the data.")
        st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
        st.stop()
    name = st.selectbox(label, bounded, key=key)
    lo, hi = ds.bounds[name]
    try:
        values, messages = dpdata.column_values(ds, name, min_rows=min_rows)
        clipped, report = dpdata.clip_to_bounds(values, lo, hi, column=name)
    except ValueError as exc:
        show_error(exc)
        st.stop()
    leak = leaky_bounds_warning(ds, name)
    if leak:
        st.warning(dpdata.escape_markdown(leak))
    for m in messages:
        st.info(dpdata.escape_markdown(m))
    st.caption(dpdata.escape_markdown(report.message()))
    return BoundedColumn(name, clipped, float(lo), float(hi), report)


# -- output -------------------------------------------------------------------------
def _safe_name(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._")
    return s or "data"


def download_csv(frame: pd.DataFrame, filename: str, label: str = "Download CSV", *,
                 key: Optional[str] = None) -> None:
    """A download button for ``frame`` as CSV, written by dpcore.data.to_safe_csv (cells that
    look like spreadsheet formulas are neutralised). Clicking it does not rerun the page."""
    filename = _safe_name(filename)
    if not filename.lower().endswith(".csv"):
        filename += ".csv"
    st.download_button(label, data=dpdata.to_safe_csv(frame), file_name=filename, mime="text/csv",
                       key=key or f"dp_download::{filename}", on_click="ignore", icon=":material/download:")


def plot(fig: Any, frame_for_csv: pd.DataFrame, name: str) -> None:
    """Show a plotly figure (full width) and a download button for the data behind it."""
    name = _safe_name(name)
    st.plotly_chart(fig, width="stretch", key=f"dp_plot::{name}")
    download_csv(frame_for_csv, f"{name}.csv", "Download the figure's data (CSV)",
                 key=f"dp_plot_download::{name}")


def educational_banner(compact: bool = False) -> None:
    """The 'educational/research tool' notice (compact: one caption line, e.g. for the sidebar)."""
    if compact:
        st.caption("Educational/research tool: floating-point samplers are not hardened for "
                   "production releases.")
    else:
        st.warning(BANNER_TEXT, icon=":material/school:")

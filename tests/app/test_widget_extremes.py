"""The widget-extremes sweep (issue 18): every page reached through app.py, each numeric widget set to its
minimum and maximum (±1e300 and 1e-300 where it has none; ±(2^53 − 1) for whole numbers), each
select / radio / select_slider to every option, each checkbox both ways — one widget at a time from the
page's defaults, pressing the page's release / run button in the same run — and no exception element,
no run over the interaction budget (an AppTest timeout is a failure too).

Pages that read a dataset are swept twice: as they open, and with the built-in diabetes data loaded
and their "Dataset from the Data page" source chosen. Each page scenario is dealt into SHARDS test ids
(widgets round-robin) so that xdist spreads them; long select_slider scales are tried at their ends and
middle, multiselects empty, full and with one option. Cost: each shard is 10–40 page runs; under a load
average of 13–16 on the 2-core machine a shard took 40–230 s (one run of the Query-release page sweep took
over 10 minutes), so the sweep is for xdist (``-n 2``) or a by-hand run, not for ``-n 0`` in the app budget.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, app_pages

pytestmark = pytest.mark.app

#: The interaction budget of issue 18 (seconds per run of a page, on the 2-core machine).
RUN_TIMEOUT = 30
#: Values for numeric widgets without a limit (floats / whole numbers).
NO_LIMIT_FLOAT = (-1e300, 1e300, 1e-300)
NO_LIMIT_INT = (-(2**53 - 1), 2**53 - 1)
#: Sidebar widgets (randomness, ledger) appear on every page: swept once, with Home.
SIDEBAR_PREFIX = "dp_"
#: Options that switch a page to the session's dataset.
MINE = "Dataset from the Data page"
DATA_PAGES = ("pages/kng.py", "pages/density.py", "pages/eigenvalues.py", "pages/histograms.py",
              "pages/lasso.py", "pages/query_release.py", "pages/data.py")
#: Most options tried per multiselect (all of them, none, and the first few alone).
MAX_SINGLE_OPTIONS = 1
#: A select_slider with more stops is tried at its ends and middle (an ordered scale), else at every stop.
MAX_SCALE_STOPS = 8
#: Test ids per page scenario (widgets dealt round-robin), so that xdist spreads a heavy page.
SHARDS = 3


def _int_input(w) -> bool:
    from streamlit.proto.NumberInput_pb2 import NumberInput as NumberInputProto
    return w.proto.data_type == NumberInputProto.INT


def trial_values(w) -> list:
    """The extreme values tried for widget ``w`` (its current value is the default it returns to)."""
    t = w.type
    if t == "number_input":
        if _int_input(w):
            lo = w.min if w.min is not None else NO_LIMIT_INT[0]
            hi = w.max if w.max is not None else NO_LIMIT_INT[1]
            return [int(lo), int(hi)]
        vals = [w.min if w.min is not None else NO_LIMIT_FLOAT[0], w.max if w.max is not None else NO_LIMIT_FLOAT[1]]
        if (w.min is None or w.min < NO_LIMIT_FLOAT[2]) and (w.max is None or w.max > NO_LIMIT_FLOAT[2]):
            vals.append(NO_LIMIT_FLOAT[2])
        return list(dict.fromkeys(vals))
    if t == "slider":
        lo, hi = w.min, w.max
        return [(lo, lo), (lo, hi), (hi, hi)] if isinstance(w.value, tuple) else [lo, hi]
    if t == "select_slider":
        opts = list(w.options)
        if isinstance(w.value, tuple):
            return [(opts[0], opts[-1]), (opts[0], opts[0]), (opts[-1], opts[-1])]
        # an ordered scale: its ends and middle when long (the ε scale has 25 stops), else every stop
        return opts if len(opts) <= MAX_SCALE_STOPS else [opts[0], opts[len(opts) // 2], opts[-1]]
    if t in ("selectbox", "radio"):
        return list(w.options)
    if t == "multiselect":
        opts = list(w.options)
        cap = w.proto.max_selections or len(opts)
        singles = [[o] for o in opts[:MAX_SINGLE_OPTIONS]]
        return [[], opts[:cap], *singles]
    if t in ("checkbox", "toggle"):
        return [True, False]
    return []


SWEPT = ("number_input", "slider", "select_slider", "selectbox", "radio", "multiselect", "checkbox", "toggle")


def widgets(at: AppTest, *, sidebar: bool) -> list:
    """The sweepable widgets on the page (keyed; the sidebar's only when ``sidebar``)."""
    out = []
    for kind in SWEPT:
        for w in getattr(at, kind):
            if w.key and (sidebar or not w.key.startswith(SIDEBAR_PREFIX)):
                out.append(w)
    return out


def _force(w, value) -> None:
    """Send ``value`` — formatted option text(s), what the browser sends — as the widget's state."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    def state(self):
        ws = WidgetState()
        ws.id = self.id
        if isinstance(value, (list, tuple)) or self.type == "select_slider":   # select_slider: always a list
            ws.string_array_value.data[:] = [str(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
        else:
            ws.string_value = str(value)
        return ws

    w.__class__ = type(f"Forced{type(w).__name__}", (type(w),), {"_widget_state": property(state)})


def _set(w, value, *, raw: bool = False) -> None:
    """Set a trial value (option texts for choice widgets) or, with ``raw``, the default value back."""
    if not raw and w.type in ("selectbox", "radio", "select_slider", "multiselect"):
        _force(w, value)
    elif w.type == "slider" and isinstance(value, tuple):
        w.set_range(*value)
    else:
        w.set_value(value)


def _press(at: AppTest) -> None:
    """Press the page's primary buttons (release buttons, form submits): widget values then take effect."""
    for b in at.button:
        if b.proto.type == "primary" and not (b.key or "").startswith(SIDEBAR_PREFIX) and b.key != "data_sim_go":
            b.click()


def _base(page: str, dataset: str | None) -> AppTest:
    """A fresh session on ``page``; with ``dataset``, the built-in data loaded and chosen as the page's source."""
    at = AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT)
    if dataset is not None:
        from dpcore.data import builtin_dataset
        from pages import _components as ui
        at.session_state[ui.DATASET_KEY] = builtin_dataset(dataset)
    at.run()
    at.switch_page(page).run()
    if dataset is not None:
        for kind in ("radio", "selectbox"):
            for w in getattr(at, kind):
                if w.key and MINE in list(w.options):
                    w.set_value(MINE)
                    at.run()
                    break
    _press(at)
    at.run()
    return at


def _exceptions(at: AppTest) -> list[str]:
    return [str(e.value).splitlines()[0] if str(e.value) else repr(e) for e in at.exception]


def sweep(page: str, dataset: str | None, *, sidebar: bool = False, shard: int = 0) -> tuple[list[str], float]:
    """Run the sweep; returns the failures (page, widget, value, exception or timeout) and the slowest run."""
    failures, slowest = [], 0.0
    at = _base(page, dataset)
    assert not at.exception, (page, dataset, _exceptions(at))
    plan = [(w.type, w.key, w.value, trial_values(w)) for w in widgets(at, sidebar=sidebar)][shard::SHARDS]
    buttons = [b.key for b in at.button if b.key and b.proto.type != "primary"
               and not b.key.startswith(SIDEBAR_PREFIX) and b.key.startswith(("dn_run", "dn_svm", "sp_run",
                                                                              "lasso_run", "evn_", "qr_"))]
    for kind, key, default, values in plan:
        for value in values:
            try:
                found = [w for w in getattr(at, kind) if w.key == key]
                if not found:                # the widget is not shown from this state: start afresh
                    at = _base(page, dataset)
                    found = [w for w in getattr(at, kind) if w.key == key]
                    if not found:
                        break
                _set(found[0], value)
                _press(at)
                t0 = time.perf_counter()
                at.run()
                slowest = max(slowest, time.perf_counter() - t0)
                if at.exception:
                    failures.append(f"{page} [{dataset}] {key} = {value!r}: {_exceptions(at)}")
                    at = _base(page, dataset)
                    continue
                back = [w for w in getattr(at, kind) if w.key == key]
                if back:
                    _set(back[0], default, raw=True)
                else:
                    at = _base(page, dataset)
            except RuntimeError as exc:      # AppTest's timeout: the run took over the budget
                failures.append(f"{page} [{dataset}] {key} = {value!r}: {exc} (budget {RUN_TIMEOUT} s)")
                at = _base(page, dataset)
    for key in buttons if shard == 0 else ():
        at = _base(page, dataset)
        at.button(key=key).click()
        t0 = time.perf_counter()
        try:
            at.run()
        except RuntimeError as exc:
            failures.append(f"{page} [{dataset}] button {key}: {exc}")
            continue
        slowest = max(slowest, time.perf_counter() - t0)
        if at.exception:
            failures.append(f"{page} [{dataset}] button {key}: {_exceptions(at)}")
    return failures, slowest


def _cases():
    out = []
    for page in app_pages():
        stem = Path(page).stem
        for shard in range(SHARDS):
            out.append(pytest.param(page, None, page == "pages/home.py", shard, id=f"{stem}-{shard}"))
            if page in DATA_PAGES:
                out.append(pytest.param(page, "diabetes", False, shard, id=f"{stem}-diabetes-{shard}"))
    return out


@pytest.mark.parametrize(("page", "dataset", "sidebar", "shard"), _cases())
def test_every_widget_at_its_extremes_raises_nothing(page, dataset, sidebar, shard):
    failures, slowest = sweep(page, dataset, sidebar=sidebar, shard=shard)
    assert not failures, "\n".join(failures)
    assert math.isfinite(slowest) and slowest < RUN_TIMEOUT


def test_trial_values_reach_both_limits_and_the_unlimited_extremes():
    """The sweep's value plan itself: limits when declared, ±1e300 / 1e-300 (floats), ±(2^53 − 1) (whole)."""
    at = AppTest.from_string(
        "import streamlit as st\n"
        "st.number_input('a', key='a', value=1.0)\n"
        "st.number_input('b', 1, 12, key='b')\n"
        "st.number_input('c', key='c', value=3)\n"
        "st.number_input('d', 0.0, 10.0, key='d')\n"
        "st.select_slider('e', [1, 2, 3], key='e')\n"
        "st.multiselect('f', ['x', 'y', 'z'], max_selections=2, key='f')\n").run()
    vals = {w.key: trial_values(w) for w in widgets(at, sidebar=False)}
    assert vals["a"] == [-1e300, 1e300, 1e-300]
    assert vals["b"] == [1, 12]
    assert vals["c"] == [-(2**53 - 1), 2**53 - 1]
    assert vals["d"] == [0.0, 10.0, 1e-300]
    assert vals["e"] == ["1", "2", "3"]          # option texts: what the browser sends
    assert vals["f"][:2] == [[], ["x", "y"]]

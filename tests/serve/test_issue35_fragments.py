"""Lighter reruns (issue 35) on a live ``streamlit run`` server, over Streamlit's websocket protocol (benchmarks/load.py's
tabs): the accuracy preview's toggle, the trade-off curve's toggle beside the release button and the sidebar's "Clear
ledger list" are each drawn inside an ``st.fragment``, so the browser reruns only that fragment — the page's release
is not drawn again — while a release (a whole-page rerun) still updates the ledger drawn inside the ledger's fragment.
AppTest cannot show this: it always reruns the whole script."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.serve.conftest import run_async

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import classroom_ws as W  # noqa: E402
import load  # noqa: E402

pytestmark = [pytest.mark.serve, pytest.mark.xdist_group("serve")]


@pytest.fixture
def base(tmp_path):
    port = W.free_port()
    log = open(tmp_path / "server.log", "wb")
    proc = W.start_server(port, W.server_env(tmp_path / "data"), log)
    yield f"http://127.0.0.1:{port}"
    W.stop_server(proc)
    log.close()


def _listed(s: load.Session) -> list[str]:
    return [t for t in s.texts if "**Privacy ledger** —" in t]


def test_issue35_the_preview_the_curve_and_the_ledger_rerun_alone_and_a_release_still_updates_the_ledger(base):
    s = load.Session(base, load.xsrf_cookie(base), 90.0)

    async def play() -> None:
        await s.connect()
        await s.rerun("open Home")
        await load.prepare(s, "1")
        s.set(s.widget("kng_go"), trigger_value=True)
        await s.rerun("press Release")
        assert load.released(s) and any("— 1 release counted as DP" in t for t in _listed(s)), s.texts
        frags = {k: s.fragment_of.get(s.widget(k), "") for k in ("kng_accuracy_preview_on", "kng_go_curve",
                                                                "dp_clear_ledger")}
        assert all(frags.values()) and len(set(frags.values())) == 3, frags
        for key, value in (("kng_accuracy_preview_on", False), ("kng_go_curve", True)):
            s.set(s.widget(key), bool_value=value)
            await s.rerun(f"{key} → {value}", fragment=frags[key])
            assert not load.released(s) and not _listed(s), (key, s.texts)    # only the fragment ran
        s.set(s.widget("dp_clear_ledger"), trigger_value=True)
        await s.rerun("Clear ledger list", fragment=frags["dp_clear_ledger"])
        assert not load.released(s) and any("— 0 releases counted as DP" in t for t in _listed(s)), s.texts
        await s.rerun("whole page")                                           # the cleared list stays cleared
        assert load.released(s) and any("— 0 releases counted as DP" in t for t in _listed(s)), s.texts
        s.set(s.widget("dp_new_draw"), trigger_value=True)
        s.set(s.widget("kng_go"), trigger_value=True)
        await s.rerun("a new release")                    # drawn into the ledger fragment's slot by the page's run
        assert load.released(s) and any("— 1 release counted as DP" in t for t in _listed(s)), s.texts
        await s.close()

    run_async(play())
    assert not s.problems, s.problems

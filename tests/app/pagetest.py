"""Shared helpers of the page AppTests (tests/app/test_*_page.py): run one page with preset session state,
assert it raised nothing, read its ledger and its plotly charts."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[2] / "pages"


def assert_ok(at: AppTest) -> None:
    """No exception element on the page (the values are shown if there is one)."""
    assert not at.exception, [e.value for e in at.exception]


def page_runner(page: str, *, timeout: float = 90) -> Callable[..., AppTest]:
    """``run(**state)``: a fresh AppTest of ``pages/<page>`` with ``state`` set, run once, checked by assert_ok."""
    path = str(PAGES / page)

    def run(**state) -> AppTest:
        at = AppTest.from_file(path, default_timeout=timeout)
        for k, v in state.items():
            at.session_state[k] = v
        at.run()
        assert_ok(at)
        return at

    return run


def ledger(at: AppTest):
    """The session's privacy ledger."""
    from pages import _components as ui
    return at.session_state[ui.LEDGER_KEY]


def charts(at: AppTest) -> list[dict]:
    """Every plotly chart on the page, as its JSON spec."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]

"""Helpers for the AppTest tier: the app's root, its page list (discovered like app.py does), CSV bytes."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
#: Generous: the first run imports numpy/scipy/pandas/plotly (a few seconds on a cold machine).
TIMEOUT = 60


def app_pages() -> list[str]:
    """Page files app.py registers (found by ui/nav.py from their header lines), in menu order."""
    from ui import nav as _nav

    pages = [e.path for e in _nav.discover()]
    assert pages, "no pages discovered"
    return pages


@pytest.fixture
def app():
    """A fresh AppTest session of the whole app (not yet run)."""
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(APP), default_timeout=TIMEOUT)


@pytest.fixture(autouse=True)
def _navigation_routing(monkeypatch):
    """Run AppTest the way the server runs after its first request: routed by app.py's st.navigation.

    The AppTest twin of ui/compat.py: AppTest resets
    ``PagesManager.uses_pages_directory`` before *every* run, and with a ``pages/`` folder next to
    app.py Streamlit then runs a requested page's file directly, without app.py (no sidebar, no
    ledger). A real server leaves that mode for good on its first st.navigation call (the compat
    module forces it), so pin the flag to False after AppTest's reset.
    tests/app/test_streamlit_compat.py fails if these internals change.
    """
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(autouse=True)
def _classroom_database(tmp_path, monkeypatch):
    """Every AppTest's classroom (pages/classroom.py) in a temporary SQLite file, never the app's .dpx-data/."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path / "dpx-data"))
    monkeypatch.delenv("DPX_DATABASE_URL", raising=False)

"""Fails if Streamlit changes the internals ui/compat.py (and its AppTest twin in
tests/app/conftest.py) rely on: then re-check whether the patch is still needed or a supported
switch exists."""
from __future__ import annotations

import inspect

import pytest

pytestmark = pytest.mark.app


def test_legacy_pages_directory_mode_still_works_the_way_the_patch_assumes():
    from streamlit.commands import navigation
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import script_runner

    # the class-level flag exists, and is what st.navigation itself clears
    assert "uses_pages_directory" in vars(PagesManager)
    assert "PagesManager.uses_pages_directory = False" in inspect.getsource(navigation.navigation)
    # a PagesManager sets it from the existence of a pages/ folder next to the main script
    from streamlit.runtime import (
        pages_manager,  # (the autouse fixture wraps __init__: read the module)
    )

    assert 'self.main_script_parent / "pages"' in inspect.getsource(pages_manager)
    # and the script runner runs the legacy router while it is set
    src = inspect.getsource(script_runner)
    assert "if PagesManager.uses_pages_directory:" in src and "_mpa_v1(" in src


def test_no_supported_option_replaces_the_patch_yet():
    """If Streamlit adds a config option to turn the legacy mode off, use it and drop the patch."""
    from streamlit import config

    names = [n for n in config._config_options_template if "page" in n.lower()]
    assert not [n for n in names if "legacy" in n.lower() or "pagesdir" in n.lower().replace("_", "")], names


def test_patch_switches_the_flag_off(monkeypatch):
    from streamlit.runtime.pages_manager import PagesManager

    from ui import compat as _streamlit_compat

    calls = []
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    monkeypatch.setattr(_streamlit_compat.st, "rerun", lambda: calls.append(1))
    _streamlit_compat.leave_legacy_pages_mode()
    assert PagesManager.uses_pages_directory is False and calls == [1]
    _streamlit_compat.leave_legacy_pages_mode()  # once per process
    assert calls == [1]

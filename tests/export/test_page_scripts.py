"""Every releasing page's exported script runs in a subprocess without Streamlit and reproduces the page's
released values exactly on simulated and built-in data (issue 22: export as code)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import TIMEOUT
from tests.export.helpers import ROOT, assert_same_value, cached_results, exported, run_script

pytestmark = pytest.mark.app


def _page(name: str, **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_kng_script_reproduces_the_page(tmp_path):
    at = _page("kng", kng_sim_n=100, kng_draws_t=5, kng_sweeps=200)
    script = exported(at, "kng")
    outs, stdout = run_script(script.to_python(), script.outputs, tmp_path)
    page = cached_results(at)
    assert len(page) == len(script.outputs) == 2
    for name, rel in zip(script.outputs, page):
        assert_same_value(outs[name], rel.value)
    assert "cost" in stdout

"""Every releasing page's exported script runs in a subprocess without Streamlit and reproduces the page's
released values exactly on simulated and built-in data (issue 22: export as code)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import TIMEOUT
from tests.export.helpers import ROOT, assert_same_value, cached_results, exported, run_script

pytestmark = pytest.mark.app


def _page(name: str, click: str | None = None, **state) -> AppTest:
    """The page run with ``state``; then its release button ``click`` pressed (built-in data needs it)."""
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    if click:
        at.button(key=click).click().run()
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


@pytest.mark.parametrize("source", ["Simulated sparse regression", "Diabetes (built-in)"])
def test_lasso_script_reproduces_the_page(tmp_path, source):
    at = _page("lasso", click="lasso_go", lasso_source=source, lasso_n=1000, lasso_p=10, lasso_steps_rule="set T", lasso_T=20)
    script = exported(at, "lasso")
    outs, _ = run_script(script.to_python(), script.outputs, tmp_path)
    (page,) = cached_results(at)
    assert_same_value(outs["release"], page.value)

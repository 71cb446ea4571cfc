"""Chromium: a page opened from a shared link shows its settings; its exported script, downloaded from the page,
runs without Streamlit and prints the page's numbers — at ε = 1 and at a huge ε (issue 22)."""
from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.browser.test_browser import check_page, wait_idle
from tests.export.helpers import ROOT

pytestmark = pytest.mark.browser

WINE = "Wine (built-in): cultivar × binned alcohol"


@pytest.mark.parametrize("eps, typed", [("1.0", "1.0"), ("100.0", "1000000.0")])
def test_shared_link_and_exported_script_in_chromium(page, server, tmp_path, eps, typed):
    page.goto(f"{server}/histograms?" + urlencode({"h_source": WINE, "h_eps": eps, "h_eps_typed": typed}))
    wait_idle(page)
    assert page.get_by_role("radiogroup").first.get_by_role("radio", name=WINE).is_checked()
    page.locator(".st-key-h_go button").click()             # the release button (by its key)
    wait_idle(page)
    check_page(page, f"export_histograms_eps_{eps}")
    shown = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    with page.expect_download() as d:
        page.get_by_role("button", name="Download as Python script").click()
    script = tmp_path / "histograms.py"
    d.value.save_as(script)
    code = ("import runpy, sys; r = runpy.run_path(sys.argv[1])['release'].value; "
            "print(f'{int((r.laplace != 0).sum()):,}', f'{r.threshold.nnz:,}')")
    run = subprocess.Popen([sys.executable, "-c", code, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:                                     # (the script runs while the page's link is read: issue 21)
        page.get_by_role("button", name="Copy link").click()
        link = page.locator('[data-testid="stPopoverBody"] code').first.inner_text()
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    query = parse_qs(urlsplit(link).query)
    assert query["h_source"] == [WINE] and query["h_eps_typed"] == [typed] and "session" not in query
    assert run.returncode == 0, err
    assert out.strip().splitlines()[-1].split() == shown          # the page's two counts, from the script
    if eps == "100.0":       # ε = 10⁶ (typed): thresholding keeps exactly the occupied cells
        from dpcore import histograms
        from dpcore.data import builtin_dataset

        truth = histograms.column_histogram(builtin_dataset("wine"), ["target", "alcohol"],
                                            modes={"target": "integers", "alcohol": "bins"}, bins={"alcohol": 8}).counts
        assert shown[1] == f"{truth.q:,}"

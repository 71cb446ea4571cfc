"""Browser tier: switching the KNG explorer's view keeps each view's "Draws per mechanism".

The bug (issue 20, item 5) only shows in a real browser: the draws widget's key changed with the view, and
Chromium re-created it holding the other view's value (teaching 100 → release 1 → teaching 1). AppTest does
not reproduce it, so this test drives Chromium.
"""
from __future__ import annotations

import pytest

from tests.browser.test_browser import wait_idle  # (the fixtures server, browser, page: tests/browser/conftest.py)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def test_view_switch_keeps_each_views_draws(server, page):
    from playwright.sync_api import expect

    page.goto(f"{server}/kng")
    wait_idle(page)
    draws = page.get_by_label("Draws per mechanism")
    view = page.get_by_role("radiogroup", name="View")
    expect(draws).to_have_value("100", timeout=30_000)    # (waits out a rerun that starts late under load)
    view.get_by_text("Release", exact=True).click()
    wait_idle(page)
    expect(draws).to_have_value("1", timeout=30_000)      # the release draws once by default
    draws.fill("3")
    draws.press("Enter")
    wait_idle(page)
    view.get_by_text("Teaching view (not private)").click()
    wait_idle(page)
    expect(draws).to_have_value("100", timeout=30_000)    # was 1 before the fix
    view.get_by_text("Release", exact=True).click()
    wait_idle(page)
    expect(draws).to_have_value("3", timeout=30_000)

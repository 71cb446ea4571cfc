"""Issue 23: every chart has a text alternative — a caption right under it saying what it shows with its
headline number (``ui.plot`` draws both; :func:`tests.app.pagetest.uncaptioned_charts` finds a chart without
one, and every page test's ``assert_ok`` applies it). Here: every page of the app at its defaults and after
its primary buttons (the release) are clicked once."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, TIMEOUT, app_pages
from tests.app.pagetest import uncaptioned_charts

pytestmark = pytest.mark.app


def _charts_and_captions(at: AppTest) -> list[tuple[str, str]]:
    """(chart title, the caption right under it) for every chart of the main area."""
    import json

    out = []

    def walk(block) -> None:
        kids = [block.children[k] for k in sorted(block.children)]
        for i, node in enumerate(kids):
            if getattr(node, "type", None) == "plotly_chart":
                title = json.loads(node.proto.spec).get("layout", {}).get("title", {}).get("text", "")
                nxt = kids[i + 1] if i + 1 < len(kids) else None
                out.append((title, str(nxt.value) if getattr(nxt, "type", None) == "caption" else ""))
            elif hasattr(node, "children"):
                walk(node)

    walk(at.main)
    return out


@pytest.mark.parametrize("page", app_pages())
def test_every_chart_has_an_informative_caption_at_defaults_and_after_a_release(page):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    seen = _charts_and_captions(at)
    primary = [b for b in at.button if b.proto.type == "primary" and b.key != "data_sim_go"]
    for b in primary:
        b.click().run()
        assert not at.exception, [e.value for e in at.exception]
        seen += _charts_and_captions(at)
    assert not uncaptioned_charts(at)
    for title, caption in seen:
        plain = re.sub(r"\\(.)", r"\1", caption)
        assert plain, f"chart {title!r} has no caption"
        assert re.search(r"\d", plain), f"caption of {title!r} states no number: {plain!r}"
        assert len(plain) >= 40, f"caption of {title!r} is too short to say what it shows: {plain!r}"
    print(f"{page}: {len(seen)} charts, {len(primary)} primary buttons")

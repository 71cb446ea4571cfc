"""Shared helpers of the page AppTests (tests/app/test_*_page.py): run one page with preset session state,
assert it raised nothing, read its ledger and its plotly charts."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[2] / "pages"


def assert_ok(at: AppTest) -> None:
    """No exception element on the page (the values are shown if there is one), and every chart has its
    text alternative (:func:`uncaptioned_charts`)."""
    assert not at.exception, [e.value for e in at.exception]
    assert not uncaptioned_charts(at), uncaptioned_charts(at)


def uncaptioned_charts(at: AppTest) -> list[str]:
    """Titles of the plotly charts not directly followed by a caption (issue 23: each chart's text alternative,
    what it shows and its headline number, sits right under it; ``ui.plot`` draws both)."""
    missing = []

    def walk(block) -> None:
        kids = [block.children[k] for k in sorted(block.children)]
        for i, node in enumerate(kids):
            if getattr(node, "type", None) == "plotly_chart":
                nxt = kids[i + 1] if i + 1 < len(kids) else None
                if getattr(nxt, "type", None) != "caption" or not str(nxt.value).strip():
                    missing.append(json.loads(node.proto.spec).get("layout", {}).get("title", {}).get("text", "?"))
            elif hasattr(node, "children"):
                walk(node)

    walk(at.main)
    walk(at.sidebar)
    return missing


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
    import ui
    return at.session_state[ui.LEDGER_KEY]


PREVIEW_SUFFIX = "_accuracy_preview"


def charts(at: AppTest) -> list[dict]:
    """The page's own plotly charts, as JSON specs, in page order — the accuracy preview left out (see
    :func:`page_charts`; read it with ``chart(at, "<key>_accuracy_preview")``)."""
    return [json.loads(c.proto.spec) for c in page_charts(at)]


def page_charts(at: AppTest) -> list:
    """The page's plotly chart elements but the accuracy preview (``ui.accuracy_preview``, shown by default before
    every release): a test counting or indexing a page's own figures is then independent of the preview. Charts
    are told apart by their key (``ui.plot`` keys each one ``dp_plot::<name>``)."""
    return [c for c in at.get("plotly_chart") if not str(getattr(c, "key", "") or "").endswith(PREVIEW_SUFFIX)]


def chart(at: AppTest, name: str) -> dict:
    """The JSON spec of the chart ``ui.plot`` drew under ``name`` (its key ``dp_plot::<name>``)."""
    found = [c for c in at.get("plotly_chart") if getattr(c, "key", None) == f"dp_plot::{name}"]
    assert len(found) == 1, [getattr(c, "key", None) for c in at.get("plotly_chart")]
    return json.loads(found[0].proto.spec)


# -- the public surface of a page (issue 17) --------------------------------------------------------
#: Elements whose text a user reads; widgets, dataframes and charts are left out (the released values sit
#: in dataframes and charts; widgets are the public inputs).
_TEXT_TYPES = ("markdown", "caption", "info", "warning", "error", "success", "text", "exception", "title",
               "header", "subheader", "latex", "code", "metric", "progress", "toast")


def _is_nonprivate_box(block) -> bool:
    import ui

    first = next(iter(getattr(block, "children", {}).values()), None)
    return first is not None and getattr(first, "type", None) == "markdown" and ui.NONPRIVATE in first.value


def _element_text(node) -> str:
    if node.type == "metric":
        return f"metric {node.label}"            # a metric's value is a number computed from the release
    if node.type == "progress":                  # transient: the text beside the bar and how far it is
        return f"{node.text} [{node.value} %]"
    return str(node.value)


def public_texts(at: AppTest) -> list[tuple[str, str]]:
    """Every (element type, text) the page shows OUTSIDE the labelled non-private boxes (``ui.nonprivate``, found by
    their first element, the NOT PRIVATE badge), in page order. Dataframes, charts and widgets are left out."""
    out: list[tuple[str, str]] = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children is not None:                 # a block (container, column, tab, expander, ...)
            if _is_nonprivate_box(node):
                return
            previous = None
            for child in children.values():
                # the caption right under a chart is the chart's text alternative (ui.plot): part of the chart,
                # which (like the released values' dataframes) is left out of the comparison
                if not (previous == "plotly_chart" and getattr(child, "type", None) == "caption"):
                    walk(child)
                previous = getattr(child, "type", None)
            return
        if getattr(node, "type", None) in _TEXT_TYPES:
            out.append((node.type, _element_text(node)))

    walk(at._tree)
    return out


#: Widget element types (AppTest) whose label, default, range and options are compared on neighbouring uploads.
_WIDGET_TYPES = ("button", "checkbox", "toggle", "radio", "selectbox", "multiselect", "select_slider", "slider",
                 "number_input", "text_input", "text_area", "date_input", "time_input", "color_picker",
                 "download_button", "button_group", "file_uploader")


def _outside_boxes(at: AppTest):
    """Every leaf element OUTSIDE the labelled non-private boxes, in page order (like :func:`public_texts`)."""
    out: list = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children is not None:
            if _is_nonprivate_box(node):
                return
            for child in children.values():
                walk(child)
            return
        out.append(node)

    walk(at._tree)
    return out


def public_widgets(at: AppTest) -> list[tuple]:
    """Every widget outside the non-private boxes as (type, its protobuf fields but the element id) — label,
    default, min, max, step, options, help, disabled — plus its current value: the public inputs and how
    they are offered must not depend on the data."""
    from google.protobuf.json_format import MessageToDict

    out = []
    for node in _outside_boxes(at):
        if getattr(node, "type", None) in _WIDGET_TYPES or type(node).__name__ in ("Toggle", "SelectSlider"):
            fields = {k: v for k, v in MessageToDict(node.proto).items() if k not in ("id", "formId")}
            value = getattr(node, "value", None) if node.type not in ("button", "download_button") else None
            out.append((node.type, json.dumps(fields, sort_keys=True, default=str), repr(value)))
    return out


def public_charts(at: AppTest, *, released: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Every plotly chart outside the non-private boxes — the accuracy preview included — as (key, JSON spec),
    but the charts whose key ends with one of ``released`` (a chart of the released value, which may differ)."""
    out = []
    for node in _outside_boxes(at):
        if getattr(node, "type", None) == "plotly_chart":
            key = str(getattr(node, "key", "") or "")
            if not any(key.endswith(r) for r in released):
                out.append((key, node.proto.spec))
    return out

"""Page discovery (ui/nav.py): header lines parsed without running the pages."""
from __future__ import annotations

import pytest

from ui import nav as _nav
from tests.app.conftest import ROOT


def test_every_page_file_is_discovered_and_underscore_files_are_not():
    entries = _nav.discover()
    paths = [e.path for e in entries]
    expected = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
    assert sorted(paths) == expected
    assert [e.path for e in entries if e.default] == ["pages/home.py"] and entries[0].path == "pages/home.py"
    assert all(e.title and "_" not in e.title for e in entries)


def test_a_new_page_plugs_in_by_existing(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "home.py").write_text('"""Home."""\n# nav: title="Home" order=0 default=true\n')
    (pages / "lasso.py").write_text('"""LASSO."""\n# nav: title="Private LASSO" icon=":material/grid_on:" '
                                    'order=110 paper="https://example.org/p" topic="Frank–Wolfe over the ℓ1 ball."\n'
                                    'raise SystemExit("never executed")\n')
    (pages / "_helpers.py").write_text("raise SystemExit\n")
    (pages / "plain_tool.py").write_text("x = 1\n")
    entries = _nav.discover(pages)
    assert [e.title for e in entries] == ["Home", "Plain tool", "Private LASSO"]
    (lasso,) = _nav.topics(entries)
    assert (lasso.path, lasso.icon, lasso.order, lasso.paper) == ("pages/lasso.py", ":material/grid_on:", 110.0,
                                                                  "https://example.org/p")
    assert lasso.topic == "Frank–Wolfe over the ℓ1 ball."


def test_bad_headers_are_refused(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.py").write_text('# nav: title="A" colour="red"\n')
    with pytest.raises(ValueError, match="colour"):
        _nav.discover(pages)
    (pages / "a.py").write_text('# nav: title="A" order=first\n')
    with pytest.raises(ValueError, match="order"):
        _nav.discover(pages)
    (pages / "a.py").write_text('# nav: title="A" default=true\n')
    (pages / "b.py").write_text('# nav: title="B" default=true\n')
    with pytest.raises(ValueError, match="default"):
        _nav.discover(pages)

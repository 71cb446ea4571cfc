"""The Glossary page (issue 32, for teachers): registered in the navigation, linked from Home, real definitions of
ε, δ, ρ, neighbouring datasets, sensitivity, ⊥, the box labels and the notions."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.glossary import TERMS, term
from tests.app.conftest import APP, TIMEOUT, app_pages
from tests.app.pagetest import PAGES, assert_ok

pytestmark = pytest.mark.app


def test_glossary_is_in_the_navigation_and_linked_from_home():
    assert "pages/glossary.py" in app_pages()
    home = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()            # Home is the default page
    assert_ok(home)
    assert any(e.proto.page == "glossary" and "Glossary" in e.proto.label for e in home.get("page_link"))


def test_glossary_defines_every_word_the_issue_names():
    at = AppTest.from_file(str(PAGES / "glossary.py"), default_timeout=TIMEOUT).run()
    assert_ok(at)
    heads = [h.value for h in at.subheader]
    assert heads == [t for t, _ in TERMS]
    for word in ("ε (epsilon)", "δ (delta)", "ρ (rho)", "Neighbouring", "Sensitivity", "⊥", "Not private",
                 "Notions", "Teaching view"):
        assert any(h.startswith(word) for h in heads), word
    body = "\n".join(m.value for m in at.markdown)
    assert "e^ε" in body and "1/n" in body and "replace-one" in body and "(b − a)/n" in body and "13.6 %" in body
    assert term("⊥").startswith("What a mechanism outputs when it abstains")
    with pytest.raises(KeyError, match="no glossary entry"):
        term("nonsense")

"""Every linked page opened from its own link shows the same widget values (round trip of every linked widget),
and a bad link opens the defaults with a message naming the parameter (issue 22)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dpcore import links
from pages._links import PAGES
from tests.app.conftest import TIMEOUT
from tests.export.helpers import ROOT

pytestmark = pytest.mark.app

#: A non-default value for every linked widget of every page (cheap to run).
ALTERNATIVES = {
    "kng": dict(kng_problem="quantile", kng_source="Built-in simulation", kng_sim_n=100, kng_sim_d=2,
                kng_intercept=False, kng_view="Release", kng_mechs_t=["exponential"], kng_mechs_r=["exponential"],
                kng_norm="l2", kng_eps=0.5, kng_eps_typed=0.5, kng_tau=0.25, kng_B=2.0, kng_constants="paper",
                kng_draws_t=3, kng_draws_tq=4, kng_draws_r=2, kng_sweeps=200),
    "histograms": dict(h_source="Wine (built-in): cultivar × binned alcohol", h_eps=2.0, h_eps_typed=2.0,
                       h_noise="geometric", h_log2p=10, h_q=5, h_n=100, h_p=48, h_reps=5),
    "density": dict(dn_source="Wine (built-in)", dn_n=500, dn_d=2, dn_h=0.1, dn_grid=32, dn_eps=2.0, dn_eps_typed=2.0,
                    dn_delta=1e-5, dn_draws=2, dn_k=4, dn_methods=["gp"], dn_methods_user=["gp"], dn_knorm_k=1,
                    dn_eps_h=0.5),
    "lasso": dict(lasso_source="Diabetes (built-in)", lasso_n=1000, lasso_p=5, lasso_s=2, lasso_eps=0.5,
                  lasso_eps_typed=0.5, lasso_delta=1e-5, lasso_radius=2.0, lasso_steps_rule="set T", lasso_c=0.1,
                  lasso_T=10, lasso_intercept=False, lasso_sel="laplace", lasso_comp="advanced"),
    "eigenvalues": dict(sp_source="Diabetes (built-in, robust regression)", sp_n=2000, sp_d=3, sp_geometry="l2-ball",
                        sp_radius=2.0, sp_rho=0.1, sp_eps=0.5, sp_eps_typed=0.5, sp_delta=1e-6, sp_split="custom",
                        sp_share=0.3),
    "query_release": dict(qr_kind="thresholds", qr_rho=0.25, qr_eps=2.0, qr_alpha=0.2, qr_methods=["gaussian"]),
    "audit": dict(audit_id="histograms/laplace", audit_mutant=True),
}


def _page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=TIMEOUT)


def _widget_values(at: AppTest) -> dict:
    out = {}
    for kind in ("selectbox", "select_slider", "radio", "multiselect", "number_input", "slider", "checkbox",
                 "toggle"):
        for w in getattr(at, kind):
            if w.key:
                out[w.key] = w.value
    return out


def test_alternatives_cover_every_linked_widget():
    assert {k: set(v) for k, v in ALTERNATIVES.items()} == {
        page: {p.key for p in params} for page, params in PAGES.items()}


@pytest.mark.parametrize("page", sorted(ALTERNATIVES))
def test_page_opens_from_its_own_link_with_the_same_widgets(page):
    first = _page(page)
    for k, v in ALTERNATIVES[page].items():
        first.session_state[k] = v
    first.run()
    assert not first.exception, [e.value for e in first.exception]
    url = dict(first.query_params)
    assert set(url) == set(ALTERNATIVES[page])                           # the whole configuration, nothing else
    shown = _widget_values(first)
    again = _page(page)
    for k, v in url.items():
        again.query_params[k] = v
    again.run()
    assert not again.exception, [e.value for e in again.exception]
    assert not again.warning or all("link" not in w.value for w in again.warning)
    for k, v in ALTERNATIVES[page].items():
        assert again.session_state[k] == v, k                           # every linked setting restored
    reopened = _widget_values(again)
    drawn = {k for k in ALTERNATIVES[page] if k in shown}
    assert drawn and {k: reopened.get(k) for k in drawn} == {k: shown[k] for k in drawn}
    code = [c.value for c in again.code]
    assert any(links.query_string(links.encode(PAGES[page], ALTERNATIVES[page])) in c for c in code)   # the Copy link box
    assert not any("session=" in c for c in code)


@pytest.mark.parametrize("query, named", [({"kng_sweeps": "7"}, "kng_sweeps"), ({"kng_colour": "red"}, "kng_colour"),
                                          ({"kng_eps_typed": "-1"}, "kng_eps_typed")])
def test_bad_link_opens_the_defaults_and_names_the_parameter(query, named):
    at = _page("kng")
    at.session_state["kng_sim_n"] = 100     # (a fast page; not a linked value here)
    for k, v in {**query, "kng_draws_t": "5"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    msgs = [w.value for w in at.warning if "link" in w.value]
    assert len(msgs) == 1 and named.replace("_", "\\_") in msgs[0]
    assert at.session_state["kng_draws_t"] == 100                        # the defaults, not half the link
    (bad,) = query.values()
    assert at.query_params.get(named) != bad and at.query_params["kng_draws_t"] == "100"   # the URL: the defaults


def test_link_text_is_shown_literally():
    at = _page("kng")
    at.session_state["kng_sim_n"] = 100
    at.session_state["kng_draws_t"] = 5
    at.query_params["**bold**<b>x</b>"] = "[a](http://x)"
    at.run()
    (msg,) = [w.value for w in at.warning if "link" in w.value]
    assert "\\*\\*bold\\*\\*" in msg and "<b>" not in msg.replace("\\<b\\>", "")

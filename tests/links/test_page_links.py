"""Links round-trip every widget of every page (issue 22): each page opened from its own link shows the same widget
values; every keyed widget a page draws — at its defaults and in its other main states (another source, a user's
dataset, another workload) — is either linked (ui/links.py) or listed in ``NOT_LINKED`` with the reason, so a new
widget that is neither fails here; a bad link opens the defaults with a message naming the parameter."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

from dpcore import links
from ui.links import PAGES, SIMULATORS
from tests.app.conftest import TIMEOUT
from tests.export.helpers import ROOT

pytestmark = pytest.mark.app

AUDIT, EXP = "density/gp-kde", "hall-knorm"     # (an audit with δ > 0; a figure with an option, cheap to run)
#: A non-default value for every linked widget of every page (cheap to run). Widgets declared once per value of a
#: choice (per experiment, audit, simulator, source: see ``_family``) are given for one value of that choice.
ALTERNATIVES = {
    "kng": dict(kng_problem="quantile", kng_source="Built-in simulation", kng_sim_n=100, kng_sim_d=2,
                kng_intercept=False, kng_view="Release", kng_mechs_t=["exponential"], kng_mechs_r=["exponential"],
                kng_norm="l2", kng_eps=0.5, kng_eps_typed=0.5, kng_tau=0.25, kng_B=2.0, kng_constants="paper",
                kng_draws_t=3, kng_draws_tq=4, kng_draws_r=2, kng_sweeps=200, kng_accuracy_preview_on=False,
                kng_go_curve=True),
    "histograms": dict(h_source="Wine (built-in): cultivar × binned alcohol", h_eps=2.0, h_eps_typed=2.0,
                       h_noise="geometric", h_log2p=10, h_q=5, h_n=100, h_p=48, h_reps=5,
                       h_accuracy_preview_on=False, h_go_curve=True),
    "density": dict(dn_source="Wine (built-in)", dn_n=500, dn_d=2, dn_h=0.1, dn_grid=32, dn_eps=2.0, dn_eps_typed=2.0,
                    dn_delta=1e-5, dn_draws=2, dn_k=4, dn_methods=["gp"], dn_methods_user=["gp"], dn_knorm_k=1,
                    dn_eps_h=0.5, dn_svm_n=200, dn_svm_lam=0.1, dn_svm_h=0.3, dn_accuracy_preview_on=False,
                    dn_go_curve=True),
    "lasso": dict(lasso_source="Diabetes (built-in)", lasso_n=1000, lasso_p=5, lasso_s=2, lasso_eps=0.5,
                  lasso_eps_typed=0.5, lasso_delta=1e-5, lasso_radius=2.0, lasso_steps_rule="set T", lasso_c=0.1,
                  lasso_T=10, lasso_intercept=False, lasso_sel="laplace", lasso_comp="advanced",
                  lasso_view="Teaching view (not private)", lasso_accuracy_preview_on=False, lasso_go_curve=True),
    "eigenvalues": {**dict(sp_source="Diabetes (built-in, robust regression)", sp_n=2000, sp_d=3,
                           sp_geometry="l2-ball", sp_radius=2.0, sp_rho=0.1, sp_eps=0.5, sp_eps_typed=0.5,
                           sp_delta=1e-6, sp_split="custom", sp_share=0.3, sp_intercept=False, sp_cov_d=2,
                           sp_cov_reps=1, sp_cov_ns=[500, 1000], sp_accuracy_preview_on=False, sp_go_curve=True),
                    "sp_loss_Diabetes (built-in, robust regression)": "logistic",
                    "sp_coord_Diabetes (built-in, robust regression)_11": 3},
    "query_release": dict(qr_kind="thresholds", qr_rho=0.25, qr_eps=2.0, qr_alpha=0.2, qr_methods=["gaussian"],
                          qr_d=3, qr_w=1, qr_N=64, qr_k=8, qr_U=16, qr_ck=20, qr_r=0.02, qr_data="uniform",
                          qr_nmax=100, qr_reps=2, qr_rw=1, qr_rm="gaussian", qr_rrho=0.5,
                          qr_accuracy_preview_on=False, qr_go_curve=True),
    "audit": {"audit_id": AUDIT, "audit_mutant": True, f"audit_preset::{AUDIT}": "Swapped (D and D′ exchanged)",
              f"audit_eps::{AUDIT}": 2.0, f"audit_eps::{AUDIT}_typed": 2.0, f"audit_delta::{AUDIT}": 0.1,
              f"audit_n::{AUDIT}": 5000},
    "error_vs_n": {"evn_experiment": EXP, f"evn_eps_{EXP}": 2.0, f"evn_x_{EXP}": (1, 2), f"evn_reps_{EXP}": 2,
                   f"evn_methods_{EXP}": ["laplace"], f"evn_n_{EXP}": 100},
    "data": dict(data_source="Simulate a dataset", data_sim_kind="uniform", data_sim_n=500, data_sim_uniform_low=-1.0,
                 data_sim_uniform_high=2.0, data_imp_eps=2.0, data_imp_eps_typed=2.0, data_imp_go_curve=True,
                 data_imp_accuracy_preview_on=False),
}

#: Keyed widgets deliberately NOT in a link (a pattern on the key → why). Buttons (actions, not settings) are never
#: linked and not listed. Everything else a page draws must be linked.
NOT_LINKED = {
    # column choices and whatever is read from or declared about the user's data (docs/pages.md)
    r"kng_(y|x|col|cols)": "columns of the dataset (the user's; a simulation's follow from the linked kng_sim_d)",
    r"h_cols|h_mode_.+|h_bins_.+": "the user's columns and how each is binned",
    r"dn_cols_.+": "the user's columns",
    r"lasso_[xy]_.+": "the user's columns",
    r"sp_[xy]_.+|sp_coord_Dataset from the Data page_\d+": "the user's columns (the coordinate names one of them)",
    r"qr_cols|qr_t_.+|qr_c_.+": "the user's columns and their public schema (named by column)",
    r"data_(upload|columns|imp_col|allow_leak_\d+|codebook_file_\d+|fill_col_\d+)|data_(lo|hi|imp)_\d+_[0-9a-f]+|"
    r"data_budget_.+": "the Data page's file, codebook, columns, bounds, imputation column and budget: never in a link",
    r"data_keep_on_server": "whether the user's data is kept on the server (a choice about one's own data)",
    # one widget standing for linked per-view values (kng.py keeps them apart: issue 20)
    r"kng_mechs": "shows kng_mechs_t or kng_mechs_r (linked)",
    r"kng_draws": "shows kng_draws_t, kng_draws_tq or kng_draws_r (linked)",
    # display choices among what was drawn (valid only for those results), and the panel beside a ⊥ release
    r"kng_c[ijm]": "the pair of coordinates and the mechanism a 2-D density plot of the drawn values shows",
    r"sp_assume_(lam|Lam)": "the 'what would certify' panel beside a ⊥ release (a link never holds a release)",
    # the accuracy preview's own controls (issue 32 §1): not settings of the release
    r".+_check_reps": "how many releases 'Check the preview' runs on a simulated twin (an action's size)",
    r"kng_preview_(design|rho)": "the public design the regression preview simulates on (drawn only with the preview "
                                 "on and a regression chosen; the release does not depend on it)",
}


def _family(key: str) -> str:
    """The family of a widget declared once per value of a choice (the builders of ui/links.py)."""
    from dpcore.experiments import registry

    if "::" in key:
        return key.split("::")[0] + "::<audit>"
    if key.startswith("evn_") and key != "evn_experiment":
        return "evn_<option>_<experiment>" if any(key.endswith(f"_{e}") for e in registry()) else key
    if key.startswith("data_sim_") and key not in ("data_sim_n", "data_sim_kind"):
        return "data_sim_<simulator>_<parameter>" if any(key.startswith(f"data_sim_{s}_") for s in SIMULATORS) else key
    for prefix in ("sp_coord_", "sp_loss_"):
        if key.startswith(prefix):
            return prefix + "<source>"
    return key


def _page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=TIMEOUT)


def _widgets(at: AppTest) -> dict:
    """Every keyed widget drawn (buttons left out) → its value; and raises on a widget drawn without a key."""
    out, unkeyed = {}, []

    def walk(node) -> None:
        if isinstance(node, Widget) and node.type not in ("button", "download_button"):
            if node.key:
                out[node.key] = node.value
            else:
                unkeyed.append(getattr(node, "label", node.type))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    assert not unkeyed, f"widgets without a key cannot be linked: {unkeyed}"
    return out


def _unaccounted(page: str, keys) -> set:
    linked = {p.key for p in PAGES[page]}
    return {k for k in keys if k not in linked and not any(re.fullmatch(p, k) for p in NOT_LINKED)}


def test_alternatives_cover_every_linked_widget():
    assert set(ALTERNATIVES) == set(PAGES)
    for page, params in PAGES.items():
        declared = {p.key for p in params}
        assert set(ALTERNATIVES[page]) <= declared, page
        assert {_family(k) for k in ALTERNATIVES[page]} == {_family(k) for k in declared}, page
        for k, v in ALTERNATIVES[page].items():                        # each value is one the link accepts
            p = next(p for p in params if p.key == k)
            assert p.parse(p.format(v)) == (tuple(v) if p.kind == "range" else v), k


@pytest.mark.parametrize("page", sorted(ALTERNATIVES))
def test_page_opens_from_its_own_link_with_the_same_widgets(page):
    first = _page(page)
    for k, v in ALTERNATIVES[page].items():
        first.session_state[k] = v
    first.run()
    assert not first.exception, [e.value for e in first.exception]
    url = dict(first.query_params)
    declared = {p.key for p in PAGES[page]}
    assert set(ALTERNATIVES[page]) <= set(url) <= declared                # the whole configuration, nothing else
    shown = _widgets(first)
    assert not _unaccounted(page, shown), _unaccounted(page, shown)
    again = _page(page)
    for k, v in url.items():
        again.query_params[k] = v
    again.run()
    assert not again.exception, [e.value for e in again.exception]
    assert not again.warning or all("link" not in w.value for w in again.warning)
    for k in url:
        expected = first.session_state[k]
        assert again.session_state[k] == (tuple(expected) if isinstance(expected, list) and
                                          isinstance(again.session_state[k], tuple) else expected), k
    for k, v in ALTERNATIVES[page].items():
        assert again.session_state[k] == v, k                           # every linked setting restored
    reopened = _widgets(again)
    drawn = {k for k in declared if k in shown}
    assert drawn and {k: reopened.get(k) for k in drawn} == {k: shown[k] for k in drawn}
    code = [c.value for c in again.code]
    assert any(links.query_string(links.encode(PAGES[page], {k: first.session_state[k] for k in url})) in c
               for c in code)                                           # the Copy link box
    assert not any("session=" in c for c in code)


def _upload() -> dict:
    """A user's dataset on the Data page (numbers with public bounds, and a text column)."""
    from dpcore.data import Dataset
    import ui

    g = np.random.default_rng(0)
    frame = pd.DataFrame({"age": g.uniform(20, 60, 300), "income": g.uniform(0, 50, 300),
                          "score": g.uniform(0, 10, 300), "colour": g.choice(["red", "blue"], 300)})
    bounds = {"age": (0.0, 100.0), "income": (0.0, 50.0), "score": (0.0, 10.0)}
    return {ui.DATASET_KEY: Dataset(frame, ("age", "income", "score"), bounds, "test upload", name="upload")}


USER = "Dataset from the Data page"
QR_CHEAP = dict(qr_nmax=100, qr_reps=2, qr_methods=["gaussian"])      # (the lab's cheapest run)
#: The pages' other main states (cheap settings; the round trip above covers each page's ALTERNATIVES state).
STATES = [
    ("kng", dict(kng_sim_n=100, kng_problem="linear_regression", kng_sim_d=2, kng_draws_t=3, kng_sweeps=200)),
    ("kng", dict(kng_source=USER, kng_view="Release", kng_problem="median", **_upload())),
    ("histograms", dict(h_log2p=10, h_reps=5)),
    ("histograms", dict(h_source=USER, h_reps=5, **_upload())),
    ("density", dict(dn_n=200, dn_grid=32, dn_svm_n=200)),
    ("density", dict(dn_source=USER, dn_grid=32, dn_svm_n=200, **_upload())),
    ("lasso", dict(lasso_n=200, lasso_p=5)),
    ("lasso", dict(lasso_source=USER, **_upload())),
    ("eigenvalues", dict(sp_n=500, sp_d=2, sp_cov_ns=[500], sp_cov_reps=1)),
    ("eigenvalues", dict(sp_source=USER, sp_cov_ns=[500], sp_cov_reps=1, **_upload())),
    ("query_release", dict(qr_kind="signs", qr_k=8, qr_U=16, **QR_CHEAP)),
    ("query_release", dict(qr_kind="cone", qr_ck=20, **QR_CHEAP)),
    ("query_release", dict(qr_d=3, qr_cols=["age", "colour"], qr_c_colour="red", **QR_CHEAP, **_upload())),
    ("audit", {}),
    ("data", {}),
    ("data", dict(_upload())),
]


@pytest.mark.parametrize("page, state", STATES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(STATES)])
def test_every_widget_drawn_is_linked_or_excluded(page, state):
    at = _page(page)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _widgets(at)
    assert shown and not _unaccounted(page, shown), _unaccounted(page, shown)


@pytest.mark.parametrize("page, query, named", [
    ("kng", {"kng_sweeps": "7"}, "kng_sweeps"), ("kng", {"kng_colour": "red"}, "kng_colour"),
    ("kng", {"kng_eps_typed": "-1"}, "kng_eps_typed"),
    ("error_vs_n", {f"evn_reps_{EXP}": "9999"}, f"evn_reps_{EXP}"),
    ("error_vs_n", {f"evn_x_{EXP}": ["3", "1"]}, f"evn_x_{EXP}"),
])
def test_bad_link_opens_the_defaults_and_names_the_parameter(page, query, named):
    good = {"kng": ("kng_draws_t", "5", 100), "error_vs_n": ("evn_experiment", EXP, "kng-median")}[page]
    at = _page(page)
    if page == "kng":
        at.session_state["kng_sim_n"] = 100     # (a fast page; not a linked value here)
    else:
        at.session_state["evn_x_kng-median"] = (10, 100)
        at.session_state["evn_reps_kng-median"] = 2
    for k, v in {**query, good[0]: good[1]}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    msgs = [w.value for w in at.warning if "link" in w.value]
    assert len(msgs) == 1 and named in re.sub(r"\\(.)", r"\1", msgs[0])
    assert at.session_state[good[0]] == good[2]                        # the defaults, not half the link
    (bad,) = query.values()
    assert at.query_params.get(named) != bad and at.query_params[good[0]] == str(good[2])   # the URL: the defaults


def test_link_text_is_shown_literally():
    at = _page("kng")
    at.session_state["kng_sim_n"] = 100
    at.session_state["kng_draws_t"] = 5
    at.query_params["**bold**<b>x</b>"] = "[a](http://x)"
    at.run()
    (msg,) = [w.value for w in at.warning if "link" in w.value]
    assert "\\*\\*bold\\*\\*" in msg and "<b>" not in msg.replace("\\<b\\>", "")

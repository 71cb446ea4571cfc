"""The widgets each page keeps in its URL (issue 22, shareable links): declarations read by ``ui.share_link``.

The logic (encode, decode, validation) is :mod:`dpcore.links`; here only which widget of which page is
linked, with the range or the choices that widget accepts (the same constants the page draws it with).
A new widget of a linked page gets a ``Param`` here and a non-default value in ``ALTERNATIVES`` of
``tests/links/test_page_links.py``. Never link a column choice or anything read from the data.
"""
from __future__ import annotations

from types import MappingProxyType

from dpcore.density import METHODS as DENSITY_METHODS
from dpcore.histograms import NOISES
from dpcore.kng import MECHANISMS
from dpcore.lasso import COMPOSITIONS, MAX_P, SELECTIONS
from dpcore.links import Param, epsilon_params
from dpcore.query_release import LAB_METHODS
from dpcore.registry import audits
from dpcore.single_parameter import BUDGET_SPLITS

#: Page (file stem) → its linked widgets. Read-only.
PAGES = MappingProxyType({
    "kng": (
        Param("kng_problem", "choice", ("mean", "median", "quantile", "linear_regression", "quantile_regression")),
        Param("kng_source", "choice", ("Built-in simulation", "Dataset from the Data page")),
        Param("kng_sim_n", "choice", (10, 100, 1000, 10_000, 100_000)),
        Param("kng_sim_d", "int", lo=1, hi=20),
        Param("kng_intercept", "bool"),
        Param("kng_view", "choice", ("Teaching view (not private)", "Release")),
        Param("kng_mechs_t", "choices", MECHANISMS), Param("kng_mechs_r", "choices", MECHANISMS),
        Param("kng_norm", "choice", ("linf", "l2", "l1")),
        *epsilon_params("kng_eps"),
        Param("kng_tau", "float", lo=0.0, hi=1.0), Param("kng_B", "float", lo=0.0, hi=1e6),
        Param("kng_constants", "choice", ("calibrated", "paper")),
        Param("kng_draws_t", "int", lo=1, hi=2000), Param("kng_draws_tq", "int", lo=1, hi=2000),
        Param("kng_draws_r", "int", lo=1, hi=2000),
        Param("kng_sweeps", "choice", (200, 500, 1000, 2000, 5000, 10_000)),
    ),
    "histograms": (
        Param("h_source", "choice", ("Synthetic sparse table", "Wine (built-in): cultivar × binned alcohol",
                                     "Dataset from the Data page")),
        *epsilon_params("h_eps"),
        Param("h_noise", "choice", tuple(NOISES)),
        Param("h_log2p", "int", lo=8, hi=30), Param("h_q", "int", lo=1, hi=100_000),
        Param("h_n", "int", lo=1, hi=10_000_000), Param("h_p", "int", lo=0, hi=2**24),
        Param("h_reps", "int", lo=5, hi=50),
    ),
    "density": (
        Param("dn_source", "choice", ("Simulated mixture", "Wine (built-in)", "Dataset from the Data page")),
        Param("dn_n", "choice", (200, 500, 2000, 10_000, 100_000)), Param("dn_d", "choice", (1, 2)),
        Param("dn_h", "float", lo=1e-6, hi=1.0), Param("dn_grid", "int", lo=2, hi=4096),
        *epsilon_params("dn_eps"),
        Param("dn_delta", "float", lo=1e-12, hi=0.5), Param("dn_draws", "int", lo=1, hi=100),
        Param("dn_k", "int", lo=1, hi=200),
        Param("dn_methods", "choices", tuple(DENSITY_METHODS)),
        Param("dn_methods_user", "choices", tuple(DENSITY_METHODS)),
        Param("dn_knorm_k", "int", lo=1, hi=4), Param("dn_eps_h", "float", lo=0.0, hi=10.0),
    ),
    "lasso": (
        Param("lasso_source", "choice", ("Simulated sparse regression", "Diabetes (built-in)",
                                         "Dataset from the Data page")),
        Param("lasso_n", "choice", (200, 1000, 5000, 20_000, 50_000)),
        Param("lasso_p", "int", lo=1, hi=MAX_P), Param("lasso_s", "int", lo=0, hi=50),
        *epsilon_params("lasso_eps"),
        Param("lasso_delta", "float", lo=1e-15, hi=0.5), Param("lasso_radius", "float", lo=1e-3, hi=1e3),
        Param("lasso_steps_rule", "choice", ("Theorem 2.5", "c·(nε)^(2/3)", "set T")),
        Param("lasso_c", "float", lo=1e-4, hi=1e3), Param("lasso_T", "int", lo=1, hi=10**9),
        Param("lasso_intercept", "bool"),
        Param("lasso_sel", "choice", tuple(SELECTIONS)), Param("lasso_comp", "choice", tuple(COMPOSITIONS)),
    ),
    "eigenvalues": (
        Param("sp_source", "choice", ("Simulated robust regression", "Breast cancer (built-in, logistic)",
                                      "Diabetes (built-in, robust regression)", "Dataset from the Data page")),
        Param("sp_n", "choice", (500, 2000, 5000, 20_000, 100_000)), Param("sp_d", "int", lo=1, hi=20),
        Param("sp_geometry", "choice", ("hypercube", "l2-ball")),
        Param("sp_radius", "float", lo=1e-6, hi=1e6), Param("sp_rho", "float", lo=0.0, hi=1e6),
        *epsilon_params("sp_eps"),
        Param("sp_delta", "float", lo=1e-12, hi=0.5),
        Param("sp_split", "choice", (*BUDGET_SPLITS, "custom")),
        Param("sp_share", "float", lo=0.1, hi=0.9),
    ),
    "query_release": (
        Param("qr_kind", "choice", ("marginals", "thresholds", "signs", "cone")),
        Param("qr_rho", "float", lo=0.001, hi=100.0), Param("qr_eps", "float", lo=0.01, hi=20.0),
        Param("qr_alpha", "float", lo=0.005, hi=1.0),
        Param("qr_methods", "choices", tuple(LAB_METHODS)),
    ),
    "audit": (
        Param("audit_id", "choice", tuple(audits())),
        Param("audit_mutant", "bool"),
    ),
})

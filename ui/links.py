"""The widgets each page keeps in its URL (issue 22, shareable links): declarations read by ``ui.share_link``.

The logic (encode, decode, validation) is :mod:`dpcore.links`; here only which widget of which page is
linked, with the range or the choices that widget accepts (the same constants the page draws it with).
A new widget of a linked page gets a ``Param`` here and a non-default value in ``ALTERNATIVES`` of
``tests/links/test_page_links.py`` — or a commented entry in that test's ``NOT_LINKED`` (the test fails on a widget
that is neither). Must never link a column choice, anything read from the data, or the session token.

Widgets whose key is built from a choice (an experiment, an audit, a simulator, a data source) are declared for
every value of that choice, by the small builders below, from the same registries and constants the page uses.
"""
from __future__ import annotations

from types import MappingProxyType

from dpcore import data as dpdata
from dpcore import kng
from dpcore.audit import explore
from dpcore.density import METHODS as DENSITY_METHODS
from dpcore.histograms import NOISES
from dpcore.kng import MECHANISMS
from dpcore.lasso import COMPOSITIONS, MAX_P, SELECTIONS
from dpcore.links import Param, epsilon_params
from dpcore.query_release import DATASETS as QR_DATASETS
from dpcore.query_release import LAB_METHODS
from dpcore.registry import audits
from dpcore.experiments import registry as experiments
from dpcore.single_parameter import BUDGET_SPLITS

#: The Data page's caps and simulators (pages/data.py reads them from here).
MAX_SIM_N, MAX_SIM_D = 200_000, 20
SIMULATORS = {**dpdata.SIMULATORS, **kng.REGRESSION_SIMULATORS}
EIGEN_SOURCES = ("Simulated robust regression", "Breast cancer (built-in, logistic)",
                 "Diabetes (built-in, robust regression)", "Dataset from the Data page")
#: The largest number of target coordinates of the eigenvalues page (20 covariates + an intercept).
EIGEN_MAX_COORDS = 21


def _views(*keys: str) -> tuple[Param, ...]:
    """The display toggles ui.accuracy_preview (``<key>_accuracy_preview_on``) and ui.cost_meaning
    (``<release button key>_curve``) draw: what the sharer had open opens for the receiver too."""
    return tuple(Param(k, "bool") for k in keys)


def _error_vs_n() -> tuple[Param, ...]:
    """pages/error_vs_n.py: each experiment's own widgets (keys end with its id), as the page draws them."""
    out: list[Param] = []
    for exp_id, exp in experiments().items():
        lim = exp.app_limits
        if exp.default_epsilon is not None:
            out.append(epsilon_params(f"evn_eps_{exp_id}")[0])      # the slider only: it sits in a form
        out += [Param(f"evn_x_{exp_id}", "range", exp.axis.grid(lim.get("max_x"))),
                Param(f"evn_reps_{exp_id}", "int", lo=2, hi=int(lim.get("max_reps", 50))),
                Param(f"evn_methods_{exp_id}", "choices", tuple(exp.methods))]
        for name in exp.app_options:
            default, key = exp.options[name], f"evn_{name}_{exp_id}"
            if isinstance(default, bool):
                out.append(Param(key, "bool"))
            elif name in exp.option_choices:
                out.append(Param(key, "choice", tuple(exp.option_choices[name])))
            elif isinstance(default, int):
                out.append(Param(key, "int", hi=lim.get(f"max_{name}")))
            else:
                out.append(Param(key, "float"))
    return (Param("evn_experiment", "choice", tuple(experiments())), *out)


def _audit() -> tuple[Param, ...]:
    """pages/audit.py: the audit, the mutant, and each audit's own pair preset, claim and sample size."""
    out: list[Param] = [Param("audit_id", "choice", tuple(audits())), Param("audit_mutant", "bool")]
    for aid, a in audits().items():
        out += [Param(f"audit_preset::{aid}", "choice", tuple(explore.presets(a))), *epsilon_params(f"audit_eps::{aid}"),
                Param(f"audit_n::{aid}", "int", lo=1)]
        if a.delta > 0:
            out.append(Param(f"audit_delta::{aid}", "float", lo=0.0, hi=0.5))
    return tuple(out)


def _data() -> tuple[Param, ...]:
    """pages/data.py: the simulation settings and the imputation's ε — never a bound, a column or the budget."""
    out: list[Param] = [Param("data_source", "choice", ("Upload a file", "Simulate a dataset")),
                        Param("data_sim_kind", "choice", tuple(SIMULATORS)),
                        Param("data_sim_n", "int", lo=1, hi=MAX_SIM_N), *epsilon_params("data_imp_eps"),
                        *_views("data_imp_accuracy_preview_on", "data_imp_go_curve")]
    for kind, info in SIMULATORS.items():
        for name, default in info.defaults.items():
            if default is None:
                continue
            out.append(Param(f"data_sim_{kind}_{name}", "int", lo=2, hi=MAX_SIM_D) if isinstance(default, int)
                       else Param(f"data_sim_{kind}_{name}", "float"))
    return tuple(out)

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
        *_views("kng_accuracy_preview_on", "kng_go_curve"),
    ),
    "histograms": (
        Param("h_source", "choice", ("Synthetic sparse table", "Wine (built-in): cultivar × binned alcohol",
                                     "Dataset from the Data page")),
        *epsilon_params("h_eps"),
        Param("h_noise", "choice", tuple(NOISES)),
        Param("h_log2p", "int", lo=8, hi=30), Param("h_q", "int", lo=1, hi=100_000),
        Param("h_n", "int", lo=1, hi=10_000_000), Param("h_p", "int", lo=0, hi=2**24),
        Param("h_reps", "int", lo=5, hi=50),
        *_views("h_accuracy_preview_on", "h_go_curve"),
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
        Param("dn_svm_n", "choice", (200, 500, 1000, 2000)), Param("dn_svm_lam", "float", lo=1e-5, hi=10.0),
        Param("dn_svm_h", "float", lo=0.01, hi=1.0),
        *_views("dn_accuracy_preview_on", "dn_go_curve"),
    ),
    "lasso": (
        Param("lasso_source", "choice", ("Simulated sparse regression", "Diabetes (built-in)",
                                         "Dataset from the Data page")),
        Param("lasso_n", "choice", (200, 1000, 5000, 20_000, 50_000)),
        Param("lasso_p", "int", lo=1, hi=MAX_P), Param("lasso_s", "int", lo=0, hi=50),
        *epsilon_params("lasso_eps"),
        Param("lasso_delta", "float", lo=1e-15, hi=0.5), Param("lasso_radius", "float", lo=1e-3, hi=1e3),
        Param("lasso_steps_rule", "choice", ("Theorem 2.5", "risk bound (converges as ε grows)",
                                                   "c·(nε)^(2/3)", "set T")),
        Param("lasso_c", "float", lo=1e-4, hi=1e3), Param("lasso_T", "int", lo=1, hi=10**9),
        Param("lasso_intercept", "bool"),
        Param("lasso_sel", "choice", tuple(SELECTIONS)), Param("lasso_comp", "choice", tuple(COMPOSITIONS)),
        Param("lasso_view", "choice", ("Release", "Teaching view (not private)")),
        *_views("lasso_accuracy_preview_on", "lasso_go_curve"),
    ),
    "eigenvalues": (
        Param("sp_source", "choice", EIGEN_SOURCES),
        Param("sp_n", "choice", (500, 2000, 5000, 20_000, 100_000)), Param("sp_d", "int", lo=1, hi=20),
        Param("sp_geometry", "choice", ("hypercube", "l2-ball")),
        Param("sp_radius", "float", lo=1e-6, hi=1e6), Param("sp_rho", "float", lo=0.0, hi=1e6),
        *epsilon_params("sp_eps"),
        Param("sp_delta", "float", lo=1e-12, hi=0.5),
        Param("sp_split", "choice", (*BUDGET_SPLITS, "custom")),
        Param("sp_share", "float", lo=0.1, hi=0.9),
        Param("sp_intercept", "bool"),
        *(Param(f"sp_loss_{src}", "choice", ("logistic", "robust")) for src in EIGEN_SOURCES[1:]),
        # the target coordinate by its index (the page keys it by the source and the number of coordinates);
        # not on the Data page's source, where it names one of the user's columns
        *(Param(f"sp_coord_{src}_{k}", "int", lo=0, hi=k - 1) for src in EIGEN_SOURCES[:3]
          for k in range(1, EIGEN_MAX_COORDS + 1)),
        Param("sp_cov_d", "int", lo=1, hi=20), Param("sp_cov_reps", "int", lo=1, hi=20),
        Param("sp_cov_ns", "choices", (500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)),
        *_views("sp_accuracy_preview_on", "sp_go_curve"),
    ),
    "query_release": (
        Param("qr_kind", "choice", ("marginals", "thresholds", "signs", "cone")),
        Param("qr_rho", "float", lo=0.001, hi=100.0), Param("qr_eps", "float", lo=0.01, hi=20.0),
        Param("qr_alpha", "float", lo=0.005, hi=1.0),
        Param("qr_methods", "choices", tuple(LAB_METHODS)),
        Param("qr_d", "int", lo=2, hi=11), Param("qr_w", "int", lo=1, hi=3), Param("qr_N", "int", lo=2, hi=4096),
        Param("qr_k", "int", lo=2, hi=512), Param("qr_U", "int", lo=2, hi=4096), Param("qr_ck", "int", lo=10, hi=2000),
        Param("qr_r", "float", lo=0.01, hi=0.05), Param("qr_data", "choice", tuple(QR_DATASETS)),
        Param("qr_nmax", "choice", (100, 1000, 10_000, 100_000)), Param("qr_reps", "int", lo=2, hi=30),
        # the release of the user's marginals: its public settings (its columns and schema are not linked)
        Param("qr_rw", "int", lo=1, hi=3),
        Param("qr_rm", "choice", ("projection", "gaussian", "coarse", "chaining", "pmw")),
        Param("qr_rrho", "float", lo=0.001, hi=100.0),
        *_views("qr_accuracy_preview_on", "qr_go_curve"),
    ),
    "audit": _audit(),
    "error_vs_n": _error_vs_n(),
    "data": _data(),
})

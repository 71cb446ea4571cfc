"""The app layer shared by the pages: one module per concern, re-exported here so that a page does ``import ui``.

==================  ====================================================================================
``ui.workspace``    the session's release session, dataset, budget account and database workspace (its cookie);
                    the sidebar's randomness
``ui.keeping``      the workspace as the user sees it: new / delete, "keep my data on this server", kept tables
``ui.resume``       the session token, the restart notice, the ledger and session files (download, upload)
``ui.budget``       budget lines, the ledger panel, the budget beside a release button, the budget form
``ui.release``      request, release button (cost and its meaning), run, progress, outcome, non-private box
``ui.preview``      the accuracy preview (public inputs only)
``ui.models``       the model pages' shared pickers and public panels (LASSO, certified bounds)
``ui.widgets``      ε input, persist / kept / offered, greek, show_error, the educational banner
``ui.charts``       plot (literal, with its text alternative), chart_spec, download_csv, metrics
``ui.share``        share link, export as code (script, notebook) and the stream it states
``ui.simulate``     "Run the simulation": a declared figure's few replicates on synthetic data, its chart
``ui.datasource``   the Data page's loading: built-in examples, upload, simulation, what a new dataset resets
``ui.bounds``       the Data page's one form of public bounds; fill from a codebook, or (leaks, opt-in) the data
``ui.imputation``   the Data page's non-private diagnostics and the imputation of missing cells
``ui.scenarios``    the Data page's classroom scenarios and "Start a fresh demo workspace" (never a refund)
``ui.pickers``      pickers several pages share: a value per view, a problem's columns, a histogram's cells
``ui.teaching``     the non-private teaching views and release displays drawn after a click (KNG)
``ui.cache``        results shared across sessions: public simulations only (``ui.cache.lab_result(...)``)
``ui.server``       the server's database (the store) and garbage-collection housekeeping (app.py)
``ui.links``        which widget of which page a link carries (declarations read by ``ui.share_link``)
``ui.nav``          page discovery from each page's ``# nav:`` header line
``ui.compat``       the one patch of Streamlit internals
==================  ====================================================================================

Imports go one way (no circle; tests/test_layout.py checks it): widgets, charts, links, nav, compat and server
import no other ui module; workspace only server; budget, keeping, resume, cache and share use workspace (and
widgets, charts, links; resume also keeping); release uses budget; preview uses cache; simulate uses release and share;
bounds uses workspace and widgets; datasource uses bounds, links and release; imputation uses bounds, preview, release
and share; scenarios uses bounds, datasource and workspace; pickers and teaching use widgets and charts;
models uses cache, charts, widgets and workspace. Pages use only the names below and
the public modules (``ui.cache``, ``ui.links``, ``ui.nav``); dpcore imports nothing of this package. The release
rules are :mod:`dpcore.privacy.session`; nothing in this package decides what is private.
"""
from ui import compat
from ui.budget import (budget_editor, budget_lines, clear_ledger, ledger_panel, ledger_sidebar, ledger_slot,
                       redraw_budget_line, redraw_ledger)
from ui.charts import chart_spec, download_csv, metrics, plot
from ui.keeping import keep_data_option, workspace_panel
from ui.pickers import histogram_modes, per_view, regression_columns
from ui.models import certify_panel, eigen_truth, lasso_outcome, lasso_outlook, lasso_steps, model_columns, public_panel
from ui.preview import accuracy_preview
from ui.release import (NONPRIVATE, cost_meaning, nonprivate, progress, release_button, request, run_release,
                        show_outcome)
from ui.resume import ledger_upload, session_file_panel, session_guard, session_upload
from ui.share import EXPORT_KEY, export_code, share_link, stream
from ui.simulate import simulation_button
from ui.teaching import kng_released, kng_teaching
from ui.widgets import (EPSILON_CHOICES, educational_banner, epsilon_input, errors_shown, greek, kept, note_page,
                        offered, persist, plain_label, schema_rules, show_error, workload_picker)
from ui.workspace import (DATASET_KEY, DEMO_WIDGET_KEY, LEDGER_KEY, SEED_WIDGET_KEY, SESSION_KEY, bound_sources,
                          bounded_columns, budget_of, current_seed, data_identity, database_engine, demo_seed,
                          get_dataset, get_ledger, init_session, open_budget, randomness, randomness_sidebar,
                          release_session, require_dataset, set_dataset, workspace_cookie)
from ui import cache, links, nav, server  # noqa: E402,F401  (public modules: ui.cache.lab_result(...))
from ui.bounds import bounds_form, codebook_panel, leak_option
from ui.datasource import builtin_buttons, new_dataset, simulate_panel, upload_panel
from ui.imputation import diagnostics_panel, imputation_panel
from ui.scenarios import classroom_panel

compat.leave_legacy_pages_mode()

__all__ = [
    "DATASET_KEY", "DEMO_WIDGET_KEY", "EPSILON_CHOICES", "EXPORT_KEY", "LEDGER_KEY", "NONPRIVATE",
    "SEED_WIDGET_KEY", "SESSION_KEY", "accuracy_preview", "bound_sources", "bounded_columns", "bounds_form",
    "budget_editor", "budget_lines", "budget_of", "builtin_buttons", "cache", "certify_panel", "chart_spec",
    "classroom_panel", "clear_ledger", "codebook_panel", "cost_meaning", "current_seed", "data_identity",
    "database_engine", "demo_seed", "diagnostics_panel", "download_csv", "educational_banner", "eigen_truth",
    "epsilon_input", "errors_shown", "export_code", "get_dataset", "get_ledger", "greek", "histogram_modes",
    "imputation_panel", "init_session", "keep_data_option", "kept", "kng_released", "kng_teaching", "lasso_outcome",
    "lasso_outlook", "lasso_steps", "leak_option", "ledger_panel", "ledger_sidebar", "ledger_slot", "ledger_upload",
    "links", "metrics", "model_columns", "nav", "new_dataset", "nonprivate", "note_page", "offered", "open_budget",
    "per_view", "persist", "plain_label", "plot", "progress", "public_panel", "randomness", "randomness_sidebar",
    "redraw_budget_line", "redraw_ledger", "regression_columns", "release_button", "release_session", "request",
    "require_dataset", "run_release", "schema_rules", "server", "session_file_panel", "session_guard",
    "session_upload", "set_dataset", "share_link", "show_error", "show_outcome", "simulate_panel",
    "simulation_button", "stream", "upload_panel", "workload_picker", "workspace_cookie", "workspace_panel",
]

"""Private LASSO: private Frank–Wolfe over the ℓ1 ball (Talwar, Thakurta & Zhang 2015, NeurIPS).

* :mod:`~dpcore.lasso.configs` — :class:`LassoConfig` (private Frank–Wolfe, with or without an intercept),
  :class:`NoisyGradientConfig` (general C).
* :mod:`~dpcore.lasso.calibration` — :func:`calibrate` (the score sensitivity 4r(r + 1)/n, the per-step
  mechanism, composition, T of Theorem 2.5) and :func:`calibrate_noisy_gradient` (Theorem 2.6), both
  ``(config, data_shape)`` with data_shape = (n, p) of X.
* :mod:`~dpcore.lasso.release` — :func:`release` (Algorithm 2, :mod:`~dpcore.lasso.release.private_fw`) with
  :func:`nonprivate` (Algorithm 1); the noisy-gradient variant for general C in
  :mod:`~dpcore.lasso.release.noisy_gradient` (``noisy_gradient.release``).
* :mod:`~dpcore.lasso.designs` — sparse-regression simulator, Dataset → (X, y) by public bounds.
* :mod:`~dpcore.lasso.figures` — the declared figures (``python -m dpcore reproduce lasso``);
  :mod:`~dpcore.lasso.plots` — their plotly figures and the page's.
* ``_solver`` (private) — Frank–Wolfe (direct and Gram paths, vectorised over runs), the noisy-gradient
  loop, the constrained optimum by projected gradient (baseline).

Note: the attribute ``dpcore.lasso.release`` is the release FUNCTION of private Frank–Wolfe; import the
modules of the ``release`` package by their full names (``from dpcore.lasso.release import noisy_gradient``).
"""
from ._compare import comparison_caption, reference_fits, reference_fits_caption
from ._preview import Outlook, outlook
from ._texts import (INTERCEPT_HELP, PAGE_INTRO, RISK_VS_N_CAPTION, STEP_RULE_HELP, STEP_RULE_LABELS, VIEW_HELP,
                     WIDTH_TEXT)
from ._solver import constrained_optimum, frank_wolfe, loss
from .calibration import (accounting, calibrate, calibrate_noisy_gradient, corollary27_rate, gaussian_width,
                          gradient_sensitivity, paper_noise_scale, paper_total_epsilon, per_step_epsilon,
                          risk_bound, risk_bound_steps, score_sensitivity, theorem25_steps)
from .configs import (COMPOSITIONS, CONSTRAINTS, GENERAL_CONSTRAINTS, MAX_P, MAX_STEPS, SELECTIONS, STEP_RULES,
                      LassoConfig,
                      NoisyGradientConfig)
from .designs import Design, diabetes_dataset, prepare_design, simulated_dataset, sparse_regression, units_caption
from .release import noisy_gradient, private_fw
from .release.private_fw import nonprivate, release, release_summary, support, support_recovery

__all__ = ["reference_fits", "comparison_caption", "reference_fits_caption", "LassoConfig", "NoisyGradientConfig", "calibrate", "calibrate_noisy_gradient", "release", "nonprivate",
           "noisy_gradient", "private_fw", "accounting", "corollary27_rate", "score_sensitivity", "theorem25_steps",
           "risk_bound", "risk_bound_steps", "STEP_RULES", "Outlook", "outlook",
           "INTERCEPT_HELP", "PAGE_INTRO", "RISK_VS_N_CAPTION", "STEP_RULE_HELP", "STEP_RULE_LABELS", "VIEW_HELP",
           "WIDTH_TEXT",
           "per_step_epsilon", "paper_noise_scale", "paper_total_epsilon", "gaussian_width", "gradient_sensitivity",
           "SELECTIONS", "COMPOSITIONS", "CONSTRAINTS", "GENERAL_CONSTRAINTS", "MAX_P", "MAX_STEPS",
           "constrained_optimum", "frank_wolfe", "loss", "support", "support_recovery", "Design", "diabetes_dataset",
           "prepare_design", "simulated_dataset", "sparse_regression", "units_caption", "release_summary"]

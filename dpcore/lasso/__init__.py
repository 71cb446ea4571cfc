"""Private LASSO: private Frank–Wolfe over the ℓ1 ball (Talwar, Thakurta & Zhang 2015, NeurIPS).

* :mod:`~dpcore.lasso.calibration` — :class:`LassoConfig`, the score sensitivity 4r(r + 1)/n, the
  per-step mechanism (exponential / Laplace report-noisy-min), composition (zCDP / advanced), T of
  Theorem 2.5.
* :mod:`~dpcore.lasso.private_fw` — :func:`release` (Algorithm 2), :func:`nonprivate` (Algorithm 1).
* :mod:`~dpcore.lasso.solver` — Frank–Wolfe (direct and Gram paths, vectorised over runs), the
  constrained optimum by projected gradient (baseline).
* :mod:`~dpcore.lasso.general` — the noisy-gradient variant for general C (Theorem 2.6).
* :mod:`~dpcore.lasso.designs` — sparse-regression simulator, Dataset → (X, y) by public bounds.
* :mod:`~dpcore.lasso.figures` — the declared figures (``python -m dpcore reproduce lasso``).
"""
from .calibration import (COMPOSITIONS, CONSTRAINTS, MAX_P, MAX_STEPS, SELECTIONS, LassoConfig, accounting, calibrate,
                          corollary27_rate,
                          paper_noise_scale, paper_total_epsilon, per_step_epsilon, score_sensitivity,
                          theorem25_steps)
from .private_fw import nonprivate, release, support, support_recovery
from .solver import constrained_optimum, frank_wolfe, loss

__all__ = ["LassoConfig", "accounting", "calibrate", "corollary27_rate", "release", "nonprivate", "score_sensitivity", "theorem25_steps",
           "per_step_epsilon", "paper_noise_scale", "paper_total_epsilon", "SELECTIONS", "COMPOSITIONS",
           "CONSTRAINTS", "MAX_P", "MAX_STEPS", "constrained_optimum", "frank_wolfe", "loss", "support",
           "support_recovery"]

"""The KNG releases, one module per mechanism family, each with its ``release(data, config, *, rng)``.

* :mod:`~dpcore.kng.release.location` — the mean, the median (geometric median for d ≥ 2) and the
  τ-quantile (KNG and the exponential mechanism; exact samplers, MCMC for the geometric median).
* :mod:`~dpcore.kng.release.linear_regression` — least squares on {‖θ‖₁ ≤ B}: KNG and the exponential
  mechanism (exact rejection samplers with an MCMC fallback) and objective perturbation (an exact QP).
* :mod:`~dpcore.kng.release.quantile_regression` — τ-quantile regression: KNG and the exponential
  mechanism (MCMC).

Each family's ``release`` calibrates with the same family's ``calibrate_<family>`` of
:mod:`dpcore.kng.calibration` and runs the shared engine (:mod:`dpcore.kng.release._engine`: work caps,
exact or MCMC draws, the withholding rule). The mechanism (KNG, exponential, objective perturbation)
is the config's ``mechanism`` field. This package's ``__init__`` imports nothing, so that the
calibrations may import the engine's notes.
"""

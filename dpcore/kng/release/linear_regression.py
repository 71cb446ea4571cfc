"""``release(data, config, *, rng)`` of linear regression on Θ = {‖θ‖₁ ≤ B} (Reimherr & Awan 2019, §4.3, §7):
KNG, the exponential mechanism and objective perturbation (the config's ``mechanism``).

Privacy: pure ε-DP per draw for the exact target law (KNG: Thm 3.1; exponential mechanism: Prop. 2.2;
objective perturbation: §7.2, the exact constrained minimiser), replace-one neighbours, n fixed. KNG and
the exponential mechanism draw by exact rejection (:mod:`dpcore.kng._exact_regression`) with an MCMC
fallback where its acceptance is too low (which ran depends on the data: said only in the non-private
diagnostics; the public note covers both, :data:`dpcore.kng.calibration.FALLBACK_NOTE`).
Sensitivities: :func:`dpcore.kng.calibration.calibrate_linear_regression`. Cost: ``size`` draws at ε each.
"""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from .._problems import problem_of
from ..calibration import calibrate_linear_regression
from ..configs import LinearRegressionConfig
from . import _engine
from ._engine import KNGRelease, Override, Progress

#: The configs this family releases.
CONFIGS = (LinearRegressionConfig,)


def release(data: Any, config: LinearRegressionConfig, *, rng: RNGLike = None, override: Override = None,
            progress: Progress = None) -> KNGRelease:
    """One private release of least-squares coefficients: ``config.size`` independent draws.

    Parameters
    ----------
    data : tuple (X, y), X (n, d) (or (n,)), y (n,); divided by the public ``x_bound``, ``y_bound`` and
        clipped (counted in the diagnostics), the estimates multiplied back.
    config : :class:`~dpcore.kng.configs.LinearRegressionConfig`.
    rng, override, progress : as for :func:`dpcore.kng.release.location.release`.

    Returns
    -------
    KNGRelease
        ``value`` (size, d); ``calibration == calibrate_linear_regression(config, X.shape)``.
    """
    return _engine.release(problem_of(config, CONFIGS), data, config, calibrate=calibrate_linear_regression,
                           rng=rng, override=override, progress=progress)

"""``release(data, config, *, rng)`` of τ-quantile regression on Θ = {‖θ‖₁ ≤ B} (Reimherr & Awan 2019, §4.5):
KNG and the exponential mechanism (the config's ``mechanism``; not strongly convex: no objective perturbation).

Privacy: pure ε-DP per draw for the exact target law (KNG: Thm 3.1; exponential mechanism: Prop. 2.2),
replace-one neighbours, n fixed; drawn by MCMC, so approximately private (the draw is withheld when the
chains have not mixed). Sensitivities: :func:`dpcore.kng.calibration.calibrate_quantile_regression`.
Cost: ``size`` draws at ε each.
"""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike
from .._problems import problem_of
from ..calibration import calibrate_quantile_regression
from ..configs import QuantileRegressionConfig
from . import _engine
from ._engine import KNGRelease, Override, Progress

#: The configs this family releases.
CONFIGS = (QuantileRegressionConfig,)


def release(data: Any, config: QuantileRegressionConfig, *, rng: RNGLike = None, override: Override = None,
            progress: Progress = None) -> KNGRelease:
    """One private release of quantile-regression coefficients: ``config.size`` independent MCMC draws.

    Parameters
    ----------
    data : tuple (X, y), X (n, d) (or (n,)), y (n,); divided by the public ``x_bound``, ``y_bound`` (KNG:
        x projected to ‖x‖_K ≤ C_X; exponential mechanism: y clipped to |y| ≤ 1), the estimates multiplied back.
    config : :class:`~dpcore.kng.configs.QuantileRegressionConfig`.
    rng, override, progress : as for :func:`dpcore.kng.release.location.release`.

    Returns
    -------
    KNGRelease
        ``value`` (size, d); ``calibration == calibrate_quantile_regression(config, X.shape)``.
    """
    return _engine.release(problem_of(config, CONFIGS), data, config, calibrate=calibrate_quantile_regression,
                           rng=rng, override=override, progress=progress)

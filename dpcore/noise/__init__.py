"""Additive noise mechanisms and the exponential mechanism (the shared primitives; topic "noise").

Every mechanism states its guarantee, neighbouring relation and the sensitivity it needs;
callers pass the sensitivity of *their* query under *their* neighbouring relation
(replace-one unless said). Each follows the one-mechanism template: a frozen config (:mod:`.configs`),
``calibrate_<family>(config, data_shape)`` (:mod:`.calibration`), and a pure
``release(data, config, *, rng)`` per family in :mod:`.release` returning a
:class:`dpcore.mechanism.Release` (``data`` is the exact query answer f(D), or the utilities for the
exponential mechanism) whose ``cost`` is its calibration's; the functional forms
(:func:`laplace_mechanism`, ...) build the config and call it.
References: Dwork et al. (2006) Laplace; Balle & Wang (2018) analytic Gaussian; Bun & Steinke
(2016) zCDP Gaussian; Hardt & Talwar (2010) K-norm; McSherry & Talwar (2007) exponential mechanism.
"""
from __future__ import annotations

from . import release
from ._raw import gaussian_noise, knorm_noise, laplace_noise
from .calibration import (calibrate_exponential, calibrate_gaussian, calibrate_gaussian_zcdp, calibrate_knorm,
                          calibrate_laplace)
from .configs import ExponentialConfig, GaussianConfig, GaussianZCDPConfig, KNormConfig, LaplaceConfig
from .release import (exponential_mechanism, exponential_mechanism_logits, gaussian_mechanism, knorm_mechanism,
                      laplace_mechanism)

__all__ = ["laplace_noise", "gaussian_noise", "knorm_noise", "LaplaceConfig", "GaussianConfig",
           "GaussianZCDPConfig", "KNormConfig", "ExponentialConfig", "calibrate_laplace", "calibrate_gaussian",
           "calibrate_gaussian_zcdp", "calibrate_knorm", "calibrate_exponential", "release", "laplace_mechanism",
           "gaussian_mechanism", "knorm_mechanism", "exponential_mechanism", "exponential_mechanism_logits"]

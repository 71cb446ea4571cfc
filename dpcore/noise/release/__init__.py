"""The noise releases, one module per family, each with its ``release(data, config, *, rng)``.

:mod:`.laplace`, :mod:`.gaussian` (analytic, (ε, δ)), :mod:`.gaussian_zcdp` (ρ-zCDP), :mod:`.knorm`,
:mod:`.exponential`; the functional forms (:func:`laplace_mechanism`, ...) build the config and call them.
"""
from __future__ import annotations

from . import exponential, gaussian, gaussian_zcdp, knorm, laplace
from .exponential import exponential_mechanism, exponential_mechanism_logits
from .gaussian import gaussian_mechanism
from .knorm import knorm_mechanism
from .laplace import laplace_mechanism

__all__ = ["laplace", "gaussian", "gaussian_zcdp", "knorm", "exponential", "laplace_mechanism",
           "gaussian_mechanism", "knorm_mechanism", "exponential_mechanism", "exponential_mechanism_logits"]

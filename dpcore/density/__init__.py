"""Private density estimation (Hall 2012 thesis, Parts 2–3; Hall, Rinaldo & Wasserman 2013).

Five mechanism families, in the one layout of docs/architecture.md:
* GP-KDE — Gaussian-kernel KDE on a public grid and its Gaussian-process (RKHS) release, d = 1, 2
  ((ε, δ)-DP; Hall's c(δ) for ε ≤ 2.7, the analytic Gaussian otherwise; Kronecker sampling in d = 2).
* Fourier/Laplace — Fourier-basis KDE on [0, 1]^d with Laplace noise per coefficient (ε-DP).
* K-norm — K-norm KDE on the Carathéodory orbitope, d = 1 (ε-DP; exact rejection sampler,
  hit-and-run as an approximately private option; LP and Toeplitz gauges).
* Private bandwidth — the HRW rule of thumb on quartiles released by the exponential mechanism (ε-DP).
* Kernel SVM — without intercept, released with GP noise (sensitivity 1/(λn) + 2√(g/λ)).

:mod:`.configs` (one config per family, and :class:`CompareConfig`), :mod:`.calibration`
(``calibrate_<family>(config, data_shape)``), :mod:`.release` (``release.kde``, ``release.fourier``,
``release.knorm``, ``release.bandwidth``, ``release.svm``, each with ``release``), :mod:`.audits`,
:mod:`.figures` (``hall-kde``, ``hall-kde-dims``, ``hall-knorm``), :mod:`.designs`, :mod:`.plots`;
:func:`compare_release` is the page's one call (all estimates on the same data, composed cost).
The numerics (kernels, bases, orbitope bodies, the SVM solver) are private modules.
"""
from __future__ import annotations

from . import release
from ._bandwidth import nonprivate_bandwidth
from ._compare import (Comparison, check_compare_work, compare_release, comparison_costs, mixture_dataset,
                       nonprivate_reference, unit_cube_columns)
from ._fourier import nonprivate_fourier
from ._kde import MAX_BANDWIDTH, MAX_GRID_PER_AXIS, MAX_GRID_POINTS, MIN_BANDWIDTH, nonprivate_kde
from ._knorm import MAX_K, nonprivate_knorm
from ._svm import MAX_SVM_N, nonprivate_svm
from .calibration import calibrate_bandwidth, calibrate_fourier, calibrate_gp, calibrate_knorm, calibrate_svm
from .configs import (METHODS, BandwidthConfig, CompareConfig, FourierConfig, GPKDEConfig, KNormConfig,
                      SVMConfig)
from .designs import MAX_D, Mixture, mixture, real_column, to_unit_cube, two_class
from .release.svm import accuracy_vs_epsilon, svm_demo

from ._preview import DENSITY_NAMES

__all__ = ["DENSITY_NAMES", "GPKDEConfig", "FourierConfig", "KNormConfig", "BandwidthConfig", "SVMConfig", "CompareConfig", "METHODS",
           "calibrate_gp", "calibrate_fourier", "calibrate_knorm", "calibrate_bandwidth", "calibrate_svm", "release",
           "nonprivate_kde", "nonprivate_fourier", "nonprivate_knorm", "nonprivate_bandwidth", "nonprivate_svm",
           "Comparison", "compare_release", "comparison_costs", "check_compare_work", "nonprivate_reference",
           "unit_cube_columns", "mixture_dataset", "svm_demo", "accuracy_vs_epsilon", "Mixture", "mixture",
           "two_class", "to_unit_cube", "real_column", "MAX_D", "MAX_GRID_POINTS", "MAX_GRID_PER_AXIS",
           "MIN_BANDWIDTH", "MAX_BANDWIDTH", "MAX_K", "MAX_SVM_N"]

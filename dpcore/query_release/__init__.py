"""Instance-optimal private query release (Błasiok, Bun, Nikolov & Steinke, SODA 2019).

Workloads are public point sets X ⊂ R^k (:class:`Marginals`, :class:`Thresholds`, :class:`RandomSigns`,
:class:`Cone`); a dataset is a vector of indices into X and its answers are the mean point x̄. In the one
layout of docs/architecture.md: :mod:`.configs` (central ρ-zCDP mechanisms — Gaussian baseline, projection,
coarse projection, chaining, PMW — and the ε-LDP protocols), :mod:`.calibration`
(``calibrate_<family>(config, data_shape)``), :mod:`.release` (one module per family, each with
``release``), :mod:`.audits`, :mod:`.figures` (``query-release``), :mod:`.designs`, :mod:`.plots`. The
sample-complexity calculator, the page's lab and marginals release, the geometry (nets, chaining
decompositions, widths) and the Frank–Wolfe projections are private modules, re-exported here as needed.
"""
from . import release
from ._bounds import Geometry, empirical_sample_complexity, geometry, local_bounds, lower_bound, upper_bounds
from ._central import approx_guarantee, max_error, nonprivate_answers, rho_for_approx, rms_error
from ._lab import (DATASETS, LAB_INTRO, LAB_METHODS, MAX_CONE_R_HELP, MAX_D_HELP, WORKLOAD_KINDS, ColumnRule, LabConfig,
                   LabResult, marginal_labels, release_marginals, run_lab)
from ._local import c_epsilon, nonprivate_local, randomize, report_density_ratio
from ._workloads import (MAX_UNIVERSE_CELLS, Cone, Marginals, RandomSigns, Thresholds, Workload, WorkloadSpec,
                         mean_point, records_to_indices)
from .calibration import (calibrate_chaining, calibrate_coarse, calibrate_gaussian, calibrate_local_chaining,
                          calibrate_local_coarse, calibrate_local_projection, calibrate_pmw, calibrate_projection)
from .configs import (ChainingConfig, CoarseConfig, GaussianConfig, LocalChainingConfig, LocalCoarseConfig,
                      LocalProjectionConfig, PMWConfig, ProjectionConfig, check_alpha, check_workload)

from ._preview import marginals_config

__all__ = ["marginals_config", "GaussianConfig", "ProjectionConfig", "CoarseConfig", "ChainingConfig", "PMWConfig",
           "LocalProjectionConfig", "LocalCoarseConfig", "LocalChainingConfig", "check_alpha", "check_workload",
           "calibrate_gaussian", "calibrate_projection", "calibrate_coarse", "calibrate_chaining", "calibrate_pmw",
           "calibrate_local_projection", "calibrate_local_coarse", "calibrate_local_chaining", "release",
           "approx_guarantee", "rho_for_approx", "max_error", "rms_error", "nonprivate_answers", "nonprivate_local",
           "c_epsilon", "randomize", "report_density_ratio", "MAX_UNIVERSE_CELLS", "Cone", "Marginals",
           "RandomSigns", "Thresholds", "Workload", "WorkloadSpec", "mean_point", "records_to_indices", "Geometry",
           "geometry", "upper_bounds", "lower_bound", "local_bounds", "empirical_sample_complexity", "DATASETS",
           "LAB_METHODS", "LAB_INTRO", "MAX_CONE_R_HELP", "MAX_D_HELP", "WORKLOAD_KINDS", "ColumnRule", "LabConfig",
           "LabResult", "marginal_labels", "release_marginals", "run_lab"]

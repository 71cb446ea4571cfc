"""Instance-optimal private query release (Błasiok, Bun, Nikolov & Steinke, SODA 2019).

Workloads are public point sets X ⊂ R^k (:mod:`.workloads`); a dataset is a vector of indices into X
and its answers are the mean point x̄. Mechanisms under ρ-zCDP (:mod:`.central`): Gaussian baseline,
projection, coarse projection, chaining and PMW; ε-LDP protocols (:mod:`.local`); geometry for the
sample-complexity calculator (:mod:`.geometry`, :mod:`.bounds`). Declarations in :mod:`.declare`.
"""
from .central import (
                      ChainingConfig,
                      CoarseConfig,
                      GaussianConfig,
                      PMWConfig,
                      ProjectionConfig,
                      approx_guarantee,
                      chaining_release,
                      coarse_release,
                      gaussian_release,
                      max_error,
                      nonprivate_answers,
                      pmw_release,
                      projection_release,
                      rms_error,
)
from .local import (
                      LocalChainingConfig,
                      LocalCoarseConfig,
                      LocalProjectionConfig,
                      local_chaining_release,
                      local_coarse_release,
                      local_projection_release,
)
from .workloads import (
                      MAX_UNIVERSE_CELLS,
                      Cone,
                      Marginals,
                      RandomSigns,
                      Thresholds,
                      Workload,
                      mean_point,
                      records_to_indices,
)

__all__ = [
                      "MAX_UNIVERSE_CELLS",
                      "ChainingConfig",
                      "CoarseConfig",
                      "Cone",
                      "GaussianConfig",
                      "LocalChainingConfig",
                      "LocalCoarseConfig",
                      "LocalProjectionConfig",
                      "Marginals",
                      "PMWConfig",
                      "ProjectionConfig",
                      "RandomSigns",
                      "Thresholds",
                      "Workload",
                      "approx_guarantee",
                      "chaining_release",
                      "coarse_release",
                      "gaussian_release",
                      "local_chaining_release",
                      "local_coarse_release",
                      "local_projection_release",
                      "max_error",
                      "mean_point",
                      "nonprivate_answers",
                      "pmw_release",
                      "projection_release",
                      "records_to_indices",
                      "rms_error",
]

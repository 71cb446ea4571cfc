"""The accuracy preview of the query-release mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._rng import as_generator
from ..errors import DPValueError
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, gaussian_rms, simulate, unavailable
from .configs import ChainingConfig, CoarseConfig, GaussianConfig, PMWConfig, ProjectionConfig
from ._workloads import Marginals


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """Gaussian answers: exact RMS law; the projections, chaining and PMW: simulated on a uniform public design."""
    if name == "query_release/gaussian":    # σ from the mechanism's own public calibration
        return gaussian_rms(spec.calibrate(config, (n,)).constant, config.workload.build().k, method=name, label=label)
    wl = config.workload.build()
    reps = reps or 50                       # one release call per draw (a projection each): fifty
    if (n + wl.size) * reps * max(wl.k, 1) > MAX_PREVIEW_WORK:
        return unavailable(name, label, f"a simulation of {reps} releases on n = {n:,} rows exceeds the preview's "
                                        "work cap")
    data = as_generator(rng).spawn(1)[0].integers(0, wl.size, n)     # n records uniform on the public universe
    return simulate(name, data, config, reps, rng, measure=f"RMS over the k = {wl.k} answers", label=label,
                     method=name, basis=f"simulated: {reps} releases on a public design of n = {n:,} rows drawn "
                                        "uniformly from the universe (seeded)",
                     error=lambda r, t: np.sqrt(((r - t) ** 2).mean(axis=1)))


def marginals_config(d: int, w: int, method: str, *, rho: float, alpha: float = 0.1) -> Any:
    """The central config of a release of the w-way marginals of d public bits by ``method`` (as
    :func:`dpcore.query_release.lab.release_marginals` builds it), for its preview."""
    spec = Marginals(int(d), int(w))
    make = {"gaussian": lambda: GaussianConfig(spec, rho), "projection": lambda: ProjectionConfig(spec, rho),
            "coarse": lambda: CoarseConfig(spec, rho, alpha), "chaining": lambda: ChainingConfig(spec, rho, alpha),
            "pmw": lambda: PMWConfig(spec, rho)}
    if method not in make:
        raise DPValueError(f"method = {method!r}: choose among {', '.join(make)}.")
    return make[method]()

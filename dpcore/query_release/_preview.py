"""The accuracy preview of the query-release mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._rng import as_generator
from ..errors import DPValueError
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, from_samples, gaussian_rms, simulate, unavailable
from ._central import nonprivate_answers
from .configs import ChainingConfig, CoarseConfig, GaussianConfig, PMWConfig, ProjectionConfig
from ._workloads import Marginals
from .release._common import sample_outputs


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """Gaussian answers: exact RMS law; the projections, chaining and PMW: simulated on a uniform public design."""
    if name == "query_release/gaussian":    # σ from the mechanism's own public calibration
        return gaussian_rms(spec.calibrate(config, (n,)).constant, config.workload.build().k, method=name, label=label)
    wl = config.workload.build()
    central = isinstance(config, (ProjectionConfig, CoarseConfig, ChainingConfig, PMWConfig))
    reps = int(reps or (200 if central else 50))   # central: the noise step vectorised, a projection per run
    if (n + wl.size) * reps * max(wl.k, 1) > MAX_PREVIEW_WORK:
        return unavailable(name, label, f"a simulation of {reps} releases on n = {n:,} rows exceeds the preview's "
                                        "work cap")
    g = as_generator(rng)
    data = g.spawn(1)[0].integers(0, wl.size, n)     # n records uniform on the public universe
    basis = (f"simulated: {reps} releases on a public design of n = {n:,} rows drawn uniformly from the universe "
             "(seeded)")
    measure = f"RMS over the k = {wl.k} answers"
    if not central:                                   # local protocols: the release itself, reps times
        return simulate(name, data, config, reps, g, measure=measure, label=label, method=name, basis=basis,
                        error=lambda r, t: np.sqrt(((r - t) ** 2).mean(axis=1)))
    # The releases' own vectorised sampler (the one the audits draw from): one read of the design, reps runs.
    out = np.asarray(sample_outputs(data, config, reps, g), dtype=float).reshape(reps, -1)
    truth = np.asarray(nonprivate_answers(data, config), dtype=float).ravel()
    return from_samples(np.sqrt(((out - truth[None, :]) ** 2).mean(axis=1)), name, label, measure, basis)


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

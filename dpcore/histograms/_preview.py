"""The accuracy preview of the histogram mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import math
from typing import Any

from ..preview import ErrorLaw, geometric_l1, laplace_l1, threshold_l1, unavailable
from .calibration import calibrate_histogram, calibrate_threshold
from .configs import ThresholdConfig


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """Laplace (or geometric) noise in every cell: exact; thresholding: exact law on the empty cells."""
    if name == "histograms/laplace":    # a ThresholdConfig is accepted too: its cells' noise (any p, no dense cap)
        cal = (calibrate_threshold(config, (n,)) if isinstance(config, ThresholdConfig)
               else calibrate_histogram(config, (n,)))
        if config.noise == "geometric":
            return geometric_l1(config.p, config.epsilon / cal.sensitivity, rng=rng, method=name, label=label)
        return laplace_l1(config.p, cal.constant, method=name, label=label)
    if name == "histograms/threshold":
        cal = spec.calibrate(config, (n,))
        q = cal.params["q_for_tau"]
        if q is None:
            return unavailable(name, label, "τ depends on the noisy q̂ released with it")
        tau = cal.constant * math.log(config.p / q)
        return threshold_l1(config.p, cal.constant, tau, noise=config.noise, rng=rng, method=name, label=label)
    return unavailable(name, label, "no accuracy preview is declared for this mechanism")

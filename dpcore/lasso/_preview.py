"""The accuracy preview of the LASSO mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._rng import as_generator
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, from_samples, unavailable
from .calibration import calibrate
from .designs import sparse_regression
from .release.private_fw import release


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """Private Frank–Wolfe: the excess risk of simulated releases on a public sparse design."""
    return _lasso(name, config, n, d, reps, rng, label)


def _lasso(name: str, config: Any, n: int, p: int, reps: int, rng: Any, label: str) -> ErrorLaw:
    steps = int(calibrate(config, (n, p)).params["steps"])
    reps = reps or 50
    work = float(n) * p * steps * reps
    if work > MAX_PREVIEW_WORK or reps < 1:
        return unavailable(name, label, f"{reps} simulated releases would touch n·p·T·reps = {work:.2g} values, over "
                                        f"the preview's cap {MAX_PREVIEW_WORK:.0g}: lower n, p or T to see it")
    g = as_generator(rng)
    X, y, _ = sparse_regression(n, p, min(5, p), rng=g.spawn(1)[0])
    vals = []
    for s in g.spawn(reps):
        r = release((X, y), config, rng=s, diagnostics=True)
        vals.append(r.diagnostics.values["excess risk (private)"])
    return from_samples(np.asarray(vals), name, label, "excess risk L(θ) − min L",
                        f"simulated: {reps} releases on a public design (sparse regression, n = {n:,}, p = {p}, "
                        "5 non-zeros; seeded)")

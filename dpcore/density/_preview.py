"""The accuracy preview of the density mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._rng import as_generator
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, from_samples, simulate, unavailable
from .designs import mixture

#: The density page's method keys → registry names.
DENSITY_NAMES = {"gp": "density/gp-kde", "fourier-laplace": "density/fourier-laplace", "knorm": "density/knorm"}


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """The density estimates: simulated on the public two-component mixture (their noise does not depend on the data)."""
    grid_cells = int(getattr(config, "grid", 128)) ** int(getattr(config, "d", 1))
    if (reps or 100) * grid_cells > MAX_PREVIEW_WORK / 100:
        return unavailable(name, label, "the grid is too fine for a simulated preview")
    x = mixture(int(getattr(config, "d", 1))).sample(n, as_generator(rng).spawn(1)[0])
    reps_d = min(int(reps or 100), 1000)
    cap = 200 if name == "density/knorm" else 1000             # the configs' caps on draws per call (size)
    basis = (f"simulated: {reps_d} draws on a public design (n = {n:,} from the two-component mixture); the noise "
             "these mechanisms add does not depend on the data")
    parts = []
    for i, child in enumerate(as_generator(rng).spawn(-(-reps_d // cap))):
        law = simulate(name, x, config, min(cap, reps_d - i * cap), rng if reps_d <= cap else child,
                       measure=MEASURE, label=label, method=name, basis=basis,
                       error=lambda r, t: np.sqrt(((r - t) ** 2).mean(axis=1)))
        if not law.available:
            return law
        parts.append(law.samples)
    return from_samples(np.concatenate(parts), name, label, MEASURE, basis)


MEASURE = "RMS over the grid (density units on [0, 1]^d)"

"""The accuracy preview of the density mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .._rng import as_generator
from .._validation import DPValueError
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, from_samples, simulate, unavailable
from ._fourier import evaluate
from ._kde import sample_gp
from .calibration import calibrate_fourier, calibrate_gp
from .designs import mixture
from .release.fourier import _noisy_coefficients

#: The density page's method keys → registry names.
DENSITY_NAMES = {"gp": "density/gp-kde", "fourier-laplace": "density/fourier-laplace", "knorm": "density/knorm"}


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              bounds: Any = None, **shape: Any) -> ErrorLaw:
    """GP-KDE and Fourier/Laplace: Monte Carlo of the exact, data-free law of their additive noise (:func:`_exact`);
    the K-norm KDE: simulated on the public two-component mixture (its noise does not depend on the data).

    ``bounds``: the columns' public (lower, upper), one pair per axis, as the page's plot uses them. The estimate on
    [0, 1]^d becomes a density per unit of the columns by dividing by the box's volume Π(upper − lower) (a public
    change of variables), so the error is in the same units as the plotted density (issue 32: the preview was in
    [0, 1]^d units beside a plot per unit of the column). Without bounds: per unit of the rescaled axes."""
    law = _law(name, config, n, reps, rng, label)
    if bounds is None or not law.available or law.samples is None:
        return law
    widths = [float(hi) - float(lo) for lo, hi in bounds]
    if len(widths) != int(getattr(config, "d", 1)) or not all(np.isfinite(w) and w > 0 for w in widths):
        raise DPValueError(f"bounds = {bounds!r}: give one public (lower, upper) with lower < upper per axis "
                           f"(d = {int(getattr(config, 'd', 1))}).")
    return replace(law, samples=law.samples / float(np.prod(widths)), measure=MEASURE_COLUMNS)


def _law(name: str, config: Any, n: int, reps: Any, rng: Any, label: str) -> ErrorLaw:
    if name in ("density/gp-kde", "density/fourier-laplace"):
        return _exact(name, config, n, reps, rng, label)
    grid_cells = int(getattr(config, "grid", 128)) ** int(getattr(config, "d", 1))
    if (reps or 100) * grid_cells > MAX_PREVIEW_WORK / 100:
        return unavailable(name, label, "the grid is too fine for a simulated preview")
    x = mixture(int(getattr(config, "d", 1))).sample(n, as_generator(rng).spawn(1)[0])
    reps_d = min(int(reps or 100), 1000)
    cap = 200 if name == "density/knorm" else 1000             # the configs' caps on draws per call (size)
    basis = (f"simulated: {reps_d} draws on a public design (n = {n:,} from the two-component mixture); the noise "
             "these mechanisms add does not depend on the data")
    parts: list[np.ndarray] = []
    for i, child in enumerate(as_generator(rng).spawn(-(-reps_d // cap))):
        law = simulate(name, x, config, min(cap, reps_d - i * cap), rng if reps_d <= cap else child,
                       measure=MEASURE, label=label, method=name, basis=basis,
                       error=lambda r, t: np.sqrt(((r - t) ** 2).mean(axis=1)))
        if not law.available or law.samples is None:
            return law
        parts.append(law.samples)
    return from_samples(np.concatenate(parts), name, label, MEASURE, basis)


MEASURE = "RMS over the grid (density per unit of the axes rescaled to [0, 1])"
#: the measure once the page's public bounds are given: the units of its plot
MEASURE_COLUMNS = "RMS over the grid (density per unit of the column, as plotted)"


def _exact(name: str, config: Any, n: int, reps: Any, rng: Any, label: str) -> ErrorLaw:
    """The error of these two is their additive noise, whatever the data: GP-KDE releases f_D + σ·G with G the
    release's own Gaussian process on the grid (:func:`~dpcore.density._kde.sample_gp`, σ from the calibration at
    this n), Fourier/Laplace releases Σ_j λ_j (β̂_j + Lap(b)) ψ_j with the constant coefficient un-noised
    (:func:`~dpcore.density.release.fourier._noisy_coefficients` on zero coefficients, then the linear
    :func:`~dpcore.density._fourier.evaluate`). So the RMS over the grid is drawn from the exact law, data-free."""
    d, grid = int(getattr(config, "d", 1)), int(config.grid)
    per_draw = grid ** (d + 1) * (2 if d == 2 else 1)
    fits = int(MAX_PREVIEW_WORK / per_draw) // 100 * 100         # default: 2 000 draws (d = 1), 400 (d = 2), fewer
    reps = int(reps or max(100, min(2000 if d == 1 else 400, fits)))   # on a fine grid (work cap)
    if reps * per_draw > MAX_PREVIEW_WORK:
        return unavailable(name, label, "the grid is too fine for the preview's Monte Carlo")
    g = as_generator(rng)
    if name == "density/gp-kde":
        cal = calibrate_gp(config, (n, d))
        sigma = cal.constant * cal.params["noise_factor"]
        noise = sigma * sample_gp(grid, config.bandwidth, d, reps, g)
        what = f"σ·G, G the release's Gaussian process on the grid, σ = {sigma:.4g}"
    else:
        zero = np.zeros((2 * config.k + 1,) * d)
        z = _noisy_coefficients(zero, n, config, reps, g)
        noise = evaluate(z, config.k, config.bandwidth, grid, config.weights)
        what = (f"Laplace(b = {calibrate_fourier(config, (n,)).constant:.4g}) on the {zero.size - 1} non-constant "
                "coefficients, evaluated on the grid")
    errs = np.sqrt((noise.reshape(reps, -1) ** 2).mean(axis=1))
    return from_samples(errs, name, label, MEASURE, f"Monte Carlo of the exact law ({reps:,} draws, data-free): the "
                                                   f"release adds {what}, whatever the data")

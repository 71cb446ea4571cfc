"""The accuracy preview of the KNG mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..preview import (DEFAULT_REPS, ErrorLaw, exponential_pieces, evenly_spread, gaussian_norm, knorm_radius, norm_of,
                       simulate, unavailable)
from .._rng import as_generator
from . import _api as _kng_api
from .calibration import calibrate_for


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """KNG, the exponential mechanism and objective perturbation (see :func:`_kng`)."""
    return _kng(name, config, n, d, reps or DEFAULT_REPS, rng, label, bool(shape.get("intercept", True)),
                requested=reps)


def _kng(name: str, config: Any, n: int, d: int, reps: int, rng: Any, label: str, intercept: bool = True,
         requested: Any = None) -> ErrorLaw:
    problem, mech = config.problem, config.mechanism
    cal = calibrate_for(config)(config, (n, d))
    norm = config.norm if d > 1 else "linf"
    if problem == "mean":
        if mech == "kng":   # f ∝ exp(−2nc‖θ − x̄‖_K): the K-norm mechanism for x̄
            grid = (f"; the hardened release (noise='grid') draws the discrete version of this law on the grid "
                    f"γℤ^d, γ = {cal.params['grid']:.3g}, within γ/2 of it" if cal.params.get("noise") == "grid" else "")
            return knorm_radius(d, 1.0 / (2.0 * n * cal.constant), norm, method=mech, label=label, unit="θ − x̄",
                                what="; KNG for the mean is the K-norm mechanism for x̄ (Remark 4.1)" + grid)
        return gaussian_norm(1.0 / math.sqrt(2.0 * n * cal.constant), d, norm, method=mech, label=label, rng=rng,
                             unit="θ − x̄",
                             what="; before truncation to the public box (which can only make it smaller in each "
                                  "coordinate)")
    if problem in ("median", "quantile") and d == 1:
        lo, hi = float(np.ravel(config.bounds[0])[0]), float(np.ravel(config.bounds[1])[0])
        x = evenly_spread(n, lo, hi)
        law = _kng_api.exact_pieces(x, config)
        centre = float(np.ravel(_kng_api.nonprivate_estimate(x, config))[0])
        return exponential_pieces(law.cdf, centre, hi - lo, method=mech, label=label,
                                  basis=f"exact law on a public design: n = {n:,} values spread evenly over the "
                                        f"bounds [{lo:g}, {hi:g}] (on your data it depends on how the values spread)")
    measure = f"‖θ − θ̂‖{'∞' if norm == 'linf' else norm[1:]}"
    if problem == "linear_regression":
        design = _regression_design(config, n, d, rng, intercept)
        return simulate(name, design, config, reps, rng, measure=measure, label=label, method=mech,
                        error=lambda r, t: norm_of(r - t, norm), basis=_regression_basis(reps, n, intercept))
    if problem != "quantile_regression":
        return unavailable(mech, label, "this mechanism samples by MCMC over every record (the geometric median: "
                                        "about 7 s for a simulated preview at n = 500, d = 2); none is drawn")
    # MCMC (quantile regression): the chains of one release are independent draws, so one call with `size` = reps
    # chains on a public design — as many as MCMC_PREVIEW_WORK record-sweeps allow (at least MIN_MCMC_REPS).
    per_draw = float(n) * d * config.sweeps
    reps = int(min(requested or MCMC_REPS, MCMC_PREVIEW_WORK // per_draw))
    if reps < MIN_MCMC_REPS:
        return unavailable(mech, label, f"this mechanism samples by MCMC over every record: {MIN_MCMC_REPS} simulated "
                                        f"draws would take n·d·sweeps·draws = {per_draw * MIN_MCMC_REPS:.2g} record-"
                                        f"steps, over the preview's {MCMC_PREVIEW_WORK:.0g}; lower n or the sweeps")
    design = _regression_design(config, n, d, rng, intercept)
    basis = _regression_basis(reps, n, intercept) + f"; {config.sweeps:,} MCMC sweeps per draw, as the release"
    return simulate(name, design, config, reps, rng, measure=measure, label=label, method=mech,
                    error=lambda r, t: norm_of(r - t, norm), basis=basis)


#: MCMC previews: at most this many record-steps n·d·sweeps·draws (quantile regression: ≈ 0.6 s per mechanism on the 2-core machine),
#: MCMC_REPS draws unless more are asked for, and at least MIN_MCMC_REPS.
MCMC_PREVIEW_WORK, MCMC_REPS, MIN_MCMC_REPS = 5e7, 100, 20


def _regression_design(config: Any, n: int, d: int, rng: Any, intercept: bool) -> tuple[np.ndarray, np.ndarray]:
    """A public regression design: x uniform on its public bounds (column 0 = 1 with an intercept), y =
    clip(½·(first covariate, scaled) + 0.2·N(0, 1)) in y's bounds; seeded by ``rng``."""
    xb = np.broadcast_to(np.asarray(config.x_bound, dtype=float), (d,))
    yb = float(config.y_bound)
    g = as_generator(rng).spawn(1)[0]
    X = g.uniform(-xb, xb, size=(n, d))
    if intercept:
        X[:, 0] = 1.0
    signal = X[:, 1] / xb[1] if d > 1 else 0.0
    y = np.clip(yb * (0.5 * signal + 0.2 * g.standard_normal(n)), -yb, yb)
    return X, y


def _regression_basis(reps: int, n: int, intercept: bool) -> str:
    return (f"simulated: {reps} draws on a public design (n = {n:,}, x uniform on its public "
            f"bounds{', an intercept' if intercept else ''}, y = clip(½·(first x, scaled) + "
            "0.2·N(0, 1)) in y's bounds; seeded): on your data it depends on the design")

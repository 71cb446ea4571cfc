"""The accuracy preview of the KNG mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np
from scipy import stats

from ..errors import DPValueError
from ..preview import (DEFAULT_REPS, ErrorLaw, exponential_pieces, evenly_spread, gaussian_norm, knorm_radius, norm_of,
                       simulate, unavailable)
from ..preview_check import over_designs
from .._rng import as_generator
from . import _api as _kng_api
from .calibration import calibrate_for


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """KNG, the exponential mechanism and objective perturbation (see :func:`_kng`)."""
    if config.problem in ("linear_regression", "quantile_regression"):
        return _regression_spread(name, config, n, d, reps, rng, label, **shape)
    return _kng(name, config, n, d, reps or DEFAULT_REPS, rng, label, bool(shape.get("intercept", True)),
                requested=reps)


def _regression_spread(name: str, config: Any, n: int, d: int, reps: Any, rng: Any, label: str, *,
                       intercept: bool = True, design: str = "box", rho: float = 0.5, box: Any = None,
                       y_box: Any = None, **_: Any) -> ErrorLaw:
    """The regression's law on the user's ``design`` (default: x uniform on the declared box), with its spread
    over every design of :data:`DESIGNS` ("correlated" at the user's ρ; only with ≥ 2 covariates), each
    simulated on public inputs only (:func:`dpcore.preview.over_designs`)."""
    if design not in DESIGNS:
        raise DPValueError(f"design = {design!r} is not a preview design; choose one of {', '.join(DESIGNS)}.")
    k = d - int(bool(intercept))
    mcmc = config.problem == "quantile_regression"    # MCMC: ~1 s per design whatever its draws; fewer designs
    names = [design] + [m for m in DESIGNS if m != design and (m != "correlated" or k > 1)
                        and not (mcmc and m in MCMC_SKIPPED)]
    laws = []
    for i, m in enumerate(names):
        public = dict(design=m, rho=rho, box=box, y_box=y_box)
        laws.append((DESIGNS[m] + (f", ρ = {rho:g}" if m == "correlated" else ""),
                     _kng(name, config, n, d, reps or DEFAULT_REPS, rng, label, bool(intercept), requested=reps,
                          public=public, spread=i > 0)))
    return over_designs(laws)


def _kng(name: str, config: Any, n: int, d: int, reps: int, rng: Any, label: str, intercept: bool = True,
         requested: Any = None, public: Any = None, spread: bool = False) -> ErrorLaw:
    """One design's law; ``public``: the regression design's public settings (:func:`regression_design`);
    ``spread``: a further design of the spread (fewer draws: :data:`SPREAD_SHARE`)."""
    public = public or {}
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
        reps = max(MIN_SPREAD_REPS, reps // SPREAD_SHARE) if spread else reps
        design = regression_design(config, n, d, rng, intercept, **public)
        return simulate(name, design, config, reps, rng, measure=measure, label=label, method=mech,
                        error=lambda r, t: norm_of(r - t, norm), basis=_regression_basis(reps, n, intercept, **_named(public)))
    if problem != "quantile_regression":
        return unavailable(mech, label, "this mechanism samples by MCMC over every record (the geometric median: "
                                        "about 7 s for a simulated preview at n = 500, d = 2); none is drawn")
    # MCMC (quantile regression): the chains of one release are independent draws, so one call with `size` = reps
    # chains on a public design — as many as MCMC_PREVIEW_WORK record-sweeps allow (at least MIN_MCMC_REPS).
    per_draw = float(n) * d * config.sweeps
    reps = int(min(requested or MCMC_REPS, MCMC_PREVIEW_WORK // per_draw))
    if spread:
        reps = max(MIN_SPREAD_MCMC_REPS, reps // (2 * SPREAD_SHARE)) if reps >= MIN_MCMC_REPS else 0
    if reps < MIN_MCMC_REPS and not (spread and reps):
        return unavailable(mech, label, f"this mechanism samples by MCMC over every record: {MIN_MCMC_REPS} simulated "
                                        f"draws would take n·d·sweeps·draws = {per_draw * MIN_MCMC_REPS:.2g} record-"
                                        f"steps, over the preview's {MCMC_PREVIEW_WORK:.0g}; lower n or the sweeps")
    design = regression_design(config, n, d, rng, intercept, **public)
    basis = (_regression_basis(reps, n, intercept, **_named(public))
             + f"; {config.sweeps:,} MCMC sweeps per draw, as the release")
    return simulate(name, design, config, reps, rng, measure=measure, label=label, method=mech,
                    error=lambda r, t: norm_of(r - t, norm), basis=basis)


#: MCMC previews: at most this many record-steps n·d·sweeps·draws (quantile regression: ≈ 0.6 s per mechanism on the 2-core machine),
#: MCMC_REPS draws unless more are asked for, and at least MIN_MCMC_REPS.
MCMC_PREVIEW_WORK, MCMC_REPS, MIN_MCMC_REPS = 5e7, 100, 20


#: The public designs a regression preview simulates on (x inside the declared box; seeded), by name: what each
#: assumes. Real tables are rarely uniform on their bounds (issue 32 §1: the realised error was 3–30× a
#: uniform-design preview), so the preview shows its spread over all of these — each derived only from the public
#: box (and a correlation ρ the user declares), never from the data.
DESIGNS: Mapping[str, str] = MappingProxyType({
    "box": "x uniform on the declared bounds",
    "concentrated": "x normal, centred in the declared box, sd = ¼ of its width, truncated to the box",
    "narrow": "x normal, centred in the declared box, sd = 1/10 of its width (generous bounds), truncated to it",
    "skewed": "x Beta(2, 5) on the declared box (most values in its lower third)",
    "correlated": "x as 'concentrated', the covariates correlated ρ (Gaussian copula)",
})
#: The 1-D median's and quantile's floor at any ε (issue 32 §2), a rule stated before the click: the width of the
#: gap is the data's, so it is never printed.
MEDIAN_FLOOR_NOTE = (
    "Even at a huge ε the median (or quantile) released by KNG or the exponential mechanism does not reach the "
    "sample value: their density is flat between two neighbouring data values (the loss's gradient — the count "
    "of values below minus above — is constant there), so a draw is uniform between the order statistics around "
    "the sample median (quantile): an inherent floor of the mechanism, as wide as that gap in your data — small "
    "when many distinct values lie near the median, whole units when they are few or rounded.")
#: Designs the MCMC previews (quantile regression) leave out of the spread: "concentrated" lies between "box" and
#: "narrow", and each MCMC design costs about a second whatever its number of draws (its chains' burn-in).
MCMC_SKIPPED = ("concentrated",)
#: Simulated draws of each further design of the spread, as a share of the chosen design's (and at least these).
SPREAD_SHARE, MIN_SPREAD_REPS, MIN_SPREAD_MCMC_REPS = 4, 50, 8


def regression_design(config: Any, n: int, d: int, rng: Any, intercept: bool, *, design: str = "box",
                      rho: float = 0.0, box: Any = None, y_box: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """A public regression design (:data:`DESIGNS`): the covariates inside their declared ``box`` (one (lo, hi)
    per covariate, the intercept excluded; default the symmetric box |x_j| ≤ x_bound_j), column 0 = 1 with an
    intercept, and y = clip(mid + half·(½·s + 0.2·N(0, 1))) inside ``y_box`` (default |y| ≤ y_bound), s the first
    covariate rescaled to [−1, 1] in its box; seeded by ``rng``. Only public inputs: the bounds, n, d, ρ."""
    if design not in DESIGNS:
        raise DPValueError(f"design = {design!r} is not a preview design; choose one of {', '.join(DESIGNS)}.")
    xb = np.broadcast_to(np.asarray(config.x_bound, dtype=float), (d,))
    yb = float(config.y_bound)
    k = d - int(bool(intercept))
    lo, hi = -xb.copy(), xb.copy()
    if box is not None:
        b = np.asarray(box, dtype=float).reshape(-1, 2)
        if len(b) != k:
            raise DPValueError(f"box has {len(b)} (lo, hi) pairs but the regression has {k} covariates; give one "
                               "pair per covariate column (the intercept excluded).")
        lo[d - k:], hi[d - k:] = b[:, 0], b[:, 1]
    ylo, yhi = map(float, y_box) if y_box is not None else (-yb, yb)
    g = as_generator(rng).spawn(1)[0]
    if design == "box":
        X = g.uniform(lo, hi, size=(n, d))
    else:
        z = g.standard_normal((n, d))
        if design == "correlated" and k > 1:
            r = float(rho)
            if not -1.0 / (k - 1) < r < 1.0:
                raise DPValueError(f"ρ = {r:g} is not a valid correlation of {k} covariates; choose "
                                   f"{-1.0 / (k - 1):.3g} < ρ < 1.")
            corr = np.full((k, k), r) + (1.0 - r) * np.eye(k)
            z[:, d - k:] = z[:, d - k:] @ np.linalg.cholesky(corr).T
        u = stats.norm.cdf(z)
        unit = (stats.beta(2, 5).ppf(u) if design == "skewed" else stats.truncnorm(-5, 5, loc=0.5, scale=0.1).ppf(u)
                if design == "narrow" else stats.truncnorm(-2, 2, loc=0.5, scale=0.25).ppf(u))
        X = lo + (hi - lo) * unit
    if intercept:
        X[:, 0] = 1.0
    signal = (2 * X[:, d - k] - lo[d - k] - hi[d - k]) / (hi[d - k] - lo[d - k]) if k else 0.0
    mid, half = (ylo + yhi) / 2, (yhi - ylo) / 2
    y = np.clip(mid + half * (0.5 * signal + 0.2 * g.standard_normal(n)), ylo, yhi)
    return X, y


def _regression_design(config: Any, n: int, d: int, rng: Any, intercept: bool) -> tuple[np.ndarray, np.ndarray]:
    """The default design (x uniform on the symmetric box |x_j| ≤ x_bound_j): :func:`regression_design`."""
    return regression_design(config, n, d, rng, intercept)


def _named(public: Any) -> dict:
    return {k: public[k] for k in ("design", "box", "rho") if k in public}


def _regression_basis(reps: int, n: int, intercept: bool, design: str = "box", box: Any = None,
                      rho: float = 0.0) -> str:
    where = DESIGNS[design].replace("the declared bounds", "its public bounds") if box is None else DESIGNS[design]
    where = where.replace("correlated ρ", f"correlated ρ = {rho:g}")
    return (f"simulated: {reps} draws on a public design (n = {n:,}, {where}{', an intercept' if intercept else ''}, "
            "y = clip(½·(first x, scaled) + 0.2·N(0, 1)) in y's bounds; seeded): on your data it depends on the design")


def twin_errors(name: str, config: Any, *, n: int, d: int, reps: int, rng: Any, intercept: bool = True,
                design: str = "box", rho: float = 0.5, box: Any = None, y_box: Any = None,
                **_: Any) -> tuple[np.ndarray, int, str]:
    """"Check the preview" (:func:`dpcore.preview_check.check_preview`): ``reps`` releases of ``name`` on a
    simulated twin drawn with ``rng`` from the preview's public design — the regressions' chosen design, the
    mean's x uniform on its bounds, the 1-D median/quantile's n values spread evenly — and their errors in the
    preview's measure: (errors of the released draws, number withheld, what the twin is)."""
    problem, g = config.problem, as_generator(rng)
    norm = config.norm if d > 1 else "linf"
    if problem in ("linear_regression", "quantile_regression"):
        data: Any = regression_design(config, n, d, g.spawn(1)[0], intercept, design=design, rho=rho, box=box,
                                      y_box=y_box)
        twin = (f"n = {n:,} rows drawn afresh from the preview's design: {DESIGNS[design]}"
                + (f", ρ = {rho:g}" if design == "correlated" else "") + "; y as in the preview")
    elif problem == "mean":
        lims = [np.broadcast_to(np.asarray(b, dtype=float), (d,)) for b in config.bounds]
        data = g.spawn(1)[0].uniform(lims[0], lims[1], size=(n, d))
        data = data[:, 0] if d == 1 else data
        twin = f"n = {n:,} rows uniform on the public bounds, drawn afresh"
    elif problem in ("median", "quantile") and d == 1:
        lo, hi = float(np.ravel(config.bounds[0])[0]), float(np.ravel(config.bounds[1])[0])
        data = evenly_spread(n, lo, hi)
        twin = f"the preview's design: n = {n:,} values spread evenly over [{lo:g}, {hi:g}]"
    else:
        raise DPValueError(f"{name}: no simulated twin for this problem (its preview is not simulated on a design).")
    law = simulate(name, data, config, reps, g.spawn(1)[0], measure="", label=name, method=name, basis=twin,
                   error=lambda r, t: norm_of(r - t, norm))
    errors = law.samples if law.samples is not None else np.zeros(0)
    return errors, reps - len(errors), twin

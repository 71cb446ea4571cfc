"""The accuracy preview of the histogram mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import as_generator
from ..preview import DEFAULT_REPS, ErrorLaw, from_samples, geometric_l1, laplace_l1, threshold_l1, unavailable
from ..preview_check import over_designs
from .designs import sparse_table
from .calibration import calibrate_histogram, calibrate_threshold
from .configs import ThresholdConfig

#: Fewest simulated releases of one count design.
MIN_REPS = 200


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
        return _threshold_spread(config, cal.constant, tau, n, shape.get("q"), rng, name, label)
    return unavailable(name, label, "no accuracy preview is declared for this mechanism")


#: Largest simulated work (draws × occupied cells) of one design of the thresholded preview.
THRESHOLD_WORK = 2e6
#: The designs' concentration: counts 1 + Multinomial(n − q, Dirichlet(0.3)) (the page's synthetic table's law).
CONCENTRATION = 0.3


def count_designs(p: int, n: int, q: Any = None) -> list[int]:
    """The numbers of occupied cells of the public count designs the thresholded preview spreads over: the
    public q when the table is a simulation (``q``), else ⌈√n⌉; then every record alone (q = min(n, p): the
    worst case, each count 1), one cell holding every record (the best) and ⌈n/10⌉ — from n and p only."""
    qs = [int(q) if q else math.ceil(math.sqrt(n)), min(n, p), 1, math.ceil(n / 10)]
    return list(dict.fromkeys(min(max(v, 1), p, n) for v in qs))


def occupied_l1(counts: np.ndarray, scale: float, tau: float, noise: str, reps: int, g: Any) -> np.ndarray:
    """ℓ1 error on the occupied cells of one thresholded release, ``reps`` times: cell c released as c + Z when
    c + Z > τ, else 0 (error |Z| or c) — the release's own rule (no rounding), Z its noise (Laplace(b), or the
    two-sided geometric P(Z = k) ∝ a^|k|, a = e^(−1/b), as G₁ − G₂ of two Geometric failure counts)."""
    c = np.asarray(counts, dtype=float)[None, :]
    if noise == "geometric":
        a = math.exp(-1.0 / scale)
        z = (g.geometric(1 - a, size=(reps, c.shape[1])) - g.geometric(1 - a, size=(reps, c.shape[1]))).astype(float)
    else:
        z = g.laplace(0.0, scale, size=(reps, c.shape[1]))
    return np.where(c + z > tau, np.abs(z), c).sum(axis=1)


def _threshold_spread(config: Any, scale: float, tau: float, n: int, q: Any, rng: Any, name: str,
                      label: str) -> ErrorLaw:
    """The thresholded histogram's WHOLE ℓ1 error (suppressed occupied cells included), on public count designs
    (:func:`count_designs`: n records in q cells, counts 1 + Multinomial(n − q, Dirichlet(0.3))): on each, the
    empty cells' exact law (:func:`dpcore.preview.threshold_l1`, p − q cells) plus the occupied cells' error
    simulated with the release's noise, the same measure as Laplace's (ℓ1 over all p cells)."""
    g = as_generator(rng)
    laws = []
    for qd in count_designs(config.p, n, q):
        counts = sparse_table(config.p, qd, max(n, qd), concentration=CONCENTRATION, rng=g.spawn(1)[0]).counts
        reps = int(max(MIN_REPS, min(DEFAULT_REPS * 5, THRESHOLD_WORK // qd)))
        empty = threshold_l1(config.p - qd, scale, tau, noise=config.noise, reps=reps, rng=g.spawn(1)[0]) \
            if config.p > qd else None
        errs = occupied_l1(counts, scale, tau, config.noise, reps, g.spawn(1)[0])
        errs = errs + (empty.samples if empty is not None else 0.0)
        design = (f"n = {n:,} records in q = {qd:,} of the p = {config.p:,} cells, counts 1 + Multinomial(n − q, "
                  f"Dirichlet({CONCENTRATION:g}))")
        laws.append((f"q = {qd:,}", from_samples(
            errs, name, label, "ℓ1 over all p cells (records)",
            f"simulated: {reps:,} releases on a public design of counts ({design}; seeded): the empty cells' "
            f"false positives (each τ + Exp(b), τ = {tau:.4g}) plus the occupied cells, released as c + noise when "
            "above τ and as 0 (an error of c) when suppressed; on your table it depends on how the counts spread")))
    return over_designs(laws)

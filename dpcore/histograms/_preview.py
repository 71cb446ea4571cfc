"""The accuracy preview of the histogram mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import as_generator
from ..errors import DPValueError
from ..preview import DEFAULT_REPS, ErrorLaw, from_samples, geometric_l1, laplace_l1, threshold_l1, unavailable
from ..preview_check import over_designs
from .designs import sparse_table
from ._sampling import sample_histogram, sample_threshold
from ._tables import batch_errors
from .calibration import calibrate_histogram, calibrate_threshold, data_shape
from .configs import HistogramConfig, ThresholdConfig

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


def design_counts(n: int, q: int, reps: int, g: Any) -> np.ndarray:
    """``reps`` rows of counts from :data:`DESIGN_TABLES` tables of the count design: q occupied cells, counts
    1 + Multinomial(n − q, Dirichlet(0.3)) — :func:`dpcore.histograms.sparse_table`'s law — drawn afresh for each
    table and shared by every reps/tables releases in turn, so that the preview averages over the design, not
    over one table of it (where the occupied cells lie does not matter). A Dirichlet draw per release would cost
    seconds at q in the thousands (numpy's multinomial with one pvals row per release loops in Python)."""
    if q == 1:
        return np.full((reps, 1), float(n))
    tables = [1.0 + g.multinomial(n - q, g.dirichlet(np.full(q, CONCENTRATION))) for _ in range(min(reps,
                                                                                                   DESIGN_TABLES))]
    return np.asarray(tables, dtype=float)[np.arange(reps) % len(tables)]


#: Tables of a count design one preview draws (each shared by reps / DESIGN_TABLES simulated releases).
DESIGN_TABLES = 40


def occupied_l1(counts: np.ndarray, scale: float, tau: float, noise: str, g: Any) -> np.ndarray:
    """ℓ1 error on the occupied cells of one thresholded release per row of ``counts``: cell c released as c + Z
    when c + Z > τ, else 0 (error |Z| or c) — the release's own rule (no rounding), Z its noise (Laplace(b), or the
    two-sided geometric P(Z = k) ∝ a^|k|, a = e^(−1/b), as G₁ − G₂ of two Geometric failure counts)."""
    c = np.asarray(counts, dtype=float)
    if noise == "geometric":
        a = math.exp(-1.0 / scale)
        z = (g.geometric(1 - a, size=c.shape) - g.geometric(1 - a, size=c.shape)).astype(float)
    else:
        z = g.laplace(0.0, scale, size=c.shape)
    return np.where(c + z > tau, np.abs(z), c).sum(axis=1)


def _threshold_spread(config: Any, scale: float, tau: float, n: int, q: Any, rng: Any, name: str,
                      label: str) -> ErrorLaw:
    """The thresholded histogram's WHOLE ℓ1 error (suppressed occupied cells included), on public count designs
    (:func:`count_designs`: n records in q cells, counts 1 + Multinomial(n − q, Dirichlet(0.3))): on each, the
    empty cells' exact law (:func:`dpcore.preview.threshold_l1`, p − q cells) plus the occupied cells' error
    simulated with the release's noise, the same measure as Laplace's (ℓ1 over all p cells)."""
    g = as_generator(rng)
    laws = []
    for i, qd in enumerate(count_designs(config.p, n, q)):
        work, most = (THRESHOLD_WORK, DEFAULT_REPS * 5) if i == 0 else (THRESHOLD_WORK / 5, DEFAULT_REPS)
        reps = int(max(MIN_REPS if i == 0 else MIN_REPS // 4, min(most, work // qd)))
        counts = design_counts(max(n, qd), qd, reps, g.spawn(1)[0])
        empty = threshold_l1(config.p - qd, scale, tau, noise=config.noise, reps=reps, rng=g.spawn(1)[0]) \
            if config.p > qd else None
        errs = occupied_l1(counts, scale, tau, config.noise, g.spawn(1)[0])
        errs = errs + (empty.samples if empty is not None else 0.0)
        design = (f"n = {n:,} records in q = {qd:,} of the p = {config.p:,} cells, counts 1 + Multinomial(n − q, "
                  f"Dirichlet({CONCENTRATION:g}))")
        laws.append((f"q = {qd:,}", from_samples(
            errs, name, label, "ℓ1 over all p cells (records)",
            f"simulated: {reps:,} releases on {min(reps, DESIGN_TABLES)} tables drawn from a public design of counts "
            f"({design}; seeded): the empty cells' "
            f"false positives (each τ + Exp(b), τ = {tau:.4g}) plus the occupied cells, released as c + noise when "
            "above τ and as 0 (an error of c) when suppressed; on your table it depends on how the counts spread")))
    return over_designs(laws)


def twin_errors(name: str, config: Any, *, n: int, d: int, reps: int, rng: Any, q: Any = None,
                **_: Any) -> tuple[np.ndarray, int, str]:
    """"Check the preview" (:func:`dpcore.preview_check.check_preview`): ``reps`` releases, each on its own
    simulated twin — a table drawn with ``rng`` from the preview's first count design (:func:`count_designs`),
    as the preview averages over that design's tables — and their ℓ1 errors over all p cells: the thresholded
    release's own sampler; Laplace's per-cell draw (at most :data:`MAX_TWIN_DRAWS` cells over the releases)."""
    g = as_generator(rng)
    qd = count_designs(config.p, n, q)[0]
    twin = (f"{reps} tables drawn afresh, one per release: n = {n:,} records in q = {qd:,} of p = {config.p:,} "
            f"cells, counts 1 + Multinomial(n − q, Dirichlet({CONCENTRATION:g}))")
    if name != "histograms/threshold" and config.p * reps > MAX_TWIN_DRAWS:
        raise DPValueError(f"p = {config.p:,} cells × {reps} releases is too many dense Laplace draws to check here "
                           f"(at most {MAX_TWIN_DRAWS:,}); its preview is exact (no design involved).")
    errors = []
    for s in g.spawn(int(reps)):
        table = sparse_table(config.p, qd, max(n, qd), concentration=CONCENTRATION, rng=s.spawn(1)[0])
        if name == "histograms/threshold":
            cal = calibrate_threshold(config, data_shape(table))
            errors.append(batch_errors(sample_threshold(table, cal, 1, s), table)["l1"][0])
        else:
            hcfg = HistogramConfig(config.epsilon, config.p, config.neighbours, config.noise)
            x = sample_histogram(table, calibrate_histogram(hcfg, data_shape(table)), 1, s)[0]
            errors.append(float(np.abs(x - table.to_dense()).sum()))
    return np.asarray(errors, dtype=float), 0, twin


#: Most dense Laplace draws (p × releases) of a twin check.
MAX_TWIN_DRAWS = 2 ** 24

"""The audit page's computations: neighbouring-pair presets and edits, a chunked run with progress, summaries.

Nothing here is a second harness: :func:`run` draws each chunk with :func:`dpcore.audit.run_audit`
(the declared sampler, the mutant's calibration override) and applies the one Clopper–Pearson test
:func:`dpcore.audit.harness.audit` to all chunks together — the test suite's code path. With one chunk
and no progress callback it *is* ``run_audit`` (same seed, same numbers as the tests).

A dataset of an audit is an array (records along axis 0) or a tuple of arrays with the same number
of records (e.g. ``(X, y)``); :func:`records` flattens it to one row per record so the page can show
and edit the records where D and D′ differ. Edits touch only those records, so an edited pair stays
neighbouring under the audit's replace-one relation.

>>> from dpcore import registry
>>> a = registry.audits()["noise/laplace"]
>>> sorted(presets(a))[:2]
['Declared pair (records on the clamping boundary)', 'Identical (D′ = D: nothing to detect)']
>>> r = run(a, n=20_000, chunks=4)
>>> r.result.rejected, r.outputs[0].shape
(False, (20000,))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from .._rng import RNGLike, as_generator, spawn
from .._validation import check_delta, check_epsilon, check_int
from ..errors import Cancelled, DPValueError
from . import MAX_AUDIT_SAMPLES, Audit, AuditRun, run_audit
from .harness import ALPHA as AUDIT_ALPHA
from .harness import AuditResult, audit, clopper_pearson_lower, clopper_pearson_upper

__all__ = ["PAGE_SAMPLE_FACTOR", "sample_cap", "default_samples", "check_samples", "records", "rebuild", "columns", "differing",
           "presets", "pair_table", "apply_table", "run", "AuditSummary", "summarize", "DECLARED"]

#: The page may draw up to this many times the test suite's sample size (and never over MAX_AUDIT_SAMPLES).
PAGE_SAMPLE_FACTOR = 4
DECLARED = "Declared pair (records on the clamping boundary)"
SWAPPED = "Swapped (D and D′ exchanged)"
PARTWAY = "Part-way (D′ moved 60 % back towards D: sensitivity not attained)"
IDENTICAL = "Identical (D′ = D: nothing to detect)"


def sample_cap(audit_: Audit) -> int:
    """Largest sample size per dataset the page runs for ``audit_`` (protects a shared server): at most
    PAGE_SAMPLE_FACTOR × the suite's size, MAX_AUDIT_SAMPLES, and the time model's cap
    (:func:`dpcore.audit.cost.time_cap`: n × measured seconds per sample under the interaction budget)."""
    from .cost import time_cap
    return int(min(MAX_AUDIT_SAMPLES, PAGE_SAMPLE_FACTOR * audit_.n_samples, max(time_cap(audit_.id), 1_000)))


def default_samples(audit_: Audit) -> int:
    """The page's starting sample size: the suite's, or the cap when the time model caps it lower."""
    return min(audit_.n_samples, sample_cap(audit_))


def check_samples(audit_: Audit, n: Any) -> int:
    """``n`` as an int, or a DPValueError naming the value and the cap."""
    n = check_int(n, "sample size n")
    cap = sample_cap(audit_)
    if not 1_000 <= n <= cap:
        from .cost import RUN_SECONDS, seconds_per_sample
        raise DPValueError(f"sample size n = {n:,} per dataset is outside 1,000 … {cap:,} for this audit (the cap: "
                           f"the least of {PAGE_SAMPLE_FACTOR} × the test suite's {audit_.n_samples:,}, "
                           f"{MAX_AUDIT_SAMPLES:,} and the time model's {RUN_SECONDS:g} s / "
                           f"{seconds_per_sample(audit_.id):.3g} s per sample); lower n.")
    return n


# -- datasets as record tables --------------------------------------------------------------------
def _parts(data: Any) -> list[np.ndarray]:
    parts = [np.asarray(p) for p in (data if isinstance(data, tuple) else (data,))]
    m = {len(p) for p in parts}
    if len(m) != 1:
        raise DPValueError(f"the parts of a dataset hold different numbers of records: {sorted(m)}.")
    return parts


def columns(data: Any) -> list[str]:
    """Column names of :func:`records` (``x1 … xd`` for the first part, ``y`` for a second one)."""
    parts = _parts(data)
    names = []
    for i, p in enumerate(parts):
        w = 1 if p.ndim == 1 else int(np.prod(p.shape[1:]))
        base = "value" if len(parts) == 1 and w == 1 else ("x" if i == 0 else "y" if i == 1 else f"part{i + 1}_")
        names += [base] if w == 1 else [f"{base}{j + 1}" for j in range(w)]
    return names


def records(data: Any) -> np.ndarray:
    """One row per record (float), the parts side by side."""
    return np.column_stack([p.reshape(len(p), -1).astype(float) for p in _parts(data)])


def rebuild(like: Any, table: np.ndarray) -> Any:
    """The inverse of :func:`records`: a dataset shaped and typed like ``like`` holding ``table``."""
    parts, out, j = _parts(like), [], 0
    for p in parts:
        w = 1 if p.ndim == 1 else int(np.prod(p.shape[1:]))
        block = np.asarray(table[:, j:j + w], dtype=float).reshape(p.shape)
        if np.issubdtype(p.dtype, np.integer):
            if not np.all(block == np.round(block)):
                raise DPValueError("these records are integer codes: type whole numbers.")
            block = block.astype(p.dtype)
        out.append(block)
        j += w
    return tuple(out) if isinstance(like, tuple) else out[0]


def differing(pair: tuple[Any, Any]) -> np.ndarray:
    """Indices of the records where D and D′ differ."""
    a, b = records(pair[0]), records(pair[1])
    if a.shape != b.shape:
        raise DPValueError(f"D has {a.shape[0]} records and D′ {b.shape[0]}: a replace-one pair has the same number.")
    return np.flatnonzero(np.any(a != b, axis=1))


def presets(audit_: Audit) -> dict[str, tuple[Any, Any]]:
    """Named neighbouring pairs: the declared one (sensitivity attained), swapped, part-way (real-valued
    records only: D′'s differing records moved 60 % of the way back to D's), identical (D′ = D).

    Not exactly half-way: the declared events of some audits put a threshold at half the sensitivity,
    and a pair at exactly that distance makes floating-point ties decide the event (the audit then
    measures rounding, not the mechanism)."""
    d, dp = audit_.datasets
    out = {DECLARED: (d, dp), SWAPPED: (dp, d)}
    if all(np.issubdtype(p.dtype, np.floating) for p in _parts(d)):
        moved, idx = records(dp), differing((d, dp))
        moved[idx] = 0.6 * records(d)[idx] + 0.4 * moved[idx]
        out[PARTWAY] = (d, rebuild(dp, moved))
    out[IDENTICAL] = (d, d)
    return out


def pair_table(audit_: Audit, pair: tuple[Any, Any]) -> pd.DataFrame:
    """The records that differ between the declared D and D′ (rows "D" and "D′" per record), as in ``pair``."""
    idx = differing(audit_.datasets)
    cols = columns(pair[0])
    frames = []
    for name, data in (("D", pair[0]), ("D′", pair[1])):
        f = pd.DataFrame(records(data)[idx], columns=cols)
        f.insert(0, "record", idx)
        f.insert(0, "dataset", name)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def apply_table(audit_: Audit, table: pd.DataFrame) -> tuple[Any, Any]:
    """The declared pair with the records of ``table`` (as from :func:`pair_table`, possibly edited) put in."""
    out = []
    for name, data in zip(("D", "D′"), audit_.datasets):
        rows = table[table["dataset"] == name]
        recs = records(data).copy()
        vals = rows[columns(data)].to_numpy(dtype=float)
        bad = ~np.isfinite(vals)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise DPValueError(f"{name}, record {int(rows['record'].iloc[r])}, column {columns(data)[c]!r} is empty "
                               "or not a finite number; type a number.")
        recs[rows["record"].to_numpy(int)] = vals
        out.append(rebuild(data, recs))
    return out[0], out[1]


# -- running ----------------------------------------------------------------------------------------
def run(audit_: Audit, *, n: Optional[int] = None, mutant: bool = False, epsilon: Optional[float] = None,
        delta: Optional[float] = None, datasets: Optional[tuple[Any, Any]] = None, rng: RNGLike = None,
        chunks: int = 1, progress: Optional[Callable[[int, int], bool]] = None) -> AuditRun:
    """:func:`run_audit` in ``chunks`` parts with a progress callback ``(done, total) -> bool`` between them.

    Each part is a ``run_audit`` on its own spawned generator; the one Clopper–Pearson test runs on all
    parts together. A callback returning False raises :class:`~dpcore.errors.Cancelled` (nothing returned).
    ``chunks=1`` without a callback is exactly ``run_audit``. ``n`` is capped by :func:`sample_cap`.
    """
    n = check_samples(audit_, default_samples(audit_) if n is None else n)
    eps = check_epsilon(audit_.epsilon if epsilon is None else epsilon, "claimed epsilon")
    dlt = check_delta(audit_.delta if delta is None else delta, "claimed delta", allow_zero=True)
    kw: dict[str, Any] = dict(mutant=mutant, epsilon=eps, delta=dlt, datasets=datasets)
    chunks = max(1, min(int(chunks), n // 500 or 1))
    if chunks == 1 and progress is None:
        return run_audit(audit_, n=n, rng=rng, **kw)
    sizes = [n // chunks + (i < n % chunks) for i in range(chunks)]
    outs: tuple[list, list] = ([], [])
    done = 0
    for m, g in zip(sizes, spawn(as_generator(audit_.seed if rng is None else rng), chunks)):
        part = run_audit(audit_, n=m, rng=g, **kw)
        outs[0].append(part.outputs[0])
        outs[1].append(part.outputs[1])
        done += m
        if progress is not None and progress(done, n) is False:
            raise Cancelled("audit stopped", done=done, total=n)
    out_a, out_b = np.concatenate(outs[0]), np.concatenate(outs[1])
    d_a, d_b = audit_.datasets if datasets is None else datasets
    res = audit(out_a, out_b, audit_.events(d_a, d_b, eps, dlt), epsilon=eps, delta=dlt)
    return AuditRun(audit_, res, bool(mutant), (out_a, out_b))


@dataclass(frozen=True)
class AuditSummary:
    """What the page keeps of a run (small: no raw outputs).

    ``overlay``: a histogram per dataset of the projected outputs (columns ``bin_left, bin_right,
    density_D, density_D′``); ``missing``: the share of non-finite outputs (e.g. ⊥) per dataset;
    ``events``: per event j, the empirical probabilities under D and D′ and the point estimate of the
    privacy loss log(p_D / p_D′) (largest first; the harness's bound uses Clopper–Pearson limits instead);
    ``tradeoff``: every event as a test of D′ against D, in both directions (see :func:`tradeoff_points`).
    """

    result: AuditResult
    mutant: bool
    overlay: pd.DataFrame
    missing: tuple[float, float]
    events: pd.DataFrame
    output_label: str
    tradeoff: pd.DataFrame = field(default_factory=pd.DataFrame)
    gdp_mu: Optional[float] = None


def summarize(run_: AuditRun, *, datasets: Optional[tuple[Any, Any]] = None, bins: int = 60,
              top: int = 12) -> AuditSummary:
    """Histograms of both output samples on common bins and the per-event frequencies (``datasets``: the
    pair the run used, if not the declared one; the events depend on it)."""
    a, b = (np.asarray(x, dtype=float) for x in run_.projected())
    fa, fb = a[np.isfinite(a)], b[np.isfinite(b)]
    both = np.concatenate([fa, fb])
    if both.size == 0:
        edges = np.array([0.0, 1.0])
    elif np.all(both == np.round(both)) and np.unique(both).size <= bins:
        u = np.unique(both)
        edges = np.concatenate([u - 0.5, [u[-1] + 0.5]])
    else:
        lo, hi = np.quantile(both, [0.001, 0.999])
        edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    ha = np.histogram(fa, edges)[0] / max(a.size, 1) / np.diff(edges)
    hb = np.histogram(fb, edges)[0] / max(b.size, 1) / np.diff(edges)
    overlay = pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "density_D": ha, "density_D′": hb})
    d_a, d_b = run_.audit.datasets if datasets is None else datasets  # the run's events, for the table
    res = run_.result
    ev = run_.audit.events(d_a, d_b, res.epsilon, res.delta)
    ea = np.asarray(ev(run_.outputs[0]), dtype=bool).reshape(len(a), -1)
    eb = np.asarray(ev(run_.outputs[1]), dtype=bool).reshape(len(b), -1)
    tradeoff = tradeoff_points(ea.sum(axis=0), eb.sum(axis=0), len(a), len(b), epsilon=res.epsilon, delta=res.delta)
    mu = None if run_.audit.gdp_mu is None else float(run_.audit.gdp_mu(res.epsilon, res.delta))
    pa, pb = ea.mean(axis=0), eb.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.abs(np.log(pa / pb))
    events = pd.DataFrame({"event": np.arange(pa.size), "P(M(D) ∈ S)": pa, "P(M(D′) ∈ S)": pb,
                           "|log ratio| (point estimate)": loss})
    events = events.sort_values("|log ratio| (point estimate)", ascending=False, key=lambda s: s.fillna(-1))
    worst = events[events["event"] == res.worst_event]
    events = pd.concat([worst, events[events["event"] != res.worst_event].head(top - 1)], ignore_index=True)
    missing = (float(np.mean(~np.isfinite(a))) if a.size else 0.0, float(np.mean(~np.isfinite(b))) if b.size else 0.0)
    return AuditSummary(res, run_.mutant, overlay, missing, events, run_.audit.output_label, tradeoff, mu)


def tradeoff_points(k_a: np.ndarray, k_b: np.ndarray, n_a: int, n_b: int, *, epsilon: float, delta: float,
                    alpha: float = AUDIT_ALPHA) -> pd.DataFrame:
    """Each audit event S as a test, in both directions: accuse D when the output falls in S (false-positive
    rate P(M(D′) ∈ S), true-positive rate P(M(D) ∈ S)), and accuse D′ likewise.

    Besides the point estimates, the conservative corner the harness uses — the Clopper–Pearson upper limit of
    the false-positive rate and the lower limit of the true-positive rate, at the harness's Bonferroni level
    α/(4J) — and whether that corner lies above the (ε, δ) curve (``outside``; the harness, which tests
    each event and its complement in both directions, then refutes the claim).

    >>> t = tradeoff_points(np.array([900]), np.array([100]), 1000, 1000, epsilon=1.0, delta=0.0)
    >>> t[["direction", "fpr", "tpr", "outside"]].values.tolist()
    [['accuse D', 0.1, 0.9, True], ['accuse D′', 0.9, 0.1, False]]
    """
    from ..privacy.tradeoff import max_power_dp

    k_a, k_b = np.asarray(k_a, dtype=float), np.asarray(k_b, dtype=float)
    level = alpha / (4 * k_a.size)
    rows = []
    for name, k1, n1, k0, n0 in (("accuse D", k_a, n_a, k_b, n_b), ("accuse D′", k_b, n_b, k_a, n_a)):
        fpr_hi = clopper_pearson_upper(k0, n0, level)
        tpr_lo = clopper_pearson_lower(k1, n1, level)
        rows.append(pd.DataFrame({"event": np.arange(k_a.size), "direction": name, "fpr": k0 / n0, "tpr": k1 / n1,
                                  "fpr_upper": fpr_hi, "tpr_lower": tpr_lo,
                                  "outside": tpr_lo > max_power_dp(fpr_hi, epsilon, delta) + 1e-12}))
    return pd.concat(rows, ignore_index=True)

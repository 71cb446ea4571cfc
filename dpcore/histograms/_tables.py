"""Histogram data: sparse count tables, released (sparse) histograms and error measures (designs: designs.py).

A histogram over a public domain of ``p`` cells is kept sparse: the sorted indices of its ``q``
occupied cells and their counts (:class:`SparseCounts`), so a domain of p = 2^30 cells costs O(q)
memory. Released thresholded histograms are sparse too (:class:`SparseHistogram`; many replicates
at once: :class:`BatchHistogram`, one row per surviving (replicate, cell)).

Reference: Hall (2012), thesis defence slides, Part 1 (sparse histograms); the NLCS-shaped design is
the spec's synthetic stand-in for the NLTCS table (p = 2^16, q = 3 152, n = 21 574), RECONSTRUCTED:
the real table is not available.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_finite_array, check_int
from ..errors import DPValueError

__all__ = ["MAX_P", "MAX_DENSE_CELLS", "SparseCounts", "SparseHistogram",
           "BatchHistogram", "as_counts", "histogram_errors", "batch_errors",
           "dense_errors", "all_zeros_errors"]

#: Largest domain size p (cells are int64 indices; replicate × cell keys must fit in 63 bits).
MAX_P = 2**40
#: Largest p for which a length-p vector is materialised (dense paths: Laplace, the naive threshold).
MAX_DENSE_CELLS = 2**24


def check_p(p: Any, name: str = "p") -> int:
    """A domain size 2 ≤ p ≤ 2^40."""
    return check_int(p, name, lo=2, hi=MAX_P)


@dataclass(frozen=True, eq=False)
class SparseCounts:
    """The true cell counts of a dataset over a public domain of ``p`` cells, stored sparsely.

    Attributes
    ----------
    p : int
        Domain size (public).
    cells : ndarray of int64
        Sorted, distinct indices of the occupied cells (in [0, p)).
    counts : ndarray of int64
        Their counts (all ≥ 1). n = Σ counts (public under replace-one neighbours).
    """

    p: int
    cells: np.ndarray
    counts: np.ndarray

    def __post_init__(self):
        p = check_p(self.p)
        cells = np.asarray(self.cells, dtype=np.int64).reshape(-1)
        counts = np.asarray(self.counts).reshape(-1)
        if cells.shape != counts.shape:
            raise DPValueError(f"cells ({cells.size}) and counts ({counts.size}) must have the same length.")
        if counts.size and (not np.all(np.isfinite(counts.astype(float))) or np.any(counts != np.round(counts))
                            or counts.min() < 1):
            raise DPValueError("counts of occupied cells must be whole numbers ≥ 1.")
        if cells.size and (cells.min() < 0 or cells.max() >= p):
            bad = cells[(cells < 0) | (cells >= p)][0]
            raise DPValueError(f"cell index {int(bad)} is outside the domain [0, p) with p = {p}; raise p or fix "
                               "the cell.")
        if cells.size > 1 and np.any(np.diff(cells) <= 0):
            raise DPValueError("cells must be sorted and distinct (use SparseCounts.from_records).")
        cells.setflags(write=False)
        counts = counts.astype(np.int64)
        counts.setflags(write=False)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "counts", counts)

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.counts.sum())

    @property
    def q(self) -> int:
        """Number of occupied cells (NOT private: a non-private diagnostic)."""
        return int(self.cells.size)

    def to_dense(self) -> np.ndarray:
        """The length-p count vector (p ≤ :data:`MAX_DENSE_CELLS`)."""
        _check_dense(self.p)
        out = np.zeros(self.p, dtype=np.int64)
        out[self.cells] = self.counts
        return out

    @classmethod
    def from_records(cls, records: Any, p: int) -> "SparseCounts":
        """Counts of integer records (cell indices in [0, p))."""
        r = np.asarray(records).reshape(-1)
        if r.dtype.kind not in "iu":
            r = check_finite_array(r, "records (cell indices)", min_rows=0)
            if r.size and not np.all(r == np.round(r)):
                raise DPValueError("records must be whole-number cell indices in [0, p).")
        cells, counts = np.unique(r.astype(np.int64), return_counts=True)
        return cls(p, cells, counts)


def _check_dense(p: int) -> None:
    if p > MAX_DENSE_CELLS:
        raise DPValueError(f"p = {p:,} cells is too many to materialise a length-p vector (limit "
                           f"{MAX_DENSE_CELLS:,} = 2^24); use the sparse sampler (thresholded release) instead.")


def as_counts(data: Any, p: int) -> SparseCounts:
    """``data`` as :class:`SparseCounts` over ``p`` cells: a SparseCounts (its p must equal ``p``) or
    integer records (cell indices)."""
    if isinstance(data, SparseCounts):
        if data.p != p:
            raise DPValueError(f"the table has p = {data.p:,} cells but the config says p = {p:,}; use the same p.")
        return data
    return SparseCounts.from_records(data, p)


@dataclass(frozen=True, eq=False)
class SparseHistogram:
    """A released histogram that is zero outside ``cells`` (a thresholded release).

    Attributes
    ----------
    p : int
    cells : ndarray of int64
        Sorted indices of the released non-zero cells.
    values : ndarray of float
        Their released values.
    tau : float
        The threshold used (public, or derived from the released noisy q̂).
    q_hat : float or None
        The released noisy number of occupied cells (only with ``tau_rule="noisy q"``).
    """

    p: int
    cells: np.ndarray
    values: np.ndarray
    tau: float
    q_hat: float | None = None

    @property
    def nnz(self) -> int:
        return int(self.cells.size)

    def to_dense(self) -> np.ndarray:
        _check_dense(self.p)
        out = np.zeros(self.p)
        out[self.cells] = self.values
        return out

    def __array__(self, dtype=None, copy=None):
        out = self.to_dense()
        return out if dtype is None else out.astype(dtype)


@dataclass(frozen=True, eq=False)
class BatchHistogram:
    """``reps`` independent thresholded releases in coordinate form, sorted by (replicate, cell).

    Attributes
    ----------
    reps, p : int
    rep, cells : ndarray of int64
        Replicate and cell of each surviving entry.
    values : ndarray of float
    tau : ndarray, shape (reps,)
        Threshold of each replicate.
    q_hat : ndarray or None
        Released noisy q̂ of each replicate (``tau_rule="noisy q"``).
    """

    reps: int
    p: int
    rep: np.ndarray
    cells: np.ndarray
    values: np.ndarray
    tau: np.ndarray
    q_hat: np.ndarray | None = None

    def replicate(self, i: int) -> SparseHistogram:
        lo, hi = np.searchsorted(self.rep, [i, i + 1])
        qh = None if self.q_hat is None else float(self.q_hat[i])
        return SparseHistogram(self.p, self.cells[lo:hi].copy(), self.values[lo:hi].copy(), float(self.tau[i]), qh)

    def to_dense(self) -> np.ndarray:
        """(reps, p) array (small p only: audits and goodness-of-fit tests)."""
        _check_dense(self.p * max(self.reps, 1))
        out = np.zeros((self.reps, self.p))
        out[self.rep, self.cells] = self.values
        return out

    def nnz(self) -> np.ndarray:
        """Number of released cells per replicate."""
        return np.bincount(self.rep, minlength=self.reps)


# -- errors ----------------------------------------------------------------------------------------------------
def dense_errors(values: np.ndarray, truth: SparseCounts) -> dict[str, np.ndarray]:
    """ℓ1, ℓ2, max errors and false positives of dense releases ``values`` (reps, p) (or (p,))."""
    v = np.atleast_2d(np.asarray(values, dtype=float))
    d = v.copy()
    d[:, truth.cells] -= truth.counts
    l2 = np.sqrt(np.einsum("ij,ij->i", d, d))
    np.abs(d, out=d)                                  # in place: one (reps, p) temporary in all
    fp = np.count_nonzero(v, axis=1) - np.count_nonzero(v[:, truth.cells], axis=1)
    return {"l1": d.sum(axis=1), "l2": l2, "max": d.max(axis=1), "false_positives": fp.astype(float)}


def batch_errors(batch: BatchHistogram, truth: SparseCounts) -> dict[str, np.ndarray]:
    """ℓ1, ℓ2, max errors and false positives (released non-zero cells that are empty in the data) of
    each replicate of a sparse batch, in O(reps·q + entries)."""
    R, q = batch.reps, truth.q
    c = truth.counts.astype(float)
    idx = np.searchsorted(truth.cells, batch.cells)
    idx_c = np.minimum(idx, max(q - 1, 0))
    occ = (idx < q) & (truth.cells[idx_c] == batch.cells) if q else np.zeros(batch.cells.size, bool)
    released = np.zeros((R, q))
    has = np.zeros((R, q), dtype=bool)
    released[batch.rep[occ], idx_c[occ]] = batch.values[occ]
    has[batch.rep[occ], idx_c[occ]] = True
    dev = np.abs(released - c[None, :])                      # unreleased occupied cells: error = count
    fp_v = np.abs(batch.values[~occ])
    fp_r = batch.rep[~occ]
    l1 = dev.sum(axis=1) + np.bincount(fp_r, weights=fp_v, minlength=R)
    l2 = np.sqrt((dev ** 2).sum(axis=1) + np.bincount(fp_r, weights=fp_v ** 2, minlength=R))
    mx = dev.max(axis=1) if q else np.zeros(R)
    fp_max = np.zeros(R)
    np.maximum.at(fp_max, fp_r, fp_v)
    fps = np.bincount(fp_r, minlength=R).astype(float)
    return {"l1": l1, "l2": l2, "max": np.maximum(mx, fp_max), "false_positives": fps,
            "missed": (~has).sum(axis=1).astype(float)}


def histogram_errors(value: Any, truth: SparseCounts) -> dict[str, float]:
    """Errors of one release (a SparseHistogram or a dense vector) against the true counts."""
    if isinstance(value, SparseHistogram):
        b = BatchHistogram(1, value.p, np.zeros(value.nnz, np.int64), value.cells, value.values,
                           np.array([value.tau]))
        e = batch_errors(b, truth)
    else:
        e = dense_errors(value, truth)
    return {k: float(v[0]) for k, v in e.items()}


def all_zeros_errors(truth: SparseCounts) -> dict[str, float]:
    """Errors of the all-zeros output (ℓ1 error exactly n): the reference every release should beat."""
    c = truth.counts.astype(float)
    return {"l1": float(c.sum()), "l2": float(np.sqrt((c ** 2).sum())), "max": float(c.max(initial=0.0)),
            "false_positives": 0.0}

"""Designs of the histogram figures: sparse tables over a public domain, and the NLCS-shaped table.

Reference: Hall (2012), thesis defence slides, Part 1 (sparse histograms); the NLCS-shaped design is
the spec's synthetic stand-in for the NLTCS table (p = 2^16, q = 3 152, n = 21 574), RECONSTRUCTED:
the real table is not available.
"""
from __future__ import annotations

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_int, check_positive
from ._tables import SparseCounts, check_p

__all__ = ["NLCS_P", "NLCS_Q", "NLCS_N", "sparse_table", "nlcs_shaped"]

#: The NLCS/NLTCS table's shape (Hall's slide): 16 binary items, occupied cells, people.
NLCS_P, NLCS_Q, NLCS_N = 2**16, 3152, 21_574


def sparse_table(p: int, q: int, n: int, *, concentration: float = 0.3, rng: RNGLike = None) -> SparseCounts:
    """A sparse table: q distinct cells uniformly among p, counts 1 + Multinomial(n − q, Dirichlet(a·1_q)).

    The spec's recipe for the NLCS stand-in (§1.5, RECONSTRUCTED): every chosen cell is occupied and
    a small concentration a makes the counts heavily skewed.
    """
    p = check_p(p)
    q = check_int(q, "q", lo=1, hi=min(p, 10**7))
    n = check_int(n, "n", lo=q, hi=10**9)
    a = check_positive(concentration, "concentration")
    g = as_generator(rng)
    cells = np.sort(g.choice(p, size=q, replace=False).astype(np.int64))
    w = g.dirichlet(np.full(q, a)) if q > 1 else np.ones(1)
    counts = 1 + g.multinomial(n - q, w)
    return SparseCounts(p, cells, counts)


def nlcs_shaped(*, rng: RNGLike = 20120516) -> SparseCounts:
    """The synthetic NLCS-shaped table: p = 2^16, q = 3 152, n = 21 574, a = 0.3 (public seed).

    A stand-in with the NLTCS table's shape, not the survey itself (spec §1.5; label it
    "synthetic NLCS-shaped").
    """
    return sparse_table(NLCS_P, NLCS_Q, NLCS_N, concentration=0.3, rng=rng)

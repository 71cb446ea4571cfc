"""Explicit randomness: every random function in dpcore takes ``rng``.

``rng`` may be ``None`` (fresh OS entropy), an ``int`` seed, a
``numpy.random.SeedSequence`` or a ``numpy.random.Generator``.  There is no
global random state anywhere in the package.
"""
from __future__ import annotations

from typing import Sequence, Union, cast

import numpy as np

RNGLike = Union[None, int, np.integer, np.random.SeedSequence, np.random.Generator]


def as_generator(rng: RNGLike = None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng`` (a Generator is returned as is)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng must be None, an int seed or a numpy Generator; got the bool {rng!r}.")
    if rng is None or isinstance(rng, (int, np.integer, np.random.SeedSequence)):
        if isinstance(rng, (int, np.integer)) and int(rng) < 0:
            raise ValueError(f"rng seed must be a non-negative integer; got {int(rng)}.")
        return np.random.default_rng(rng)
    raise TypeError(
        f"rng must be None, an int seed, a SeedSequence or a numpy Generator; got {type(rng).__name__}."
    )


def spawn(rng: RNGLike, k: int) -> list[np.random.Generator]:
    """Return ``k`` statistically independent generators derived from ``rng``.

    Spawning from an int seed is deterministic: ``spawn(7, 3)`` always returns the
    same three streams, and stream ``i`` does not depend on ``k``.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0; got {k}.")
    if isinstance(rng, np.random.Generator):
        return list(rng.spawn(k))
    if isinstance(rng, np.random.SeedSequence):
        ss = rng
    else:
        if rng is not None and not isinstance(rng, (int, np.integer)):
            raise TypeError(f"rng must be None, an int seed, a SeedSequence or a Generator; got {type(rng).__name__}.")
        ss = np.random.SeedSequence(None if rng is None else int(rng))
    return [np.random.default_rng(child) for child in ss.spawn(k)]


def seed_sequence_for(seed: int, *key: int) -> np.random.SeedSequence:
    """A SeedSequence determined by ``seed`` and an integer key path (e.g. (n, rep)).

    Used where results must depend only on the seed and the task's identity, not on
    how tasks are grouped or how many worker processes run them.
    """
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))


def generators_for(rng: RNGLike | Sequence[np.random.Generator], k: int) -> list[np.random.Generator]:
    """``k`` generators: ``rng`` itself if it is already a sequence of ``k`` generators, else ``spawn(rng, k)``."""
    if isinstance(rng, (list, tuple)):
        if len(rng) != k or not all(isinstance(g, np.random.Generator) for g in rng):
            raise ValueError(f"expected a list of {k} numpy Generators (one per chain); got {len(rng)} items.")
        return list(rng)
    return spawn(cast(RNGLike, rng), k)

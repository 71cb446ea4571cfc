"""Mironov's support test (dpcore.audit.floating): the naive float Laplace release is broken with certainty in a
measurable fraction of 10 000 releases; the hardened grid + exact discrete Laplace release never is."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.audit.floating import floating_point_attack, naive_support_contains
from dpcore.errors import DPValueError


def test_naive_release_is_identified_and_hardened_never():
    r = floating_point_attack(0.0, 1.0, epsilon=1.0, releases=10_000, rng=2026)
    assert r.naive_unexplained == 0            # the model of numpy's sampler reproduces every naive output
    assert r.naive_identified > 0
    assert r.per_10000("naive") > 100          # Mironov 2012: a large fraction, not a rare event
    assert r.hardened_identified == 0


def test_support_model_is_exact_on_numpy_draws_and_separates_neighbours():
    g = np.random.default_rng(4)
    ys = g.laplace(0.0, 2.0, 300)
    assert all(naive_support_contains(float(y), 0.0, 2.0) for y in ys)
    # a double just next to a reachable tiny output is not reachable from x = 0 at b = 2 (gaps of the log grid)
    y = float(ys[np.argmax(np.abs(ys))])
    gaps = [naive_support_contains(math.nextafter(y, math.inf) if k else math.nextafter(y, -math.inf), 0.0, 2.0)
            for k in (0, 1)]
    assert not all(gaps)
    # an output of x = 0 with |y| < 2^-60 is a double 1 + n can never round to: certain identification of D
    assert not naive_support_contains(2.0**-70, 1.0, 2.0)


def test_attack_refuses_bad_input_naming_it():
    with pytest.raises(DPValueError, match="x_prime"):
        floating_point_attack(1.0, 1.0)
    with pytest.raises(DPValueError, match="releases"):
        floating_point_attack(0.0, 1.0, releases=10**9)

"""Mironov's (2012) floating-point attack on textbook Laplace noise, and the hardened release it cannot break.

The naive release ``x + rng.laplace(0, b)`` computed in doubles does not have the Laplace law's full support:
numpy draws U = k/2^53 (k a 53-bit integer) and returns ``loc + b·log(U + U)`` (U < ½) or
``loc − b·log(2 − U − U)`` (U ≥ ½) (``random_laplace`` of numpy's distributions.c; ``log`` is the C library's, the
same as Python's :func:`math.log`), and ``x +`` rounds again. The set of doubles reachable from f(D) = x differs
from the set reachable from f(D′) = x′: an output outside the second set identifies D with certainty — the
support test of Mironov, "On significance of the least significant bits for differential privacy" (CCS 2012).

:func:`floating_point_attack` runs that test on ``releases`` outputs of each neighbour, for the naive release
and for the hardened one (:func:`dpcore.exact.grid_laplace`: the statistic rounded to a public power-of-two
grid, plus exact discrete Laplace noise in grid units, whose support is the whole grid whatever the data).
Membership of y in the naive support is decided exactly: within each branch the output is a monotone
non-decreasing function of k (every floating operation is monotone), so a binary search over k finds whether
some k produces y.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_epsilon, check_int
from ..errors import DPValueError
from ..exact import grid_laplace, grid_sensitivity_l1, grid_spacing

__all__ = ["FloatingPointAttack", "floating_point_attack", "naive_support_contains", "MAX_ATTACK_RELEASES"]

#: Largest number of releases per neighbour (the support test is a Python binary search: ~1 s per 10 000).
MAX_ATTACK_RELEASES = 50_000
_HALF = 1 << 52          # k with U = k/2^53 < ½ are 1 … 2^52 − 1; U ≥ ½: 2^52 … 2^53 − 1
_TOP = 1 << 53


def _naive_output(k: int, x: float, b: float) -> float:
    """The double numpy's ``x + Generator.laplace(0, b)`` returns when its uniform is U = k/2^53."""
    u = k * (1.0 / 9007199254740992.0)
    noise = 0.0 + b * math.log(u + u) if k < _HALF else 0.0 - b * math.log(2.0 - u - u)
    return x + noise


def _branch_contains(y: float, x: float, b: float, lo: int, hi: int) -> bool:
    """Whether some k in [lo, hi] gives output y (outputs non-decreasing in k on the branch)."""
    if not _naive_output(lo, x, b) <= y <= _naive_output(hi, x, b):
        return False
    while lo < hi:                          # smallest k with output ≥ y
        mid = (lo + hi) // 2
        if _naive_output(mid, x, b) < y:
            lo = mid + 1
        else:
            hi = mid
    return _naive_output(lo, x, b) == y


def naive_support_contains(y: float, x: float, b: float) -> bool:
    """Whether the naive release ``x + rng.laplace(0, b)`` (numpy's Generator) can output exactly ``y``."""
    return _branch_contains(y, x, b, 1, _HALF - 1) or _branch_contains(y, x, b, _HALF, _TOP - 1)


@dataclass(frozen=True)
class FloatingPointAttack:
    """Outcome of the support test on ``releases`` outputs of each neighbour (f(D) = x, f(D′) = x′).

    ``naive_identified`` / ``hardened_identified``: outputs (over both neighbours, 2 × ``releases``) whose
    dataset the attacker names with certainty (reachable from it, unreachable from the other).
    ``naive_unexplained``: naive outputs the model of numpy's sampler cannot reproduce from their own dataset (0
    when the model is exact; the attack then never errs). ``grid``: the hardened release's public spacing γ.
    """

    x: float
    x_prime: float
    epsilon: float
    releases: int
    naive_identified: int
    hardened_identified: int
    naive_unexplained: int
    grid: float
    scale: float

    def per_10000(self, which: str) -> float:
        """Certain identifications per 10 000 releases of ``which`` ("naive" or "hardened")."""
        count = {"naive": self.naive_identified, "hardened": self.hardened_identified}[which]
        return 10_000.0 * count / (2 * self.releases)


def floating_point_attack(x: float = 0.0, x_prime: float = 1.0, *, epsilon: float = 1.0, releases: int = 10_000,
                          rng: RNGLike = None) -> FloatingPointAttack:
    """Mironov's support test against the naive and the hardened Laplace release of f(D) = x, f(D′) = x′.

    Parameters
    ----------
    x, x_prime : float
        The query's answers on two neighbouring datasets; the sensitivity is Δ = |x − x′| (public), the Laplace
        scale b = Δ/ε.
    epsilon : float
        The claimed ε of both releases.
    releases : int
        Outputs drawn on each neighbour (at most :data:`MAX_ATTACK_RELEASES`).
    rng : RNGLike

    Returns
    -------
    FloatingPointAttack
        Counts of certain identifications: > 0 for the naive release at the default settings (Mironov 2012,
        §3), exactly 0 for the hardened one (its outputs γ·(⌊f/γ + ½⌋ + Z) with Z discrete Laplace cover the
        grid γℤ from every input: each grid point has positive probability under both neighbours).
    """
    x, x_prime = float(x), float(x_prime)
    if not (math.isfinite(x) and math.isfinite(x_prime)) or x == x_prime:
        raise DPValueError(f"x and x_prime must be two different finite answers; got {x!r} and {x_prime!r}.")
    eps = check_epsilon(epsilon)
    releases = check_int(releases, "releases", lo=1, hi=MAX_ATTACK_RELEASES)
    delta = abs(x - x_prime)
    b = delta / eps
    g = as_generator(rng)
    gamma = grid_spacing(delta, b)
    dg = grid_sensitivity_l1(delta, gamma, 1)
    naive = unexplained = hardened = 0
    for own, other in ((x, x_prime), (x_prime, x)):
        for y in own + g.laplace(0.0, b, releases):                 # the textbook release, as numpy computes it
            y = float(y)
            if not naive_support_contains(y, own, b):
                unexplained += 1
            elif not naive_support_contains(y, other, b):
                naive += 1
        hard = grid_laplace(np.full(releases, own), gamma, dg, eps, g)
        on_grid = np.floor(hard / gamma) == hard / gamma            # every grid point: positive mass from both
        hardened += int((~on_grid).sum())
    return FloatingPointAttack(x, x_prime, eps, releases, naive, hardened, unexplained, gamma, b)

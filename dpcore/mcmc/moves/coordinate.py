"""One-at-a-time random-walk Metropolis moves (Metropolis-within-Gibbs), over many chains at once.

A sweep visits the coordinates ``j = 0 .. d-1`` in order; for every coordinate all chains propose
``theta[:, j] + step[:, j] * N(0, 1)`` together, proposals outside the box ``[lower, upper]`` or
the ℓ1 ball of radius ``l1_radius`` are rejected without evaluating the target, and the others
are accepted with probability ``min(1, exp(logp' - logp))`` (Metropolis 1953; one-at-a-time
updates as in Reimherr & Awan 2019, §4 / spec kng.md §4).  Step sizes adapt per chain and per
coordinate during burn-in (:class:`~dpcore.mcmc.driver.StepAdapter`, target acceptance 0.44).

Layout: the state is stored (d, C) so that one coordinate of all chains is contiguous; the target
sees a (C, d) Fortran-ordered view.  :class:`IncrementalCoordinateMove` is the same move on an
:class:`~dpcore.mcmc.IncrementalTarget` (O(d) per move from sufficient statistics), with the same
random numbers and arithmetic on ``theta``, so its chains are bitwise identical to the plain move's.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _checks
from ..driver import StepAdapter
from ..results import IncrementalTarget


def block_size(d: int, C: int, per_chain: bool) -> int:
    """Sweeps per block of pre-drawn random numbers.

    With one generator per chain the block depends on ``d`` only, so that a chain's stream
    of normals and uniforms does not depend on how many chains are batched with it.
    """
    b = max(8, min(128, (1 << 15) // d))
    if not per_chain:
        b = max(1, min(b, (1 << 21) // (d * C)))
    return b


class CoordinateMove:
    """Metropolis-within-Gibbs on a row-wise log density ``(C, d) -> (C,)`` (see the module docstring)."""

    def __init__(self, log_density: Callable[[np.ndarray], np.ndarray] | None, theta0: np.ndarray,
                 step: np.ndarray, gens: np.random.Generator | list[np.random.Generator], *,
                 lo: np.ndarray, hi: np.ndarray, radius: float | None, burn_in: int, adapt: bool,
                 target: float) -> None:
        C, d = theta0.shape
        self.n_chains, self.dim = C, d
        self.log_density = log_density
        self.gens = gens
        self.thetaT = np.ascontiguousarray(theta0.T)
        self.theta = self.thetaT.T                      # (C, d) Fortran-ordered view, updated in place
        self.stepT = np.ascontiguousarray(step.T)       # (d, C)
        self.box_j = [bool(np.isfinite(lo[j]) or np.isfinite(hi[j])) for j in range(d)]
        self.lo_l, self.hi_l = lo.tolist(), hi.tolist()
        self.radius = radius
        self.l1n = np.zeros(C)
        self.burn_in = burn_in
        self.do_adapt = bool(adapt) and burn_in > 0
        self.batch = max(1, min(20, burn_in // 20))
        self.log_stepT = np.log(self.stepT)
        self.adapter = StepAdapter((d, C), target)
        self.last_boundary = 0
        self.cnt = np.zeros((d, C))                     # acceptances in the current batch (burn-in) / post-burn-in
        self.block = block_size(d, C, isinstance(gens, list))
        self.zbuf = np.empty((self.block, d, C))
        self.ubuf = np.empty((self.block, d, C))
        self.lp = self._start(theta0)
        _checks.starts_positive(self.lp, theta0)

    def _start(self, theta0: np.ndarray) -> np.ndarray:
        """Log density (C,) at the start; sets up the proposal buffer the target is evaluated on."""
        self.propT = self.thetaT.copy()
        self.prop = self.propT.T
        assert self.log_density is not None
        return _checks.log_density_values(self.log_density(self.prop), self.n_chains, "log_density")

    def draw(self) -> None:
        """Normals and log-uniforms of one block; exact refresh of the tracked ℓ1 norms (bounds drift)."""
        if isinstance(self.gens, list):
            for c, g in enumerate(self.gens):
                self.zbuf[:, :, c] = g.standard_normal((self.block, self.dim))
                self.ubuf[:, :, c] = g.random((self.block, self.dim))
        else:
            self.gens.standard_normal(out=self.zbuf)
            self.gens.random(out=self.ubuf)
        np.log(self.ubuf, out=self.ubuf)
        if self.radius is not None:
            np.abs(self.thetaT[0], out=self.l1n)
            for j in range(1, self.dim):
                self.l1n += np.abs(self.thetaT[j])

    def sweep(self, t: int, s1: int) -> None:
        """Propose and accept/reject every coordinate in turn (steps change between sweeps only)."""
        increments = self.stepT * self.zbuf[t]          # (d, C)
        log_u = self.ubuf[t]
        for j in range(self.dim):
            self._update(j, increments[j], log_u[j])

    def _feasible(self, j: int, x: np.ndarray, xn: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Which chains' proposals satisfy the constraints (None: no constraint), and their new ℓ1 norms."""
        ok = None
        nn = None
        if self.box_j[j]:
            ok = (xn >= self.lo_l[j]) & (xn <= self.hi_l[j])
        if self.radius is not None:
            nn = self.l1n - np.abs(x) + np.abs(xn)
            ok1 = nn <= self.radius
            ok = ok1 if ok is None else (ok & ok1)
        return ok, nn

    def _update(self, j: int, delta: np.ndarray, log_u: np.ndarray) -> None:
        x = self.thetaT[j]
        xn = x + delta
        ok, nn = self._feasible(j, x, xn)
        if ok is not None:
            delta = np.where(ok, delta, 0.0)            # infeasible: stay put, the target is only evaluated inside
            xn = x + delta
        lpn, pending = self._propose(j, xn, delta)
        acc = log_u < (lpn - self.lp)                   # NaN (from -inf - -inf or a NaN target) rejects
        if ok is not None:
            acc &= ok
        self._commit(j, delta, acc, pending)
        np.copyto(x, xn, where=acc)
        np.copyto(self.lp, lpn, where=acc)
        self._accepted(j, x)
        if nn is not None:
            np.copyto(self.l1n, nn, where=acc)
        self.cnt[j] += acc

    def _propose(self, j: int, xn: np.ndarray, delta: np.ndarray) -> tuple[np.ndarray, Any]:
        """Log density (C,) with coordinate ``j`` moved to ``xn``."""
        self.propT[j] = xn
        assert self.log_density is not None
        return self.log_density(self.prop), None

    def _commit(self, j: int, delta: np.ndarray, acc: np.ndarray, pending: Any) -> None:
        """Nothing to update for a plain target."""

    def _accepted(self, j: int, x: np.ndarray) -> None:
        """Bring the proposal buffer back to the (updated) state."""
        self.propT[j] = x

    def tune(self, s1: int) -> None:
        """Adapt the steps after each batch of burn-in sweeps; reset the counts."""
        if self.do_adapt and (s1 % self.batch == 0 or s1 == self.burn_in):
            nsw = s1 - self.last_boundary
            self.last_boundary = s1
            self.adapter.update(self.log_stepT, self.cnt, nsw)
            np.exp(self.log_stepT, out=self.stepT)
        if s1 == self.burn_in or (self.do_adapt and self.last_boundary == s1):
            self.cnt[...] = 0.0

    def settle(self) -> None:
        """Post-burn-in acceptances accumulate in ``cnt``."""

    def current(self) -> np.ndarray:
        return self.theta

    def acceptance(self, n_post: int) -> tuple[float, np.ndarray]:
        """Post-burn-in acceptance rate overall and per coordinate."""
        acc_coord = self.cnt.sum(axis=1) / (self.n_chains * n_post)
        return float(acc_coord.mean()), acc_coord

    def step_sizes(self) -> np.ndarray:
        return np.ascontiguousarray(self.stepT.T)


class IncrementalCoordinateMove(CoordinateMove):
    """:class:`CoordinateMove` on an :class:`~dpcore.mcmc.IncrementalTarget` (bitwise the same chains)."""

    def __init__(self, incremental: IncrementalTarget, theta0: np.ndarray, step: np.ndarray,
                 gens: np.random.Generator | list[np.random.Generator], **kw: Any) -> None:
        self.incremental = incremental
        super().__init__(None, theta0, step, gens, **kw)

    def _start(self, theta0: np.ndarray) -> np.ndarray:
        self.state, lp = self.incremental.init(theta0.copy())
        return _checks.log_density_values(lp, self.n_chains, "incremental.init")

    def _propose(self, j: int, xn: np.ndarray, delta: np.ndarray) -> tuple[np.ndarray, Any]:
        return self.incremental.propose(self.state, self.theta, j, delta)

    def _commit(self, j: int, delta: np.ndarray, acc: np.ndarray, pending: Any) -> None:
        self.state = self.incremental.commit(self.state, j, delta, acc, pending)

    def _accepted(self, j: int, x: np.ndarray) -> None:
        """No proposal buffer to restore."""

"""The one driver loop every sampler runs, and the step-size adaptation the moves share.

A *move* (see :class:`Move`; the two in :mod:`dpcore.mcmc.moves`) owns the chains' state, its random
numbers and its tuning; the driver owns the schedule: random numbers drawn in full blocks, one sweep
at a time, tuning during burn-in only, thinning into the trace, progress and cancellation.  This is
the structure of emcee's ``moves/`` (Foreman-Mackey et al. 2013) for one-chain-per-row Metropolis.

Adaptation (:class:`StepAdapter`): a Robbins–Monro recursion on the log step with Kesten's (1958)
gain rule, after each batch of ``n`` sweeps with acceptance rate ``r``:
``log s += g * u(r)`` with the smoothed logit score
``u(r) = log((r+a)/(t+a)) - log((1-r+a)/(1-t+a))``, ``a = 1/n``, ``t`` the target acceptance
(≈ a Newton step for random-walk Metropolis), and gain ``g = (1 + k)^(-0.6)``, ``k`` the number of
sign changes of ``r - t`` so far, with ``g = 1`` when a batch of >= 16 sweeps accepted nothing or
everything — robust to initial steps wrong by many orders of magnitude (Roberts & Rosenthal 2009,
adaptive Metropolis-within-Gibbs).  Frozen after burn-in, so the post-burn-in chain is an ordinary,
valid Markov chain.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

import numpy as np

from .results import MCMCCancelled

#: Bounds on the log step size (keeps exp() finite).
LOG_STEP_MIN, LOG_STEP_MAX = -690.0, 690.0

Progress = Callable[[int, int], Any]


class Move(Protocol):
    """What the driver needs of a move: ``C`` chains of dimension ``d`` advanced one sweep at a time."""

    n_chains: int
    dim: int
    #: Sweeps per block of pre-drawn random numbers.
    block: int

    def draw(self) -> None:
        """Draw the random numbers of one full block of sweeps."""

    def sweep(self, t: int, s1: int) -> None:
        """Sweep ``t`` of the current block (``s1`` sweeps done once it ends, 1-based)."""

    def tune(self, s1: int) -> None:
        """Burn-in bookkeeping after sweep ``s1`` (adaptation)."""

    def settle(self) -> None:
        """Post-burn-in bookkeeping after a sweep (acceptance counts)."""

    def current(self) -> np.ndarray:
        """The (C, d) states recorded in the trace."""


def run(move: Move, *, n_sweeps: int, burn_in: int, thin: int, progress: Progress | None) -> np.ndarray:
    """Advance ``move`` by ``n_sweeps`` sweeps and return the thinned post-burn-in trace (T, C, d).

    Random numbers are drawn in full blocks whatever ``n_sweeps`` is, so the first ``k`` sweeps
    of a run do not depend on ``n_sweeps``.  Floating-point warnings from the target (log 0,
    inf − inf) are silenced: −inf and NaN log densities simply reject.  ``progress(done, total)``
    is called after every block; returning ``False`` raises :class:`~dpcore.errors.Cancelled`.
    """
    trace = np.empty(((n_sweeps - burn_in) // thin, move.n_chains, move.dim))
    i_keep = 0
    done = 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while done < n_sweeps:
            move.draw()
            nb = min(move.block, n_sweeps - done)
            for t in range(nb):
                s1 = done + t + 1
                move.sweep(t, s1)
                if s1 <= burn_in:
                    move.tune(s1)
                else:
                    move.settle()
                    if (s1 - burn_in) % thin == 0:
                        trace[i_keep] = move.current()
                        i_keep += 1
            done += nb
            if progress is not None and progress(done, n_sweeps) is False:
                raise MCMCCancelled(f"MCMC cancelled after {done} of {n_sweeps} sweeps.", done=done, total=n_sweeps)
    return trace


class StepAdapter:
    """Robbins–Monro/Kesten adaptation of log step sizes of any shape (see the module docstring)."""

    def __init__(self, shape: tuple[int, ...], target: float) -> None:
        self.target = target
        self.kesten = np.zeros(shape)
        self.prev_sign = np.zeros(shape, dtype=bool)
        self.first = True

    def update(self, log_step: np.ndarray, cnt: np.ndarray, n: int) -> None:
        """Update ``log_step`` in place from ``cnt`` acceptances in a batch of ``n`` sweeps."""
        r = cnt / n
        a = 1.0 / n
        target = self.target
        u = np.log((r + a) / (target + a)) - np.log((1.0 - r + a) / (1.0 - target + a))
        sign = r > target
        if not self.first:
            self.kesten += sign != self.prev_sign
        gain = (1.0 + self.kesten) ** -0.6
        if n >= 16:
            gain = np.where((cnt == 0) | (cnt == n), 1.0, gain)
        log_step += gain * u
        np.clip(log_step, LOG_STEP_MIN, LOG_STEP_MAX, out=log_step)
        self.prev_sign[...] = sign
        self.first = False

    def restart(self) -> None:
        """Forget the gain history (after the proposal's shape changed)."""
        self.kesten[...] = 0.0
        self.first = True

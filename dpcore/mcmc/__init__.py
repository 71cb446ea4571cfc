"""Vectorised Metropolis samplers over many chains, as small move objects over one driver loop.

Layout (after emcee's ``moves/``):

* :mod:`~dpcore.mcmc.samplers` — the public samplers :func:`metropolis_within_gibbs` (one coordinate
  at a time) and :func:`preconditioned_metropolis` (whitened directions or full vectors, covariance
  adaptation, parallel tempering): validate, build a move, run, diagnose.
* :mod:`~dpcore.mcmc.moves` — one class per kind of move; each owns its chains' state, random
  numbers and burn-in tuning.
* :mod:`~dpcore.mcmc.driver` — the one loop (blocks of random numbers, sweeps, burn-in tuning,
  thinning, progress/cancel) and the shared Robbins–Monro/Kesten step adaptation.
* :mod:`~dpcore.mcmc.diagnostics` — split R-hat and bulk ESS (Vehtari et al. 2021), pure functions
  of a trace.
* :mod:`~dpcore.mcmc.results` — :class:`MCMCResult`, :class:`MCMCDiagnostics`, :class:`IncrementalTarget`.

Privacy note (spec kng.md §4): the sampler's output is only *approximately* distributed as
the target; the diagnostics are computed from private data and are non-private.

Examples
--------
>>> import numpy as np
>>> res = metropolis_within_gibbs(lambda x: -0.5 * (x * x).sum(axis=1), np.zeros((4, 2)),
...                               n_sweeps=400, rng=0)
>>> res.final.shape, res.trace.shape, res.diagnostics.n_chains
((4, 2), (200, 4, 2), 4)
"""
from .diagnostics import _average_ranks  # noqa: F401  (tests check the tie-aware ranking)
from .diagnostics import acceptance_rate, effective_sample_size, per_chain_rhat_ess, split_rhat
from .results import IncrementalTarget, MCMCCancelled, MCMCDiagnostics, MCMCResult
from .samplers import metropolis_within_gibbs, preconditioned_metropolis

__all__ = [
    "IncrementalTarget",
    "MCMCCancelled",
    "MCMCDiagnostics",
    "MCMCResult",
    "metropolis_within_gibbs",
    "preconditioned_metropolis",
    "split_rhat",
    "effective_sample_size",
    "per_chain_rhat_ess",
    "acceptance_rate",
]

"""What the samplers return (:class:`MCMCResult`, :class:`MCMCDiagnostics`) and the incremental-target hook."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import Cancelled as MCMCCancelled  # one Cancelled type for dpcore

__all__ = ["IncrementalTarget", "MCMCCancelled", "MCMCDiagnostics", "MCMCResult"]


@runtime_checkable
class IncrementalTarget(Protocol):
    """Optional hook for targets with sufficient statistics: O(d) work per coordinate move.

    ``init(theta)``: ``theta`` (C, d) -> ``(state, logp)`` with ``logp`` of shape (C,).
    ``propose(state, theta, j, delta)``: log density (C,) at ``theta`` with
    ``theta[:, j] += delta`` (``theta`` itself is NOT modified), plus any ``pending`` object
    (e.g. the proposed sufficient statistic) that ``commit`` may reuse.
    ``commit(state, j, delta, accept, pending)``: update ``state`` for the chains where
    ``accept`` (bool (C,)) is True and return the new state (in-place mutation allowed).

    ``delta`` is 0 for chains whose proposal violated a constraint (those are never accepted),
    so the target is never evaluated outside the constraint set.
    """

    def init(self, theta: np.ndarray) -> tuple[Any, np.ndarray]: ...

    def propose(self, state: Any, theta: np.ndarray, j: int, delta: np.ndarray) -> tuple[np.ndarray, Any]: ...

    def commit(self, state: Any, j: int, delta: np.ndarray, accept: np.ndarray, pending: Any) -> Any: ...


@dataclass(frozen=True)
class MCMCDiagnostics:
    """Post-burn-in diagnostics (computed from the data: non-private, never part of a release).

    ``rhat`` is the rank-normalised split R-hat (max of bulk and folded/tail versions,
    Vehtari et al. 2021); ``ess`` the rank-normalised bulk effective sample size over all
    chains (Geyer's initial monotone sequence on the multi-chain autocorrelation).

    Examples
    --------
    >>> import numpy as np
    >>> d = MCMCDiagnostics(acceptance=0.4, acceptance_per_coord=np.array([0.4]), rhat=np.array([1.002]),
    ...                     ess=np.array([850.0]), n_chains=4, n_sweeps=2000, burn_in=1000)
    >>> d.mixed(), d.max_rhat, d.min_ess
    (True, 1.002, 850.0)
    """

    acceptance: float
    acceptance_per_coord: np.ndarray
    rhat: np.ndarray
    ess: np.ndarray
    n_chains: int
    n_sweeps: int
    burn_in: int
    #: Parallel tempering only: swap acceptance rate between neighbouring temperatures (K − 1,).
    swap_rates: np.ndarray | None = None

    @property
    def max_rhat(self) -> float:
        """Largest R-hat over coordinates (NaN if any coordinate's R-hat is not computable)."""
        r = np.asarray(self.rhat, dtype=float)
        return float(np.max(r)) if r.size else float("nan")

    @property
    def min_ess(self) -> float:
        """Smallest ESS over coordinates (NaN if any coordinate's ESS is not computable)."""
        e = np.asarray(self.ess, dtype=float)
        return float(np.min(e)) if e.size else float("nan")

    def mixed(self, max_rhat: float = 1.05, min_ess: float = 100.0) -> bool:
        """True iff every R-hat <= ``max_rhat`` and every ESS >= ``min_ess`` (NaN counts as failure)."""
        return bool(self.max_rhat <= max_rhat and self.min_ess >= min_ess)

    def summary(self) -> dict[str, Any]:
        """Plain-Python summary for display."""
        return {
            "acceptance": float(self.acceptance),
            "max_rhat": self.max_rhat,
            "min_ess": self.min_ess,
            "n_chains": int(self.n_chains),
            "n_sweeps": int(self.n_sweeps),
            "burn_in": int(self.burn_in),
            "mixed": self.mixed(),
        }


@dataclass(frozen=True)
class MCMCResult:
    """Output of :func:`~dpcore.mcmc.metropolis_within_gibbs` and :func:`~dpcore.mcmc.preconditioned_metropolis`.

    ``final`` (C, d): last state of every chain (the only thing a DP release may use, one
    state per chain).  ``trace`` (T, C, d): post-burn-in states every ``thin`` sweeps, or
    ``None`` when ``keep_trace=False``.  ``step_size`` (C, d): proposal scales after adaptation.
    """

    final: np.ndarray
    trace: np.ndarray | None
    step_size: np.ndarray
    diagnostics: MCMCDiagnostics

"""Statistical privacy audits, declared as data by each topic and run by the tests and the audit page.

A topic declares, in its ``declare.py``, one :class:`Audit` per claim it wants checked: two
neighbouring datasets, a vectorised sampler of the mechanism's outputs, the events, the claimed
(ε, δ), and a :class:`Mutant` — a deliberately broken variant given as a *calibration override*
(a function ``Calibration -> Calibration`` handed to the sampler), never a patch of module state,
so audits can run concurrently in one server. :func:`run_audit` draws the samples and applies the
Clopper–Pearson test of :mod:`dpcore.audit.harness`; the test suite runs every declared audit and
requires the correct mechanism to pass and its mutant to be rejected.

>>> from dpcore.audit import audit, halfline_events
>>> import numpy as np
>>> g = np.random.default_rng(0)
>>> a, b = g.laplace(0, 1, 20_000), g.laplace(1, 1, 20_000)   # Laplace, Δ = 1, ε = 1
>>> audit(a, b, halfline_events([0.5]), epsilon=1.0).rejected
False
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from .._rng import RNGLike, as_generator, spawn
from ..errors import DPValueError
from ..mechanism import Calibration
from .floating import FloatingPointAttack, floating_point_attack
from .harness import (AuditResult, Events, assert_passes, assert_rejected, audit, clopper_pearson_lower,
                      clopper_pearson_upper, halfline_events, llr_events, singleton_events)

__all__ = ["Audit", "Mutant", "AuditRun", "run_audit", "AuditResult", "Events", "audit", "halfline_events",
           "llr_events", "singleton_events", "clopper_pearson_lower", "clopper_pearson_upper", "assert_passes",
           "assert_rejected", "MAX_AUDIT_SAMPLES", "FloatingPointAttack", "floating_point_attack"]

#: Largest number of samples per dataset an audit may draw (protects a shared server).
MAX_AUDIT_SAMPLES = 2_000_000

Override = Callable[[Calibration], Calibration]
#: sampler(data, n, rng, *, epsilon, delta, override) -> (n, ...) array of outputs.
Sampler = Callable[..., np.ndarray]


@dataclass(frozen=True)
class Mutant:
    """A deliberately broken variant of a mechanism, as a calibration override.

    ``override(calibration)`` returns the broken calibration (e.g. half the noise scale, a missing
    factor 2, per-step noise without composition); the audit's sampler uses it instead of the
    correct one. The same audit, same seed, must reject it.
    """

    name: str
    description: str
    override: Override


@dataclass(frozen=True)
class Audit:
    """A privacy claim to check statistically, declared as data.

    Attributes
    ----------
    id : str
        Unique, ``"topic/..."``.
    mechanism : str
        Registry name of the audited mechanism (:class:`dpcore.mechanism.MechanismSpec`).
    title : str
        Plain words for the audit page.
    datasets : (D, D')
        Synthetic neighbouring datasets under the mechanism's relation, with records on the
        clamping boundary where the sensitivity is attained.
    neighbours : str
        How D' differs from D, in words.
    sampler : callable
        ``sampler(data, n, rng, *, epsilon, delta, override)`` returns n independent outputs of the
        mechanism on ``data`` (vectorised), with ``override`` (None or a Mutant's) applied to its
        calibration.
    events : callable
        ``events(D, D', epsilon, delta) -> Events``: the event family, fixed before sampling.
    epsilon, delta : float
        The claim.
    mutant : Mutant
    n_samples : int
        Samples per dataset in the test suite.
    seed : int
        Root seed of the test suite's run (never retried with another seed).
    output_label : str
        What one output is (axis label of the audit page's overlay).
    project : callable, optional
        Maps outputs to one number per output for the page's overlaid histograms (default:
        first coordinate).
    gdp_mu : callable, optional
        ``gdp_mu(epsilon, delta) -> μ``: for a Gaussian mechanism, μ = Δ/σ of its calibration at the claim,
        so the audit page draws the exact Gaussian-DP trade-off curve (Dong, Roth & Su 2022) beside the
        (ε, δ) one.
    """

    id: str
    mechanism: str
    title: str
    datasets: tuple[Any, Any]
    neighbours: str
    sampler: Sampler
    events: Callable[[Any, Any, float, float], Events]
    epsilon: float
    mutant: Mutant
    delta: float = 0.0
    n_samples: int = 200_000
    seed: int = 0
    output_label: str = "output"
    project: Optional[Callable[[np.ndarray], np.ndarray]] = None
    gdp_mu: Optional[Callable[[float, float], float]] = None

    @property
    def topic(self) -> str:
        return self.id.split("/", 1)[0]


@dataclass(frozen=True)
class AuditRun:
    """The outcome of :func:`run_audit`: the test result and the two output samples."""

    audit: Audit
    result: AuditResult
    mutant: bool
    outputs: tuple[np.ndarray, np.ndarray]

    def projected(self) -> tuple[np.ndarray, np.ndarray]:
        """One number per output for each dataset (for overlaid histograms)."""
        f = self.audit.project or (lambda out: np.asarray(out, dtype=float).reshape(len(out), -1)[:, 0])
        return f(self.outputs[0]), f(self.outputs[1])


def run_audit(audit_: Audit, *, mutant: bool = False, n: Optional[int] = None, rng: RNGLike = None,
              epsilon: Optional[float] = None, delta: Optional[float] = None,
              datasets: Optional[tuple[Any, Any]] = None) -> AuditRun:
    """Run a declared audit (or its mutant) and return the result with both output samples.

    Parameters
    ----------
    mutant : bool
        Run the declared mutant instead of the calibrated mechanism.
    n : int, optional
        Samples per dataset (default ``audit_.n_samples``; at most :data:`MAX_AUDIT_SAMPLES`).
    rng : seed or Generator, optional
        Default: ``audit_.seed`` (the test suite's fixed seed).
    epsilon, delta : float, optional
        The claim to test (default the declared one); the mechanism is calibrated to it.
    datasets : (D, D'), optional
        Other neighbouring datasets (e.g. edited on the audit page); default the declared pair.
    """
    n = audit_.n_samples if n is None else int(n)
    if not 1 <= n <= MAX_AUDIT_SAMPLES:
        raise DPValueError(f"audit sample size n = {n} must be between 1 and {MAX_AUDIT_SAMPLES:,}; lower n.")
    eps = audit_.epsilon if epsilon is None else float(epsilon)
    dlt = audit_.delta if delta is None else float(delta)
    d_a, d_b = audit_.datasets if datasets is None else datasets
    g = as_generator(audit_.seed if rng is None else rng)
    g_a, g_b = spawn(g, 2)
    override = audit_.mutant.override if mutant else None
    out_a = audit_.sampler(d_a, n, g_a, epsilon=eps, delta=dlt, override=override)
    out_b = audit_.sampler(d_b, n, g_b, epsilon=eps, delta=dlt, override=override)
    events = audit_.events(d_a, d_b, eps, dlt)
    res = audit(out_a, out_b, events, epsilon=eps, delta=dlt)
    return AuditRun(audit_, res, bool(mutant), (out_a, out_b))

"""Time model of the audit page (issue 18): seconds per sample of each registered audit, and the sample cap it
implies, so that one run of the page stays under the interaction budget at any sample size the page allows.

An audit's run draws n outputs on each of D and D′ with its declared sampler (some are MCMC chains of
hundreds of steps per output, e.g. KNG linear regression: about 2 ms per sample), then evaluates its events.
Each topic declares, per audit id (``Topic.audit_seconds`` in its ``declare.py``; :func:`measured` collects
them), the measured seconds per sample per dataset of
:func:`dpcore.audit.explore.run` (10 000 samples, or 1/20 of the suite's size, or at the page's former cap of
4 × the suite's size), timed on the 2-core reference machine under a load average of 15–18 — conservative on
a quiet machine. :func:`time_cap` is the largest n whose estimate n × seconds per sample stays under
:data:`RUN_SECONDS` (the budget less room for the summary and figures). A new audit without a measured figure
gets the slowest one (:func:`seconds_per_sample`), so it is never uncapped; ``benchmarks/limits.py`` prints
the figures to refresh the table with.
"""
from __future__ import annotations

from ..limits import BUDGET_SECONDS

__all__ = ["RUN_SECONDS", "seconds_per_sample", "measured", "time_cap"]

def measured() -> dict[str, float]:
    """Seconds per sample per audit id, as each topic declares them (``Topic.audit_seconds``)."""
    from .. import registry

    return {k: float(v) for t in registry.topics() for k, v in t.audit_seconds.items()}


#: Seconds of one run the cap aims at: the budget less room for the summary, figures and a loaded machine.
RUN_SECONDS = 0.8 * BUDGET_SECONDS


def seconds_per_sample(audit_id: str) -> float:
    """The measured seconds per sample of ``audit_id`` (the slowest measured figure when it has none)."""
    table = measured()
    return table.get(audit_id, max(table.values()))


def time_cap(audit_id: str) -> int:
    """Largest samples per dataset whose estimated time n × :func:`seconds_per_sample` is ≤ :data:`RUN_SECONDS`."""
    return int(RUN_SECONDS / seconds_per_sample(audit_id))

"""What every noise release shares: the audit's calibration override and the Release it returns."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ...mechanism import Calibration, Release

Override = Optional[Callable[[Calibration], Calibration]]


def overridden(cal: Calibration, override: Override) -> Calibration:
    """``cal``, or an audit mutant's replacement of it (never used by a real release)."""
    return cal if override is None else override(cal)


def finish(cal: Calibration, value: Any, config: Any, size: int = 1) -> Release:
    return Release(mechanism=cal.mechanism, value=value, cost=cal.cost(size), calibration=cal, config=config)

"""Designs of the query-release figure: the public workloads of its two scenarios and their datasets
(two far points of the universe X), as in BBNS (2019) §1 and §5."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import DPValueError
from ._workloads import Cone, Marginals, WorkloadSpec

__all__ = ["SCENARIOS", "scenario_data"]


def _cone() -> WorkloadSpec:
    return Cone(k=1000, r=0.05, L=10, n_dirs=32, seed=0)


def _marginals() -> WorkloadSpec:
    return Marginals(8, 2)


#: scenario → (workload builder, dataset description)
SCENARIOS: Mapping[str, Any] = {
    "cone": (_cone, "two far points: half the records at the apex, half at a rim point (t = 1)"),
    "marginals": (_marginals, "two far points: half the records at 00…0, half at 11…1"),
}


def scenario_data(scenario: str, n: int) -> np.ndarray:
    """The scenario's public dataset of n records (universe indices): two far points of X."""
    if scenario not in SCENARIOS:
        raise DPValueError(f"scenario = {scenario!r} is unknown; choose one of {', '.join(SCENARIOS)}.")
    wl = SCENARIOS[scenario][0]().build()
    far = wl.size - 1
    return np.where(np.arange(n) < n // 2, 0, far)

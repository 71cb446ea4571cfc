"""The KNG problem objects by name and by config type (:data:`PROBLEMS`), and configs from keywords (:func:`make`).

Imported by :mod:`dpcore.kng.calibration`, the families of :mod:`dpcore.kng.release` and the facade
:mod:`dpcore.kng._api`; it imports none of them.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from .._validation import check_choice
from ..mechanism import make_config
from ._location import Mean, Median, Quantile
from ._problem import Problem
from ._regression import LinearRegression, QuantileRegression

#: The problems, by registry name (read-only).
PROBLEMS: Mapping[str, Problem] = MappingProxyType({p.name: p for p in (
    Mean(), Median(), Quantile(), LinearRegression(), QuantileRegression())})
_BY_CONFIG = MappingProxyType({p.config: p for p in PROBLEMS.values()})


def problem(name: str) -> Problem:
    """The problem object called ``name`` (a DPValueError listing the names otherwise)."""
    return PROBLEMS[check_choice(name, "problem", tuple(PROBLEMS))]


def problem_of(config: Any, configs: tuple = tuple(_BY_CONFIG)) -> Problem:
    """The problem object a config belongs to; ``configs`` restricts it to one family's config types."""
    if type(config) in configs:
        return _BY_CONFIG[type(config)]
    raise TypeError(f"config must be one of the KNG configs ({', '.join(c.__name__ for c in configs)}); "
                    f"got {type(config).__name__}.")


def make(problem_name: str, **params: Any) -> Any:
    """The frozen config of ``problem_name`` from keyword arguments (an irrelevant one is refused by name)."""
    p = problem(problem_name)
    return make_config(p.config, f"problem {p.name!r}", **params)

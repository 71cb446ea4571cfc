"""Classroom scenarios: a built-in table, the columns to use with their documented public ranges, a budget and a
task — what a teacher loads in one click on the Data page.

A scenario's table is a built-in public table **treated as a user's private data** for the exercise
(``kind="user"``): releases on it draw fresh randomness and are charged to its budget in the workspace, exactly
as on an upload, so a class sees a budget run out. Its bounds are the table's documented ranges
(:func:`dpcore.data.codebook.builtin_codebook`, source ``"codebook"``: declarations, never the data's min/max).
Scenarios on the same table are the same people: in one workspace they spend from one budget (the store's
keyed identity of the rows; :mod:`dpcore.store`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import DataError
from ._format import fmt, list_names
from .builtin import BUILTIN_DATASETS, builtin_dataset
from .codebook import apply_codebook, builtin_codebook
from .dataset import Dataset

__all__ = ["SCENARIOS", "Scenario", "scenario_dataset", "table_name"]


@dataclass(frozen=True)
class Scenario:
    """One classroom scenario: ``table`` (a key of :data:`BUILTIN_DATASETS`), the ``columns`` to use, the ε of
    one release, the table's total budget ε (δ: the app's default for its n), the page to go to and the task."""

    key: str
    label: str
    table: str
    columns: tuple[str, ...]
    epsilon: float
    budget_epsilon: float
    page: str
    task: str

    def __post_init__(self) -> None:
        info = BUILTIN_DATASETS.get(self.table)
        if info is None:
            raise DataError(f"scenario {self.key!r}: table {self.table!r} is not built in; use one of "
                            f"{list_names(BUILTIN_DATASETS)}.")
        documented = {b.column for b in info.bounds}
        if not self.columns or any(c not in documented for c in self.columns):
            raise DataError(f"scenario {self.key!r}: columns {list_names(self.columns)} must be documented columns of "
                            f"{self.table} ({list_names(sorted(documented))}).")
        if not 0 < self.epsilon <= self.budget_epsilon:
            raise DataError(f"scenario {self.key!r}: ε = {fmt(self.epsilon)} must be > 0 and within its budget "
                            f"ε = {fmt(self.budget_epsilon)}.")

    @property
    def releases(self) -> int:
        """How many releases at :attr:`epsilon` the budget allows (basic composition)."""
        return int(self.budget_epsilon // self.epsilon + 1e-9)


SCENARIOS: Mapping[str, Scenario] = MappingProxyType({s.key: s for s in (
    Scenario("diabetes_bmi", "Diabetes: mean BMI at ε = 1", "diabetes", ("bmi",), 1.0, 3.0, "pages/kng.py",
             "On the KNG explorer, release the mean of bmi at ε = 1. The budget (ε = 3) allows three such "
             "releases; the fourth is refused."),
    Scenario("diabetes_regression", "Diabetes: progression on BMI at ε = 1", "diabetes", ("bmi", "target"), 1.0,
             3.0, "pages/kng.py",
             "On the KNG explorer, choose linear regression of target on bmi and release it at ε = 1. Same "
             "patients as the BMI scenario: in one workspace both spend from one budget (ε = 3)."),
    Scenario("wine_alcohol", "Wine: median alcohol at ε = 0.5", "wine", ("alcohol",), 0.5, 1.0, "pages/kng.py",
             "On the KNG explorer, release the median of alcohol at ε = 0.5: two releases fit the budget (ε = 1). "
             "Compare them: how far apart are two private medians of the same 178 wines?"),
    Scenario("breast_cancer_benign", "Breast cancer: share of benign tumours at ε = 0.1", "breast_cancer",
             ("target",), 0.1, 0.5, "pages/kng.py",
             "On the KNG explorer, release the mean of target (the share of benign tumours) at ε = 0.1: five "
             "releases fit the budget (ε = 0.5)."),
)})


def table_name(key: str) -> str:
    """The display name of scenario ``key``'s table (``"<built-in label> — classroom scenario"``)."""
    return f"{BUILTIN_DATASETS[SCENARIOS[key].table].label} — classroom scenario"


def scenario_dataset(key: str) -> Dataset:
    """The table of scenario ``key``: the built-in table as a user's data (``kind="user"``), named
    ``"<table label> — classroom scenario"``, every documented column declared from the table's codebook (source
    ``"codebook"``).

    >>> ds = scenario_dataset("diabetes_bmi")
    >>> ds.kind, ds.bounds["bmi"], ds.bound_source("bmi")
    ('user', (10.0, 60.0), 'codebook')
    """
    if key not in SCENARIOS:
        raise DataError(f"scenario {key!r} not known; choose one of {list_names(SCENARIOS)}.")
    sc = SCENARIOS[key]
    base = builtin_dataset(sc.table)
    ds = dataclasses.replace(base, bounds={}, imputes={}, bound_sources={}, kind="user", name=table_name(key),
                             provenance=base.provenance + " Classroom scenario: this public table is treated as "
                             "private data for the exercise (fresh randomness, releases charged to its budget).")
    return apply_codebook(ds, builtin_codebook(sc.table))[0]

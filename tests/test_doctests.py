"""Every example in a dpcore docstring runs and prints what it shows (the suite's ``--doctest-modules``).

Each dpcore module with at least one example is one test: ``doctest.testmod`` with ELLIPSIS and
NORMALIZE_WHITESPACE, run in-process so that it works under xdist and the ``testpaths`` of pyproject.
A module's examples that fail report the module, the example and the difference.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dpcore

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules_with_examples() -> list[str]:
    names = []
    finder = doctest.DocTestFinder(exclude_empty=True)
    for info in pkgutil.walk_packages(dpcore.__path__, "dpcore."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        if any(t.examples for t in finder.find(module)):
            names.append(info.name)
    return sorted(["dpcore"] * any(t.examples for t in finder.find(dpcore)) + names)


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    # the finder sees the modules known to carry examples (a broken walk would silently test nothing)
    assert {"dpcore.mcmc", "dpcore.mechanism", "dpcore.privacy.accounting", "dpcore.kng.configs"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, report=True, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (printed above)"

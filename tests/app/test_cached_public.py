"""No cache shared across sessions can receive a user's data (issue 21).

The app caches public, pure results across sessions (``st.cache_data``/``st.cache_resource`` in
ui/cache.py; ``functools.lru_cache`` in dpcore). Checked over every such function's signature:
each parameter is a public scalar, string, tuple or a frozen public configuration (a dataclass whose
fields are those, recursively) — never a Dataset, a DataFrame, an array, ``Any`` or an unannotated
value — and every cache is bounded.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import pkgutil
import types
import typing
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fractions

import dpcore
from dpcore.data import Dataset

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "pages"
CACHE_DECORATORS = {"cache_data", "cache_resource", "lru_cache", "cache", "memo", "singleton"}
SCALARS = {int, float, str, bool, type(None), bytes, complex, fractions.Fraction}   # (a rational: a number, like float)


def public_type(tp, seen=()) -> bool:
    """True if every value of annotation ``tp`` is made of public scalars, strings, tuples and frozen
    dataclasses of those (an abstract config base counts if all its subclasses do)."""
    if tp in SCALARS or tp is tuple:
        return True
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType, typing.Literal):
        return origin is typing.Literal or all(public_type(a, seen) for a in typing.get_args(tp))
    if origin is tuple:
        return all(a is Ellipsis or public_type(a, seen) for a in typing.get_args(tp))
    if not isinstance(tp, type) or tp in seen:
        return isinstance(tp, type) and tp in seen            # Any, TypeVar, strings: not public
    if issubclass(tp, (np.ndarray, pd.DataFrame, pd.Series, Dataset, list, dict, set)):
        return False
    if dataclasses.is_dataclass(tp):
        if not tp.__dataclass_params__.frozen:
            return False
        hints = typing.get_type_hints(tp)
        return all(public_type(hints[f.name], (*seen, tp)) for f in dataclasses.fields(tp))
    subs = tp.__subclasses__()
    return bool(subs) and all(public_type(s, (*seen, tp)) for s in subs)


def check_signature(fn: Callable, where: str) -> list[str]:
    """Problems with ``fn``'s parameters (empty when all are public)."""
    hints = typing.get_type_hints(fn)
    bad = []
    for name, p in inspect.signature(fn).parameters.items():
        if name == "_progress":      # Streamlit leaves it out of the key; a callback that only receives counts
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            bad.append(f"{where}: *{name} takes anything")
        elif name not in hints:
            bad.append(f"{where}: parameter {name!r} has no annotation")
        elif not public_type(hints[name]):
            bad.append(f"{where}: parameter {name!r}: {hints[name]!r} may carry a user's data")
    return bad


def _decorator_names(node: ast.AST) -> set[str]:
    return {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node)
            if isinstance(n, (ast.Attribute, ast.Name))}


def _page_files() -> list[Path]:
    return sorted(PAGES.glob("*.py")) + [ROOT / "app.py"]


def test_page_scripts_define_no_cache_outside_the_cached_module():
    """Page scripts run top to bottom on every rerun and cannot be imported for inspection: every cached
    function of the app lives in ui/cache.py, where the signature check below sees it."""
    offenders = []
    for path in _page_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"cache_data", "cache_resource"}:
                offenders.append(f"{path.name}:{node.lineno}")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_decorator_names(d) & CACHE_DECORATORS for d in node.decorator_list):
                    offenders.append(f"{path.name}:{node.lineno} {node.name}")
    assert not offenders, offenders


def _streamlit_cached():
    from streamlit.runtime.caching.cache_utils import CachedFunc

    import ui
    found = []
    for module in ui.cache, ui.server:
        here = [(name, obj) for name, obj in vars(module).items() if isinstance(obj, CachedFunc)]
        tree = ast.parse(Path(module.__file__).read_text())
        decorated = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                     and any(_decorator_names(d) & {"cache_data", "cache_resource"} for d in n.decorator_list)}
        assert decorated == {name for name, _ in here}
        found += here
    return found


def _dpcore_lru_caches():
    found = []
    for mod in pkgutil.walk_packages(dpcore.__path__, "dpcore."):
        if mod.name.endswith("__main__"):
            continue
        module = importlib.import_module(mod.name)
        for name, obj in vars(module).items():
            if isinstance(obj, functools._lru_cache_wrapper) and obj.__module__ == mod.name:
                found.append((f"{mod.name}.{name}", obj))
    return found


def test_streamlit_caches_take_only_public_parameters_and_are_bounded():
    found = _streamlit_cached()
    assert found, "ui/cache.py and ui/server.py define no cached function: the check would be vacuous"
    problems = []
    for name, fn in found:
        problems += check_signature(fn._info.func, f"{fn._info.func.__module__}:{name}")
        if fn._info.max_entries is None:
            problems.append(f"{fn._info.func.__module__}:{name}: no max_entries (unbounded)")
    assert not problems, problems


def test_dpcore_lru_caches_take_only_public_parameters_and_are_bounded():
    found = _dpcore_lru_caches()
    assert len(found) >= 4, found
    problems = []
    for name, fn in found:
        problems += check_signature(fn.__wrapped__, name)
        if fn.cache_parameters()["maxsize"] is None and inspect.signature(fn.__wrapped__).parameters:
            problems.append(f"{name}: maxsize=None (unbounded)")   # no parameters: one entry, bounded
    assert not problems, problems


@pytest.mark.parametrize("annotation, public", [
    (int, True), (float | None, True), (tuple, True), (tuple[int, ...], True), (str, True),
    (np.ndarray, False), (pd.DataFrame, False), (Dataset, False), (typing.Any, False), (list, False),
    (tuple[np.ndarray, np.ndarray], False), (int | pd.DataFrame, False), ("Dataset", False),
])
def test_the_checker_tells_public_types_from_data(annotation, public):
    assert public_type(annotation) is public


@dataclasses.dataclass(frozen=True)
class Holder:
    """A frozen config that nevertheless holds an array."""
    x: np.ndarray


def test_the_checker_refuses_a_cached_function_over_a_dataset():
    """The mutant: a cache keyed on a Dataset (what a careless page would add) is reported."""
    def cached_mean(ds: Dataset, column: str) -> float:
        return float(ds.frame[column].mean())

    def cached_anything(frame, *args) -> float:
        return 0.0

    def cached_holder(h: Holder) -> float:
        return 0.0

    assert check_signature(cached_mean, "m") == ["m: parameter 'ds': " + repr(Dataset) + " may carry a user's data"]
    assert len(check_signature(cached_anything, "a")) == 2
    assert check_signature(cached_holder, "h")


def test_only_an_uncharged_release_on_simulated_data_reaches_a_shared_cache():
    """ui.cache.entropy (the key of a cached release) refuses a release on a user's data (fresh or a
    reproducible demo) and on a built-in example (recorded in the ledger) before it touches the session."""
    from dpcore import privacy as P
    from ui import cache as _cached

    bounds = P.check_bounds({"x": "declared"})
    refused = [
        P.ReleaseRequest(("k",), "x", P.USER, P.randomness_for(P.USER), bounds=bounds, dataset="fp"),
        P.ReleaseRequest(("k",), "x", P.USER, P.randomness_for(P.USER, seed=3, reproducible_demo=True), bounds=bounds,
                         dataset="fp"),
        P.ReleaseRequest(("k",), "x", P.BUILTIN, P.randomness_for(P.BUILTIN, seed=3)),
    ]
    for req in refused:
        with pytest.raises(ValueError, match="never shared"):
            _cached.entropy(req)


def test_a_cached_release_is_a_copy_with_read_only_mappings():
    """st.cache_data pickles each result; a Release (read-only mappings inside) comes back equal, and a session
    changing its copy cannot change another's."""
    import pickle

    from dpcore import histograms
    from ui import cache as _cached  # noqa: F401  (registers the mappingproxy reducer)

    table = histograms.sparse_table(256, 8, 100, rng=0)
    rel = histograms.laplace_and_threshold_release(table, histograms.ThresholdConfig(1.0, 256, sampler="dense"), rng=1)
    copy = pickle.loads(pickle.dumps(rel))
    assert isinstance(rel.calibration.params, types.MappingProxyType)        # what pickle could not copy before
    assert isinstance(copy.calibration.params, types.MappingProxyType) and copy.calibration == rel.calibration
    assert dict(copy.diagnostics.values) == dict(rel.diagnostics.values)
    assert np.array_equal(copy.value.laplace, rel.value.laplace) and copy.cost == rel.cost
    copy.value.laplace[:] = -1
    assert not np.array_equal(copy.value.laplace, rel.value.laplace)


@pytest.mark.parametrize("source", ["declared", "from data"])
def test_a_preview_keyed_by_bounds_from_the_data_never_reaches_the_shared_cache(source, monkeypatch):
    """Bounds filled from the data are numbers of the user's table: while such a dataset is loaded the accuracy
    preview is computed in the session (ui.cache.preview), never through the shared preview_laws; with
    declared bounds it goes through the shared one."""
    from streamlit.testing.v1 import AppTest

    from ui import cache as _cached

    shared = []
    original = _cached.preview_laws
    monkeypatch.setattr(_cached, "preview_laws", lambda *a: shared.append(a) or original(*a))
    script = f"""
import pandas as pd
import streamlit as st

from dpcore import data as dpdata
import ui

ds = dpdata.Dataset(pd.DataFrame({{"x": [1.0, 2.0, 7.0]}}), ("x",), {{}}, "t")
ds = ds.with_bounds_from_data("x") if {source!r} == "from data" else ds.with_bounds("x", 0, 10)
ui.init_session()
st.session_state[ui.DATASET_KEY] = ds
ui.accuracy_preview({{"Private mean (Laplace)": ("data/impute-mean", 1.0)}}, key="t", n=3, bounds=ds.bounds["x"])
"""
    at = AppTest.from_string(script, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("plotly_chart"), "the preview is drawn either way"
    assert len(shared) == (0 if source == "from data" else 1), shared

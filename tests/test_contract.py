"""Contract test over every registered mechanism and every declared audit of every topic.

A topic gets these checks by declaring itself (``dpcore/<topic>/declare.py``), not by copying
tests (the model is scikit-learn's ``check_estimator``).
"""
from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import pytest

from dpcore import registry
from dpcore.audit import run_audit
from dpcore.errors import DPValueError
from dpcore.mechanism import Calibration, MechanismSpec, Release

MECHS = list(registry.mechanisms().values())
AUDITS = list(registry.audits().values())
mech_ids = [m.name for m in MECHS]


def _values(rel: Release) -> np.ndarray:
    return np.asarray(rel.value, dtype=float)


def _example(spec: MechanismSpec):
    data, kwargs = spec.example()
    return data, kwargs, spec.make(**kwargs)


def _arrays(obj):
    """Every numpy array inside ``obj`` (tuples, lists, dicts, dataclasses)."""
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _arrays(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _arrays(o)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _arrays(getattr(obj, f.name))


def test_registry_is_not_empty_and_names_are_unique():
    assert MECHS, "no mechanism is registered: every topic declares its mechanisms in declare.py"
    assert len(set(mech_ids)) == len(mech_ids)
    for t in registry.topics():
        assert t.mechanisms, f"topic {t.name} declares no mechanism"


@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_config_is_frozen_and_refuses_unknown_parameters(spec):
    data, kwargs, cfg = _example(spec)
    assert dataclasses.is_dataclass(cfg) and cfg.__dataclass_params__.frozen
    with pytest.raises((DPValueError, TypeError), match="not_a_parameter"):
        spec.make(**kwargs, not_a_parameter=1)


@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_same_seed_same_output(spec):
    data, _, cfg = _example(spec)
    a = spec.release(data, cfg, rng=123)
    b = spec.release(data, cfg, rng=123)
    np.testing.assert_array_equal(_values(a), _values(b))


@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_bad_budget_is_refused_naming_the_parameter(spec):
    data, kwargs, _ = _example(spec)
    for name in spec.budget:
        for bad in (0.0, -1.0, math.nan, math.inf):
            if name == "delta" and bad == 0.0:
                continue  # δ = 0 may be allowed by pure mechanisms that take a δ
            with pytest.raises(DPValueError, match=name):
                spec.make(**{**kwargs, name: bad})


@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_result_carries_its_calibrations_cost(spec):
    data, _, cfg = _example(spec)
    rel = spec.release(data, cfg, rng=1)
    assert isinstance(rel, Release) and isinstance(rel.calibration, Calibration)
    assert rel.mechanism == spec.name
    assert rel.cost == rel.calibration.cost(rel.cost.count)
    assert rel.calibration.derivation and rel.calibration.reference


@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_inputs_are_not_modified(spec):
    data, _, cfg = _example(spec)
    before = [a.copy() for a in _arrays(data)]
    snapshot = copy.deepcopy(cfg)
    spec.release(data, cfg, rng=2)
    for a, b in zip(_arrays(data), before):
        np.testing.assert_array_equal(a, b)
    assert cfg == snapshot


@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_huge_budget_gives_the_nonprivate_answer(spec):
    data, kwargs, _ = _example(spec)
    cfg = spec.make(**{**kwargs, **dict(spec.huge)})
    rel = spec.release(data, cfg, rng=3)
    assert rel.released, rel.notes
    got = _values(rel) if spec.compare is None else spec.compare(rel.value)
    want = np.asarray(spec.nonprivate(data, cfg), dtype=float)
    got = got.reshape(-1, want.size) if got.size % max(want.size, 1) == 0 else got
    np.testing.assert_allclose(got, np.broadcast_to(want.reshape(-1), got.shape), atol=spec.atol)


def test_every_audit_names_a_registered_mechanism():
    for a in AUDITS:
        assert a.mechanism in registry.mechanisms(), f"audit {a.id} names an unknown mechanism {a.mechanism}"
    audited = {a.mechanism for a in AUDITS}
    missing = [m for m in mech_ids if m not in audited]
    assert not missing, f"mechanisms without a declared audit: {missing}"


@pytest.mark.stat
@pytest.mark.parametrize("aud", AUDITS, ids=[a.id for a in AUDITS])
def test_declared_audit_passes_and_its_mutant_is_rejected(aud):
    ok = run_audit(aud)
    assert not ok.result.rejected, "audit rejected the calibrated mechanism: " + ok.result.details
    bad = run_audit(aud, mutant=True)
    assert bad.result.rejected, f"audit FAILED to reject the mutant '{aud.mutant.name}': " + bad.result.details

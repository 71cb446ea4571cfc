"""Contract test over every registered mechanism: :func:`dpcore.testing.check_mechanism`, one pytest id per check.

A topic gets these checks by declaring itself (``dpcore/<topic>/declare.py``), not by copying tests (the model
is scikit-learn's ``check_estimator`` / ``parametrize_with_checks``). The checks live in :mod:`dpcore.testing`
so that a developer can run them on one mechanism from a shell::

    python -c "from dpcore import registry, testing; testing.check_mechanism(registry.mechanism('kng/median-kng'))"

Every declared audit runs as the ``audit[<id>]`` check of its mechanism (marked ``stat``).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpcore import registry, testing
from dpcore.mechanism import Calibration, MechanismSpec, Note, Release
from dpcore.privacy import PrivacyCost

MECHS = list(registry.mechanisms().values())
AUDITS = list(registry.audits().values())
mech_ids = [m.name for m in MECHS]


def test_registry_is_not_empty_and_names_are_unique():
    assert MECHS, "no mechanism is registered: every topic declares its mechanisms in declare.py"
    assert len(set(mech_ids)) == len(mech_ids)
    for t in registry.topics():
        assert t.mechanisms, f"topic {t.name} declares no mechanism"


def test_every_audit_names_a_registered_mechanism():
    for a in AUDITS:
        assert a.mechanism in registry.mechanisms(), f"audit {a.id} names an unknown mechanism {a.mechanism}"
    audited = {a.mechanism for a in AUDITS}
    missing = [m for m in mech_ids if m not in audited]
    assert not missing, f"mechanisms without a declared audit: {missing}"


def test_every_audit_runs_under_a_check():
    ids = {name for spec in MECHS for name, _, _ in testing.checks(spec)}
    assert {f"audit[{a.id}]" for a in AUDITS} <= ids


@testing.parametrize_with_checks(MECHS)
def test_contract(spec, check):
    check(spec)


# ----------------------------------------------------------------------- the checker itself can fail
def _toy_spec(notes_of, *, private=(), released_of=None) -> MechanismSpec:
    """A toy Laplace mechanism whose notes (and released flag) are computed by the given functions of the data."""

    @dataclasses.dataclass(frozen=True)
    class ToyConfig:
        epsilon: float = 1.0

    cal = Calibration(mechanism="toy/laplace", notion="pure", epsilon=1.0, sensitivity=1.0, constant=1.0,
                      constant_name="b", derivation="|x − x′| ≤ 1", reference="toy")

    def release(data, cfg, *, rng=None):
        value = float(np.clip(data, 0, 1).mean()) + np.random.default_rng(rng).laplace()
        return Release("toy/laplace", value, cal.cost(1), cal, True if released_of is None else released_of(data),
                       tuple(notes_of(data, value)), config=cfg)

    return MechanismSpec("toy/laplace", "toy", ToyConfig, release, lambda d, c: float(np.mean(d)),
                         lambda: (np.array([0.2, 0.5, 0.9]), {"epsilon": 1.0}), private_fields=private)


def test_public_surface_rejects_a_clipping_count_in_the_notes():
    spec = _toy_spec(lambda d, v: [Note("warning", f"{int((d > 1).sum())} rows were clipped")])
    with pytest.raises(AssertionError, match="rows were clipped"):
        testing.check_public_surface(spec)


def test_public_surface_accepts_a_note_of_public_inputs_only():
    spec = _toy_spec(lambda d, v: [Note("info", f"values are clipped to [0, 1]; n = {d.size}")])
    testing.check_public_surface(spec)


def test_public_surface_rejects_a_data_dependent_flag_unless_declared_and_a_function_of_the_output():
    flag = _toy_spec(lambda d, v: [], released_of=lambda d: bool(d.max() <= 1))
    with pytest.raises(AssertionError, match="released"):
        testing.check_public_surface(flag)
    # an "output" note restating the noised value may differ when declared private ...
    out = _toy_spec(lambda d, v: [Note("output", f"released {v:.3f}")], private=("notes:output",))
    testing.check_public_surface(out)
    # ... but a declared-private field that differs while the noised output is identical is a leak
    leak = _toy_spec(lambda d, v: [Note("withheld", f"max = {d.max():g}")], private=("notes:withheld",))
    pairs = [(np.array([2.0, 0.5, 0.9]), np.array([3.0, 0.5, 0.9]))]  # same clipped data: same noised value
    with pytest.raises(AssertionError, match="not a function of the noised output"):
        testing.check_public_surface(leak, pairs)


def test_public_surface_compares_every_calibration_field_and_the_cost():
    spec = _toy_spec(lambda d, v: [])
    rel = spec.release(np.array([0.1]), spec.make(), rng=1)
    s = testing.surface(rel)
    assert {f"calibration.{f.name}" for f in dataclasses.fields(Calibration)} <= set(s)
    assert isinstance(s["cost"], PrivacyCost) and s["released"] is True


def test_unknown_private_field_is_refused():
    with pytest.raises(ValueError, match="private field"):
        _toy_spec(lambda d, v: [], private=("notes:everything",))

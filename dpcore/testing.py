"""The mechanism contract as a library: :func:`check_mechanism` runs every check on one registered mechanism.

Why this module is long: the whole contract is one importable module (one check per function), so a
developer runs all of it on a new mechanism with one call.

In the spirit of scikit-learn's ``check_estimator`` / ``parametrize_with_checks``: a developer writing a
mechanism runs, from a shell,

    python -c "from dpcore import registry, testing; testing.check_mechanism(registry.mechanism('kng/median-kng'))"

and the test suite runs the same checks over every registered mechanism, one pytest id per check
(:func:`parametrize_with_checks`). Each check raises :class:`AssertionError` with a message naming the
mechanism and what differed; importing this module does not import pytest.

The checks (:func:`checks` lists them for one spec):

* ``config_frozen`` — the config is a frozen dataclass and an unknown parameter is refused by name;
* ``irrelevant_knobs_refused`` — a parameter of another registered mechanism's config that this config
  does not have is refused by name (never silently kept);
* ``bad_budget_refused`` — 0, −1, NaN, ∞ for each budget field are refused naming it;
* ``same_seed_same_output``, ``different_seeds_different_outputs``, ``rng_none_works``;
* ``inputs_not_mutated`` — neither the data's arrays nor the config change;
* ``cost_is_calibration_cost`` — ``Release.cost == calibration.cost(size)``, with a derivation and reference;
* ``calibration_without_data`` — ``spec.calibrate(config, spec.data_shape(data))`` equals the release's
  calibration: the public constants follow from the config and the public sizes alone;
* ``huge_budget_nonprivate`` — at the spec's ``huge`` budget the release equals the non-private answer;
* ``public_surface`` — :func:`check_public_surface` on every neighbouring pair of the spec;
* ``audit[<id>]`` (statistical, marked ``stat`` by :func:`parametrize_with_checks`) — each audit declared
  for the mechanism passes and its mutant is rejected (:func:`dpcore.audit.run_audit`); a mechanism
  without an audit fails ``has_audit``.

The public-surface invariance (issue 17; ``/work/shared/testing.md``, "The public surface of a release"):
a privacy proof covers the noised value; everything else a page prints beside it must be a function of
public inputs. Run on D and D′ with the same seed, the notes (kind and text), every
:class:`~dpcore.mechanism.Calibration` field, the cost, the ``released`` flag, the mechanism name, the
config and the type of the release must be identical — except the fields the spec declares part of
its private output (``MechanismSpec.private_fields``). A declared-private field must still be a function
of the noised output: when the value and the ``"output"`` notes coincide on D and D′, the declared-private
fields must coincide too. Diagnostics are non-private by definition and never compared.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import math
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .errors import DPValueError
from .mechanism import Calibration, MechanismSpec, Release

__all__ = ["check_mechanism", "checks", "parametrize_with_checks", "check_public_surface", "neighbour_pairs",
           "surface", "SURFACE_SEED"]

#: The seed both datasets of a pair are released with.
SURFACE_SEED = 20261125


# ------------------------------------------------------------------------------------------- helpers
def _values(rel: Release) -> np.ndarray:
    return np.asarray(rel.value, dtype=float)


def _example(spec: MechanismSpec):
    data, kwargs = spec.example()
    return data, kwargs, spec.make(**kwargs)


def _arrays(obj) -> Iterator[np.ndarray]:
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


def _same_array(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:
        return bool(np.array_equal(a, b))


def _raises(fn: Callable[[], Any], exc, match: str, what: str) -> None:
    try:
        fn()
    except exc as e:  # noqa: PERF203
        if match not in str(e):
            raise AssertionError(f"{what}: raised {type(e).__name__} without naming {match!r}: {e}") from e
        return
    raise AssertionError(f"{what}: no error was raised")


# ------------------------------------------------------------------------------------------- neighbours
def _moved(a: np.ndarray, sign: float) -> np.ndarray:
    """``a`` with its first record replaced: far out on the side ``sign`` (clipped by the mechanism) for
    continuous data; another value already present for integer or two-valued data (categories, counts, labels)."""
    b = a.copy()
    vals = np.unique(a)
    if a.dtype.kind in "iub" or vals.size <= 2:
        pick = vals[-1] if sign > 0 else vals[0]
        if np.all(np.asarray(a[0]) == pick):
            pick = vals[0] if sign > 0 else vals[-1]
        b[0] = pick
        return b
    top = float(np.max(np.abs(a[np.isfinite(a)]))) if np.isfinite(a).any() else 1.0
    b[0] = sign * (10.0 * top + 10.0)
    return b


def _rebuild(data, target: int, sign: float, counter: list) -> Any:
    """A copy of ``data`` with its ``target``-th array (in :func:`_arrays` order) moved by :func:`_moved`."""
    if isinstance(data, np.ndarray):
        i = counter[0]
        counter[0] += 1
        return _moved(data, sign) if i == target else data
    if isinstance(data, tuple):
        return tuple(_rebuild(o, target, sign, counter) for o in data)
    if isinstance(data, list):
        return [_rebuild(o, target, sign, counter) for o in data]
    if isinstance(data, dict):
        return {k: _rebuild(v, target, sign, counter) for k, v in data.items()}
    return data


def _identical(a, b) -> bool:
    xa, xb = list(_arrays(a)), list(_arrays(b))
    return len(xa) == len(xb) and all(_same_array(x, y) for x, y in zip(xa, xb))


def neighbour_pairs(spec: MechanismSpec) -> list[tuple[Any, Any]]:
    """The datasets the public surface of ``spec`` is compared on.

    ``spec.neighbours()`` when the spec declares them, else two pairs per array of the example: D is the
    example, D′ the example with the first record of that array replaced, far above and far below any public
    bound for continuous values (so that it is clipped), by the largest and the smallest present value for
    integer or two-valued arrays. Replacing one record keeps n and every public parameter.
    """
    if spec.neighbours is not None:
        return list(spec.neighbours())
    data, _ = spec.example()
    k = sum(1 for _ in _arrays(data))
    pairs = [(data, _rebuild(data, i, sign, [0])) for i in range(k) for sign in (1.0, -1.0)]
    return [(a, b) for a, b in pairs if not _identical(a, b)]


# ------------------------------------------------------------------------------------------- surface
def surface(rel: Release, private: Sequence[str] = ()) -> dict:
    """What a page may show of ``rel`` outside the released value and the non-private box, as a dict.

    Fields named in ``private`` (``"released"``, ``"notes:<kind>"``) are left out; ``value`` and
    ``diagnostics`` always are.
    """
    cal = rel.calibration
    out = {"type": type(rel).__name__, "mechanism": rel.mechanism, "cost": rel.cost, "config": rel.config}
    for f in dataclasses.fields(Calibration):
        v = getattr(cal, f.name)
        out[f"calibration.{f.name}"] = dict(v) if f.name == "params" else v
    if "released" not in private:
        out["released"] = rel.released
    out["notes"] = tuple((n.kind, n.text) for n in rel.notes if f"notes:{n.kind}" not in private)
    return out


def _private_part(rel: Release, private: Sequence[str]) -> dict:
    out: dict[str, Any] = {"released": rel.released} if "released" in private else {}
    out["notes"] = tuple((n.kind, n.text) for n in rel.notes if f"notes:{n.kind}" in private)
    return out


def _differences(a: dict, b: dict) -> list[str]:
    diffs = []
    for k in a:
        va, vb = a[k], b.get(k)
        if k == "notes":
            if va != vb:
                vb_notes = vb or ()
                only_a = [n for n in va if n not in vb_notes]
                only_b = [n for n in vb_notes if n not in va]
                diffs.append(f"notes differ: on D {only_a}, on D′ {only_b}")
            continue
        same = _same_array(va, vb) if isinstance(va, np.ndarray) else (va == vb)
        if not (same if isinstance(same, bool) else bool(np.all(same))):
            diffs.append(f"{k}: {va!r} on D vs {vb!r} on D′")
    return diffs


def check_public_surface(spec: MechanismSpec, pairs=None, *, seed: int = SURFACE_SEED) -> None:
    """Assert that ``spec``'s release shows the same public surface on each neighbouring pair (same seed).

    See the module docstring. ``pairs`` defaults to :func:`neighbour_pairs`.
    """
    _, _, cfg = _example(spec)
    private = spec.private_fields
    pairs = neighbour_pairs(spec) if pairs is None else pairs
    if not pairs:
        raise AssertionError(f"{spec.name}: no neighbouring pair to compare the public surface on")
    for i, (D, Dp) in enumerate(pairs):
        a = spec.release(D, cfg, rng=seed)
        b = spec.release(Dp, cfg, rng=seed)
        diffs = _differences(surface(a, private), surface(b, private))
        if diffs:
            raise AssertionError(
                f"{spec.name}: the public surface depends on the data (pair {i}, same seed {seed}); a page would "
                "show different text beside the release on neighbouring datasets — move data-dependent text to "
                "Release.diagnostics, or declare the field private on the MechanismSpec if it is a function of "
                "the noised output:\n  " + "\n  ".join(diffs))
        if private and _same_array(_values(a), _values(b)) and \
                [n for n in a.notes if n.kind == "output"] == [n for n in b.notes if n.kind == "output"]:
            pa, pb = _private_part(a, private), _private_part(b, private)
            diffs = _differences(pa, pb)
            if diffs:
                raise AssertionError(
                    f"{spec.name}: fields declared private {private} differ on a neighbouring pair (pair {i}, seed "
                    f"{seed}) although the released value and the 'output' notes are identical, so they are not a "
                    "function of the noised output:\n  " + "\n  ".join(diffs))


# ------------------------------------------------------------------------------------------- checks
def check_config_frozen(spec: MechanismSpec) -> None:
    data, kwargs, cfg = _example(spec)
    frozen = dataclasses.is_dataclass(cfg) and cfg.__dataclass_params__.frozen  # type: ignore[union-attr]
    assert frozen, \
        f"{spec.name}: the config {type(cfg).__name__} must be a frozen dataclass"
    _raises(lambda: spec.make(**kwargs, not_a_parameter=1), (DPValueError, TypeError), "not_a_parameter",
            f"{spec.name}: an unknown parameter must be refused by name")


@functools.cache
def _all_config_fields() -> frozenset:
    from . import registry

    return frozenset(f.name for m in registry.mechanisms().values() for f in dataclasses.fields(m.config) if f.init)


def check_irrelevant_knobs_refused(spec: MechanismSpec) -> None:
    data, kwargs, _ = _example(spec)
    own = {f.name for f in dataclasses.fields(spec.config) if f.init}
    for name in sorted(_all_config_fields() - own):
        def with_knob(name: str = name) -> Any:
            return spec.make(**kwargs, **{name: 1})
        _raises(with_knob, (DPValueError, TypeError), name,
                f"{spec.name}: parameter {name!r} (another mechanism's) does not apply and must be refused")


def check_bad_budget_refused(spec: MechanismSpec) -> None:
    data, kwargs, _ = _example(spec)
    for name in spec.budget:
        for bad in (0.0, -1.0, math.nan, math.inf):
            if name == "delta" and bad == 0.0:
                continue  # δ = 0 may be allowed by pure mechanisms that take a δ
            def with_bad(name: str = name, bad: float = bad) -> Any:
                return spec.make(**{**kwargs, name: bad})
            _raises(with_bad, DPValueError, name,
                    f"{spec.name}: {name} = {bad} must be refused naming {name!r}")


def check_same_seed_same_output(spec: MechanismSpec) -> None:
    data, _, cfg = _example(spec)
    a, b = spec.release(data, cfg, rng=123), spec.release(data, cfg, rng=123)
    assert _same_array(_values(a), _values(b)), f"{spec.name}: the same seed gave different outputs"


def check_different_seeds_different_outputs(spec: MechanismSpec) -> None:
    data, _, cfg = _example(spec)
    outs = [_values(spec.release(data, cfg, rng=s)) for s in (11, 12, 13, 14, 15)]
    assert any(not _same_array(outs[0], o) for o in outs[1:]), \
        f"{spec.name}: five different seeds gave the same output {outs[0]!r}: is the rng ignored?"


def check_rng_none_works(spec: MechanismSpec) -> None:
    data, _, cfg = _example(spec)
    rel = spec.release(data, cfg, rng=None)
    assert isinstance(rel, Release), f"{spec.name}: rng=None returned {type(rel).__name__}, not a Release"
    assert _values(rel).size > 0, f"{spec.name}: rng=None released an empty value"


def check_inputs_not_mutated(spec: MechanismSpec) -> None:
    data, _, cfg = _example(spec)
    before = [a.copy() for a in _arrays(data)]
    snapshot = copy.deepcopy(cfg)
    spec.release(data, cfg, rng=2)
    for i, (a, b) in enumerate(zip(_arrays(data), before)):
        assert _same_array(a, b), f"{spec.name}: the release modified array {i} of its input data"
    assert cfg == snapshot, f"{spec.name}: the release modified its config"


def check_cost_is_calibration_cost(spec: MechanismSpec) -> None:
    data, _, cfg = _example(spec)
    rel = spec.release(data, cfg, rng=1)
    assert isinstance(rel, Release) and isinstance(rel.calibration, Calibration), \
        f"{spec.name}: the release must return a Release carrying a Calibration"
    assert rel.mechanism == spec.name, f"{spec.name}: Release.mechanism is {rel.mechanism!r}"
    assert rel.cost == rel.calibration.cost(rel.cost.count), \
        f"{spec.name}: cost {rel.cost} != calibration.cost({rel.cost.count}) = {rel.calibration.cost(rel.cost.count)}"
    assert rel.calibration.derivation and rel.calibration.reference, \
        f"{spec.name}: the calibration must state its derivation and reference"


def check_calibration_without_data(spec: MechanismSpec) -> None:
    """``spec.calibrate(config, shape)`` — computed from the config and the data's public sizes only — equals
    the calibration the release carries (so a page can show it, and the cost, before the click)."""
    data, _, cfg = _example(spec)
    assert spec.calibrate is not None, f"{spec.name}: MechanismSpec.calibrate is not declared"
    shape = spec.data_shape(data)
    before = spec.calibrate(cfg, shape)
    assert isinstance(before, Calibration), f"{spec.name}: calibrate returned {type(before).__name__}"
    rel = spec.release(data, cfg, rng=4)
    assert before == rel.calibration, (f"{spec.name}: calibrate(config, {shape}) = {before} differs from the "
                                       f"release's calibration {rel.calibration}")


def check_huge_budget_nonprivate(spec: MechanismSpec) -> None:
    data, kwargs, _ = _example(spec)
    cfg = spec.make(**{**kwargs, **dict(spec.huge)})
    rel = spec.release(data, cfg, rng=3)
    assert rel.released, f"{spec.name}: withheld at a huge budget: {rel.notes}"
    got = _values(rel) if spec.compare is None else spec.compare(rel.value)
    want = np.asarray(spec.nonprivate(data, cfg), dtype=float)
    got = got.reshape(-1, want.size) if got.size % max(want.size, 1) == 0 else got
    np.testing.assert_allclose(got, np.broadcast_to(want.reshape(-1), got.shape), atol=spec.atol,
                               err_msg=f"{spec.name}: at a huge budget the release must equal the non-private answer")


def check_public_surface_default(spec: MechanismSpec) -> None:
    check_public_surface(spec)


def _spec_audits(spec: MechanismSpec) -> list:
    from . import registry

    return [a for a in registry.audits().values() if a.mechanism == spec.name]


def check_has_audit(spec: MechanismSpec) -> None:
    assert _spec_audits(spec), f"{spec.name}: no audit is declared for this mechanism (declare one in its topic)"


def check_audit(spec: MechanismSpec, audit_id: str) -> None:
    from . import registry
    from .audit import run_audit

    aud = registry.audits()[audit_id]
    ok = run_audit(aud)
    assert not ok.result.rejected, f"{audit_id}: the audit rejected the calibrated mechanism: {ok.result.details}"
    bad = run_audit(aud, mutant=True)
    assert bad.result.rejected, f"{audit_id}: the audit FAILED to reject the mutant '{aud.mutant.name}': " \
        + bad.result.details


_FAST = (("config_frozen", check_config_frozen), ("irrelevant_knobs_refused", check_irrelevant_knobs_refused),
         ("bad_budget_refused", check_bad_budget_refused), ("same_seed_same_output", check_same_seed_same_output),
         ("different_seeds_different_outputs", check_different_seeds_different_outputs),
         ("rng_none_works", check_rng_none_works), ("inputs_not_mutated", check_inputs_not_mutated),
         ("cost_is_calibration_cost", check_cost_is_calibration_cost),
         ("calibration_without_data", check_calibration_without_data),
         ("huge_budget_nonprivate", check_huge_budget_nonprivate), ("public_surface", check_public_surface_default),
         ("has_audit", check_has_audit))


def checks(spec: MechanismSpec, *, stat: bool = True) -> list[tuple[str, Callable[[MechanismSpec], None], bool]]:
    """The checks of ``spec`` as ``(id, check, is_statistical)``; ``check(spec)`` raises AssertionError."""
    out: list[tuple[str, Callable[[MechanismSpec], None], bool]] = [(name, fn, False) for name, fn in _FAST]
    if stat:
        out += [(f"audit[{a.id}]", functools.partial(check_audit, audit_id=a.id), True) for a in _spec_audits(spec)]
    return out


def check_mechanism(spec: MechanismSpec, *, stat: bool = True) -> None:
    """Run every contract check on one mechanism (``stat=False`` skips the statistical audits).

    Raises :class:`AssertionError` at the first failing check, naming it.
    """
    for name, fn, _ in checks(spec, stat=stat):
        try:
            fn(spec)
        except AssertionError as exc:
            raise AssertionError(f"[{spec.name} · {name}] {exc}") from exc


def parametrize_with_checks(specs: Sequence[MechanismSpec]):
    """A ``pytest.mark.parametrize("spec, check", ...)`` decorator with one test id per (mechanism, check).

    The statistical audits are marked ``stat``. Use::

        @parametrize_with_checks(list(registry.mechanisms().values()))
        def test_contract(spec, check):
            check(spec)
    """
    import pytest

    params = []
    for spec in specs:
        for name, fn, is_stat in checks(spec):
            params.append(pytest.param(spec, fn, id=f"{spec.name}-{name}",
                                       marks=(pytest.mark.stat,) if is_stat else ()))
    return pytest.mark.parametrize("spec, check", params)

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


# ----------------------------------------------------------------------- the huge-ε contract on real tables
# Issue 32: the huge-budget check above runs on each mechanism's small simulated example. Here the same check runs on
# a real table that ships inside scikit-learn (dpcore.data.builtin: diabetes n = 442, wine n = 178, breast cancer
# n = 569), read through its PUBLIC bounds as the pages read it (missing cells imputed, values clipped), with the
# spec's own huge budget and its own tolerance unless a comment derives another.
def _table(name: str):
    from dpcore.data import builtin_dataset

    return builtin_dataset(name)


def _unit(table: str, cols: list[str]) -> np.ndarray:
    """Columns mapped onto [0, 1] by their public bounds (the density page's rule)."""
    from dpcore import density

    return density.unit_cube_columns(_table(table), cols)[0]


def _public(table: str, cols: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from dpcore.data import public_columns

    pc = public_columns(_table(table), cols)
    return np.asarray(pc.values, dtype=float), np.asarray(pc.lower, dtype=float), np.asarray(pc.upper, dtype=float)


def _bins(table: str, col: str, n_bins: int) -> np.ndarray:
    """Each record's bin among ``n_bins`` equal bins of the column's public range (a public binning)."""
    v, lo, hi = _public(table, [col])
    return np.minimum((((v[:, 0] - lo[0]) / (hi[0] - lo[0])) * n_bins).astype(int), n_bins - 1)


def _wine_cells() -> tuple[np.ndarray, dict]:
    """The histogram page's wine table: cultivar (3) × alcohol in 8 public bins of [8, 16] % vol → p = 24 cells."""
    cultivar = _table("wine").frame["target"].to_numpy().astype(int)
    return cultivar * 8 + _bins("wine", "alcohol", 8), {"p": 24}


def _kng(problem: str, cols: list[str], y: str | None = None, **extra):
    def build():
        from dpcore import kng

        ds = _table("diabetes")
        pdata = kng.problem_data(ds.frame, ds.bounds, problem, cols, y_column=y)
        return pdata.data, {**pdata.params, **extra}
    return build


def _glm():
    """The eigenvalue page's robust regression of diabetes' target on sex and bmi (+ intercept), each column mapped
    onto [−1, 1] by its public bounds (x in the hypercube of radius 1: its public domain)."""
    from dpcore.single_parameter import diabetes_dataset, prepare_xy

    return prepare_xy(diabetes_dataset(), "target", ["sex", "bmi"], intercept=True, scale_response=True), \
        {"geometry": "hypercube"}


def _means() -> tuple[np.ndarray, dict]:
    """Mean age and bmi of diabetes: replace-one moves each mean by at most (upper − lower)/n; ℓ1 sensitivity is
    their sum."""
    v, lo, hi = _public("diabetes", ["age", "bmi"])
    return v.mean(axis=0), {"sensitivity": float(((hi - lo) / len(v)).sum())}


def _median_split_utilities() -> tuple[np.ndarray, dict]:
    """Exponential mechanism over 13 public split points of age: u(t) = −|#{x < t} − n/2| (sensitivity 1)."""
    v, lo, hi = _public("diabetes", ["age"])
    edges = np.linspace(lo[0], hi[0], 13)
    return -np.abs((v[None, :, 0] < edges[:, None]).sum(axis=1) - len(v) / 2).astype(float), {}


def _marginals() -> tuple[np.ndarray, dict]:
    from dpcore import query_release as Q
    from dpcore.query_release._lab import schema_indices

    rules = (Q.ColumnRule("sex", threshold=1.5), Q.ColumnRule("age", threshold=50.0),
             Q.ColumnRule("bmi", threshold=25.0), Q.ColumnRule("bp", threshold=90.0))
    return schema_indices(_table("diabetes").frame, rules), {}


#: mechanism → a builder of (data, config overrides) on a real table
REAL = {
    **{f"density/{m}": (lambda: (_unit("wine", ["alcohol"])[:, 0], {}))
       for m in ("gp-kde", "fourier-laplace", "knorm", "bandwidth")},
    "density/svm": lambda: ((_unit("wine", ["alcohol", "malic_acid"]),
                             np.where(_table("wine").frame["target"].to_numpy() == 0, 1.0, -1.0)), {}),
    "histograms/laplace": _wine_cells,
    "histograms/threshold": _wine_cells,
    "kng/mean-kng": _kng("mean", ["bmi", "bp"]),
    "kng/mean-exponential": _kng("mean", ["bmi"]),
    "kng/median-kng": _kng("median", ["age"]),
    "kng/median-exponential": _kng("median", ["age"]),
    "kng/quantile-kng": _kng("quantile", ["s5"], tau=0.75),
    "kng/quantile-exponential": _kng("quantile", ["s5"], tau=0.75),
    "kng/linear_regression-kng": _kng("linear_regression", ["bmi"], "target", B=2.0),
    "kng/linear_regression-exponential": _kng("linear_regression", ["bmi"], "target", B=4.0),
    "kng/linear_regression-objective_perturbation": _kng("linear_regression", ["bmi"], "target", B=2.0),
    "kng/quantile_regression-kng": _kng("quantile_regression", ["bmi"], "target", B=3.0, tau=0.75),
    "kng/quantile_regression-exponential": _kng("quantile_regression", ["bmi"], "target", B=4.0, tau=0.75),
    **{f"lasso/{m}": (lambda: ((lambda d: (d.X, d.y))(__import__("dpcore.lasso", fromlist=["x"]).prepare_design(
        _table("diabetes"), "target", ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"])), {}))
       for m in ("private-fw", "private-fw-intercept", "noisy-gradient-fw")},
    **{f"noise/{m}": _means for m in ("laplace", "gaussian", "gaussian-zcdp", "knorm")},
    "noise/exponential": _median_split_utilities,
    "query_release/gaussian": _marginals,
    **{f"query_release/{m}": (lambda: (_bins("diabetes", "bmi", 16), {})) for m in ("projection", "coarse", "chaining")},
    **{f"query_release/{m}": (lambda: (_bins("diabetes", "bmi", 4), {}))
       for m in ("pmw", "local-projection", "local-coarse", "local-chaining")},
    **{f"single_parameter/{m}": _glm for m in ("lambda-min", "eigen-bounds", "theta", "theta-generic",
                                               "output-perturbation", "objective-perturbation", "noisy-gd",
                                               "functional")},
}

_CERT = ("n = 442 is too small for the certified bounds on this design at ANY ε: Algorithm 2's λ̂ carries an "
         "ε-independent term (from δ and the count-based search) that exceeds λ_min ≈ 0.45, so λ̂ = 0 — the page "
         "states this floor before the click (issue 32 item 3, branch lasso2)")
_ONE_BIT = ("sampling, not privacy: the point randomizer reports ONE random Gaussian direction signed by one bit, so "
            "even at ε = ∞ the average of n reports has E‖avg − x̄‖₂² ≤ c_∞²·R²·k/n per level, c_∞ = √(π/2) "
            "(dpcore.query_release.c_epsilon), R ≤ √k (answers in [0, 1]^k); projecting onto conv X (convex, holding "
            "x̄) only shrinks it. Thresholds(4), n = 442: c_∞·k/√n = 0.24; floor 2× that = 0.48 (measured 0.043)")
#: Mechanisms that cannot reach the non-private answer on a real table at the huge budget, and why (issue 32: the
#: page says so in one sentence). Each is still run and checked against its floor: a number (the largest distance
#: allowed to the non-private answer), "⊥" (it abstains, a private output) or "bounds" (a certified bound that holds
#: but is uninformative: λ̂ ≤ λ_min, Λ̂ ≥ λ_max).
KNOWN_FLOORS: dict[str, tuple[str, float | str]] = {
    # KNG's 1-D median/quantile density at ε → ∞ is uniform on the interval between the order statistics where the
    # rank gradient is least (Reimherr & Awan 2019): ages are whole years and 50 is tied, so the releases spread
    # over [50, 51] (measured 50.09–50.48): floor 1 year. s5's 0.75-quantile 4.9972 sits between the order
    # statistics 4.9904 and 5.0039 (measured 4.9910–5.0004): floor 0.0068.
    "kng/median-kng": ("order-statistic gap: uniform between the order statistics around the median", 1.0),
    "kng/quantile-kng": ("order-statistic gap: uniform between the order statistics around the quantile", 0.0068),
    # quantile regression's KNG limit is uniform on the cell of least ‖G‖∞, long along the intercept–slope ridge on
    # this design (tests/kng/test_real_data.py: intercepts −106 … −140 around −125 at ε = 1e3 and 1e4): floor 25.
    "kng/quantile_regression-kng": ("the cell of least ‖G‖∞ is long along the intercept–slope ridge", 25.0),
    "query_release/local-projection": (_ONE_BIT, 0.48),
    "query_release/local-coarse": (_ONE_BIT, 0.48),
    "query_release/local-chaining": (_ONE_BIT, 0.48),
    "single_parameter/lambda-min": (_CERT, "bounds"),
    "single_parameter/eigen-bounds": (_CERT, "bounds"),
    **{f"single_parameter/{m}": (_CERT + "; propose-test-release then abstains", "⊥")
       for m in ("theta", "theta-generic", "functional")},
}

#: Budgets other than the spec's huge one, each derived beside it.
REAL_HUGE: dict[str, dict] = {
    # KNG linear regression's exact sampler spreads ∝ 1/ε around θ̂ (measured on diabetes' intercept ≈ −118: 0.49 at
    # ε = 1e4, 4.9e-4 at 1e7): the spec's 1e4 was chosen for its unit-scale example; 1e7 meets its atol 1e-3.
    "kng/linear_regression-kng": {"epsilon": 1e7},
}

#: Config changes for the real table, each derived beside it.
REAL_CONFIG: dict[str, dict] = {
    # coarse projection and chaining round every record to an (α/2)-net first, so even at ρ = ∞ an answer may move
    # by up to α/2 (α = 0.5: measured 0.23); the example's records sit on net points, the real table's do not. A
    # finer net, α = 0.05, keeps the check sharp (measured exact to 1e-8).
    "query_release/coarse": {"alpha": 0.05},
    "query_release/chaining": {"alpha": 0.05},
}

#: Tolerances other than the spec's (its example is on a unit scale), each derived beside it.
REAL_ATOL: dict[str, float] = {
    # the regressions' θ is in diabetes' units (intercept ≈ −118, target/bmi): the spec's 1e-3 on a unit-scale
    # example is a relative 1e-3, i.e. 1e-3 × max|θ̂| ≈ 0.12 here (measured 0.052 at ε = 1e9; at the spec's 1e6 the
    # MCMC's 1 500 sweeps leave 1.6: ε = 1e9 below)
    "kng/linear_regression-exponential": 0.12,
    # the same relative 1e-3 of |θ̂| ≈ 140 (measured 0.072 at the spec's ε = 1e6; 0.36 at 1e9, where the chains mix
    # worse)
    "kng/quantile_regression-exponential": 0.14,
}
REAL_HUGE["kng/linear_regression-exponential"] = {"epsilon": 1e9}


def test_every_mechanism_has_a_real_table():
    assert set(REAL) == set(mech_ids), sorted(set(mech_ids) ^ set(REAL))


@pytest.mark.stat
@pytest.mark.parametrize("spec", MECHS, ids=mech_ids)
def test_huge_budget_reaches_the_nonprivate_answer_on_a_real_table(spec):
    data, overrides = REAL[spec.name]()
    _, kwargs = spec.example()
    cfg = spec.make(**{**kwargs, **overrides, **REAL_CONFIG.get(spec.name, {}),
                       **REAL_HUGE.get(spec.name, dict(spec.huge))})
    rel = spec.release(data, cfg, rng=3)
    assert rel.released, f"{spec.name}: withheld at a huge budget on a real table: {rel.notes}"
    got = testing._values(rel) if spec.compare is None else spec.compare(rel.value)
    want = np.asarray(spec.nonprivate(data, cfg), dtype=float)
    got = got.reshape(-1, want.size) if got.size % max(want.size, 1) == 0 else got
    if spec.name in KNOWN_FLOORS:
        reason, floor = KNOWN_FLOORS[spec.name]
        if floor == "⊥":
            assert np.isnan(got).all(), f"{spec.name}: expected ⊥ ({reason}); got {got}"
        elif floor == "bounds":
            w = want.reshape(-1)
            assert (got[:, 0] <= w[0]).all() and (got.shape[1] < 2 or (got[:, 1] >= w[1]).all()), (got, w, reason)
        else:
            assert np.isfinite(got).all() and np.max(np.abs(got - want.reshape(-1))) <= floor, (got, want, reason)
        return
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, np.broadcast_to(want.reshape(-1), got.shape),
                               atol=REAL_ATOL.get(spec.name, spec.atol),
                               err_msg=f"{spec.name}: at a huge budget on a real table the release must equal the "
                                       "non-private answer")

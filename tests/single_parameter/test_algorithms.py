"""Algorithms 2–5 and 7: coverage, stability against adversarial neighbours, propose-test-release,
degenerate designs, accounting and real data (Asi, Duchi & Talwar 2025)."""
import math

import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.mechanism import make_config
from dpcore.single_parameter import audits
from dpcore.single_parameter.designs import breast_cancer, census_like, robust_regression
from dpcore.single_parameter._recursion import upper_count
from dpcore.single_parameter import (EigenBoundsConfig, FunctionalConfig, GenericConfig, LambdaMinConfig, ThetaConfig,
                                     calibrate_eigen_bounds, calibrate_functional, calibrate_lambda_min,
                                     calibrate_theta, eigen_bounds, functional, lambda_min, theta, theta_generic)
from dpcore.single_parameter._analysis import analyse, local_sensitivity
from dpcore.single_parameter._stability import eps_var
from dpcore.single_parameter.release.eigen_bounds import sample_eigen_bounds
from dpcore.single_parameter.release.functional import sample_functional

SEEDS = 4000


def _se(p, n):
    return math.sqrt(p * (1 - p) / n)


@pytest.mark.stat
@pytest.mark.parametrize("n,d", [(2000, 3), (20_000, 5)])
def test_coverage_of_the_eigenvalue_bounds_over_seeds(n, d):
    """P(λ̂ > λ_min) ≤ δ₁ and P(Λ̂ < λ_max) ≤ δ₂, over 4 000 independent draws on each of 3 datasets."""
    delta = 0.1
    for s in range(3):
        X, y, _ = robust_regression(n, d, rng=100 + s)
        an = analyse((X, y), EigenBoundsConfig())
        lh, Lh = sample_eigen_bounds(an, 0.5, delta, 0.5, delta, SEEDS, np.random.default_rng(s))
        miss_lo = np.mean(lh > an.lam_min)
        miss_hi = np.mean(Lh < an.lam_max)
        assert miss_lo <= delta + 3 * _se(delta, SEEDS)
        assert miss_hi <= delta + 3 * _se(delta, SEEDS)
        assert miss_lo >= delta - 4 * _se(delta, SEEDS)      # Algorithm 6-L misses with probability δ exactly
        lh, Lh = sample_eigen_bounds(an, 0.5, 1e-9, 0.5, 1e-9, SEEDS, np.random.default_rng(10 + s))
        assert np.all(lh <= an.lam_min) and np.all(Lh >= an.lam_max)


@pytest.mark.stat
def test_coverage_over_datasets_and_noise():
    """Coverage over 2 000 seeds, each drawing new data (n = 500, d = 2) and new noise."""
    misses_lo = misses_hi = 0
    reps = 2000
    for s in range(reps):
        X, y, _ = robust_regression(500, 2, noise="laplace", rng=s)
        an = analyse((X, y), EigenBoundsConfig())
        lh, Lh = sample_eigen_bounds(an, 2.0, 0.1, 2.0, 0.1, 1, s)
        misses_lo += lh[0] > an.lam_min
        misses_hi += Lh[0] < an.lam_max
    assert misses_lo / reps <= 0.1 + 3 * _se(0.1, reps)
    assert misses_hi / reps <= 0.1 + 3 * _se(0.1, reps)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["curvature", "flip", "random"])
def test_stability_bounds_hold_against_adversarial_neighbours(seed, mode):
    cfg = LambdaMinConfig()
    if mode == "random":
        X, y, _ = robust_regression(300, 3, noise="t3", rng=seed)
        g = np.random.default_rng(seed)
        X2, y2 = X.copy(), y.copy()
        x = g.standard_normal(3)
        X2[5] = x / np.linalg.norm(x) * (1 - 1e-9)
        y2[5] = g.normal(0, 30)
        D, Dp = (X, y), (X2, y2)
    else:
        D, Dp = audits.pair(300, 3, seed, mode)
    a, b = analyse(D, cfg), analyse(Dp, cfg)
    k = a.consts
    lam, Lam = a.lam_min, a.lam_max
    assert k.C1(lam)
    dtheta = b.fit.theta - a.fit.theta
    assert np.linalg.norm(dtheta) <= k.Delta_n(lam)                         # Corollary 3.1
    assert b.lam_min >= k.R(lam)                                           # recursion (10)
    assert b.lam_max <= k.R_up(Lam, lam)                                   # recursion (12)
    assert abs(a.K - b.K) <= 1                                             # count sensitivity
    assert abs(int(upper_count(k, Lam, lam)) - int(upper_count(k, b.lam_max, lam))) <= 1
    tau, taub = k.tau_pair(lam, Lam)
    for j in range(3):
        v = np.eye(3)[j]
        S, Sp = local_sensitivity(a, v), local_sensitivity(b, v)
        assert 1 - tau <= Sp / S <= 1 + tau                                # Corollary 3.5 analogue
        assert abs(v @ dtheta) <= (1 + taub) * S                           # Corollary 3.3 analogue


@pytest.mark.stat
def test_ptr_releases_with_probability_at_most_delta_on_a_dataset_that_fails_the_test():
    """If the test fails at the true (λ_min, λ_max), a release needs λ̂ > λ_min or Λ̂ < λ_max."""
    X, y, _ = robust_regression(3000, 5, noise="t3", rng=4)
    cfg = FunctionalConfig(epsilon=2.0, delta=0.2, eps_split=(0.3, 0.3, 0.38, 0.02))
    an = analyse((X, y), cfg)
    (e1, d1), (e2, d2), _, (e4, ld4) = cfg.budgets()
    tau, _ = an.consts.tau_pair(an.lam_min, an.lam_max)
    assert an.consts.C1(an.lam_min) and eps_var(an.nu * tau, log_delta=ld4) > e4      # fails exactly
    N = 40_000
    out = sample_functional(an, cfg, N, np.random.default_rng(0))
    p = out["passed"].mean()
    assert p <= d1 + d2 + 3 * _se(d1 + d2, N)
    # the un-noised decision never releases here, but on the audit's straddling pair it decides deterministically
    Da, Db = audits.pair(200, 2, 3, "curvature")
    split, vals = audits.tune_ptr_split(Da, Db, 4.0, 0.02)
    c = FunctionalConfig(epsilon=4.0, delta=0.02, eps_split=split)
    mut = calibrate_functional(c, Da[0].shape).replace(params={"count_noise": 0.0, "count_shift": False})
    pa = sample_functional(analyse(Da, c), c, 1000, 1, mut)["passed"].mean()
    pb = sample_functional(analyse(Db, c), c, 1000, 1, mut)["passed"].mean()
    assert {pa, pb} == {0.0, 1.0}
    ok = [sample_functional(analyse(D, c), c, 20_000, 2)["passed"].mean() for D in (Da, Db)]
    assert max(ok) <= math.exp(4.0) * min(ok) + 0.02


def test_audit_pairs_attain_the_sensitivities():
    cfg = LambdaMinConfig()
    a, b = (analyse(D, cfg) for D in audits.pair(200, 2, 3, "curvature"))
    assert a.K - b.K == 1
    a, b = (analyse(D, cfg) for D in audits.pair(2000, 2, 0, "flip"))
    assert np.linalg.norm(a.fit.theta - b.fit.theta) / a.consts.Delta_n(a.lam_min) > 0.95


def test_total_budgets_match_the_table():
    cfg = FunctionalConfig(epsilon=2.0, delta=1e-5)
    (e1, d1), (e2, d2), (e3, d3), (e4, ld4) = cfg.budgets()
    assert e1 + e2 + e3 + e4 == pytest.approx(2.0)
    assert d1 + d2 + d3 + math.exp(e3 + ld4) == pytest.approx(1e-5)
    cal = calibrate_functional(cfg, (1000, 3))
    assert cal.cost(1).total_epsilon == 2.0 and cal.cost(1).total_delta == 1e-5
    assert calibrate_theta(ThetaConfig(epsilon=1, delta=1e-6), (1000, 3)).cost(1).total_delta == 1e-6
    assert calibrate_eigen_bounds(EigenBoundsConfig(epsilon=1, delta=1e-6), (1000, 3)).delta == 5e-7
    assert calibrate_lambda_min(LambdaMinConfig(), (1000, 3)).notion == "pure"


def test_release_carries_the_total_guarantee_and_abstains_below_threshold():
    X, y, _ = robust_regression(1000, 5, rng=0)
    for f, cls in [(functional.release, FunctionalConfig), (theta.release, ThetaConfig),
                   (theta_generic.release, GenericConfig)]:
        r = f((X, y), cls(epsilon=1.0, delta=1e-5), rng=0)
        assert r.released and np.all(np.isnan(r.value))            # ⊥ is released; NaN value
        assert r.notes_of("withheld") and "⊥" in r.notes_of("withheld")[0]
        assert r.cost.total_epsilon == 1.0 and r.cost.total_delta == 1e-5
    X, y, _ = robust_regression(50_000, 5, rng=0)
    r = functional.release((X, y), FunctionalConfig(), rng=0)
    assert np.isfinite(r.value) and "test passed" in r.notes_of("output")[-1]
    S = r.diagnostics.values["oracle local sensitivity LS_v (non-private)"]
    sd = r.diagnostics.values["noise sd (non-private: uses LS_v)"]
    assert r.calibration.constant * S < sd < 1.1 * r.calibration.constant * S    # σ(ε₃, δ₃)(1 + ντ̄)·LS_v, τ̄ small


def test_ptr_pass_pattern_is_monotone_in_n():
    passes = []
    for n in (1000, 2000, 5000, 20_000, 100_000):
        X, y, _ = robust_regression(n, 5, rng=7)
        out = sample_functional(analyse((X, y), FunctionalConfig()), FunctionalConfig(), 400, 0)
        passes.append(out["passed"].mean())
    assert passes[0] == 0 and passes[-1] == 1
    assert all(b >= a - 0.05 for a, b in zip(passes, passes[1:]))


@pytest.mark.parametrize("case", ["d>=n", "zero column", "duplicate column", "two constants", "separable"])
def test_degenerate_designs_abstain_with_a_clear_message(case):
    g = np.random.default_rng(0)
    X, y, _ = robust_regression(400, 3, rng=1)
    loss = "robust"
    if case == "d>=n":
        X, y = g.standard_normal((5, 6)) * 0.3, g.standard_normal(5)
    elif case == "zero column":
        X[:, 1] = 0.0
    elif case == "duplicate column":
        X = np.column_stack([X, X[:, 0]])
    elif case == "two constants":
        X = np.column_stack([np.full(400, 0.3), np.full(400, 0.2), 0.5 * X[:, :1]])
    else:
        X = np.column_stack([np.ones(400), g.uniform(-1, 1, 400)]) * 0.7
        y = np.sign(X[:, 1])
        loss = "logistic"
    for f, cls in [(functional.release, FunctionalConfig), (theta.release, ThetaConfig)]:
        r = f((X, y), cls(epsilon=1e9, loss=loss), rng=0)
        assert np.all(np.isnan(r.value)) and r.released and r.notes_of("withheld")
        # the reason is data (issue 17): named in the non-private diagnostics, never in the ⊥ note
        why = r.diagnostics.values["degenerate design"]
        assert "singular" in why or "separable" in why or "d = " in why
        assert not any(w in t for t in r.notes_of("withheld") for w in ("singular", "separable", "column", "d = "))
    r = lambda_min.release((X, y), LambdaMinConfig(epsilon=1e9, loss=loss), rng=0)
    assert r.value == 0.0


def test_bad_inputs_are_refused_with_names():
    X, y, _ = robust_regression(100, 3, rng=1)
    with pytest.raises(DPValueError, match="rows"):
        theta.release((X, y[:50]), ThetaConfig())
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(DPValueError, match="non-finite"):
        theta.release((Xn, y), ThetaConfig())
    with pytest.raises(DPValueError, match="binary"):
        theta.release((X, y), ThetaConfig(loss="logistic"))
    with pytest.raises(DPValueError, match="coordinate"):
        functional.release((X, y), FunctionalConfig(coordinate=3))
    for kw, name in [(dict(c=1.5), "c"), (dict(sbar=2), "sbar"), (dict(geometry="ball"), "geometry"),
                     (dict(eps_split=(0.5, 0.5, 0.5, 0.5)), "eps_split"), (dict(direction=(1.0, 1.0)), "direction"),
                     (dict(radius=0), "radius")]:
        with pytest.raises(DPValueError, match=name):
            FunctionalConfig(**kw)
    with pytest.raises(DPValueError, match="nu"):
        make_config(FunctionalConfig, "Algorithm 5", nu=1.0)   # ν is derived from the geometry, never given


def test_hypercube_geometry_derives_nu_and_the_dual_norm():
    X, y = census_like(4000, rng=3)
    an = analyse((X, y), FunctionalConfig(loss="logistic", geometry="hypercube", rho=0.05))
    assert an.nu == pytest.approx(math.sqrt(17)) and an.q == 1.0 and an.consts.r2 == pytest.approx(math.sqrt(17))
    v = np.eye(17)[2]
    w = np.linalg.solve(an.fit.H, v)
    assert local_sensitivity(an, v) == pytest.approx(2 / 4000 * np.abs(w).sum())


def test_clipping_is_reported_in_the_nonprivate_diagnostics_only():
    """Issue 17: the count of clipped rows is data — a non-private diagnostic; the notes state the rule only."""
    X, y, _ = robust_regression(2000, 3, rng=1)
    X[:10] *= 3
    r = theta.release((X, y), ThetaConfig(), rng=0)
    assert r.diagnostics.values["clipped rows"] == 10
    assert not any("10" in t for t in r.notes_of("warning") + r.notes_of("info"))
    clean = theta.release((X[:, :] / 3 ** (np.arange(2000) < 10)[:, None], y), ThetaConfig(), rng=0)
    assert clean.diagnostics.values["clipped rows"] == 0
    assert r.notes_of("info") == clean.notes_of("info") and r.notes_of("warning") == clean.notes_of("warning")


def test_functional_notes_do_not_carry_the_local_sensitivity():
    """Issue 17 item 2: the noise sd σ(ε₃, δ₃)(1 + ντ̄)·LS_v uses the exact local sensitivity (data): it is a
    non-private diagnostic, never printed in a note (before: "released with noise sd … = 0.01157")."""
    X, y, _ = robust_regression(20_000, 3, theta_norm=1.0, noise="t3", rng=20250317)
    r = functional.release((X, y), FunctionalConfig(), rng=1)
    assert np.isfinite(r.value)
    sd = r.diagnostics.values["noise sd (non-private: uses LS_v)"]
    ls = r.diagnostics.values["oracle local sensitivity LS_v (non-private)"]
    text = " ".join(n.text for n in r.notes)
    for x in (sd, ls):
        for fmt in (".4g", ".3g", ".6g"):
            assert format(x, fmt) not in text, (format(x, fmt), text)


@pytest.mark.parametrize("eps", [1.0, 1e9])
def test_breast_cancer_logistic_regression(eps):
    """569 × 30 (+ intercept), public per-feature ranges, hypercube [0, 1]^31, ρ = 0.01 and ρ = 1."""
    X, y, names = breast_cancer()
    assert X.shape == (569, 31) and len(names) == 31
    common = dict(epsilon=eps, delta=1e-6, loss="logistic", geometry="hypercube")
    eb = eigen_bounds.release((X, y), EigenBoundsConfig(rho=0.01, **common), rng=0)
    lam, Lam = eb.diagnostics.values["true λ_min (non-private)"], eb.diagnostics.values["true λ_max (non-private)"]
    assert eb.value[0] <= lam and eb.value[1] >= Lam
    # n = 569 is far below the certified region nλ ≥ 4c·r₂·D = 496 (r₂ = √31): Algorithms 3 and 5 abstain
    r5 = functional.release((X, y), FunctionalConfig(rho=0.01, coordinate=1, **common), rng=0)
    assert np.isnan(r5.value) and "(C1)" in r5.notes_of("withheld")[0]
    r3 = theta.release((X, y), ThetaConfig(rho=1.0, **common), rng=0)
    if eps > 1e6:   # a heavy ridge (ρ = 1 ≥ λ_c = 0.87) certifies; the release is then the non-private θ̂_ρ
        np.testing.assert_allclose(r3.value, theta.nonprivate((X, y), ThetaConfig(rho=1.0, **common)), atol=1e-5)
    else:
        assert np.all(np.isnan(r3.value))

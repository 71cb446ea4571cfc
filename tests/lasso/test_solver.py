"""Frank–Wolfe (direct and Gram paths), the constrained optimum, ε → ∞, the ℓ1 ball, caps and cancelling."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Lasso

from dpcore.errors import Cancelled, DataError, DPValueError
from dpcore.lasso import LassoConfig, nonprivate, release
from dpcore.lasso import _solver as solver
from dpcore.lasso.designs import sparse_regression


@pytest.fixture(scope="module")
def data():
    X, y, theta = sparse_regression(600, 30, 4, rng=1)
    return X, y, theta


def test_private_output_stays_in_the_l1_ball(data):
    X, y, _ = data
    for r in (0.3, 1.0, 5.0):
        for sel in ("exponential", "laplace"):
            th = release((X, y), LassoConfig(radius=r, selection=sel, epsilon=0.5), rng=3, diagnostics=False).value
            assert np.abs(th).sum() <= r * (1 + 1e-12)


def test_simplex_output_stays_in_the_simplex(data):
    X, y, _ = data
    th = release((X, y), LassoConfig(constraint="simplex", radius=2.0), rng=3, diagnostics=False).value
    assert th.min() >= 0 and th.sum() <= 2.0 * (1 + 1e-12)


def test_direct_and_gram_paths_agree(data):
    X, y, _ = data
    a = release((X, y), LassoConfig(path="direct", steps=200), rng=5, diagnostics=False).value
    b = release((X, y), LassoConfig(path="gram", steps=200), rng=5, diagnostics=False).value
    np.testing.assert_allclose(a, b, atol=1e-10)
    assert solver.choose_path(10 ** 6, 100, 1000) == "gram" and solver.choose_path(10 ** 4, 10 ** 4, 500) == "direct"


def test_float32_path_is_close(data):
    X, y, _ = data
    a = nonprivate((X, y), LassoConfig(steps=300))
    b = nonprivate((X, y), LassoConfig(steps=300, dtype="float32"))
    assert solver.loss(X, y, b) == pytest.approx(solver.loss(X, y, a), rel=1e-4)


def test_huge_epsilon_reaches_the_nonprivate_solution(data):
    X, y, _ = data
    cfg = LassoConfig(epsilon=1e9, steps=3000)
    rel = release((X, y), cfg, rng=0)
    np.testing.assert_array_equal(rel.value, nonprivate((X, y), cfg))
    opt = solver.constrained_optimum(X, y, 1.0)
    assert solver.loss(X, y, rel.value) - opt.loss < 1e-4            # FW's O(Γ/T) from the optimum
    np.testing.assert_allclose(rel.value, opt.theta, atol=0.02)


def test_constrained_optimum_matches_sklearn_lasso_on_the_equivalent_penalty():
    X, y, _ = sparse_regression(500, 20, 3, rng=2)
    r = 0.4                                                      # active constraint
    opt = solver.constrained_optimum(X, y, r, tol=1e-12)
    assert np.abs(opt.theta).sum() == pytest.approx(r, rel=1e-6)
    alpha = np.abs(solver.gradient(X, y, opt.theta)).max() / 2        # KKT: sklearn's α = ‖∇L(θ*)‖∞/2
    sk = Lasso(alpha=alpha, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(X, y).coef_
    np.testing.assert_allclose(sk, opt.theta, atol=1e-5)


def test_projections():
    g = np.random.default_rng(0)
    for _ in range(20):
        v = 3 * g.standard_normal(8)
        w = solver.project_l1(v, 1.0)
        assert np.abs(w).sum() <= 1 + 1e-12
        # optimality: ⟨v − w, u − w⟩ ≤ 0 for u in the ball (check the vertices)
        for u in np.concatenate([np.eye(8), -np.eye(8)]):
            assert (v - w) @ (u - w) <= 1e-10
        s = solver.project_simplex(v, 2.0)
        assert s.min() >= 0 and s.sum() == pytest.approx(2.0)


def test_nonprivate_fw_gap_falls_like_one_over_T(data):
    X, y, _ = data
    opt = solver.constrained_optimum(X, y, 1.0)
    gaps = [solver.loss(X, y, solver.frank_wolfe(X, y, radius=1.0, steps=T).theta[0]) - opt.loss for T in (10, 100, 1000)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] <= 8 * 1.0 / 1000


def test_clipping_is_reported_not_silent():
    X = np.array([[2.0, 0.0], [0.5, -3.0], [0.1, 0.1]])
    y = np.array([0.0, 5.0, 0.2])
    Xc, yc, info = solver.clip_design(X, y)
    assert np.abs(Xc).max() <= 1 and np.abs(yc).max() <= 1
    assert info["clipped covariate entries"] == 2 and info["clipped responses"] == 1
    assert info["records touched by clipping"] == 2
    assert X[0, 0] == 2.0                                        # input untouched


def test_bad_data_is_a_clear_error():
    with pytest.raises(DataError, match="non-finite"):
        solver.clip_design(np.array([[np.nan, 1.0]]), np.array([0.0]))
    with pytest.raises(DataError, match="rows"):
        solver.clip_design(np.zeros((3, 2)), np.zeros(2))


def test_work_above_the_cap_is_refused_up_front():
    X = np.zeros((10, 5))
    with pytest.raises(DPValueError, match="cap"):
        solver.frank_wolfe(X, np.zeros(10), radius=1.0, steps=10, reps=int(solver.MAX_WORK), path="direct")


def test_progress_false_cancels(data):
    X, y, _ = data
    with pytest.raises(Cancelled):
        release((X, y), LassoConfig(steps=500), rng=0, progress=lambda d, t: d < 100)


def test_release_diagnostics_include_the_sklearn_equivalent(data):
    X, y, _ = data
    dv = release((X, y), LassoConfig(radius=0.3), rng=0).diagnostics.values
    assert dv["scikit-learn Lasso α (equivalent penalty)"] > 0 and dv["max |θ_sklearn − θ*|"] < 1e-4
    dv = release((X, y), LassoConfig(radius=50.0, steps=20), rng=0).diagnostics.values   # constraint slack
    assert dv["scikit-learn Lasso α (equivalent penalty)"] == 0.0 and dv["max |θ_sklearn − θ*|"] < 1e-4

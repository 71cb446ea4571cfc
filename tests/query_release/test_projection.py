"""Projections onto conv X: KKT, never worse than the raw noise, agreement with a generic QP (scipy)."""
import numpy as np
import pytest
from scipy.optimize import minimize

from dpcore.query_release._projection import (
    lmo_frank_wolfe,
    pairwise_frank_wolfe,
    pairwise_frank_wolfe_batch,
    plain_frank_wolfe,
    project,
)
from dpcore.query_release._workloads import (
    Cone,
    Marginals,
    RandomSigns,
    Thresholds,
    pava,
    project_cone,
    project_thresholds,
    project_thresholds_batch,
)


def qp_projection(P, y):
    """Generic QP: min_{w ∈ simplex} ‖Pᵀw − y‖² by SLSQP (validation only)."""
    N = P.shape[0]
    res = minimize(lambda w: 0.5 * np.sum((w @ P - y) ** 2), np.full(N, 1 / N), jac=lambda w: P @ (w @ P - y),
                   bounds=[(0, 1)] * N, constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1,
                                                      "jac": lambda w: np.ones(N)}],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 2000})
    return res.x @ P


WORKLOADS = [Marginals(3, 2), Marginals(4, 1), RandomSigns(6, 12, 1), Thresholds(7)]


@pytest.mark.parametrize("spec", WORKLOADS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("scale", [0.05, 0.5, 3.0])
def test_pairwise_fw_kkt_feasibility_and_generic_qp(spec, scale):
    wl = spec.build()
    g = np.random.default_rng(int(scale * 100))
    xbar = g.dirichlet(np.ones(wl.size)) @ wl.points
    y = xbar + scale * g.standard_normal(wl.k)
    res = pairwise_frank_wolfe(wl.points, y, tol=1e-12)
    assert res.converged and res.gap <= 1e-12
    # KKT: ⟨ỹ − ŷ, x − ŷ⟩ ≤ tol for every x ∈ X
    assert np.max((wl.points - res.y) @ (y - res.y)) <= 1e-9
    # never worse than the raw noise (x̄ ∈ conv X)
    assert np.linalg.norm(res.y - xbar) <= np.linalg.norm(y - xbar) + 1e-12
    np.testing.assert_allclose(res.y, qp_projection(wl.points, y), atol=2e-5)
    if wl.projector is not None:
        np.testing.assert_allclose(res.y, wl.projector(y), atol=1e-6)


def test_pava_thresholds_against_generic_qp_and_batch_formula():
    wl = Thresholds(8).build()
    g = np.random.default_rng(0)
    Y = g.normal(0.5, 0.8, size=(30, 8))
    for y in Y[:10]:
        np.testing.assert_allclose(project_thresholds(y), qp_projection(wl.points, y), atol=2e-5)
    np.testing.assert_allclose(project_thresholds_batch(Y), np.array([project_thresholds(y) for y in Y]), atol=1e-12)
    z = g.normal(size=50)
    fit = pava(z)
    assert np.all(np.diff(fit) >= -1e-12) and fit.sum() == pytest.approx(z.sum())


def test_cone_projector_matches_lmo_frank_wolfe_and_kkt():
    k, r = 30, 0.2
    g = np.random.default_rng(1)
    spec = Cone(k, r=r, L=3, n_dirs=4)
    wl = spec.build()
    for _ in range(6):
        y = g.normal(0, 2.0, k) + np.eye(1, k, 0)[0] * g.normal(3, 4)
        exact = project_cone(y, k, r)
        fw = lmo_frank_wolfe(wl.lmo, y, np.zeros(k), tol=1e-9, max_iter=50_000)
        assert np.linalg.norm(fw.y - exact) <= 1e-3
        # KKT over the whole cone through its oracle: ⟨ỹ − ŷ, s − ŷ⟩ ≤ 0 for s = LMO(ŷ − ỹ)
        s = wl.lmo(exact - y)
        assert (s - exact) @ (y - exact) <= 1e-8
        assert np.max((wl.points - exact) @ (y - exact)) <= 1e-8


def test_batch_pairwise_matches_single():
    wl = Marginals(3, 2).build()
    g = np.random.default_rng(2)
    Y = wl.points.mean(0) + g.normal(0, 0.7, size=(40, wl.k))
    Yb, gap = pairwise_frank_wolfe_batch(wl.points, Y, tol=1e-12)
    assert gap <= 1e-10
    for yb, y in zip(Yb, Y):
        np.testing.assert_allclose(yb, pairwise_frank_wolfe(wl.points, y, tol=1e-12).y, atol=1e-6)


def test_plain_fw_is_slower_than_pairwise_on_the_same_budget():
    """The reason plain FW is never used: at the same iteration budget it is far from converged."""
    wl = Marginals(6, 2).build()
    g = np.random.default_rng(3)
    xbar = wl.points[g.integers(0, wl.size, 30)].mean(0)
    y = xbar + 0.01 * g.standard_normal(wl.k)
    pw = pairwise_frank_wolfe(wl.points, y, tol=1e-10)
    plain = plain_frank_wolfe(wl.points, y, tol=1e-10, max_iter=pw.iterations)
    assert pw.converged and not plain.converged and plain.gap > 1e3 * max(pw.gap, 1e-12)


def test_project_dispatch_uses_structured_projector():
    assert project(Thresholds(5).build(), np.zeros(5)).method == "exact structured projector"
    assert project(Marginals(3, 1).build(), np.zeros(6)).method == "pairwise Frank–Wolfe"

"""The declared figures: frames, non-negative excess risk, caps, the lower-bound curve, the viz."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore.experiments import run_experiment
from dpcore.lasso import figures
from dpcore.lasso.plots import coefficients_figure, risk_vs_n_figure


def test_lasso_figure_quick_frame():
    f = run_experiment("lasso", xs=(300, 3000), reps=2, methods=("p=100",), jobs=1, seed=1)
    assert set(f["n"]) == {300, 3000} and len(f) == 4
    assert (f["error"] >= -1e-9).all() and (f["excess_fw"] >= -1e-9).all()
    assert (f["opt_gap"] <= figures.OPT_TOL).all()
    # non-private FW with the same T is far better than the private run (the cost of privacy)
    assert (f["excess_fw"] < f["error"]).all()
    fig = risk_vs_n_figure(f)
    names = [t.name for t in fig.data]
    assert any("Theorem 3.1" in nm for nm in names) and any("−2/3" in nm or "-2/3" in nm for nm in names)


def test_lasso_p_figure_quick_frame():
    f = run_experiment("lasso-p", xs=(10, 100), reps=1, jobs=1, seed=1, n=500)
    assert set(f["method"]) == {"private_fw", "private_fw_laplace", "noisy_gradient_fw", "nonprivate_fw"}
    assert (f["error"] >= -1e-9).all()


def test_sufficient_statistics_path_matches_the_direct_path():
    from dpcore.lasso.designs import sparse_regression
    from dpcore.lasso._solver import constrained_optimum, frank_wolfe, gram_loss, loss
    X, y, _ = sparse_regression(2000, 50, 3, rng=0)
    G, b, yy = X.T @ X, X.T @ y, float(y @ y)
    a = frank_wolfe(X, y, radius=1.0, steps=300, path="direct").theta[0]
    c = frank_wolfe(None, None, radius=1.0, steps=300, gram=(G, b), n=2000).theta[0]
    np.testing.assert_allclose(a, c, atol=1e-10)
    assert gram_loss(G, b, yy, 2000, a) == pytest.approx(loss(X, y, a), rel=1e-10)
    o1 = constrained_optimum(X, y, 1.0, tol=1e-10)
    o2 = constrained_optimum(None, None, 1.0, tol=1e-10, suffstats=(G, b, yy, 2000))
    assert o1.loss == pytest.approx(o2.loss, abs=1e-9)


def test_work_caps_leave_units_out():
    assert figures.feasible(100_000, 1000) and not figures.feasible(300_000, 1000)
    assert figures.feasible(3000, 10_000) and not figures.feasible(10_000, 10_000)


def test_lower_bound_curve_has_slope_minus_two_thirds_up_to_logs():
    n = np.array([1e4, 1e8])
    s = np.diff(np.log(figures.lower_bound_curve(n))) / np.diff(np.log(n))
    assert -0.75 < s[0] < -2 / 3


def test_coefficients_figure_keeps_all_in_the_csv():
    fig, frame = coefficients_figure([f"x{j}" for j in range(100)],
                                     {"private_fw": np.r_[1.0, np.zeros(99)], "optimum": np.r_[0.5, np.zeros(99)]},
                                     max_shown=10)
    assert len(frame) == 100 and len(fig.data[0].x) == 10
    with pytest.raises(KeyError):
        frame["truth"]

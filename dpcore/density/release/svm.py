"""The private kernel SVM: f_D + σ·G on a public grid, G a Gaussian process; (ε, δ)-DP (Hall 2012 slides §2.5;
sensitivity in ``dpcore.density._svm``); and the page's simulations of it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..._rng import as_generator
from ...mechanism import Calibration, Diagnostics, Note, Release
from .. import _kde as K
from .._svm import _check_xy, _gram, _grid_values, _points_factor, fit_svm
from ..calibration import calibrate_svm
from ..configs import SVMConfig
from ..designs import two_class


def svm_sample(data, config: SVMConfig, size: int, rng, *, override=None) -> np.ndarray:
    """``size`` private decision functions on the grid, shape (size, grid, grid) (Kronecker GP sampling)."""
    X, y = _check_xy(data)
    cal = calibrate_svm(config, np.shape(y))
    if override is not None:
        cal = override(cal)
    c, _ = fit_svm(X, y, config.lam, config.bandwidth, config.gap, config.max_epochs)
    return _svm_draws(_grid_values(c, X, config), config, cal, size, rng)


def _svm_draws(f: np.ndarray, config: SVMConfig, cal: Calibration, size: int, rng) -> np.ndarray:
    """``size`` draws f_D + σ·G on the grid: the one noisy-output path of the release and the audit."""
    sigma = cal.constant * cal.params["noise_factor"]
    return f[None] + sigma * K.sample_gp(config.grid, config.bandwidth, 2, size, rng)


def release(data, config: SVMConfig, *, rng=None) -> Release:
    """Release f̃ = f_D + σG on the public grid (value (size, grid, grid)); classify by its sign."""
    X, y = _check_xy(data)
    cal = calibrate_svm(config, np.shape(y))
    c, gap = fit_svm(X, y, config.lam, config.bandwidth, config.gap, config.max_epochs)
    f = _grid_values(c, X, config)
    value = _svm_draws(f, config, cal, config.size, rng)
    return Release("density/svm", value, cal.cost(config.size), cal, True,
                   (Note("info", f"GP noise σ = {cal.constant:.4g} on the {config.grid}×{config.grid} grid."),),
                   Diagnostics(values={"non-private decision function": f, "attained duality gap": gap}), config)


def svm_demo(n: int, *, lam: float, bandwidth: float, epsilon: float, delta: float, rng, grid: int = 50) -> dict:
    """Synthetic two-class data, the non-private and one private decision function on a grid (a simulation)."""
    g = as_generator(rng)
    X, y = two_class(n, g)
    cfg = SVMConfig(epsilon=epsilon, delta=delta, lam=lam, bandwidth=bandwidth, grid=grid)
    rel = release((X, y), cfg, rng=g)
    return {"grid": K.grid_axis(grid), "X": X, "y": y,
            "fields": {"nonprivate": rel.diagnostics.values["non-private decision function"],
                       "svm-private": rel.value[0]},
            "statement": rel.calibration.statement()}


def accuracy_vs_epsilon(n: int, *, lam: float, bandwidth: float, delta: float, reps: int, rng,
                        epsilons=(0.1, 0.3, 1.0, 3.0, 10.0, 30.0), n_test: int = 600) -> pd.DataFrame:
    """Test accuracy of sign(f̃) vs ε on fresh two-class data (GP drawn jointly at the test points)."""
    g = as_generator(rng)
    rows = []
    for rep in range(int(reps)):
        X, y = two_class(n, g)
        Xt, yt = two_class(n_test, g)
        c, _ = fit_svm(X, y, lam, bandwidth, 1e-5)
        ft = _gram(Xt, X, bandwidth) @ c
        L = _points_factor(Xt, bandwidth)
        acc0 = float(np.mean(np.sign(ft) == yt))
        for eps in epsilons:
            sigma = calibrate_svm(SVMConfig(epsilon=eps, delta=delta, lam=lam, bandwidth=bandwidth), (n,)).constant
            f = ft + sigma * (L @ g.standard_normal(len(yt)))
            rows.append({"epsilon": eps, "rep": rep, "accuracy": float(np.mean(np.sign(f) == yt)),
                         "nonprivate_accuracy": acc0})
    return pd.DataFrame(rows)

"""NON-PRIVATE references for the LASSO page's teaching view (issue 20 item 5): on any design — simulated,
built-in or a user's table — the constrained fit with an intercept and scikit-learn's intercept Lasso and OLS,
in the columns' own units, beside the released coefficients.

Everything here is computed from the data and is not differentially private: pages show it only inside the
labelled non-private box (the teaching view, recorded as not DP on a user's data).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .calibration import corollary27_rate
from .configs import LassoConfig
from .designs import Design
from ._solver import constrained_optimum, gradient
from .release.private_fw import support, support_recovery

__all__ = ["reference_fits", "comparison_caption", "reference_fits_caption"]

_UNITS = "coefficient (units of {} per unit of x)"


def reference_fits(design: Design, radius: float, *, released: np.ndarray | None = None,
                   intercept: bool = True) -> pd.DataFrame:
    """One row per term (intercept, then the covariates), one column per fit, in the columns' units:

    * ``released`` (optional, the private value; (intercept, θ) if ``intercept``);
    * "constrained fit, intercept (non-private)": min over ‖θ‖₁ ≤ r of the mean squared error on the scaled
      design centred at the data's own means (the intercept is then ȳ′ − x̄′·θ);
    * "scikit-learn Lasso, intercept (non-private)": ``Lasso(fit_intercept=True)`` at the penalty α equivalent
      to the constraint (α = ‖∇L(θ*)‖∞/2 when it binds, least squares otherwise) — it matches the row above;
    * "scikit-learn OLS, intercept (non-private)": ``LinearRegression(fit_intercept=True)``, no constraint.
    """
    from sklearn.linear_model import Lasso, LinearRegression

    X, y = np.asarray(design.X, float), np.asarray(design.y, float)
    mx, my = X.mean(axis=0), float(y.mean())
    Xc, yc = X - mx, y - my
    opt = constrained_optimum(Xc, yc, radius, tol=1e-10)
    fits = {"constrained fit, intercept (non-private)": np.r_[my - mx @ opt.theta, opt.theta]}
    if np.abs(opt.theta).sum() >= radius * (1 - 1e-6):
        alpha = float(np.abs(gradient(Xc, yc, opt.theta)).max()) / 2
        sk = Lasso(alpha=alpha, fit_intercept=True, tol=1e-10, max_iter=50_000).fit(X, y)
    else:
        sk = LinearRegression(fit_intercept=True).fit(X, y)
    fits["scikit-learn Lasso, intercept (non-private)"] = np.r_[sk.intercept_, sk.coef_]
    ols = LinearRegression(fit_intercept=True).fit(X, y)
    fits["scikit-learn OLS, intercept (non-private)"] = np.r_[ols.intercept_, ols.coef_]
    units = _UNITS.format(design.response)
    out = pd.DataFrame({"term": ["intercept", *design.covariates]})
    if released is not None:
        out["released (private)"] = design.user_units(np.asarray(released, float), intercept)[units].to_numpy()
    for name, value in fits.items():
        out[name] = design.user_units(value, True)[units].to_numpy()
    return out


def comparison_caption(values, theta: np.ndarray, shape: tuple[int, int], config: LassoConfig) -> str:
    """The caption of the page's non-private comparison (NON-PRIVATE: it reads the release's diagnostics
    ``values``, computed from the data): the excess risk's definition, how much of the support of the constrained
    optimum θ* the released ``theta`` (without its intercept) recovers, the records touched by clipping, the rate
    of Corollary 2.7 at ``shape`` = (n, p) and the config's (ε, δ), and scikit-learn's agreement with θ*."""
    optimum = values["constrained optimum θ*"]
    opt_theta = optimum[1:] if config.intercept else optimum
    k = max(1, len(support(opt_theta)))
    rec = support_recovery(theta, opt_theta, k)
    return (f"Excess empirical risk = L(θ) − min_C L (L = mean squared error in public units). Support of θ* "
            f"recovered: {rec['recovered']} of {k}. Clipped records: {values['records touched by clipping']}. "
            f"Bound of Corollary 2.7 (up to its constant): log(np/δ)/(nε)^(2/3) = "
            f"{corollary27_rate(*shape, config.epsilon, config.delta):.3g}." + (
                f" scikit-learn's Lasso with the equivalent penalty α = "
                f"{values['scikit-learn Lasso α (equivalent penalty)']:.4g} gives θ* within "
                f"{values['max |θ_sklearn − θ*|']:.1g}." if "max |θ_sklearn − θ*|" in values else ""))


def reference_fits_caption(response: str, intercept: bool) -> str:
    """What the table of :func:`reference_fits` shows and how to read it beside a release with (or without) an
    intercept; ``response`` (a column name) is shown literally."""
    from dpcore.data import literal

    return (f"In the columns' own units ({literal(response)} per unit of each covariate). The constrained "
            "fit and scikit-learn's Lasso (same ℓ1 radius, intercept) should agree; OLS has no "
            "constraint. A released coefficient with the opposite sign of these fits is noise or the "
            "constraint at work, not a finding." + ("" if intercept else " The release has no "
            "intercept: its coefficients absorb the columns' offsets from the centres of their "
            "bounds, so they can differ from the intercept fits even at a huge ε."))

"""Helpers of the "certified eigenvalue bounds" page (Asi, Duchi & Talwar 2025): demo datasets, the
public preparation of a user's columns into (X, y), and the coverage study of the certified bounds
as n grows (on simulated, public data).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .._rng import RNGLike, as_generator, spawn
from .._validation import check_int
from ..data import Dataset, public_columns
from ..errors import DataError, DPValueError
from ._analysis import analyse
from .configs import EigenBoundsConfig
from .designs import BREAST_CANCER_UPPER, robust_regression
from .release.eigen_bounds import sample_eigen_bounds

__all__ = ["simulated_dataset", "breast_cancer_dataset", "diabetes_dataset", "prepare_xy", "coefficient_units", "eigen_bounds_vs_n", "MAX_STUDY_WORK",
           "preparation_note"]

#: Cap on the coverage study's work: Σ_n (replicates × n × d).
MAX_STUDY_WORK = 60_000_000


def simulated_dataset(n: int, d: int, *, theta_norm: float = 1.0, noise: str = "t3", rng: RNGLike = None) -> Dataset:
    """Robust-regression demo data (covariates on the unit sphere) as a public, simulated Dataset."""
    X, y, theta = robust_regression(n, d, theta_norm=theta_norm, noise=noise, rng=rng)
    cols = [f"x{j + 1}" for j in range(d)]
    frame = pd.DataFrame(X, columns=cols)
    frame["y"] = y
    frame.index.name = "row"
    bounds = {c: (-1.0, 1.0) for c in cols}
    # y is unrestricted for the robust loss (the gradient set does not depend on y): a huge public range,
    # used only by the imputation rule of the data package
    bounds["y"] = (-1e12, 1e12)
    return Dataset(frame, tuple(cols) + ("y",), bounds,
                   f"simulated robust regression: n = {n}, d = {d}, xᵢ uniform on the unit sphere, {noise} noise, "
                   f"θ* = {np.round(theta, 3).tolist()}", name="simulated robust regression", kind="simulated")


def breast_cancer_dataset() -> Dataset:
    """scikit-learn's breast-cancer data (569 × 30), label y = +1 malignant / −1 benign, with each
    feature's public range [0, upper] (rounded-up envelopes of the published ranges)."""
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    names = [str(n) for n in b.feature_names]
    frame = pd.DataFrame(b.data, columns=names)
    frame["malignant"] = np.where(b.target == 0, 1.0, -1.0)
    frame.index.name = "row"
    bounds = {c: (0.0, float(u)) for c, u in zip(names, BREAST_CANCER_UPPER)}
    bounds["malignant"] = (-1.0, 1.0)
    return Dataset(frame, tuple(names) + ("malignant",), bounds,
                   "scikit-learn load_breast_cancer (Wisconsin diagnostic, 569 rows)", name="breast cancer",
                   kind="built-in")


def _public_affine(ds: Dataset, col: str) -> tuple[float, float]:
    lo, hi = (float(v) for v in ds.bounds[col])
    if not hi > lo:
        raise DataError(f"column {col!r} has public bounds ({lo:g}, {hi:g}); the upper bound must exceed the lower "
                        "bound — widen them on the Data page.")
    return 0.5 * (lo + hi), 0.5 * (hi - lo)


def diabetes_dataset() -> Dataset:
    """scikit-learn's diabetes data in raw clinical units (442 × 11) with the public bounds declared in
    :mod:`dpcore.data.builtin` (domain knowledge, not the data)."""
    from ..data.builtin import builtin_dataset

    return builtin_dataset("diabetes")


def preparation_note(scale_response: bool) -> str:
    """How :func:`prepare_xy` maps a user's columns (public rules only), in words: each covariate by its public
    bounds onto [−1, 1]; with ``scale_response`` (the robust loss) also the response, and why."""
    return ("Each covariate x is mapped onto [−1, 1] by its public bounds: (x − midpoint)/half-range (a fixed public "
            "rule, never the data's range); values beyond are clipped." + (
                " The response y is mapped the same way, so residuals lie in the robust loss's curved region (its "
                "curvature h''(t) = ½sech²(t/2) halves by |t| = 1.76 and is below 1 % of its peak beyond |t| = 10.6: "
                "in raw units the Hessian would vanish). The released coefficient is then converted back to the "
                "columns' units (a public rescaling)." if scale_response else ""))


def prepare_xy(ds: Dataset, response: str, covariates: Sequence[str], *, intercept: bool = True,
               scale_response: bool = False) -> tuple:
    """(X, y) from public columns, each mapped onto [−1, 1] by its PUBLIC bounds: x ↦ (x − m)/s with the
    midpoint m = (lo + hi)/2 and half-range s = (hi − lo)/2 (a fixed rule, never the sample's range);
    an optional intercept column of ones; missing cells imputed with the declared public value (n stays
    public).

    ``scale_response``: map y the same way (for the robust loss h(t) = log(1+eᵗ) + log(1+e⁻ᵗ), whose
    curvature h''(t) = ½sech²(t/2) is within a factor 1/2 of its peak only for |t| ≤ 1.76 and below 1 %
    of it for |t| ≥ 10.6: residuals in raw units (hundreds) make the Hessian vanish). Leave it off for
    the logistic loss (y = ±1). See :func:`coefficient_units` for reading a coefficient in the user's units.
    """
    covariates = list(covariates)
    if not covariates:
        raise DataError("choose at least one covariate.")
    if response in covariates:
        raise DataError(f"the response {response!r} is also a covariate; remove it from the covariates.")
    missing = [c for c in covariates + [response] if c not in ds.bounds]
    if missing:
        raise DataError(f"column(s) {missing} have no public bounds; declare them on the Data page.")
    cols = public_columns(ds, covariates + [response])
    V = np.asarray(cols.values, dtype=float)
    aff = np.array([_public_affine(ds, c) for c in covariates])
    X = (V[:, :-1] - aff[:, 0]) / aff[:, 1]
    if intercept:
        X = np.column_stack([np.ones(len(X)), X])
    y = V[:, -1].copy()
    if scale_response:
        m, s = _public_affine(ds, response)
        y = (y - m) / s
    return X, y


def coefficient_units(ds: Dataset, response: str, covariates: Sequence[str], *, intercept: bool = True,
                      scale_response: bool = False, loss: str = "robust") -> list[tuple[float, float, str]]:
    """For each coordinate j of the θ fitted on :func:`prepare_xy`'s (X, y): (a, b, meaning) with
    user-units value = a + b·θ_j (public: from the bounds only). A slope of x_k is θ·s_y/s_k (change in y
    per unit of x_k); the intercept is m_y + s_y·θ₀, the fitted y with every covariate at its midpoint.

    ``loss="logistic"`` (y = ±1, never scaled): θ is on the log-odds scale, so a slope is the change in the
    LOG-ODDS that y = +1 per unit of x_k (issue 32: it was described as a change in y) and the intercept the
    log-odds with every covariate at its midpoint."""
    logistic = loss == "logistic"
    if logistic and scale_response:
        raise DPValueError("scale_response = True with loss = 'logistic': the logistic loss needs y = ±1 as given; "
                           "set scale_response = False.")
    my, sy = _public_affine(ds, response) if scale_response else (0.0, 1.0)
    out = []
    if intercept:
        out.append((my, sy, f"log-odds that {response!r} = +1 with every covariate at the midpoint of its bounds"
                    if logistic else "fitted response with every covariate at the midpoint of its bounds"))
    for c in covariates:
        _, s = _public_affine(ds, c)
        out.append((0.0, sy / s, f"change in the log-odds that {response!r} = +1 per unit of {c!r}" if logistic
                    else f"change in {response!r} per unit of {c!r}"))
    return out


def eigen_bounds_vs_n(ns: Sequence[int], d: int, *, epsilon: float = 1.0, delta: float = 1e-5, share: float = 0.5,
                      reps: int = 10, draws: int = 200, theta_norm: float = 1.0, noise: str = "t3",
                      rng: RNGLike = None) -> pd.DataFrame:
    """Coverage study on simulated robust-regression data: for each n, ``reps`` datasets and ``draws``
    runs of Algorithms 2 + 4 each. One row per n: mean true λ_min/λ_max (non-private), the 10/50/90 %
    quantiles of λ̂ and Λ̂, the empirical coverage P(λ̂ ≤ λ_min), P(Λ̂ ≥ λ_max), the certification floor
    λ_c and the cap Λ_cap."""
    ns = sorted({check_int(n, "n", lo=20, hi=1_000_000) for n in ns})
    if not ns:
        raise DPValueError("the coverage study needs at least one n: choose one or more sample sizes.")
    d = check_int(d, "d", lo=1, hi=100)
    reps = check_int(reps, "reps", lo=1, hi=200)
    draws = check_int(draws, "draws", lo=1, hi=10_000)
    work = sum(ns) * d * reps
    if work > MAX_STUDY_WORK:
        raise DPValueError(f"the coverage study needs reps × Σn × d = {work:,} > {MAX_STUDY_WORK:,}; lower n or reps.")
    cfg = EigenBoundsConfig(epsilon=epsilon, delta=delta, share=share)
    e1, e2 = share * epsilon, (1 - share) * epsilon
    rows = []
    for n, g in zip(ns, spawn(as_generator(rng), len(ns))):
        lam, Lam, lh, Lh, cov_lo, cov_hi = [], [], [], [], [], []
        for gr in spawn(g, reps):
            g_data, g_noise = spawn(gr, 2)
            X, y, _ = robust_regression(n, d, theta_norm=theta_norm, noise=noise, rng=g_data)
            an = analyse((X, y), cfg)
            a, b = sample_eigen_bounds(an, e1, delta / 2, e2, delta / 2, draws, g_noise)
            lam.append(an.lam_min)
            Lam.append(an.lam_max)
            lh.append(a)
            Lh.append(b)
            cov_lo.append(np.mean(a <= an.lam_min))
            cov_hi.append(np.mean(b >= an.lam_max))
        lhs, Lhs = np.concatenate(lh), np.concatenate(Lh)
        rows.append({"n": n, "lambda_min": float(np.mean(lam)), "lambda_max": float(np.mean(Lam)),
                     "lam_hat_q10": np.quantile(lhs, 0.1), "lam_hat_q50": np.quantile(lhs, 0.5),
                     "lam_hat_q90": np.quantile(lhs, 0.9), "Lam_hat_q10": np.quantile(Lhs, 0.1),
                     "Lam_hat_q50": np.quantile(Lhs, 0.5), "Lam_hat_q90": np.quantile(Lhs, 0.9),
                     "coverage_min": float(np.mean(cov_lo)), "coverage_max": float(np.mean(cov_hi)),
                     "certified": float(np.mean(lhs > 0)), "floor": float(an.ladder.B[1]), "cap": an.consts.cap})
    return pd.DataFrame(rows)

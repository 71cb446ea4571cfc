"""Simulators (Asi, Duchi & Talwar 2025, §4): synthetic robust regression (§4.1) and a synthetic
census-like logistic-regression stand-in with the Folktables feature construction (§4.2).

The paper's exact distributions were lost [GUESS, exposed as parameters]: covariates uniform on the
sphere of radius r₂, θ* = ‖θ*‖ × a uniform direction, heavy-tailed noise (Student-t₃ by default).
The census stand-in draws every feature from a fixed synthetic law (no network access); its design
lies in the hypercube [0, 1]^d ⊂ [−1, 1]^d, with an intercept and one level dropped per one-hot group
(a fixed rule, never a rank test on the sample), so d = 17.
"""
from __future__ import annotations

import numpy as np

from .._rng import RNGLike, as_generator
from .._validation import check_choice, check_int, check_positive

__all__ = ["robust_regression", "census_like", "CENSUS_FEATURES", "NOISES", "sphere", "example_data", "breast_cancer",
           "BREAST_CANCER_UPPER"]

NOISES = ("t3", "laplace", "normal")

CENSUS_FEATURES = (
    "intercept", "working age (18–60)", "hours per week / 99", "schooling (SCHL − 1)/23", "white",
    "occ: computer/engineering/science", "occ: education/legal/community/arts/media",
    "occ: healthcare practitioners", "occ: service", "occ: sales & office",
    "occ: natural resources/construction/maintenance", "occ: production/transport/military",
    "married", "sex (female)", "employer: government", "employer: self-employed", "employer: unknown",
)
#: Fixed synthetic coefficients of the census stand-in's label model (log-odds of income > $40 000).
_CENSUS_BETA = np.array([-3.2, 0.9, 3.0, 2.4, 0.3, 0.8, -0.2, 0.9, -0.9, -0.3, 0.2, -0.1, 0.5, -0.7, 0.2, -0.1, -0.5])


def sphere(n: int, d: int, radius: float, rng) -> np.ndarray:
    """n points uniform on the sphere of the given radius in R^d."""
    g = as_generator(rng)
    Z = g.standard_normal((n, d))
    # (1 − 1e-12) keeps every row inside the ball despite rounding (none is then "clipped")
    return radius * (1.0 - 1e-12) * Z / np.linalg.norm(Z, axis=1, keepdims=True)


def robust_regression(n: int, d: int, *, theta_norm: float = 1.0, radius: float = 1.0, noise: str = "t3",
                      noise_scale: float = 1.0, rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, θ*): xᵢ uniform on the sphere of radius r₂, yᵢ = ⟨xᵢ, θ*⟩ + ξᵢ [SEED process, GUESS laws]."""
    n = check_int(n, "n", lo=2, hi=10_000_000)
    d = check_int(d, "d", lo=1, hi=1000)
    check_positive(theta_norm, "theta_norm", allow_zero=True)
    check_positive(radius, "radius")
    check_choice(noise, "noise", NOISES)
    check_positive(noise_scale, "noise_scale", allow_zero=True)
    g = as_generator(rng)
    u = g.standard_normal(d)
    theta = theta_norm * u / np.linalg.norm(u)
    X = sphere(n, d, radius, g)
    if noise == "t3":
        xi = g.standard_t(3, n)
    elif noise == "laplace":
        xi = g.laplace(0.0, 1.0, n)
    else:
        xi = g.standard_normal(n)
    return X, X @ theta + noise_scale * xi, theta


def census_like(n: int, *, rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of the census-like stand-in: X ∈ [0, 1]^17 (columns :data:`CENSUS_FEATURES`), y ∈ {−1, +1}."""
    n = check_int(n, "n", lo=2, hi=10_000_000)
    g = as_generator(rng)
    age = g.integers(16, 90, n)
    working = ((age >= 18) & (age <= 60)).astype(float)
    hours = np.clip(g.normal(38, 12, n), 1, 99).round() / 99.0
    schl = np.clip(np.round(g.normal(18, 3.5, n)), 1, 24)
    school = (schl - 1) / 23.0
    white = (g.random(n) < 0.6).astype(float)
    occ = g.choice(8, n, p=[0.15, 0.08, 0.12, 0.06, 0.17, 0.2, 0.09, 0.13])
    occ_oh = (occ[:, None] == np.arange(1, 8)[None, :]).astype(float)   # level 0 dropped
    married = (g.random(n) < 0.5).astype(float)
    female = (g.random(n) < 0.5).astype(float)
    cow = g.choice(4, n, p=[0.7, 0.14, 0.1, 0.06])
    cow_oh = (cow[:, None] == np.arange(1, 4)[None, :]).astype(float)   # private corporation dropped
    X = np.column_stack([np.ones(n), working, hours, school, white, occ_oh, married, female, cow_oh])
    p = 1.0 / (1.0 + np.exp(-(X @ _CENSUS_BETA)))
    y = np.where(g.random(n) < p, 1.0, -1.0)
    return X, y


#: Public upper ends of the 30 Wisconsin breast-cancer features (lower ends 0): rounded-up envelopes of
#: the ranges published with the dataset's documentation (UCI / scikit-learn description), i.e. public
#: knowledge about the imaging measurements — not computed from the sample used here.
BREAST_CANCER_UPPER = (
    30, 40, 200, 2500, 0.2, 0.4, 0.5, 0.25, 0.35, 0.1,          # mean
    3, 5, 25, 550, 0.035, 0.15, 0.4, 0.06, 0.08, 0.03,          # standard error
    40, 50, 260, 4300, 0.25, 1.1, 1.3, 0.3, 0.7, 0.21,         # worst
)


def breast_cancer() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """scikit-learn's breast-cancer data (569 × 30) for logistic regression, publicly standardised.

    Each feature is divided by its public upper end (:data:`BREAST_CANCER_UPPER`), so covariates lie in
    the hypercube [0, 1]^30 (values beyond a public end are clipped by the release, and reported); an
    intercept column is prepended (d = 31). y = +1 for malignant, −1 for benign.
    """
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    X = b.data / np.asarray(BREAST_CANCER_UPPER, dtype=float)
    X = np.column_stack([np.ones(X.shape[0]), X])
    y = np.where(b.target == 0, 1.0, -1.0)     # sklearn: 0 = malignant
    return X, y, ("intercept",) + tuple(b.feature_names)


def example_data():
    """The example of every mechanism of the topic: robust regression, n = 20 000, d = 3, t₃ noise (fixed seed)."""
    X, y, _ = robust_regression(20_000, 3, theta_norm=1.0, noise="t3", rng=20250317)
    return X, y

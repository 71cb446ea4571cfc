"""Audit data for private Frank–Wolfe: neighbouring datasets where the score sensitivity is nearly
attained, vectorised samplers of the chosen vertex sequences, and events.

Pair (replace one record): n = 10 records with x = ±1 (p = 1, or p = 3 with the other covariates 0) and
y = ±1; D′ flips y of record 0, so yᵢxᵢ goes from −1 to +1. Each record adds ⟨x, θ⟩x − yx = θ₁ − yx to
n·∇L/2, so the flip moves every score ⟨±r e₁, ∇L(θ)⟩ by 4r/n at EVERY θ — the fraction 1/(r + 1) of the
bound Δ_s = 4r(r + 1)/n; the audits use r = 0.1 (91 % of Δ_s). The output audited is the whole
sequence of chosen vertices (θ_T is a function of it, so auditing it audits θ_T).
"""
from __future__ import annotations

import numpy as np

from ..audit.harness import llr_events
from ._solver import noisy_gradient_fw
from .calibration import calibrate, calibrate_noisy_gradient, mean_scale
from .configs import LassoConfig, NoisyGradientConfig
from .release.private_fw import noisy_means, sample_run

__all__ = ["pair", "AUDIT_RADIUS", "vertex_sampler", "sequence_events", "sequence_code", "dense_pair",
           "noisy_gradient_sampler", "count_events"]

AUDIT_RADIUS = 0.1


def pair(n: int = 10, n_negative: int = 8, p: int = 1):
    """((X, y), (X, y′)): x = e₁·(±1), yᵢxᵢ = −1 for ``n_negative`` records (record 0 among them) and +1
    for the rest; D′ has yx = +1 at record 0. Extra covariates (p > 1) are 0."""
    x = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    yx = np.where(np.arange(n) < n_negative, -1.0, 1.0)
    X = np.zeros((n, p))
    X[:, 0] = x
    y = yx * x
    y2 = y.copy()
    y2[0] = -y[0]
    return (X, y), (X, y2)


def sequence_code(vertices: np.ndarray, m: int) -> np.ndarray:
    """Encode (N, T) vertex indices in [0, m) as one integer per row (base m)."""
    v = np.asarray(vertices, dtype=np.int64)
    return (v * (m ** np.arange(v.shape[1]))[None, :]).sum(axis=1)


def vertex_sampler(steps: int, selection: str = "exponential"):
    """sampler(data, N, rng, *, epsilon, delta, override): N codes of the T = ``steps`` chosen vertices."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = LassoConfig(epsilon=epsilon, delta=delta, radius=AUDIT_RADIUS, steps=steps, selection=selection,
                          path="direct")
        X, y = data
        cal = calibrate(cfg, X.shape)
        cal = cal if override is None else override(cal)
        run = sample_run(data, cfg, int(n), rng, cal)
        return sequence_code(run.vertices, 2 * X.shape[1])
    return sampler


def sequence_events(steps: int, p: int = 1):
    """events(D, D′, ε, δ): every sequence of vertices {code = c}, and for p = 1 the unions
    {number of +r e₁ choices ≥ k}, {≤ k}."""
    m = 2 * p
    codes = np.arange(m ** steps)

    def events(D, Dp, eps, delta):
        def ev(out):
            out = np.asarray(out, dtype=np.int64)
            single = out[:, None] == codes[None, :]
            if p != 1 or steps == 1:
                return single
            digits = (out[:, None] // (m ** np.arange(steps))[None, :]) % m
            plus = (digits == 0).sum(axis=1)
            ks = np.arange(1, steps + 1)
            return np.concatenate([single, plus[:, None] >= ks[None, :], plus[:, None] < ks[None, :]], axis=1)
        return ev
    return events


# --- the general-C variant (noisy-gradient Frank–Wolfe, Theorem 2.6) -------------------------------
def dense_pair(n: int = 10, n_negative: int = 8, p: int = 16):
    """As :func:`pair` with every covariate equal to x₁ = ±1 (‖x‖₂ = √p: the ℓ2 sensitivity's √p is
    attained): the flip moves every gradient coordinate by 4/n, i.e. ∇L by 4√p/n in ℓ2."""
    (X, y), (_, y2) = pair(n, n_negative, 1)
    Xd = np.repeat(X, p, axis=1)
    return (Xd, y), (Xd, y2)


def noisy_gradient_sampler(data, n, rng, *, epsilon, delta, override, radius: float = 0.01):
    """N outputs of one step (T = 1) of noisy-gradient Frank–Wolfe on the ℓ∞ ball: the number of
    coordinates with s₁ = +r (a sufficient statistic here: all coordinates are alike)."""
    X, y = data
    cfg = NoisyGradientConfig(epsilon=epsilon, delta=delta, radius=radius, steps=1, constraint="linf")
    cal = calibrate_noisy_gradient(cfg, X.shape)
    cal = cal if override is None else override(cal)
    _, s = noisy_gradient_fw(X, y, radius=radius, steps=1, constraint="linf", sigma=cal.constant, reps=int(n),
                             rng=rng)
    return (s > 0).sum(axis=1)


def count_events(p: int):
    """events(D, D′, ε, δ): {count ≥ k} and {count < k} for k = 0..p + 1."""
    ks = np.arange(0, p + 2)

    def events(D, Dp, eps, delta):
        return lambda out: np.concatenate([np.asarray(out)[:, None] >= ks[None, :],
                                           np.asarray(out)[:, None] < ks[None, :]], axis=1)
    return events


#: The means stage of the intercept release is audited at its own ε_m = 1 (config ε = 1/share).
MEAN_SHARE = 0.5


def mean_pair(n: int = 20) -> tuple:
    """Neighbours for the centring means (p = 1): record 0 is (x, y) = (−1, −1) in D and (1, 1) in D′, the others
    0 — both means move by 2/n, the whole ℓ1 sensitivity 2(p + 1)/n."""
    X = np.zeros((n, 1))
    y = np.zeros(n)
    Xb, yb = X.copy(), y.copy()
    X[0, 0], y[0], Xb[0, 0], yb[0] = -1.0, -1.0, 1.0, 1.0
    return (X, y), (Xb, yb)


def mean_sampler(data, n, rng, *, epsilon, delta, override):
    """n draws of the released means (stage 1 of ``intercept=True``, pure ε_m-DP: δ only serves stage 2), ε_m =
    ``epsilon``."""
    X, y = data
    cfg = LassoConfig(epsilon=epsilon / MEAN_SHARE, delta=1e-6, steps=1, intercept=True, intercept_share=MEAN_SHARE)
    cal = calibrate(cfg, X.shape)
    return noisy_means(X, y, override(cal) if override else cal, rng, size=n)


def mean_events(a, b, epsilon, delta):
    """Likelihood-ratio events of the two product-Laplace laws (most powerful), at the calibrated scale."""
    (Xa, ya), (Xb, yb) = a, b
    ma = np.concatenate([Xa.mean(axis=0), [ya.mean()]])
    mb = np.concatenate([Xb.mean(axis=0), [yb.mean()]])
    scale = mean_scale(Xa.shape[0], Xa.shape[1], epsilon)
    llr = lambda m: (lambda out: -np.abs(np.asarray(out) - m).sum(axis=1) / scale)  # noqa: E731
    return llr_events(llr(ma), llr(mb), np.linspace(-0.9, 0.9, 7) * epsilon)

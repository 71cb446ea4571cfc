"""The numerics of the density audits: worst-case neighbouring pairs, samplers, events and mutant overrides.

Audits put the moved record where the sensitivity is attained:
* GP-KDE: n = 5 records at 0; D′ moves one to 1. On the 9-point grid (0 and 1 are grid points, h = 0.1)
  the Mahalanobis distance of f_D − f_D′ is c_n√(2 − 2K(0, 1)) ≈ Δ. Events: half-lines of the
  likelihood-ratio projection M⁻¹(f_D − f_D′), M the sampled covariance. Claim (1, 0.05) with the
  analytic calibration (tight: Hall's c(δ) is conservative, so a mutant would hide under it).
* Fourier/Laplace (k = 1): the moved record goes from 1/8 to 5/8 (2πx = π/4 → 5π/4: |Δcos| = |Δsin|, the
  ℓ1 bound 4k/n attained). Output: the noisy non-constant coefficients (f̃ is post-processing); events:
  the exact Laplace likelihood ratio.
* K-norm (k = 1, G = 256): the moved record goes from 0 to 1/2 (‖Ψ̃(0) − Ψ̃(1/2)‖_B = 1: Δ attained).
  Output: z ∈ R²; events: half-lines of the first coordinate (the direction v_D − v_D′).
* Private bandwidth: D = (0.2 ×3, 0.8 ×3), D′ moves one 0.8 to 0.2 (both quartiles' counts move). Output:
  the two private quartiles (h is post-processing of them); events: their exact likelihood ratio.
* Kernel SVM: n = 1 record at the grid point (0.5, 0.5), λ = 1, label +1 vs −1: f_D = ±K(·, x)/(2λ), so
  ‖f_D − f_D′‖_H = 1/λ = Δ − 2√(g/λ) (attained up to the tiny public gap term). Events as for the GP-KDE.
Every sampler draws through the release's own vectorised ``*_sample`` (``dpcore.density.release``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpcore.audit import halfline_events, llr_events

from ._bandwidth import quantile_logpdf
from ._fourier import coefficients
from ._kde import check_data, gp_factors, nonprivate_kde
from ._svm import nonprivate_svm
from .calibration import calibrate_fourier, calibrate_gp, calibrate_svm
from .configs import BandwidthConfig, FourierConfig, GPKDEConfig, KNormConfig, SVMConfig
from .release import bandwidth, fourier, kde, knorm, svm


GP_AUDIT_CFG: dict[str, Any] = dict(bandwidth=0.1, grid=9, calibration="analytic", binning="exact")
GP_PAIR = (np.zeros(5), np.array([0.0, 0.0, 0.0, 0.0, 1.0]))


def gp_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = GPKDEConfig(epsilon=epsilon, delta=delta, **GP_AUDIT_CFG)
    return kde.gp_sample(data, cfg, n, rng, override=override)


def gp_events(d_a, d_b, epsilon, delta):
    cfg = GPKDEConfig(epsilon=epsilon, delta=delta, **GP_AUDIT_CFG)
    ma, mb = nonprivate_kde(d_a, cfg), nonprivate_kde(d_b, cfg)
    L = gp_factors(cfg.grid, cfg.bandwidth, 1)
    return gp_halfline_events(ma, mb, L @ L.T, calibrate_gp(cfg, np.shape(d_a)).constant)


def gp_halfline_events(ma, mb, M, sigma):
    """Half-lines along the most powerful projection p = M⁻¹(m_a − m_b) of a Gaussian-process output with
    means m_a, m_b and covariance σ²M: ±4 sd around the midpoint, 33 thresholds."""
    p = np.linalg.solve(M, ma - mb)
    sd = sigma * float(np.sqrt(p @ M @ p))
    mid = 0.5 * float(p @ (ma + mb))
    return halfline_events(mid + sd * np.linspace(-4.0, 4.0, 33), projection=p)


F_PAIR = (np.full(5, 1 / 8), np.array([1 / 8] * 4 + [5 / 8]))
F_CFG: dict[str, Any] = dict(k=1, bandwidth=0.1, grid=8)


def fourier_sampler(data, n, rng, *, epsilon, delta, override):
    z = fourier.fourier_sample_coefficients(data, FourierConfig(epsilon=epsilon, **F_CFG), n, rng, override=override)
    return z[:, 1:]


def fourier_events(d_a, d_b, epsilon, delta):
    cfg = FourierConfig(epsilon=epsilon, **F_CFG)
    a = coefficients(check_data(d_a, 1)[0], 1)[1:]
    b_ = coefficients(check_data(d_b, 1)[0], 1)[1:]
    b = calibrate_fourier(cfg, np.shape(d_a)).constant
    return llr_events(lambda z: -np.abs(z - a).sum(axis=1) / b, lambda z: -np.abs(z - b_).sum(axis=1) / b,
                      np.linspace(-1.0, 1.0, 17) * epsilon)


KN_PAIR = (np.zeros(5), np.array([0.0] * 4 + [0.5]))
KN_CFG: dict[str, Any] = dict(k=1, bandwidth=0.1, grid=8)


def knorm_sampler(data, n, rng, *, epsilon, delta, override):
    return knorm.knorm_sample(data, KNormConfig(epsilon=epsilon, **KN_CFG), n, rng, override=override)[0]


def knorm_events(d_a, d_b, epsilon, delta):
    t = (np.sqrt(2) * 3 / 5) + np.linspace(-2.5, 2.5, 41) * np.sqrt(2) / 5 / epsilon * 2
    return halfline_events(t, projection=np.array([1.0, 0.0]))


SVM_CFG: dict[str, Any] = dict(lam=1.0, bandwidth=0.2, grid=3, calibration="analytic", gap=1e-9)
SVM_PAIR = ((np.array([[0.5, 0.5]]), np.array([1.0])), (np.array([[0.5, 0.5]]), np.array([-1.0])))


def svm_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = SVMConfig(epsilon=epsilon, delta=delta, **SVM_CFG)
    return svm.svm_sample(data, cfg, n, rng, override=override).reshape(n, -1)


def svm_events(d_a, d_b, epsilon, delta):
    cfg = SVMConfig(epsilon=epsilon, delta=delta, **SVM_CFG)
    ma, mb = nonprivate_svm(d_a, cfg).ravel(), nonprivate_svm(d_b, cfg).ravel()
    L = gp_factors(cfg.grid, cfg.bandwidth, 2)
    return gp_halfline_events(ma, mb, np.kron(L @ L.T, L @ L.T), calibrate_svm(cfg, (1,)).constant)


BW_PAIR = (np.array([0.2] * 3 + [0.8] * 3), np.array([0.2] * 4 + [0.8] * 2))


def bw_sampler(data, n, rng, *, epsilon, delta, override):
    return bandwidth.quartiles_sample(data, BandwidthConfig(epsilon=epsilon), n, rng, override=override)


def bw_events(d_a, d_b, epsilon, delta):
    eq = epsilon / 2

    def lp(D):
        return lambda o: quantile_logpdf(D, 0.25, eq, o[:, 0]) + quantile_logpdf(D, 0.75, eq, o[:, 1])
    return llr_events(lp(d_a), lp(d_b), np.linspace(-0.6, 0.6, 13) * epsilon)


def half_noise(cal):
    """Mutant: noise scale halved (e.g. a sensitivity bound off by a factor 2)."""
    return cal.replace(params={"noise_factor": 0.5})


def double_em_factor(cal):
    """Mutant: each quartile uses exp(−ε_q·|count − qn|)·2 (the split and the exponential mechanism's 1/2 dropped)."""
    return cal.replace(params={"em_factor": 2.0})

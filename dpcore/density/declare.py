"""Density topic declaration: mechanisms, audits (with mutants) and figures (read by :mod:`dpcore.registry`).

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
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpcore.audit import Audit, Mutant, halfline_events, llr_events
from dpcore.mechanism import MechanismSpec, frozen_mapping
from dpcore.registry import Style, Topic

from . import bandwidth as Bw
from . import fourier as F
from . import kde as K
from . import knorm as Kn
from . import svm as S
from .figures import EXPERIMENTS

REFERENCE = ("Hall (2012), New Statistical Applications for Differential Privacy, CMU thesis (defence slides); "
             "Hall, Rinaldo & Wasserman (2013), JMLR 14:703–727")


def _ex_gp():
    g = np.random.default_rng(11)                       # public example data
    return g.beta(2, 5, 400), {"epsilon": 1.0, "delta": 1e-3, "bandwidth": 0.08, "grid": 64}


def _ex_fourier():
    g = np.random.default_rng(12)
    return g.beta(2, 5, 400), {"epsilon": 1.0, "k": 6, "bandwidth": 0.08, "grid": 64}


def _ex_knorm():
    g = np.random.default_rng(13)
    return g.beta(2, 5, 400), {"epsilon": 1.0, "k": 2, "bandwidth": 0.08, "grid": 64, "size": 2}


def _ex_svm():
    from .designs import two_class
    return two_class(120, 14), {"epsilon": 1.0, "delta": 1e-3, "lam": 0.05, "bandwidth": 0.2, "grid": 12}


def _ex_bw():
    g = np.random.default_rng(15)
    return g.beta(2, 5, 400), {"epsilon": 1.0}


MECHANISMS = (
    MechanismSpec("density/gp-kde", "Gaussian-process (RKHS) KDE", K.GPKDEConfig, K.gp_release, K.nonprivate_kde,
                  _ex_gp, budget=("epsilon", "delta"), huge=frozen_mapping({"epsilon": 1e9}), atol=1e-3),
    MechanismSpec("density/fourier-laplace", "Fourier-basis KDE with Laplace noise", F.FourierConfig,
                  F.fourier_release, F.nonprivate_fourier, _ex_fourier, budget=("epsilon",), atol=1e-4),
    MechanismSpec("density/knorm", "K-norm KDE on the Carathéodory orbitope (d = 1)", Kn.KNormConfig,
                  Kn.knorm_release, Kn.nonprivate_knorm, _ex_knorm, budget=("epsilon",), atol=1e-4),
    MechanismSpec("density/bandwidth", "Bandwidth from private quartiles (HRW rule of thumb)", Bw.BandwidthConfig,
                  Bw.bandwidth_release, Bw.nonprivate_bandwidth, _ex_bw, budget=("epsilon",), atol=2e-3),
    MechanismSpec("density/svm", "Kernel SVM with GP noise", S.SVMConfig, S.svm_release, S.nonprivate_svm, _ex_svm,
                  budget=("epsilon", "delta"), atol=1e-3),
)

# -- audits ---------------------------------------------------------------------------------------------------
_GP_AUDIT_CFG: dict[str, Any] = dict(bandwidth=0.1, grid=9, calibration="analytic", binning="exact")
_GP_PAIR = (np.zeros(5), np.array([0.0, 0.0, 0.0, 0.0, 1.0]))


def _gp_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = K.GPKDEConfig(epsilon=epsilon, delta=delta, **_GP_AUDIT_CFG)
    return K.gp_sample(data, cfg, n, rng, override=override)


def _gp_events(d_a, d_b, epsilon, delta):
    cfg = K.GPKDEConfig(epsilon=epsilon, delta=delta, **_GP_AUDIT_CFG)
    ma, mb = K.nonprivate_kde(d_a, cfg), K.nonprivate_kde(d_b, cfg)
    L = K.gp_factors(cfg.grid, cfg.bandwidth, 1)
    return _gp_halfline_events(ma, mb, L @ L.T, K.calibrate_gp(cfg, len(d_a)).constant)


def _gp_halfline_events(ma, mb, M, sigma):
    """Half-lines along the most powerful projection p = M⁻¹(m_a − m_b) of a Gaussian-process output with
    means m_a, m_b and covariance σ²M: ±4 sd around the midpoint, 33 thresholds."""
    p = np.linalg.solve(M, ma - mb)
    sd = sigma * float(np.sqrt(p @ M @ p))
    mid = 0.5 * float(p @ (ma + mb))
    return halfline_events(mid + sd * np.linspace(-4.0, 4.0, 33), projection=p)


_F_PAIR = (np.full(5, 1 / 8), np.array([1 / 8] * 4 + [5 / 8]))
_F_CFG: dict[str, Any] = dict(k=1, bandwidth=0.1, grid=8)


def _fourier_sampler(data, n, rng, *, epsilon, delta, override):
    z = F.fourier_sample_coefficients(data, F.FourierConfig(epsilon=epsilon, **_F_CFG), n, rng, override=override)
    return z[:, 1:]


def _fourier_events(d_a, d_b, epsilon, delta):
    cfg = F.FourierConfig(epsilon=epsilon, **_F_CFG)
    a = F.coefficients(K.check_data(d_a, 1)[0], 1)[1:]
    b_ = F.coefficients(K.check_data(d_b, 1)[0], 1)[1:]
    b = F.calibrate_fourier(cfg, len(d_a)).constant
    return llr_events(lambda z: -np.abs(z - a).sum(axis=1) / b, lambda z: -np.abs(z - b_).sum(axis=1) / b,
                      np.linspace(-1.0, 1.0, 17) * epsilon)


_KN_PAIR = (np.zeros(5), np.array([0.0] * 4 + [0.5]))
_KN_CFG: dict[str, Any] = dict(k=1, bandwidth=0.1, grid=8)


def _knorm_sampler(data, n, rng, *, epsilon, delta, override):
    return Kn.knorm_sample(data, Kn.KNormConfig(epsilon=epsilon, **_KN_CFG), n, rng, override=override)[0]


def _knorm_events(d_a, d_b, epsilon, delta):
    t = (np.sqrt(2) * 3 / 5) + np.linspace(-2.5, 2.5, 41) * np.sqrt(2) / 5 / epsilon * 2
    return halfline_events(t, projection=np.array([1.0, 0.0]))


_SVM_CFG: dict[str, Any] = dict(lam=1.0, bandwidth=0.2, grid=3, calibration="analytic", gap=1e-9)
_SVM_PAIR = ((np.array([[0.5, 0.5]]), np.array([1.0])), (np.array([[0.5, 0.5]]), np.array([-1.0])))


def _svm_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = S.SVMConfig(epsilon=epsilon, delta=delta, **_SVM_CFG)
    return S.svm_sample(data, cfg, n, rng, override=override).reshape(n, -1)


def _svm_events(d_a, d_b, epsilon, delta):
    cfg = S.SVMConfig(epsilon=epsilon, delta=delta, **_SVM_CFG)
    ma, mb = S.nonprivate_svm(d_a, cfg).ravel(), S.nonprivate_svm(d_b, cfg).ravel()
    L = K.gp_factors(cfg.grid, cfg.bandwidth, 2)
    return _gp_halfline_events(ma, mb, np.kron(L @ L.T, L @ L.T), S.calibrate_svm(cfg, 1).constant)


_BW_PAIR = (np.array([0.2] * 3 + [0.8] * 3), np.array([0.2] * 4 + [0.8] * 2))


def _bw_sampler(data, n, rng, *, epsilon, delta, override):
    return Bw.quartiles_sample(data, Bw.BandwidthConfig(epsilon=epsilon), n, rng, override=override)


def _bw_events(d_a, d_b, epsilon, delta):
    eq = epsilon / 2

    def lp(D):
        return lambda o: Bw.quantile_logpdf(D, 0.25, eq, o[:, 0]) + Bw.quantile_logpdf(D, 0.75, eq, o[:, 1])
    return llr_events(lp(d_a), lp(d_b), np.linspace(-0.6, 0.6, 13) * epsilon)


def _half_noise(cal):
    """Mutant: noise scale halved (e.g. a sensitivity bound off by a factor 2)."""
    return cal.replace(params={"noise_factor": 0.5})


AUDITS = (
    Audit(id="density/gp-kde", mechanism="density/gp-kde",
          title="GP-KDE on a 9-point grid (h = 0.1): one record moved from 0 to 1", datasets=_GP_PAIR,
          neighbours="replace-one: one of 5 records moved from 0 to 1 (RKHS sensitivity attained)",
          sampler=_gp_sampler, events=_gp_events, epsilon=1.0, delta=0.05,
          mutant=Mutant("GP noise scale too small", "σ halved (the analytic σ for Δ/2)", _half_noise),
          n_samples=200_000, output_label="f̃ on the grid"),
    Audit(id="density/fourier-laplace", mechanism="density/fourier-laplace",
          title="Fourier/Laplace coefficients (k = 1): one record moved from 1/8 to 5/8", datasets=_F_PAIR,
          neighbours="replace-one: one of 5 records moved from 1/8 to 5/8 (ℓ1 sensitivity 4k/n attained)",
          sampler=_fourier_sampler, events=_fourier_events, epsilon=1.0,
          mutant=Mutant("Laplace scale 2k/n", "b computed from Δ₁ = 2k/n (half the ℓ1 sensitivity)", _half_noise),
          n_samples=200_000, output_label="noisy (cos, sin) coefficient of frequency 1"),
    Audit(id="density/knorm", mechanism="density/knorm",
          title="K-norm noise (k = 1, exact rejection sampler): one record moved from 0 to 1/2", datasets=_KN_PAIR,
          neighbours="replace-one: one of 5 records moved from 0 to 1/2 (‖v_D − v_D′‖_B = 1/n attained)",
          sampler=_knorm_sampler, events=_knorm_events, epsilon=1.0,
          mutant=Mutant("K-norm scale halved", "z = v_D + (Δ/(2ε)) r U", _half_noise),
          n_samples=100_000, output_label="z (cos coefficient of frequency 1)"),
    Audit(id="density/bandwidth", mechanism="density/bandwidth",
          title="Private quartiles for the bandwidth (exponential mechanism): one record moved from 0.8 to 0.2",
          datasets=_BW_PAIR, neighbours="replace-one: one of 6 records moved from 0.8 to 0.2",
          sampler=_bw_sampler, events=_bw_events, epsilon=1.0,
          mutant=Mutant("budget not split, no 1/2", "each quartile uses exp(−ε_q·|count − qn|)·2: the split over the "
                        "quartiles and the exponential mechanism's 1/2 both dropped",
                        lambda cal: cal.replace(params={"em_factor": 2.0})),
          n_samples=200_000, output_label="private quartiles (q₁, q₃)"),
    Audit(id="density/svm", mechanism="density/svm",
          title="Kernel SVM with GP noise (n = 1, λ = 1, 3×3 grid): the label flipped", datasets=_SVM_PAIR,
          neighbours="replace-one: the single record (0.5, 0.5) labelled +1 in D and −1 in D′ (Δ attained)",
          sampler=_svm_sampler, events=_svm_events, epsilon=1.0, delta=0.05,
          mutant=Mutant("stability bound halved", "σ from Δ/2 (e.g. 1/(2λn) instead of 1/(λn))", _half_noise),
          n_samples=200_000, output_label="f̃ on the 3×3 grid"),
)

TOPIC = Topic(name="density", title="Private density estimation (Hall)", reference=REFERENCE,
              mechanisms=MECHANISMS, audits=AUDITS, experiments=EXPERIMENTS,
    paper="Hall, Rinaldo & Wasserman, “Differential privacy for functions and functional data”, JMLR 2013 (private density estimation); Hall (2012), PhD thesis, Parts 2–3",
    url="https://arxiv.org/abs/1203.2570",
    styles={
        "gp": Style("GP (RKHS) KDE", "blue"),
        "fourier-laplace": Style("Fourier + Laplace", "vermillion"),
        "knorm": Style("K-norm (orbitope)", "bluish_green"),
        "svm-private": Style("Private kernel SVM (GP noise)", "blue"),
    },
)

"""Density topic declaration: mechanisms, audits (with mutants) and figures (read by :mod:`dpcore.registry`).

The audits' pairs, samplers, events and mutant overrides (and why each pair attains the sensitivity) are in
:mod:`dpcore.density.audits`.
"""
from __future__ import annotations


import numpy as np

from dpcore.audit import Audit, Mutant
from dpcore.mechanism import MechanismSpec, NoiseStep, frozen_mapping
from dpcore.registry import Style, Topic

from . import audits
from ._bandwidth import nonprivate_bandwidth
from ._fourier import nonprivate_fourier
from ._kde import nonprivate_kde
from ._knorm import nonprivate_knorm
from ._svm import nonprivate_svm
from .calibration import calibrate_bandwidth, calibrate_fourier, calibrate_gp, calibrate_knorm, calibrate_svm
from .configs import BandwidthConfig, FourierConfig, GPKDEConfig, KNormConfig, SVMConfig
from .figures import EXPERIMENTS
from .release import bandwidth, fourier, kde, knorm, svm
from ._preview import error_law

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
    MechanismSpec("density/gp-kde", "Gaussian-process (RKHS) KDE", GPKDEConfig, kde.release, nonprivate_kde,
                  _ex_gp, budget=("epsilon", "delta"), huge=frozen_mapping({"epsilon": 1e9}), atol=1e-3,
                  calibrate=calibrate_gp,
                  noise=(NoiseStep("KDE values on a grid: Gaussian-process noise (numpy normal)", "float"),)),
    MechanismSpec("density/fourier-laplace", "Fourier-basis KDE with Laplace noise", FourierConfig,
                  fourier.release, nonprivate_fourier, _ex_fourier, budget=("epsilon",), atol=1e-4,
                  calibrate=calibrate_fourier,
                  noise=(NoiseStep("Fourier coefficients: Laplace noise (numpy)", "float"),)),
    MechanismSpec("density/knorm", "K-norm KDE on the Carathéodory orbitope (d = 1)", KNormConfig,
                  knorm.release, nonprivate_knorm, _ex_knorm, budget=("epsilon",), atol=1e-4, calibrate=calibrate_knorm,
                  noise=(NoiseStep("orbitope coefficients: K-norm noise (float Gamma and uniform-ball draws)", "float"),)),
    MechanismSpec("density/bandwidth", "Bandwidth from private quartiles (HRW rule of thumb)", BandwidthConfig,
                  bandwidth.release, nonprivate_bandwidth, _ex_bw, budget=("epsilon",), atol=2e-3,
                  calibrate=calibrate_bandwidth,
                  noise=(NoiseStep("quartiles: exponential mechanism over intervals (float inverse-CDF draw)", "float"),)),
    MechanismSpec("density/svm", "Kernel SVM with GP noise", SVMConfig, svm.release, nonprivate_svm, _ex_svm,
                  budget=("epsilon", "delta"), atol=1e-3, calibrate=calibrate_svm,
                  noise=(NoiseStep("SVM decision function: Gaussian-process noise (numpy normal)", "float"),)),
)



AUDITS = (
    Audit(id="density/gp-kde", mechanism="density/gp-kde",
          title="GP-KDE on a 9-point grid (h = 0.1): one record moved from 0 to 1", datasets=audits.GP_PAIR,
          neighbours="replace-one: one of 5 records moved from 0 to 1 (RKHS sensitivity attained)",
          sampler=audits.gp_sampler, events=audits.gp_events, epsilon=1.0, delta=0.05,
          mutant=Mutant("GP noise scale too small", "σ halved (the analytic σ for Δ/2)", audits.half_noise),
          n_samples=200_000, output_label="f̃ on the grid"),
    Audit(id="density/fourier-laplace", mechanism="density/fourier-laplace",
          title="Fourier/Laplace coefficients (k = 1): one record moved from 1/8 to 5/8", datasets=audits.F_PAIR,
          neighbours="replace-one: one of 5 records moved from 1/8 to 5/8 (ℓ1 sensitivity 4k/n attained)",
          sampler=audits.fourier_sampler, events=audits.fourier_events, epsilon=1.0,
          mutant=Mutant("Laplace scale 2k/n", "b computed from Δ₁ = 2k/n (half the ℓ1 sensitivity)", audits.half_noise),
          n_samples=200_000, output_label="noisy (cos, sin) coefficient of frequency 1"),
    Audit(id="density/knorm", mechanism="density/knorm",
          title="K-norm noise (k = 1, exact rejection sampler): one record moved from 0 to 1/2", datasets=audits.KN_PAIR,
          neighbours="replace-one: one of 5 records moved from 0 to 1/2 (‖v_D − v_D′‖_B = 1/n attained)",
          sampler=audits.knorm_sampler, events=audits.knorm_events, epsilon=1.0,
          mutant=Mutant("K-norm scale halved", "z = v_D + (Δ/(2ε)) r U", audits.half_noise),
          n_samples=100_000, output_label="z (cos coefficient of frequency 1)"),
    Audit(id="density/bandwidth", mechanism="density/bandwidth",
          title="Private quartiles for the bandwidth (exponential mechanism): one record moved from 0.8 to 0.2",
          datasets=audits.BW_PAIR, neighbours="replace-one: one of 6 records moved from 0.8 to 0.2",
          sampler=audits.bw_sampler, events=audits.bw_events, epsilon=1.0,
          mutant=Mutant("budget not split, no 1/2", "each quartile uses exp(−ε_q·|count − qn|)·2: the split over the "
                        "quartiles and the exponential mechanism's 1/2 both dropped",
                        audits.double_em_factor),
          n_samples=200_000, output_label="private quartiles (q₁, q₃)"),
    Audit(id="density/svm", mechanism="density/svm",
          title="Kernel SVM with GP noise (n = 1, λ = 1, 3×3 grid): the label flipped", datasets=audits.SVM_PAIR,
          neighbours="replace-one: the single record (0.5, 0.5) labelled +1 in D and −1 in D′ (Δ attained)",
          sampler=audits.svm_sampler, events=audits.svm_events, epsilon=1.0, delta=0.05,
          mutant=Mutant("stability bound halved", "σ from Δ/2 (e.g. 1/(2λn) instead of 1/(λn))", audits.half_noise),
          n_samples=200_000, output_label="f̃ on the 3×3 grid"),
)

TOPIC = Topic(name="density", title="Private density estimation (Hall)", reference=REFERENCE,
              mechanisms=MECHANISMS, audits=AUDITS, experiments=EXPERIMENTS,
    paper="Hall, Rinaldo & Wasserman, “Differential privacy for functions and functional data”, JMLR 2013 (private density estimation); Hall (2012), PhD thesis, Parts 2–3",
    url="https://arxiv.org/abs/1203.2570",
    preview=error_law,
    styles={
        "gp": Style("GP (RKHS) KDE", "blue"),
        "fourier-laplace": Style("Fourier + Laplace", "vermillion"),
        "knorm": Style("K-norm (orbitope)", "bluish_green"),
        "svm-private": Style("Private kernel SVM (GP noise)", "blue"),
    },
    audit_seconds={
        "density/gp-kde": 1.67e-05,
        "density/fourier-laplace": 1.10e-05,
        "density/knorm": 5.80e-05,
        "density/bandwidth": 1.01e-05,
        "density/svm": 2.69e-05,
    },
)

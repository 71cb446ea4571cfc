"""Calibrations of the private density estimators: ``calibrate_<family>(config, data_shape) -> Calibration``.

``data_shape`` is the shape of the data (``(n,)`` or ``(n, d)``; for the SVM, of its covariates X): the
number of records n is public under replace-one neighbours and every sensitivity below is a function of
it (Δ = √2/(n(2πh²)^(d/2)) for the KDE, 4k/n for the Fourier coefficients, 1/n for the K-norm centre,
1/(λn) + 2√(g/λ) for the SVM; the bandwidth's quantile utility has Δu = 1). The derivations are in each
function's ``derivation`` text and in the private modules' docstrings.
"""
from __future__ import annotations

from .._validation import check_int
from ..mechanism import Calibration
from ._bandwidth import REFERENCE_BW
from ._fourier import REFERENCE_FOURIER, fourier_sensitivity
from ._kde import REFERENCE_GP, gp_sigma, kde_sensitivity
from ._knorm import REFERENCE_KNORM
from ._svm import REFERENCE_SVM, svm_sensitivity
from .configs import BandwidthConfig, FourierConfig, GPKDEConfig, KNormConfig, SVMConfig

__all__ = ["calibrate_gp", "calibrate_fourier", "calibrate_knorm", "calibrate_bandwidth", "calibrate_svm"]


def calibrate_gp(config: GPKDEConfig, data_shape: tuple[int, ...]) -> Calibration:
    """The GP-KDE calibration for n (public) records; ``constant`` is the GP noise scale σ."""
    n = check_int(data_shape[0], "n", lo=1)
    cfg = config
    delta_h = kde_sensitivity(n, cfg.bandwidth, cfg.d)
    sigma, use_hall = gp_sigma(cfg.epsilon, cfg.delta, delta_h, cfg.calibration)
    name = ("GP noise scale σ = c(δ)·Δ/ε with Hall's c(δ) = √(2 ln(2/δ))" if use_hall else
            "GP noise scale σ: analytic Gaussian (Balle & Wang 2018) for Mahalanobis sensitivity Δ")
    return Calibration(
        mechanism="density/gp-kde", notion="approx", epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=delta_h,
        constant=sigma, constant_name=name,
        derivation=(f"f_D − f_D′ = c_n(K(·,x) − K(·,x′)) with c_n = 1/(n(2πh²)^(d/2)) has RKHS norm ≤ √2·c_n "
                    f"(replace-one, n = {n} public, h = {cfg.bandwidth:g}, d = {cfg.d}), which bounds the Mahalanobis "
                    "sensitivity of the grid vector w.r.t. K(grid) (RKHS inequality); Δ = √2/(n(2πh²)^(d/2))."),
        reference=REFERENCE_GP + ("; c(δ) per HRW Prop. 3, ε ≤ 2.7" if use_hall else
                                  "; analytic Gaussian: Balle & Wang (2018)"),
        params={"calibration": "hall" if use_hall else "analytic", "noise_factor": 1.0, "n": n},
        note="(ε, δ)-DP for the whole GP path on the cylinder σ-field (every finite set of points)")


def calibrate_fourier(config: FourierConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Laplace scale b = Δ₁/ε for n public records."""
    n = check_int(data_shape[0], "n", lo=1)
    s = fourier_sensitivity(n, config.k, config.d, config.sensitivity)
    rule = "4k/n (per frequency ≤ 2|e^{ia} − e^{ib}| ≤ 4)" if config.sensitivity == "tight" else \
        "2·2^{d/2}(m^d − 1)/n (sup|ψ_j| ≤ 2^{d/2} per coefficient)"
    return Calibration(
        mechanism="density/fourier-laplace", notion="pure", epsilon=config.epsilon, sensitivity=s,
        constant=s / config.epsilon, constant_name="Laplace scale b = Δ₁/ε per coefficient",
        derivation=f"replace-one (n = {n} public) moves the (m^d − 1) non-constant coefficients by ℓ1 ≤ {rule}.",
        reference=REFERENCE_FOURIER, params={"noise_factor": 1.0, "n": n})


def calibrate_knorm(config: KNormConfig, data_shape: tuple[int, ...]) -> Calibration:
    n = check_int(data_shape[0], "n", lo=1)
    exact = config.sampler == "rejection"
    return Calibration(
        mechanism="density/knorm", notion="pure", epsilon=config.epsilon, sensitivity=1.0 / n,
        constant=config.epsilon * n, constant_name="rate ε/Δ in the density ∝ exp(−(ε/Δ)‖z − v_D‖_B)",
        derivation=(f"data rounded to the public grid i/{config.body_grid}; v_D − v_D′ = (Ψ̃(g) − Ψ̃(g′))/n with "
                    "w = e_g − e_g′ (Σw = 0, ‖w‖₁ = 2), so ‖v_D − v_D′‖_B ≤ 1/n (replace-one, n public)."),
        reference=REFERENCE_KNORM, params={"noise_factor": 1.0, "n": n},
        note="" if exact else "hit-and-run: only (ε, (1 + e^ε)η)-DP with η (TV to uniform) NOT certified")


def calibrate_bandwidth(config: BandwidthConfig, data_shape: tuple[int, ...]) -> Calibration:
    n = check_int(data_shape[0], "n", lo=1)
    eq = config.epsilon / (2 * config.d)
    return Calibration(
        mechanism="density/bandwidth", notion="pure", epsilon=config.epsilon, sensitivity=1.0, constant=eq / 2,
        constant_name="exponential-mechanism rate ε_q/(2Δu) per quartile",
        derivation=("utility −|#{x_i ≤ t} − qn| changes by ≤ 1 under replace-one (n = "
                    f"{n} public); 2d = {2 * config.d} quartiles at ε_q = ε/(2d) each (basic composition)."),
        reference=REFERENCE_BW, params={"em_factor": 0.5})


def calibrate_svm(config: SVMConfig, data_shape: tuple[int, ...]) -> Calibration:
    n = check_int(data_shape[0], "n", lo=1)
    s = svm_sensitivity(n, config.lam, config.gap)
    sigma, hall = gp_sigma(config.epsilon, config.delta, s, config.calibration)
    return Calibration(
        mechanism="density/svm", notion="approx", epsilon=config.epsilon, delta=config.delta, sensitivity=s,
        constant=sigma, constant_name="GP noise scale σ" + (" = c(δ)Δ/ε (Hall)" if hall else " (analytic Gaussian)"),
        derivation=(f"2λ-strongly convex objective, 1-Lipschitz hinge, κ = 1: ‖f*_D − f*_D′‖_H ≤ 1/(λn) "
                    f"(λ = {config.lam:g}, n = {n} public, replace-one), plus 2√(g/λ) for the solver's public gap "
                    f"g = {config.gap:g}."),
        reference=REFERENCE_SVM, params={"noise_factor": 1.0, "calibration": "hall" if hall else "analytic"})

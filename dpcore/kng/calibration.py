"""The public calibration of every KNG release, one function per family: ``calibrate_<family>(config, data_shape)``.

Families (as in :mod:`dpcore.kng.release`): ``location`` (mean, median / geometric median, quantile),
``linear_regression`` (KNG, exponential mechanism, objective perturbation), ``quantile_regression``
(KNG, exponential mechanism). Each returns a :class:`dpcore.mechanism.Calibration` computed from the
config and the data's public sizes only — ``data_shape`` is (n,) or (n, d) of the records, or of X for
the regressions (:func:`dpcore.mechanism.data_shape`); d = 1 for a vector — so a page shows it, and its
``cost(config.size)``, before any draw. The release of the same family builds its calibration by calling
the same function, so they agree by construction.

Privacy (Reimherr & Awan 2019): pure ε-DP per draw for the exact target law, replace-one neighbours,
n fixed. Each (problem, mechanism) derives its sensitivity next to its constant below, in the
derivation text a page shows (§4.1, §4.4, §4.5: mean Δ = 4r (KNG, Remark 4.1: c = ε/Δ), median Δ = 2,
quantile Δ = 1 (Smith 2011); §4.3, §4.5, §7: linear regression Δ = 4(1 + B)·κ, Δ_ℓ = (1 + B)², quantile
regression Δ = 2·max(τ, 1 − τ)·C_X); KNG's constant is c = ε/(2Δ) (Thm 3.1), the exponential
mechanism's c = ε/(2Δ_ℓ) (Prop. 2.2). Mechanism: KNG log f(θ) = −c‖∇ℓ(θ)‖_K; exponential mechanism
log f(θ) = −c·ℓ(θ); objective perturbation: noise b ∝ exp(−c‖b‖_K), interior density
exp(−c‖∇ℓ(θ) + γθ‖_K).

The note says which sampler the release uses, chosen from public inputs only (the problem, the
mechanism, ``sampler`` and d): :data:`EXACT_NOTE`, :data:`MCMC_NOTE` or, where an exact rejection
sampler may hand over to MCMC depending on the data, :data:`FALLBACK_NOTE`.

>>> from dpcore import kng
>>> cfg = kng.make("median", mechanism="kng", epsilon=1.0, bounds=(0, 1))
>>> cal = calibrate_location(cfg, (100,))
>>> cal.sensitivity, cal.constant, cal.note
(2.0, 0.25, 'exact sampler: ε-DP')
"""
from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Callable, Mapping

from .._validation import DPValueError
from ..exact import GRID_STEPS, grid_sensitivity_l1, grid_spacing
from ..mechanism import Calibration
from ._location import Mean, Median
from ._problem import K, Problem, ball_to_l2, box, cube_to_norm, sphere_to_norm
from ._problems import problem_of
from .configs import LinearRegressionConfig, MeanConfig, MedianConfig, QuantileConfig, QuantileRegressionConfig
from .release._engine import EXACT_NOTE, FALLBACK_NOTE, MCMC_NOTE

__all__ = ["calibrate_location", "calibrate_linear_regression", "calibrate_quantile_regression", "calibrate_for",
           "mechanism_calibration", "mean_noise", "mean_grid_available", "LOCATION_CONFIGS", "EXACT_NOTE", "MCMC_NOTE", "FALLBACK_NOTE"]

REFERENCE = "Reimherr & Awan (2019), KNG: The K-Norm Gradient Mechanism"
CONSTANT_NAMES = MappingProxyType({
    "kng": "c in f(θ) ∝ exp(−c‖∇ℓ(θ)‖_K)",
    "exponential": "c in f(θ) ∝ exp(−c·ℓ(θ))",
    "objective_perturbation": "c in the noise density b ∝ exp(−c‖b‖_K)",
})

#: The config types of the location family (one release and one calibration for the three problems).
LOCATION_CONFIGS = (MeanConfig, MedianConfig, QuantileConfig)


def _dimension(data_shape: tuple) -> int:
    """d of a data shape: (n,) → 1, (n, d) → d."""
    return int(data_shape[1]) if len(data_shape) > 1 else 1


def _calibrate(problem: Problem, config: Any, data_shape: tuple) -> Calibration:
    """The problem's calibration of ``config.mechanism`` in dimension d, with the note of the sampler the
    release will use (refusing ``sampler="exact"`` where there is none: decided from public inputs)."""
    d = _dimension(data_shape)
    draw = problem.exact_sampler(config, d)
    if config.sampler == "exact" and draw is None:
        raise DPValueError(f"no exact sampler for problem={problem.name!r} with mechanism={config.mechanism!r} "
                           f"(d = {d}); use sampler='auto' or 'mcmc'.")
    if config.sampler == "mcmc":
        draw = None
    note = EXACT_NOTE if draw is not None else MCMC_NOTE
    if draw is not None and config.sampler == "auto" and problem.exact_may_stop(config):
        note = FALLBACK_NOTE
    if config.mechanism == "objective_perturbation":
        note += " (exact constrained minimiser)"
    cal = mechanism_calibration(config, d).replace(note=note)
    if isinstance(config, MeanConfig):
        return mean_noise(cal, config, int(data_shape[0]), d, draw is not None)
    return cal


def mean_grid_available(config: MeanConfig, d: int) -> bool:
    """Whether KNG's mean has its hardened grid variant: the K-norm noise is coordinate-wise Laplace (norm ℓ1, or
    d = 1 where every norm is |·|) and the exact sampler runs (not ``sampler="mcmc"``)."""
    return config.mechanism == "kng" and config.sampler != "mcmc" and (config.norm == "l1" or d == 1)


def mean_noise(cal: Calibration, config: MeanConfig, n: int, d: int, exact: bool = True) -> Calibration:
    """The mean's calibration with the noise that runs: KNG on a public grid (``noise`` "auto"/"grid" where
    :func:`mean_grid_available`), else the float K-norm (or truncated-normal / MCMC) law of ``cal``.

    Hardened variant (Canonne, Kamath & Steinke 2020 samplers; the grid as in :func:`dpcore.noise.calibrate_laplace`).
    KNG for the mean is the K-norm mechanism for x̄ (Remark 4.1): f ∝ exp(−(ε/Δ₁)‖θ − x̄‖_K) with Δ₁ = 2r/n, the
    K-norm sensitivity of x̄ (replace-one, n fixed: x̄ − x̄′ = (x₁ − x₁′)/n and ‖x₁ − x₁′‖_K ≤ 2r for records clamped
    to the public K-ball of radius r). For norm ℓ1 (any d) or d = 1 this density is the product of d Laplace(Δ₁/ε)
    laws, so the release is the ε-DP Laplace mechanism on x̄ in ℓ1, and the grid construction applies:

    * γ = 2^⌊log2(min(Δ₁, Δ₁/ε)/(64d))⌋ (public: r, n, ε, d; a power of two, so k·γ is an exact double);
    * r(x̄) = ⌊x̄/γ + ½⌋ per coordinate: ‖r(x̄) − r(x̄′)‖₁ ≤ Δ_g = ⌈Δ₁/γ⌉ + d − 1 grid units
      (:func:`dpcore.exact.grid_sensitivity_l1`: each moving coordinate adds < 1 unit of rounding);
    * θ = γ·(r(x̄) + Z), Z iid exact discrete Laplace of scale t = Δ_g/ε grid units:
      P(θ = γk | D)/P(θ = γk | D′) = exp((‖k − r(x̄′)‖₁ − ‖k − r(x̄)‖₁)/t) ≤ exp(Δ_g/t) = e^ε.

    So each draw is ε-DP exactly (``size`` draws: ``size``·ε, as before), every output lies on γℤ^d whatever the data,
    and the noise scale γΔ_g/ε ≤ (Δ₁/ε)(1 + 2/64) is at most 3.2 % above the float law's, plus a rounding error
    ≤ γ/2 ≤ Δ₁/128. The constant c of the grid law P(θ = γk) ∝ exp(−c‖∇ℓ(θ)‖₁), ∇ℓ at the rounded mean
    γr(x̄), is ε/(2nγΔ_g). What remains float: x̄ itself is computed in floating point from the clamped records
    (:data:`dpcore.registry.EVERY_MECHANISM_UNHARDENED`); the K-norm noise for norm ℓ2 or ℓ∞ with d ≥ 2 (no exact
    discrete K-norm sampler here: those laws are not products of one-dimensional ones); the exponential
    mechanism's mean (a truncated normal).
    """
    grid = mean_grid_available(config, d) and exact
    if config.noise == "grid" and not grid:
        why = ("sampler='mcmc' draws by MCMC" if config.sampler == "mcmc" else
               f"norm={config.norm!r} with d = {d} is not a product of Laplace laws (no exact discrete K-norm sampler)")
        raise DPValueError(f"noise='grid' is unavailable here: {why}; use norm='l1' (or one column), or "
                           "noise='auto' / 'float'.")
    if not grid or config.noise == "float":
        return cal.replace(params={"noise": "float"})
    delta1 = 2.0 * Mean.ball(config, d)[1] / n
    eps = config.epsilon
    gamma = grid_spacing(delta1, delta1 / eps, GRID_STEPS * d)
    dg = grid_sensitivity_l1(delta1, gamma, d)
    c = eps / (2.0 * n * gamma * dg)
    text = (f" Hardened (noise='grid'): the K-norm noise in {'ℓ1' if d > 1 else 'one dimension'} is coordinate-wise "
            f"Laplace(Δ₁/ε), Δ₁ = 2r/n = {delta1:.6g}; x̄ is rounded to the public grid γℤ^d, γ = {gamma:g} (from Δ₁, "
            f"ε and d = {d}), which moves the ℓ1 distance between neighbours to at most Δ_g = ⌈Δ₁/γ⌉ + d − 1 = {dg} "
            f"grid units; exact discrete Laplace noise of scale Δ_g/ε grid units (Canonne, Kamath & Steinke 2020) has "
            f"PMF ratio ≤ e^ε. Outputs lie on the grid whatever the data; the law's constant is c = ε/(2nγΔ_g).")
    return cal.replace(constant=c, derivation=cal.derivation + text,
                       constant_name="c in P(θ) ∝ exp(−c‖∇ℓ(θ)‖₁) on the grid γℤ^d (∇ℓ at the rounded mean)",
                       params={"noise": "grid", "grid": gamma, "grid_sensitivity": dg, "grid_constant": c})


def calibrate_location(config: Any, data_shape: tuple) -> Calibration:
    """Calibration of the mean (KNG: the K-norm mechanism, exact; exponential mechanism), the median or
    geometric median, and the τ-quantile (exact 1-D samplers; MCMC for the geometric median) — §4.1, §4.4,
    §4.5. ``config``: a :class:`~dpcore.kng.configs.MeanConfig`, ``MedianConfig`` or ``QuantileConfig``."""
    return _calibrate(problem_of(config, LOCATION_CONFIGS), config, data_shape)


def calibrate_linear_regression(config: LinearRegressionConfig, data_shape: tuple) -> Calibration:
    """Calibration of least squares on {‖θ‖₁ ≤ B}: KNG (Δ = 4(1 + B)·κ, §4.3), the exponential mechanism
    (Δ_ℓ = (1 + B)², §7.1) and objective perturbation (§7.2, γ = 2d/(e^(ε/2) − 1))."""
    return _calibrate(problem_of(config, (LinearRegressionConfig,)), config, data_shape)


def calibrate_quantile_regression(config: QuantileRegressionConfig, data_shape: tuple) -> Calibration:
    """Calibration of τ-quantile regression on {‖θ‖₁ ≤ B}: KNG (Δ = 2·max(τ, 1 − τ)·C_X, §4.5 eq. (2)) and the
    exponential mechanism (Δ_ℓ = max(τ, 1 − τ)(1 + B))."""
    return _calibrate(problem_of(config, (QuantileRegressionConfig,)), config, data_shape)


def calibrate_for(config: Any) -> Callable[[Any, tuple], Calibration]:
    """The ``calibrate_<family>`` function of a config (a TypeError naming the KNG configs otherwise)."""
    problem_of(config)
    if isinstance(config, LinearRegressionConfig):
        return calibrate_linear_regression
    if isinstance(config, QuantileRegressionConfig):
        return calibrate_quantile_regression
    return calibrate_location


# ----------------------------------------------------------------------------- one mechanism's constants
def _calibration(cfg: Any, *, sensitivity: float, constant: float, derivation: str, reference: str,
                 **params: Any) -> Calibration:
    """Build the :class:`Calibration` of ``cfg.mechanism`` for ``cfg.problem`` (pure ε-DP per draw)."""
    return Calibration(mechanism=f"kng/{cfg.problem}-{cfg.mechanism}", notion="pure", epsilon=cfg.epsilon,
                       sensitivity=float(sensitivity), constant=float(constant),
                       constant_name=CONSTANT_NAMES[cfg.mechanism], derivation=derivation,
                       reference=f"{REFERENCE}, {reference}",
                       params={"kind": cfg.mechanism, "norm": cfg.norm, "loose": False, **params})


def _mean_kng(cfg: MeanConfig, d: int) -> Calibration:
    # ‖∇ℓ(D) − ∇ℓ(D')‖_K = 2‖x_1 − x_1'‖_K ≤ 4r. Location family on R^d ⇒ Remark 4.1: c = ε/Δ,
    # i.e. f ∝ exp(−(nε/(2r))‖θ − x̄‖_K), the K-norm mechanism for x̄ (sensitivity 2r/n).
    radius = Mean.ball(cfg, d)[1]
    delta = 4.0 * radius
    k = K(cfg.norm)
    return _calibration(
        cfg, sensitivity=delta, constant=cfg.epsilon / delta, reference="Thm 3.1 and Remark 4.1 (§4.1)",
        derivation=(f"‖∇ℓ(θ;D) − ∇ℓ(θ;D′)‖_{k} = 2‖x₁ − x₁′‖_{k} ≤ 4r = {delta:g} (records in the {k}-ball of "
                    f"radius r = {radius:g}). The density is a location family on all of R^d, so by Remark 4.1 "
                    "its normaliser is data-free and ε/Δ may replace ε/(2Δ): "
                    f"f ∝ exp(−(nε/(2r))‖θ − x̄‖_{k}), the K-norm mechanism for x̄."))


def _mean_exponential(cfg: MeanConfig, d: int) -> Calibration:
    # Θ = data ball; 0 ≤ ‖x − θ‖₂² ≤ (2r·M)², M = sup{‖u‖₂ : ‖u‖_K ≤ 1}.
    radius = Mean.ball(cfg, d)[1]
    M = ball_to_l2(d, cfg.norm)
    delta = (2.0 * radius * M) ** 2
    return _calibration(
        cfg, sensitivity=delta, constant=cfg.epsilon / (2.0 * delta), reference="Prop. 2.2 (§4.1)",
        derivation=(f"ℓ = Σ‖x_i − θ‖₂² on Θ = data {K(cfg.norm)}-ball (radius r = {radius:g}); each term lies "
                    f"in [0, (2r·{M:.4g})²], so Δ_ℓ = {delta:.4g}; c = ε/(2Δ_ℓ)."))


def _median_kng(cfg: MedianConfig, d: int) -> Calibration:
    eps = cfg.epsilon
    if d == 1:
        # #{x<θ} − #{x>θ}: one replaced record moves the count difference by at most 2.
        return _calibration(
            cfg, sensitivity=2.0, constant=eps / 4.0, reference="Thm 3.1 (§4.4)",
            derivation=("∇ℓ(θ) = #{x_i < θ} − #{x_i > θ}; replacing one record changes it by at most 2, so "
                        "Δ = 2 and f ∝ exp(−(ε/4)|#{x_i<θ} − #{x_i>θ}|) on the public interval (§4.4)."))
    delta = 2.0 * sphere_to_norm(d, cfg.norm)
    k = K(cfg.norm)
    return _calibration(
        cfg, sensitivity=delta, constant=eps / (2.0 * delta), reference="Thm 3.1 (§4.4)",
        derivation=(f"∇ℓ(θ) = −Σ u_i(θ) with unit vectors u_i = (x_i − θ)/‖x_i − θ‖₂; ‖u₁ − u₁′‖_{k} ≤ "
                    f"2·sup{{‖u‖_{k} : ‖u‖₂ = 1}} = {delta:.4g} = Δ (§4.4); no bound on the data is needed, "
                    "Θ is the public box."))


def _median_exponential(cfg: MedianConfig, d: int) -> Calibration:
    delta = Median.width(cfg, d)
    if d == 1:
        text = (f"ℓ = Σ|x_i − θ| with data clipped to [lo, hi]; ||x − θ| − |x′ − θ|| ≤ |x − x′| ≤ hi − lo = "
                f"{delta:g} = Δ_ℓ; c = ε/(2Δ_ℓ).")
    else:
        text = (f"ℓ = Σ‖x_i − θ‖₂ with data clipped to the public box; by the triangle inequality "
                f"|‖x − θ‖₂ − ‖x′ − θ‖₂| ≤ ‖x − x′‖₂ ≤ box diagonal = {delta:.4g} = Δ_ℓ.")
    return _calibration(cfg, sensitivity=delta, constant=cfg.epsilon / (2.0 * delta),
                       reference="Prop. 2.2 (§4.4)", derivation=text)


def _quantile_kng(cfg: QuantileConfig, d: int) -> Calibration:
    eps, tau = cfg.epsilon, cfg.tau
    if cfg.constants == "paper":  # τ > 1/2 is refused by the config
        delta = 2.0 * (1.0 - tau)
        how = "equal to the tight Δ = 1" if tau == 0.5 else "more noise than the tight Δ = 1"
        return _calibration(
            cfg, sensitivity=delta, constant=eps / (2.0 * delta), reference="Thm 3.1, §4.5 eq. (3)",
            derivation=f"paper's eq. (3): Δ = 2(1−τ) = {delta:g} ≥ 1 for τ ≤ 1/2 (valid, {how}).",
            loose=tau < 0.5)
    return _calibration(
        cfg, sensitivity=1.0, constant=eps / 2.0, reference="Thm 3.1, §4.5 (Smith 2011)",
        derivation=("∇ℓ(θ) = Σ(1{y_i ≤ θ} − τ) = #{y_i ≤ θ} − τn; each term is 1−τ or −τ, so replacing one "
                    "record changes ∇ℓ by at most 1: Δ = 1 and f ∝ exp(−(ε/2)|#{y_i ≤ θ} − τn|) on [lo, hi] — "
                    "Smith's (2011) private quantile (the paper's eq. (3) uses 2(1−τ), not private for "
                    "τ > 1/2)."))


def _quantile_exponential(cfg: QuantileConfig, d: int) -> Calibration:
    paper = cfg.constants == "paper"
    m = max(cfg.tau, 1.0 - cfg.tau)
    lo, hi = box(cfg.bounds, 1)
    delta = (2.0 if paper else 1.0) * m * float(hi[0] - lo[0])
    return _calibration(
        cfg, sensitivity=delta, constant=cfg.epsilon / (2.0 * delta), reference="Prop. 2.2 (§4.5)",
        derivation=(f"ℓ = Σρ_τ(y_i − θ), data clipped to [lo, hi]; 0 ≤ ρ_τ(y − θ) ≤ max(τ, 1−τ)(hi − lo), so "
                    f"Δ_ℓ = {'2·' if paper else ''}max(τ,1−τ)(hi − lo) = {delta:.4g}"
                    f"{' (paper-style factor 2: more noise than needed)' if paper else ''}."),
        loose=paper)


def _linear_regression_kng(cfg: LinearRegressionConfig, d: int) -> Calibration:
    eps, B, k = cfg.epsilon, cfg.B, K(cfg.norm)
    kap = cube_to_norm(d, cfg.norm)
    delta = 4.0 * (1.0 + B) * kap
    if cfg.constants == "paper":  # ℓ∞ only (checked by the config)
        # eq. (1): ε/(8(1+B)) in front of ‖Σ(y_i − x_iᵀθ)x_i‖∞ = ‖∇ℓ‖∞/2  ⇒  c = ε/(16(1+B)).
        return _calibration(
            cfg, sensitivity=delta, constant=eps / (4.0 * delta), reference="Thm 3.1, §4.3 eq. (1)", loose=True,
            derivation=("paper's eq. (1): exp(−ε/(8(1+B))·‖Σ(y_i − x_iᵀθ)x_i‖∞), i.e. half the calibrated "
                        f"constant (Δ = 4(1+B) = {delta:g}; valid, twice the noise needed)."))
    tail = " = exp(−ε/(4(1+B))‖Σ(y_i − x_iᵀθ)x_i‖∞)." if cfg.norm == "linf" else "."
    return _calibration(
        cfg, sensitivity=delta, constant=eps / (2.0 * delta), reference="Thm 3.1, §4.3",
        derivation=(f"∇ℓ = −2Σ(y_i − x_iᵀθ)x_i; with |y| ≤ 1, ‖x‖∞ ≤ 1, ‖θ‖₁ ≤ B each residual is at most "
                    f"1 + B and ‖x‖_{k} ≤ {kap:.4g}, so Δ = 4(1+B)·{kap:.4g} = {delta:.4g}; "
                    f"f ∝ exp(−ε/(2Δ)‖∇ℓ‖_{k})" + tail))


def _linear_regression_exponential(cfg: LinearRegressionConfig, d: int) -> Calibration:
    dl = (1.0 + cfg.B) ** 2
    return _calibration(
        cfg, sensitivity=dl, constant=cfg.epsilon / (2.0 * dl), reference="Prop. 2.2, §7.1",
        derivation=(f"ℓ = Σ(y_i − x_iᵀθ)²; each term lies in [0, (1+B)²], so Δ_ℓ = (1+B)² = {dl:g} (§7.1); "
                    "f ∝ exp(−ε/(2(1+B)²)ℓ) on the ℓ1 ball of radius B."))


def _linear_regression_objective_perturbation(cfg: LinearRegressionConfig, d: int) -> Calibration:
    eps = cfg.epsilon
    kap = cube_to_norm(d, cfg.norm)
    delta = 4.0 * (1.0 + cfg.B) * kap
    x = eps / 2.0
    gamma = 2.0 * d / math.expm1(x) if x < 700.0 else 2.0 * d * math.exp(-x)  # no overflow at huge ε
    return _calibration(
        cfg, sensitivity=delta, constant=eps / (2.0 * delta), gamma=gamma,
        reference="§7.2 (Awan & Slavković's K-norm objective perturbation; Kifer, Smith & Thakurta 2012)",
        derivation=(f"objective perturbation (§7.2): gradient sensitivity Δ = 4(1+B)·{kap:.4g} = {delta:.4g}, "
                    f"noise b ∝ exp(−ε/(2Δ)‖b‖_{K(cfg.norm)}), per-record Hessian eigenvalue ≤ 2d, "
                    f"γ = 2d/(e^(ε/2) − 1) = {gamma:.4g}; the exact constrained minimiser is released."))


def _quantile_regression_kng(cfg: QuantileRegressionConfig, d: int) -> Calibration:
    tau, k = cfg.tau, K(cfg.norm)
    C_X = cube_to_norm(d, cfg.norm) if cfg.C_X is None else cfg.C_X
    m = 1.0 - tau if cfg.constants == "paper" else max(tau, 1.0 - tau)  # paper: τ > 1/2 refused by the config
    delta = 2.0 * m * C_X
    return _calibration(
        cfg, sensitivity=delta, constant=cfg.epsilon / (2.0 * delta), reference="Thm 3.1, §4.5 eq. (2)",
        derivation=(f"∇ℓ = Σx_i(1{{y_i ≤ x_iᵀθ}} − τ); each term has {k}-norm ≤ max(τ,1−τ)·C_X, and a replaced "
                    f"record can flip x(1−τ) to −x′τ etc., so Δ = 2·max(τ,1−τ)·C_X = {delta:.4g} (C_X = {C_X:g} "
                    f"bounds ‖x‖_{k}; the paper prints 2(1−τ)C_X, equal for τ ≤ 1/2 and not private for "
                    "τ > 1/2)."))


def _quantile_regression_exponential(cfg: QuantileRegressionConfig, d: int) -> Calibration:
    paper = cfg.constants == "paper"
    dl = (2.0 if paper else 1.0) * max(cfg.tau, 1.0 - cfg.tau) * (1.0 + cfg.B)
    return _calibration(
        cfg, sensitivity=dl, constant=cfg.epsilon / (2.0 * dl), reference="Prop. 2.2, §4.5", loose=paper,
        derivation=(f"ℓ = Σρ_τ(y_i − x_iᵀθ) ≥ 0 with |y − xᵀθ| ≤ 1 + B, so |ρ_τ(r) − ρ_τ(r′)| ≤ "
                    f"max(τ,1−τ)(1+B); Δ_ℓ = {'2·' if paper else ''}max(τ,1−τ)(1+B) = {dl:.4g}"
                    f"{' (the paper’s factor 2: more noise than needed)' if paper else ''}."))


_DERIVED: Mapping[tuple[str, str], Callable[[Any, int], Calibration]] = MappingProxyType({
    ("mean", "kng"): _mean_kng, ("mean", "exponential"): _mean_exponential,
    ("median", "kng"): _median_kng, ("median", "exponential"): _median_exponential,
    ("quantile", "kng"): _quantile_kng, ("quantile", "exponential"): _quantile_exponential,
    ("linear_regression", "kng"): _linear_regression_kng,
    ("linear_regression", "exponential"): _linear_regression_exponential,
    ("linear_regression", "objective_perturbation"): _linear_regression_objective_perturbation,
    ("quantile_regression", "kng"): _quantile_regression_kng,
    ("quantile_regression", "exponential"): _quantile_regression_exponential,
})


def mechanism_calibration(config: Any, d: int) -> Calibration:
    """The constants of ``config.mechanism`` for ``config.problem`` in dimension ``d`` (public inputs only), without
    the sampler's note (the batched simulations write their own; a release's is :func:`calibrate_location` etc.)."""
    return _DERIVED[(config.problem, config.mechanism)](config, d)

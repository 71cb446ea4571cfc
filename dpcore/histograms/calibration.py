"""Calibrations of the private histograms: ``calibrate_histogram`` / ``calibrate_threshold(config, data_shape)``.

Sensitivity (spec §0, §1.1; correction 9): the count vector moves by ℓ1 ≤ 2 when one record is
replaced (one cell −1, another +1) and by ≤ 1 when one is added or removed. The constants follow from
the config alone (p is a config field); ``data_shape`` — ``(n,)``, the number of records, see
:func:`data_shape` — is part of the one signature of every topic and not used here (under add/remove-one
neighbours n is not even public).
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from .._validation import check_choice
from ..mechanism import Calibration
from ._tables import SparseCounts
from .configs import NEIGHBOURS, HistogramConfig, ThresholdConfig

__all__ = ["REFERENCE", "sensitivity", "data_shape", "calibrate_histogram", "calibrate_threshold", "noise_text"]

REFERENCE = ("Hall (2012), New Statistical Applications for Differential Privacy (CMU thesis defence), Part 1; "
             "Cormode, Procopiuc, Srivastava & Tran (2012), differentially private summaries for sparse data")


def sensitivity(neighbours: str) -> float:
    """ℓ1-sensitivity of the count vector: 2 under replace-one (one cell −1, another +1), 1 under add/remove."""
    return 2.0 if check_choice(neighbours, "neighbours", NEIGHBOURS) == "replace-one" else 1.0


def data_shape(data: Any) -> tuple[int, ...]:
    """``(n,)``: the number of records of a :class:`SparseCounts` table or of an array of cell indices."""
    if isinstance(data, SparseCounts):
        return (data.n,)
    return (int(np.asarray(data).size),)


def noise_text(noise: str) -> str:
    """The name of the cells' noise constant b (shown beside its value)."""
    if noise == "laplace":
        return "Laplace scale b = Δ/ε"
    return "two-sided geometric: P(Z = k) ∝ exp(−|k|/b), b = Δ/ε"


_GEOMETRIC_NOTE = (" The two-sided geometric law on ℤ has a normaliser Σ_k exp(−|k − c|/b) that is the same for every "
                   "integer c (translation invariance), so the rate 1/b = ε/Δ of the exponential-family form "
                   "exp{−(ε/GS)‖z − θ(D)‖₁} is enough; the factor 1/2 of the exponential mechanism is needed only when the "
                   "normaliser depends on the data (the exponential mechanism over a fixed finite set). The noise is drawn "
                   "EXACTLY (dpcore.exact.discrete_laplace: Canonne, Kamath & Steinke 2020, Algorithm 2, integer "
                   "arithmetic, at b rounded up to a 41-bit rational: more noise, the same guarantee), so the released "
                   "counts are integers with full support whatever the data (no floating-point support gaps).")


def calibrate_histogram(cfg: HistogramConfig, data_shape: tuple[int, ...]) -> Calibration:
    """Δ = 2 (replace-one) or 1 (add/remove); b = Δ/ε; pure ε-DP."""
    d = sensitivity(cfg.neighbours)
    b = d / cfg.epsilon
    der = (f"the count vector changes by ℓ1 ≤ {d:g} between neighbours ("
           + ("one record replaced: one cell −1, another +1" if d == 2 else "one record added or removed: one cell ±1")
           + f"); independent noise of density ∝ exp(−|z|/b) in each cell with b = Δ/ε = {b:.6g} gives a "
           "likelihood ratio ≤ exp(‖θ(D) − θ(D′)‖₁/b) ≤ e^ε."
           + (_GEOMETRIC_NOTE if cfg.noise == "geometric" else "")
           + ("" if cfg.postprocess == "none" else f" Post-processing '{cfg.postprocess}' is free."))
    return Calibration(mechanism="histograms/laplace", notion="pure", epsilon=cfg.epsilon, sensitivity=d,
                       constant=b, constant_name=noise_text(cfg.noise), derivation=der,
                       reference="Hall (2012) slides Part 1 ('Laplace per cell', risk O(p/α))",
                       neighbours=cfg.neighbours, params={"noise": cfg.noise, "postprocess": cfg.postprocess,
                                                          "p": cfg.p})


def calibrate_threshold(cfg: ThresholdConfig, data_shape: tuple[int, ...]) -> Calibration:
    """The thresholded release: the cells' noise as in :func:`calibrate_histogram` with ε_h = ε
    (or ε(1 − q_share) when q̂ is released too); τ = b·log(p/q′) ≥ 0 (spec §1.4, correction 1–2)."""
    d = sensitivity(cfg.neighbours)
    eps_q = cfg.epsilon * cast(float, cfg.q_share) if cfg.tau_rule == "noisy q" else 0.0
    eps_h = cfg.epsilon - eps_q
    b = d / eps_h
    q_pub = {"log p": 1, "public q bound": cfg.q_bound, "noisy q": None}[cfg.tau_rule]
    tau_txt = ("τ = b·log p" if cfg.tau_rule == "log p" else
               f"τ = b·log(p/q_bound), q_bound = {cfg.q_bound} public" if cfg.tau_rule == "public q bound" else
               "τ = b·log(p/q̂) with q̂ = clip(round(q + noise of scale 1/ε_q, the cells' law), 1, p) released (q changes by ≤ 1 between "
               f"neighbours, so q̂ is ε_q = {eps_q:.6g}-DP; basic composition gives ε_q + ε_h = ε)")
    der = (f"the count vector changes by ℓ1 ≤ {d:g} between neighbours; noise with b = Δ/ε_h = {b:.6g} in every cell "
           "is ε_h-DP, and zeroing the cells ≤ τ is post-processing. "
           f"{tau_txt}. The sparse sampler draws the same law as the naive one: an empty cell survives with "
           "probability P(noise > τ) independently, so their number is Binomial(p − q, P(noise > τ)), their "
           "locations a uniform subset WITHOUT replacement of the empty cells, their values τ + (noise − τ | noise > τ) "
           "(memoryless: τ + Exp(b) for Laplace; m + an exact geometric for the discrete law, m = ⌊τ⌋ + 1). The "
           "binomial count is drawn EXACTLY (no double-precision probability): the gaps between surviving empty cells "
           "are iid Geometric(P(noise > τ)), each drawn by inversion against rigorous integer bounds of "
           "(1 − P(noise > τ))^k (dpcore._binomial), in time O(1 + the count)." + (_GEOMETRIC_NOTE if cfg.noise == "geometric" else ""))
    params = {"noise": cfg.noise, "p": cfg.p, "tau_rule": cfg.tau_rule, "q_for_tau": q_pub,
              "q_noise_scale": (1.0 / eps_q) if eps_q else None, "epsilon_q": eps_q, "epsilon_cells": eps_h,
              "sampler": cfg.sampler, "locations": "without replacement", "postprocess": cfg.postprocess}
    return Calibration(mechanism="histograms/threshold", notion="pure", epsilon=cfg.epsilon, sensitivity=d,
                       constant=b, constant_name=noise_text(cfg.noise) + "_h", derivation=der,
                       reference="Hall (2012) slides Part 1 ('hard thresholding', τ = (2/α) log p, risk O(q log p/α))",
                       neighbours=cfg.neighbours, params=params,
                       note="" if cfg.sampler == "dense" else "the sparse sampler's running time grows with q (not hidden)")

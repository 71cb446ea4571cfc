"""What a privacy guarantee means operationally: the hypothesis-testing trade-off curve.

An adversary sees one output and tests H₀ "the data set is D′" against H₁ "it is D" (neighbours). Any test
has a false-positive rate α = P(reject H₀ | D′) ("wrongly accuses") and a true-positive rate
(power) P(reject H₀ | D) ("right"). A guarantee bounds the power at every α (Wasserman & Zhou 2010;
Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022, "Gaussian differential privacy"):

* (ε, δ)-DP: power ≤ min(1, δ + e^ε α, 1 − e^{−ε}(1 − δ − α))  (Kairouz et al. 2015, Thm 2.1);
* μ-GDP (the Gaussian mechanism with μ = Δ/σ, exactly): power ≤ Φ(Φ⁻¹(α) + μ)  (Dong et al. 2022, eq. 2.3);
* ρ-zCDP: implies (ε, δ(ε))-DP for every ε ≥ 0 with the tight δ(ε) of Canonne, Kamath & Steinke (2020),
  so power ≤ the minimum over ε of the (ε, δ(ε)) bounds (valid; not claimed to be the tightest curve).

The audit page plots these curves with the audit's empirical (α, power) points; a correct mechanism's
points lie under the curve (up to the audit's confidence), a broken one's cross it.

>>> round(float(max_power_dp(0.05, 1.0)), 4)        # at ε = 1 a 5 % false-accusation rate buys ≤ 13.6 %
0.1359
>>> round(float(max_power_gdp(0.05, 1.0)), 4)
0.2595
>>> reading(PrivacyCost.pure(1.0))[:62]
'an adversary who wrongly accuses at most 5 % of the time is ri'
"""
from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
from scipy.stats import norm

from .._validation import check_delta, check_rho
from ..errors import DPValueError
from .accounting import PrivacyCost, zcdp_delta, zcdp_to_approx

__all__ = ["max_power_dp", "max_power_gdp", "max_power_zcdp", "max_power", "reading", "ALPHA_GRID"]

#: False-positive rates at which curves are drawn (dense near 0, where the curves bend most).
ALPHA_GRID = np.unique(np.concatenate([np.geomspace(1e-6, 0.05, 120), np.linspace(0.05, 1.0, 120)]))


def _alpha(alpha: Any) -> np.ndarray:
    a = np.asarray(alpha, dtype=float)
    if not np.all((a >= 0) & (a <= 1)):
        raise DPValueError("false-positive rates α must lie in [0, 1].")
    return a


def max_power_dp(alpha: Any, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """Largest true-positive rate of any test at false-positive rate ``alpha`` under (ε, δ)-DP.

    >>> max_power_dp([0.0, 1.0], 1.0, 0.01).tolist()
    [0.01, 1.0]
    """
    a = _alpha(alpha)
    if not (isinstance(epsilon, (int, float, np.floating)) and math.isfinite(epsilon) and epsilon >= 0):
        raise DPValueError(f"epsilon = {epsilon!r} must be a finite number >= 0.")
    e = math.exp(min(float(epsilon), 700.0))
    d = check_delta(delta, allow_zero=True)
    return np.clip(np.minimum(d + e * a, 1.0 - (1.0 - d - a) / e), 0.0, 1.0)


def max_power_gdp(alpha: Any, mu: float) -> np.ndarray:
    """Largest true-positive rate at false-positive rate ``alpha`` under μ-GDP: Φ(Φ⁻¹(α) + μ).

    The Gaussian mechanism with sensitivity Δ and noise σ is exactly μ-GDP with μ = Δ/σ.
    """
    if not (math.isfinite(mu) and mu >= 0):
        raise DPValueError(f"μ = {mu!r} must be a finite number >= 0 (μ = Δ/σ).")
    return norm.cdf(norm.ppf(_alpha(alpha)) + mu)


def max_power_zcdp(alpha: Any, rho: float, n_epsilons: int = 200) -> np.ndarray:
    """Largest true-positive rate at ``alpha`` implied by ρ-zCDP: the pointwise minimum of the (ε, δ(ε))-DP
    bounds over a grid of ε from 0 to the ε at δ = 1e-12 (each bound is valid, so the minimum is)."""
    rho = check_rho(rho)
    a = _alpha(alpha)
    top = zcdp_to_approx(rho, 1e-12)
    best = np.ones_like(a)
    for eps in np.linspace(0.0, top, n_epsilons):
        best = np.minimum(best, max_power_dp(a, float(eps), min(zcdp_delta(rho, float(eps)), 1.0)))
    return best


def max_power(alpha: Any, cost: PrivacyCost) -> np.ndarray:
    """The power bound of a :class:`~dpcore.privacy.PrivacyCost` (all its draws together).

    Pure and local ε: the better of basic composition (kε, 0) and zCDP (kε²/2); (ε, δ) with δ > 0: basic
    composition (kε, kδ); ρ-zCDP: the zCDP bound at kρ.
    """
    if not isinstance(cost, PrivacyCost):
        raise DPValueError(f"cost must be a PrivacyCost; got {type(cost).__name__}.")
    a = _alpha(alpha)
    if cost.notion == "zcdp":
        return max_power_zcdp(a, cost.count * cast(float, cost.rho))
    basic = max_power_dp(a, cast(float, cost.total_epsilon), cost.total_delta)
    rho = cost.as_zcdp_rho()
    return basic if rho is None or cost.count == 1 else np.minimum(basic, max_power_zcdp(a, rho))


def reading(cost: PrivacyCost, alpha: float = 0.05) -> str:
    """One sentence for a class: what the guarantee allows an adversary at false-positive rate ``alpha``.

    >>> reading(PrivacyCost.pure(1.0))
    'an adversary who wrongly accuses at most 5 % of the time is right at most 13.6 % of the time (random guessing: 5 %)'
    """
    power = float(max_power(alpha, cost))
    return (f"an adversary who wrongly accuses at most {100 * alpha:.3g} % of the time is right at most "
            f"{100 * power:.3g} % of the time (random guessing: {100 * alpha:.3g} %)")

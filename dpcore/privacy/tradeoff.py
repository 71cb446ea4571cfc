"""What a privacy guarantee means operationally: the hypothesis-testing trade-off curve.

An adversary sees one output and tests H₀ "the data set is D′" against H₁ "it is D" (neighbours). Any test
has a false-positive rate α = P(reject H₀ | D′) ("wrongly accuses") and a true-positive rate
(power) P(reject H₀ | D) ("right"). A guarantee bounds the power at every α (Wasserman & Zhou 2010;
Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022, "Gaussian differential privacy"):

* (ε, δ)-DP: power ≤ min(1, δ + e^ε α, 1 − e^{−ε}(1 − δ − α))  (Kairouz et al. 2015, Thm 2.1);
* k draws of an (ε, δ)-DP mechanism (k-fold composition): exactly the trade-off of k independent copies of
  the canonical (ε, δ) randomized response (Kairouz, Oh & Viswanath 2015, Thm 3.3, the optimal composition
  theorem) — computed here exactly, not by the looser basic (kε, kδ) bound;
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

import functools
import math
from typing import Any, cast

import numpy as np
from scipy.stats import norm

from .._validation import check_delta, check_rho
from ..errors import DPValueError
from ..numbers import number
from .accounting import PrivacyCost, zcdp_to_approx_simple

__all__ = ["max_power_dp", "max_power_composed", "max_power_gdp", "max_power_zcdp", "max_power", "max_power_costs",
           "reading", "ALPHA_GRID"]

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


def max_power_composed(alpha: Any, epsilon: float, k: int, delta: float = 0.0) -> np.ndarray:
    """Largest true-positive rate at false-positive rate ``alpha`` of any test against ``k`` draws of an
    (ε, δ)-DP mechanism: the exact optimal composition (Kairouz, Oh & Viswanath 2015, Thm 3.3).

    Every (ε, δ)-DP mechanism is a post-processing of the canonical (ε, δ) randomized response, so k draws are
    dominated by k independent copies of it, and that bound is attained. With probability 1 − (1 − δ)^k one copy
    reveals the data (power with no false positive); otherwise the log-likelihood ratio is (k − 2j)ε, with j ~
    Binomial(k, 1/(1 + e^ε)) under D and j ~ Binomial(k, e^ε/(1 + e^ε)) under D′. The Neyman–Pearson test rejects
    the largest ratios first (randomised at the boundary), so the curve is piecewise linear:

        power(α) = 1 − s + s · P_D[J < i] + s · (α/s − P_D′[J < i]) · P_D[J = i] / P_D′[J = i],  s = (1 − δ)^k,

    with i the first index at which P_D′[J ≤ i] ≥ α/s. For k = 1 it equals :func:`max_power_dp`.

    >>> round(float(max_power_composed(0.05, 1.0, 3)), 4)      # KOV: 3 draws of ε = 1 at a 5 % false-alarm rate
    0.4737
    >>> bool(np.isclose(max_power_composed(0.05, 1.0, 1), max_power_dp(0.05, 1.0)))
    True
    """
    a = _alpha(alpha)
    if not (isinstance(epsilon, (int, float, np.floating)) and math.isfinite(epsilon) and epsilon >= 0):
        raise DPValueError(f"epsilon = {epsilon!r} must be a finite number >= 0.")
    if not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 1 <= k <= 100_000):
        raise DPValueError(f"k = {k!r} draws must be an integer between 1 and 100000.")
    d = check_delta(delta, allow_zero=True)
    from scipy.stats import binom

    k = int(k)
    q = 1.0 / (1.0 + math.exp(min(float(epsilon), 700.0)))      # P(a copy answers "wrong") under D
    j = np.arange(k + 1)
    p_d, p_dp = binom.pmf(j, k, q), binom.pmf(j, k, 1.0 - q)    # ratios e^{(k-2j)ε}, largest first
    c_d = np.concatenate([[0.0], np.cumsum(p_d)])
    c_dp = np.concatenate([[0.0], np.cumsum(p_dp)])
    s = (1.0 - d) ** k
    scaled = np.minimum(a / s, 1.0) if s > 0 else np.ones_like(a)
    i = np.clip(np.searchsorted(c_dp, scaled, side="right") - 1, 0, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(p_dp[i] > 0, (scaled - c_dp[i]) / p_dp[i], 0.0)
    power = c_d[i] + np.clip(frac, 0.0, 1.0) * p_d[i]
    power = np.where(scaled >= 1.0, 1.0, power)
    return np.clip(1.0 - s + s * power, 0.0, 1.0).reshape(a.shape)


def max_power_gdp(alpha: Any, mu: float) -> np.ndarray:
    """Largest true-positive rate at false-positive rate ``alpha`` under μ-GDP: Φ(Φ⁻¹(α) + μ).

    The Gaussian mechanism with sensitivity Δ and noise σ is exactly μ-GDP with μ = Δ/σ.
    """
    if not (math.isfinite(mu) and mu >= 0):
        raise DPValueError(f"μ = {mu!r} must be a finite number >= 0 (μ = Δ/σ).")
    return norm.cdf(norm.ppf(_alpha(alpha)) + mu)


def _zcdp_deltas(rho: float, eps: np.ndarray) -> np.ndarray:
    """δ(ε) of ρ-zCDP for an array of ε: the bisection of :func:`~dpcore.privacy.accounting.zcdp_delta`
    (Canonne, Kamath & Steinke 2020, Prop. 7), vectorised over ε (any λ gives a valid bound).

    >>> from dpcore.privacy.accounting import zcdp_delta
    >>> e = np.array([0.0, 0.5, 2.0, 7.0])
    >>> bool(np.allclose(_zcdp_deltas(0.3, e), [zcdp_delta(0.3, float(x)) for x in e], rtol=1e-9, atol=0))
    True
    """
    lo = np.full(eps.shape, 1.0 + 1e-9)
    hi = (eps + 1.0) / (2.0 * rho) + 2.0
    for _ in range(200):
        lam = 0.5 * (lo + hi)
        below = (2 * lam - 1) * rho - eps + np.log1p(-1.0 / lam) < 0
        lo, hi = np.where(below, lam, lo), np.where(below, hi, lam)
    lam = 0.5 * (lo + hi)
    log_delta = (lam - 1) * (lam * rho - eps) + lam * np.log1p(-1.0 / lam) - np.log(lam - 1.0)
    return np.minimum(1.0, np.exp(np.minimum(log_delta, 0.0)))


def max_power_zcdp(alpha: Any, rho: float, n_epsilons: int = 200) -> np.ndarray:
    """Largest true-positive rate at ``alpha`` implied by ρ-zCDP: the pointwise minimum of the (ε, δ(ε))-DP
    bounds over a grid of ε from 0 to the simple conversion's ε at δ = 1e-12 (each bound is valid, so the
    minimum is)."""
    rho = check_rho(rho)
    a = _alpha(alpha)
    eps = np.linspace(0.0, zcdp_to_approx_simple(rho, 1e-12), n_epsilons)
    dlt = _zcdp_deltas(rho, eps)
    e = np.exp(np.minimum(eps, 700.0))[:, None]
    bounds = np.minimum(dlt[:, None] + e * a.reshape(1, -1), 1.0 - (1.0 - dlt[:, None] - a.reshape(1, -1)) / e)
    return np.clip(bounds.min(axis=0), 0.0, 1.0).reshape(a.shape)


def max_power(alpha: Any, cost: PrivacyCost) -> np.ndarray:
    """The power bound of a :class:`~dpcore.privacy.PrivacyCost` (all its draws together).

    Pure, local and (ε, δ): the exact optimal composition of its k draws (:func:`max_power_composed`, Kairouz,
    Oh & Viswanath 2015), which is tighter than basic composition (kε, kδ) and than zCDP (kε²/2); ρ-zCDP: the
    zCDP bound at kρ.
    """
    if not isinstance(cost, PrivacyCost):
        raise DPValueError(f"cost must be a PrivacyCost; got {type(cost).__name__}.")
    a = _alpha(alpha)
    if cost.notion == "zcdp":
        return max_power_zcdp(a, cost.count * cast(float, cost.rho))
    return max_power_composed(a, cast(float, cost.epsilon), cost.count, float(cost.delta or 0.0))


def max_power_costs(alpha: Any, costs: Any) -> np.ndarray:
    """The power bound of several releases together (one click, or a ledger).

    When every cost is a draw of the same (ε, δ) (pure, local or approximate), the exact optimal composition of all
    their draws (:func:`max_power_composed`). Otherwise the pointwise minimum of valid bounds: basic composition
    (Σε, Σδ) with each zCDP cost converted to (ε(ρ, δ_z), δ_z) — any δ_z gives a valid pair, so the minimum over
    δ_z ∈ {10⁻³, …, 10⁻¹⁰} is taken, never one fixed δ — and, when every cost has a zCDP form, zCDP (Σρ).
    """
    costs = [costs] if isinstance(costs, PrivacyCost) else list(costs)
    if not costs:
        raise DPValueError("no cost given.")
    if len(costs) == 1:
        return max_power(alpha, costs[0])
    a = _alpha(alpha)
    same = {(c.notion != "zcdp", c.epsilon, c.delta) for c in costs}
    if len(same) == 1 and costs[0].notion != "zcdp":
        return max_power_composed(a, cast(float, costs[0].epsilon), sum(c.count for c in costs),
                                  float(costs[0].delta or 0.0))
    best = np.ones_like(a)
    for delta_z in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10):
        pairs = [c.as_approx(delta_z) for c in costs]
        eps, dlt = sum(p[0] for p in pairs), min(1.0, sum(p[1] for p in pairs))
        best = np.minimum(best, max_power_dp(a, eps, dlt))
        if all(c.notion != "zcdp" for c in costs):
            break                       # δ_z is not used: one pass
    rhos = [c.as_zcdp_rho() for c in costs]
    if all(r is not None for r in rhos):
        best = np.minimum(best, max_power_zcdp(a, float(sum(cast(float, r) for r in rhos))))
    return best


def reading(cost: PrivacyCost | Any, alpha: float = 0.05) -> str:
    """One sentence for a class: what the guarantee of ``cost`` (a PrivacyCost or several) allows an adversary at
    false-positive rate ``alpha``.

    >>> reading(PrivacyCost.pure(1.0))
    'an adversary who wrongly accuses at most 5 % of the time is right at most 13.6 % of the time (random guessing: 5 %)'
    """
    costs = (cost,) if isinstance(cost, PrivacyCost) else tuple(cost)
    return _reading(costs, float(alpha))


@functools.lru_cache(maxsize=1024)
def _reading(costs: tuple[PrivacyCost, ...], alpha: float) -> str:
    """:func:`reading`, memoised on public numbers (the costs and α): the sidebar's ledger says it on every
    rerun, and the zCDP curve is a vectorised bisection over 200 values of ε."""
    power = float(max_power_costs(alpha, costs[0] if len(costs) == 1 else list(costs)))
    return (f"an adversary who wrongly accuses at most {100 * alpha:.3g} % of the time is right at most "
            f"{_up(100 * power)} % of the time (random guessing: {100 * alpha:.3g} %)")


def _up(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, rounded UP (a printed upper bound never understates it).

    >>> _up(10.3101), _up(13.5914), _up(100.0), _up(5.0)
    ('10.4', '13.6', '100', '5')
    """
    return number(x, digits, "up")

"""The tight total of a list of releases, by a privacy-loss-distribution (PLD) accountant.

What the same releases would cost had they all been fixed in advance, computed with Google's ``dp-accounting``
(its PLD accountant, not a hand-written one): each release's worst-case PLD is composed and the smallest ε with
δ(ε) ≤ δ is read off. **Not a privacy filter**: a PLD composition is valid for releases whose parameters were
fixed before any was seen, so the ledger shows it beside the enforced total, for information
(:mod:`dpcore.privacy.notions` says why the enforced totals are valid under adaptive choice).

PLDs used (each dominates every mechanism with that guarantee, so the composition is a valid upper bound):

* ε-DP and ε-LDP draws: the PLD of the canonical ε randomized response (``from_privacy_parameters(ε, 0)``),
  which every ε-DP mechanism post-processes (Kairouz, Oh & Viswanath 2015);
* (ε, δ)-DP draws: the canonical (ε, δ) mechanism (``from_privacy_parameters(ε, δ)``);
* ρ-zCDP releases: a ρ-zCDP guarantee does not determine a PLD, so their ρ's are added (zCDP composition) and the
  sum is converted by the tight conversion at δ/2 into one canonical (ε_z, δ/2) mechanism; when every release is
  zCDP, the plain conversion of Σρ at δ is used when it is smaller.

The pessimistic discretisation of ``dp-accounting`` (interval 10⁻⁴) rounds losses up, so the ε returned is an
upper bound of the exact composition's.

>>> round(tight_epsilon([PrivacyCost.pure(0.1, count=100)], 1e-5), 2)     # basic composition says 10
4.31
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, cast

from .._validation import DPValueError, check_delta
from .accounting import PrivacyCost, zcdp_to_approx

__all__ = ["tight_epsilon", "PLD_INTERVAL", "MAX_PLD_EPSILON"]

#: Discretisation interval of the privacy-loss distributions (dp-accounting's pessimistic discretisation).
PLD_INTERVAL = 1e-4
#: Above this basic-composition total the PLD is not computed (its support grows as Σε / PLD_INTERVAL): the basic
#: total is returned, valid and already past any meaningful guarantee.
MAX_PLD_EPSILON = 64.0


def tight_epsilon(costs: Sequence[PrivacyCost], delta: float) -> float:
    """The smallest ε such that the listed releases, fixed in advance, are (ε, δ)-DP together (PLD accountant).

    Parameters
    ----------
    costs : the releases' costs (each with its count of draws)
    delta : the δ at which to read ε (the budget's δ); must be > 0.

    Returns
    -------
    float — ε (0.0 for an empty list; ``inf`` when the releases' own δ's already exceed ``delta``).
    """
    delta = check_delta(delta)
    costs = list(costs)
    for c in costs:
        if not isinstance(c, PrivacyCost):
            raise DPValueError(f"a cost must be a PrivacyCost; got {type(c).__name__}.")
    if not costs:
        return 0.0
    counts: dict[tuple, int] = {}
    for c in costs:   # the same per-draw cost listed several times: one PLD self-composed (its counts added)
        k = (c.notion, c.epsilon or 0.0, c.delta, c.rho or 0.0)
        counts[k] = counts.get(k, 0) + c.count
    key = tuple(sorted((*k, n) for k, n in counts.items()))
    return _tight(key, float(delta))


@functools.lru_cache(maxsize=256)
def _tight(key: tuple, delta: float) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    rho = sum(r * k for n, _e, _d, r, k in key if n == "zcdp")
    others = [(n, e, d, k) for n, e, d, r, k in key if n != "zcdp"]
    if not others:
        return float(zcdp_to_approx(rho, delta))
    eps_z = zcdp_to_approx(rho, delta / 2) if rho > 0 else 0.0
    basic = sum(e * k for _n, e, _d, k in others) + eps_z
    if basic > MAX_PLD_EPSILON:
        # Beyond MAX_PLD_EPSILON the PLD's support (Σε/interval bins) would cost memory and time for a total that
        # says nothing more; basic composition is valid there (its δ's must fit δ) — and e^ε overflows near 709.
        used = sum(d * k for _n, _e, d, k in others) + (delta / 2 if rho > 0 else 0.0)
        return float(basic) if used <= delta else math.inf
    total: Any = None

    def add(p: Any) -> None:
        nonlocal total
        total = p if total is None else total.compose(p)

    for _n, e, d, k in others:
        base = pld.from_privacy_parameters(DifferentialPrivacyParameters(float(e), float(d)),
                                           value_discretization_interval=PLD_INTERVAL)
        add(base.self_compose(int(k)) if k > 1 else base)
    if rho > 0:
        add(pld.from_privacy_parameters(DifferentialPrivacyParameters(float(eps_z), delta / 2),
                                        value_discretization_interval=PLD_INTERVAL))
    return float(cast(Any, total).get_epsilon_for_delta(delta))

"""How many releases a budget holds in each notion, beside the tight PLD account (prints a table; not a test).

Issue 33: the default budget (ε = 3, δ = 1e-5) taken as pure ε, as (ε, δ) by basic composition (zCDP releases
converted at half of the δ that remains), or as ρ-zCDP (ρ = 0.2242 by the tight conversion, a privacy filter);
beside them the count a PLD accountant admits had the releases been fixed in advance (dpcore.privacy.pld, which
treats a ρ-zCDP release generically), and, for Gaussian releases, the count a mechanism-aware PLD (the exact
Gaussian PLD of dp-accounting) admits.

Usage::

    python benchmarks/budget_notions.py [--epsilon 3] [--delta 1e-5]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcore.privacy import PrivacyCost  # noqa: E402
from dpcore.privacy.notions import BUDGET_NOTIONS, MAX_CAPACITY, capacity, zcdp_budget_from_approx  # noqa: E402
from dpcore.privacy.pld import tight_epsilon  # noqa: E402


def _pld_count(cost: PrivacyCost, epsilon: float, delta: float, cap: int = 2000) -> int:
    """Largest m with tight_epsilon(m releases) ≤ ε (bisection; m ≤ cap)."""
    lo, hi = 0, cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tight_epsilon([cost.times(mid)], delta) <= epsilon:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _gaussian_pld_count(rho: float, epsilon: float, delta: float, cap: int = 2000) -> int:
    from dp_accounting.pld import privacy_loss_distribution as pld

    base = pld.from_gaussian_mechanism(standard_deviation=1 / math.sqrt(2 * rho), sensitivity=1.0,
                                       value_discretization_interval=1e-4)
    lo, hi = 0, cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if base.self_compose(mid).get_epsilon_for_delta(delta) <= epsilon:
            lo = mid
        else:
            hi = mid - 1
    return lo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilon", type=float, default=3.0)
    ap.add_argument("--delta", type=float, default=1e-5)
    a = ap.parse_args()
    rho = zcdp_budget_from_approx(a.epsilon, a.delta)
    print(f"budget ε = {a.epsilon:g}, δ = {a.delta:g}; as ρ-zCDP: ρ = {rho:.4f}; capacities capped at {MAX_CAPACITY}")
    sessions = [("Gaussian, ρ = 0.01", PrivacyCost.zcdp(0.01)), ("Gaussian, ρ = 0.005", PrivacyCost.zcdp(0.005)),
                ("Gaussian, ρ = 1e-4", PrivacyCost.zcdp(1e-4)), ("Laplace, ε = 0.3", PrivacyCost.pure(0.3)),
                ("Laplace, ε = 0.1", PrivacyCost.pure(0.1)), ("KNG draw, ε = 1", PrivacyCost.pure(1.0)),
                ("GP density, ε = 0.5, δ = 1e-7", PrivacyCost.approx(0.5, 1e-7))]
    head = f"{'release':32s}" + "".join(f"{n:>9s}" for n in BUDGET_NOTIONS) + f"{'PLD':>9s}{'Gauss PLD':>11s}{'s':>7s}"
    print(head)
    for name, cost in sessions:
        t = time.perf_counter()
        caps = [capacity(cost, n, epsilon=a.epsilon, delta=a.delta, rho=rho) for n in BUDGET_NOTIONS]
        cap = 5000 if cost.notion == "zcdp" else 2000
        pld = _pld_count(cost, a.epsilon, a.delta, cap)
        gauss = _gaussian_pld_count(cost.rho, a.epsilon, a.delta, cap) if cost.notion == "zcdp" else None
        print(f"{name:32s}" + "".join(f"{c:>9d}" for c in caps) + f"{pld:>9d}"
              + f"{gauss if gauss is not None else '—':>11}" + f"{time.perf_counter() - t:>7.1f}")


if __name__ == "__main__":
    main()

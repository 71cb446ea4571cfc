"""The public "what would certify" closed forms (dpcore.single_parameter.certify): monotone, the two
directions consistent, and against the code path (a simulation at the predicted n passes)."""
import numpy as np
import pytest

from dpcore.errors import DPValueError
from dpcore.single_parameter import _certify as certify
from dpcore.single_parameter.designs import robust_regression
from dpcore.single_parameter import FunctionalConfig
from dpcore.single_parameter._analysis import analyse
from dpcore.single_parameter.release.functional import sample_functional

QUARTERS = FunctionalConfig(epsilon=1.0, delta=1e-5)
CUBE = FunctionalConfig(epsilon=1.0, delta=1e-5, geometry="hypercube")
HEAVY = FunctionalConfig(epsilon=1.0, delta=1e-5, eps_split=(0.1, 0.1, 0.7, 0.1), delta_split=(0.1, 0.1, 0.7, 0.1))


def test_prediction_is_monotone_in_n_lambda_and_epsilon():
    ns = [1000, 3000, 10_000, 30_000, 100_000, 300_000]
    passes = [certify.predict(QUARTERS, n, 5, 0.075, 0.077).passes for n in ns]
    assert passes == sorted(passes) and passes[0] is False and passes[-1] is True
    need = [certify.n_to_certify(QUARTERS, 5, lam, 0.077) for lam in (0.02, 0.04, 0.077)]
    assert need[0] > need[1] > need[2]                       # a larger λ_min needs fewer rows
    eps_need = [certify.n_to_certify(FunctionalConfig(epsilon=e, delta=1e-5), 5, 0.075, 0.077) for e in (0.5, 1, 4)]
    assert eps_need[0] > eps_need[1] > eps_need[2]
    # a larger (assumed) λ_max never helps: the cap needs more rows than a well-conditioned design
    assert certify.n_to_certify(QUARTERS, 5, 0.075) > certify.n_to_certify(QUARTERS, 5, 0.075, 0.077)
    # the lower bound and upper bound of the prediction bracket the assumptions
    p = certify.predict(QUARTERS, 50_000, 5, 0.075, 0.077)
    assert 0 < p.lam_lo < 0.075 and 0.077 <= p.Lam_hi <= 0.5


def test_n_and_lambda_are_inverse_of_each_other():
    for cfg, d, lam, Lam in ((QUARTERS, 5, 0.075, 0.077), (HEAVY, 5, 0.05, 0.2), (CUBE, 11, 0.3, 0.6)):
        n = certify.n_to_certify(cfg, d, lam, Lam)
        assert certify.predict(cfg, n, d, lam, Lam).passes and not certify.predict(cfg, n - 1, d, lam, Lam).passes
        lam_star = certify.min_lambda_to_certify(cfg, n, d, Lam)
        assert lam_star <= lam * (1 + 1e-5)                  # λ_min certifies at n, so the smallest one is ≤ it
        assert certify.n_to_certify(cfg, d, lam_star * (1 + 1e-5), Lam) <= n
        assert not certify.predict(cfg, n, d, lam_star * 0.99, Lam).passes


def test_at_the_predicted_n_a_simulation_passes_most_of_the_time():
    """Simulated robust regression (d = 5, unit sphere): λ_min ≈ 0.0745, λ_max ≈ 0.078 at these n."""
    for cfg in (QUARTERS, HEAVY):
        n = certify.n_to_certify(cfg, 5, 0.0745, 0.079, prob=0.9)
        rates, below = [], []
        for s in range(3):
            X, y, _ = robust_regression(n, 5, rng=s)
            an = analyse((X, y), cfg)
            rates.append(sample_functional(an, cfg, 2000, np.random.default_rng(10 + s))["passed"].mean())
            X, y, _ = robust_regression(n // 2, 5, rng=s)
            an = analyse((X, y), cfg)
            below.append(sample_functional(an, cfg, 2000, np.random.default_rng(10 + s))["passed"].mean())
        assert np.mean(rates) > 0.75, (n, rates)             # predicted to pass w.p. ≥ 0.9 at the assumptions
        assert np.mean(below) < 0.5, (n, below)              # and the prediction is not loose by 2×


def test_the_bound_certifies_before_the_release_passes():
    cfg = FunctionalConfig(epsilon=1.0, delta=1e-5, loss="logistic", geometry="hypercube")
    # census-like stand-in (designs.census_like at n = 4·10⁵): λ_min ≈ 0.0019, λ_max ≈ 0.65, d = 17
    bound = certify.n_to_certify(cfg, 17, 0.0019, 0.65, what="bound")
    release = certify.n_to_certify(cfg, 17, 0.0019, 0.65)
    assert 1.5e6 < bound < 3.5e6 < 1e8 < release                # measured 2.4·10⁶ and 2.7·10⁸
    assert certify.predict(cfg, bound, 17, 0.0019, 0.65).certified and not certify.predict(cfg, bound - 1, 17, 0.0019, 0.65).certified


def test_heavy_gaussian_split_needs_more_rows_for_the_test():
    # ε₄ = 0.1ε instead of 0.25ε: the variance-change test needs ≈ 2.5× the rows (measured 2.7×)
    a, b = certify.n_to_certify(QUARTERS, 5, 0.0745, 0.079), certify.n_to_certify(HEAVY, 5, 0.0745, 0.079)
    assert 2 < b / a < 3.5


def test_bad_assumptions_are_clear_errors():
    with pytest.raises(DPValueError, match="λ_max"):
        certify.predict(QUARTERS, 1000, 5, 0.1, 0.05)
    with pytest.raises(DPValueError, match="cap"):
        certify.predict(QUARTERS, 1000, 5, 0.9)
    with pytest.raises(DPValueError, match="prob"):
        certify.predict(QUARTERS, 1000, 5, 0.1, prob=0.1)
    assert certify.min_lambda_to_certify(QUARTERS, 100, 5) is None          # n = 100 certifies no design

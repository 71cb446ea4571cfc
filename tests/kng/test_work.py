"""The release path's work budget (refused up front, naming the product and the cap) and its
progress callback (pages show progress and interrupt stale work: returning False cancels)."""
import numpy as np
import pytest

from dpcore import kng
from dpcore._validation import DPValueError
from dpcore.errors import Cancelled
from dpcore.kng.release import _engine as _release
from tests.kng._helpers import reg2


def _qr(n):
    X, y = reg2(n, 1)
    return X, y


def test_cap_message_names_the_product_and_the_cap():
    # issue 8 §7: quantile-regression exponential mechanism, n = 5 000, 1 500 chains × 2 000 sweeps took 295 s
    with pytest.raises(DPValueError) as err:
        kng.sample("quantile_regression", _qr(5_000), mechanism="exponential", epsilon=1.0, size=1_500,
                   n_sweeps=2_000)
    msg = str(err.value)
    assert ("1 500 chains × 2 000 sweeps × 2 coordinate(s) × 3 565 record-equivalents (565 records + a per-chain "
            "slice search) per move = 2.14e+10") in msg
    assert "exceeds the cap 3e+08" in msg and "fewer records" in msg


def test_geometric_median_cap_and_the_page_defaults_fit():
    x = np.random.default_rng(0).normal(size=(2_000, 2))
    with pytest.raises(DPValueError, match=r"1 500 chains × 2 000 sweeps × 2 coordinate\(s\) × 2 000 records"):
        kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-4, 4), size=1_500, n_sweeps=2_000)
    # the KNG page's defaults (100 draws × 1 000 sweeps, simulated n = 1 000; 25 draws for quantile regression,
    # pages/kng.py QR_TEACH_DRAWS) are within the budget
    for problem, data, kw in [("median", x[:1000], {"bounds": (-4, 4)}), ("quantile_regression", _qr(1_000), {}),
                              ("linear_regression", _qr(100_000), {})]:
        for mech in ("kng", "exponential"):
            size = 25 if problem == "quantile_regression" else 100
            cfg = kng.make(problem, mechanism=mech, epsilon=1.0, size=size, n_sweeps=1_000, **kw)
            prob, P, _ = kng.prepared(data, cfg)
            _release.check_work(prob, P, cfg, exact=False)


def test_objective_perturbation_cap():
    X = np.c_[np.ones(50), np.random.default_rng(1).uniform(-1, 1, (50, 11))]
    y = np.zeros(50)
    with pytest.raises(DPValueError, match=r"6 000 draws × d³ = 1 728 \(one exact QP each\) = 1.04e\+07 exceeds"):
        kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, size=6_000)


def test_exact_samplers_have_no_mcmc_budget():
    y = np.random.default_rng(2).normal(size=100_000)
    r = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-5, 5), size=100_000, rng=1)
    assert r.value.shape == (100_000, 1)


def test_progress_is_reported_and_false_cancels_the_mcmc():
    X, y = _qr(200)
    seen = []
    r = kng.sample("linear_regression", (X, y), mechanism="kng", epsilon=1.0, size=4, n_sweeps=400, rng=1,
                   sampler="mcmc", progress=lambda done, total: seen.append((done, total)))
    assert r.size == 4 and seen and seen[-1] == (400, 400) and all(t == 400 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    with pytest.raises(Cancelled) as err:
        kng.sample("linear_regression", (X, y), mechanism="kng", epsilon=1.0, size=4, n_sweeps=400, rng=1,
                   sampler="mcmc", progress=lambda done, total: done < 100)
    assert 100 <= err.value.done < 400 and err.value.total == 400


def test_false_cancels_objective_perturbation():
    X, y = _qr(100)
    with pytest.raises(Cancelled) as err:
        kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, size=600, rng=1,
                   progress=lambda done, total: False)
    assert err.value.done == 256 and err.value.total == 600


def test_exponential_quantile_regression_counts_its_full_check_loss():
    # issue 18: the KNG page's old quantile-regression default (n = 1 000, 100 draws × 1 000 sweeps) took 34 s,
    # the exponential mechanism 16.4 s of it (2.6 × KNG's 6.4 s at the same chains × sweeps × records)
    with pytest.raises(DPValueError) as err:
        kng.sample("quantile_regression", _qr(1_000), mechanism="exponential", epsilon=1.0, size=100,
                   n_sweeps=1_000)
    assert ("100 chains × 1 000 sweeps × 2 coordinate(s) × 3 000 record-equivalents (1 000 records × 3, the full "
            "check loss) per move = 6e+08 exceeds the cap 3e+08") in str(err.value)


def test_one_interaction_of_several_mechanisms_is_capped_as_a_whole():
    data = _qr(1_000)
    cfgs = [kng.make("quantile_regression", mechanism=m, epsilon=1.0, size=size, n_sweeps=1_000)
            for m, size in (("kng", 100), ("exponential", 45))]    # 2e8 + 1.8e8: each under the cap
    for cfg in cfgs:
        prob, P, _ = kng.prepared(data, cfg)
        _release.check_work(prob, P, cfg, exact=False)
    with pytest.raises(DPValueError) as err:
        kng.check_interaction(data, cfgs)
    msg = str(err.value)
    assert "kng: 100 chains × 1 000 sweeps" in msg and "exponential: 45 chains × 1 000 sweeps" in msg
    assert "together 3.8e+08 exceeds the cap 3e+08 of one interaction" in msg and "fewer mechanisms" in msg
    # one mechanism alone is left to its own cap (the page's default fits: tests/app/test_kng_page.py)
    kng.check_interaction(data, cfgs[1:])

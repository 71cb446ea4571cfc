"""The noise mechanisms on real data shipped with scikit-learn (diabetes; public bounds from domain
knowledge): the mean of a bounded column (replace-one sensitivity (hi − lo)/n) at ε = 1 and at a huge ε."""
import numpy as np
import pytest

from dpcore import noise
from dpcore.data import builtin_dataset, public_columns


@pytest.fixture(scope="module")
def age():
    col = public_columns(builtin_dataset("diabetes"), ["age"])["age"]
    return col.values, col.lower, col.upper


def test_noise_mechanisms_on_the_mean_age(age):
    x, lo, hi = age
    n, mean = x.size, float(x.mean())
    sens = (hi - lo) / n  # replace-one: one record moves the mean by at most (hi − lo)/n
    releases = {
        "laplace": lambda e: noise.laplace_mechanism(mean, sens, e, rng=1),
        "gaussian": lambda e: noise.gaussian_mechanism(mean, sens, epsilon=e, delta=1e-6, rng=1),
        "gaussian-zcdp": lambda e: noise.gaussian_mechanism(mean, sens, rho=e * e / 2, rng=1),
        "knorm": lambda e: noise.knorm_mechanism([mean], sens, e, "l1", size=5, rng=1),
    }
    for name, run in releases.items():
        r = run(1.0)
        assert r.mechanism == f"noise/{name}" and np.all(np.isfinite(r.value))
        assert np.all(np.abs(np.asarray(r.value) - mean) < 50 * r.calibration.constant + 1e-9)
        assert np.allclose(run(1e7).value, mean, atol=1e-3), name


def test_exponential_mechanism_picks_the_median_bin_of_real_data(age):
    x, lo, hi = age
    edges = np.linspace(lo, hi, 13)
    # utility of a candidate split: −|#{x < t} − n/2|, sensitivity 1 under replace-one
    u = -np.abs((x[None, :] < edges[:, None]).sum(axis=1) - x.size / 2)
    best = int(np.argmax(u))
    assert np.all(noise.exponential_mechanism(u, 1e6, 1.0, size=20, rng=1).value == best)
    r = noise.exponential_mechanism(u, 1.0, 1.0, size=2000, rng=1)
    assert np.mean(np.abs(r.value - best) <= 1) > 0.9 and r.cost.count == 2000

"""The noise mechanisms' audits are declared in dpcore/noise/declare.py (numerics in audits.py) and run by
tests/test_contract.py; here: their shape, and the functional form against the declared release."""
import math

import numpy as np

from dpcore import noise, registry
from dpcore.noise.declare import AUDITS


def test_every_noise_mechanism_has_a_declared_audit():
    names = {m.name for m in registry.mechanisms().values() if m.topic == "noise"}
    assert names == {a.mechanism for a in AUDITS} and len(names) == 5
    cal = noise.calibrate_laplace(noise.LaplaceConfig(1.0), (1,))
    for a in AUDITS:
        assert a.mutant.override(cal) != cal  # a calibration override, not a patch of module state


def test_laplace_via_mechanism_function():
    rng = np.random.default_rng(2)
    a = np.array([noise.laplace_mechanism(0.0, 1.0, 1.0, rng=rng).value for _ in range(2000)])
    # the function path gives the same law as the vectorised one (smoke, tiny N)
    assert abs(np.std(a) - math.sqrt(2)) < 0.15


def test_functional_forms_equal_the_releases():
    v = np.array([0.5, -1.0])
    assert np.array_equal(noise.laplace_mechanism(v, 2.0, 0.5, rng=3).value,
                          noise.release.laplace.release(v, noise.LaplaceConfig(0.5, 2.0), rng=3).value)
    assert np.array_equal(noise.knorm_mechanism(v, 1.0, 1.0, "l1", size=3, rng=4).value,
                          noise.release.knorm.release(v, noise.KNormConfig(1.0, 1.0, "l1", 3), rng=4).value)

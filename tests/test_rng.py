import numpy as np
import pytest

from dpcore import _rng


def test_as_generator_variants():
    g = np.random.default_rng(1)
    assert _rng.as_generator(g) is g
    assert _rng.as_generator(5).random() == np.random.default_rng(5).random()
    with pytest.raises(TypeError):
        _rng.as_generator("seed")
    with pytest.raises(TypeError):
        _rng.as_generator(True)
    with pytest.raises(ValueError):
        _rng.as_generator(-1)


def test_spawn_is_deterministic_and_prefix_stable():
    a = [g.random() for g in _rng.spawn(7, 3)]
    b = [g.random() for g in _rng.spawn(7, 5)]
    assert a == b[:3] and len(set(a)) == 3


def test_seed_sequence_for_depends_only_on_key():
    x = np.random.default_rng(_rng.seed_sequence_for(3, 100, 2)).random()
    y = np.random.default_rng(_rng.seed_sequence_for(3, 100, 2)).random()
    z = np.random.default_rng(_rng.seed_sequence_for(3, 100, 3)).random()
    assert x == y != z


def test_generators_for():
    gs = _rng.spawn(1, 2)
    assert _rng.generators_for(gs, 2) == gs
    with pytest.raises(ValueError):
        _rng.generators_for(gs, 3)
    assert len(_rng.generators_for(0, 4)) == 4

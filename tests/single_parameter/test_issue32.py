"""Issue 32 item 3 on the certified bounds: the ε-independent floor below which Algorithm 5 abstains at every ε,
stated before the click (public: n, d, the loss and the domain)."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore import single_parameter as sp
from dpcore.single_parameter import (FunctionalConfig, abstention_floor, certified_floor, diabetes_dataset,
                                     floor_sentence, prepare_xy)
from dpcore.single_parameter._certify import domain_radius
from dpcore.single_parameter._stability import constants_for


def _cfg(eps=1.0, **kw):
    return FunctionalConfig(epsilon=eps, delta=1e-5, loss="robust", radius=1.0, geometry="hypercube", rho=0.01, **kw)


def _passes_necessary(cfg, n, d, lam):
    r2, nu = domain_radius(cfg.geometry, cfg.radius, d)
    k = constants_for(cfg.loss, n, r2, c=cfg.c, sbar=cfg.sbar, rho=cfg.rho)
    return bool(k.C1(lam)) and float(nu * k.tau_pair(lam, lam)[0]) < 1


def test_issue32_3_floor_is_the_boundary_of_the_necessary_conditions():
    for n, d in ((442, 11), (5000, 11), (20_000, 5)):
        cfg = _cfg()
        x = abstention_floor(cfg, n, d)
        assert x >= certified_floor(cfg, n, d)
        assert _passes_necessary(cfg, n, d, x) and not _passes_necessary(cfg, n, d, x * (1 - 1e-6))
        assert abstention_floor(_cfg(eps=1e6), n, d) == x                 # free of ε
    assert abstention_floor(_cfg(), 5000, 11) < abstention_floor(_cfg(), 442, 11)   # more rows lower it


def test_issue32_3_diabetes_lies_below_the_floor_and_abstains_at_every_epsilon():
    """The page's diabetes setting (robust, intercept, hypercube, ρ = 0.01): n = 442, d = 11, floor 0.546; the
    table's λ_min (non-private) is about 0.01, so Algorithm 5 abstains at ε = 1, 10³ and 10⁶ alike."""
    X, y = prepare_xy(diabetes_dataset(), "target", [c for c in diabetes_dataset().numeric_columns if c != "target"],
                      intercept=True, scale_response=True)
    floor = abstention_floor(_cfg(), *X.shape)
    assert floor == pytest.approx(0.5461, abs=1e-4)
    for eps in (1.0, 1e3, 1e6):
        r = sp.functional.release((X, y), _cfg(eps), rng=3)
        assert not np.isfinite(r.value)
        assert r.diagnostics.values["true λ_min (non-private)"] < floor
    text = floor_sentence(_cfg(), *X.shape)
    assert "n = 442 and d = 11" in text and "any λ_min below 0.5461 abstains (⊥) at every ε" in text


def test_issue32_3_floor_sentence_when_nothing_certifies():
    """n so small that even λ_min at the cap fails: the sentence says no λ_min certifies."""
    assert "no λ_min certifies at any ε" in floor_sentence(_cfg(), 20, 11)

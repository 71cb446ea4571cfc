"""The declared audits of private LASSO (run in tests/test_contract.py): what they audit and their mutants."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore import registry
from dpcore.lasso import audits
from dpcore.lasso.calibration import calibrate, score_sensitivity
from dpcore.lasso.configs import LassoConfig

AUD = {a.id: a for a in registry.audits().values() if a.topic == "lasso"}


def test_the_audits_the_issue_asks_for_are_declared():
    assert {"lasso/one-step", "lasso/three-steps"} <= set(AUD)
    assert AUD["lasso/three-steps"].mutant.name == "per-step noise without composition"
    assert {a.mechanism for a in AUD.values()} == {"lasso/private-fw", "lasso/private-fw-intercept",
                                                  "lasso/noisy-gradient-fw"}


def test_pair_attains_the_score_shift_at_every_theta():
    (X, y), (X2, y2) = audits.pair()
    n = len(y)
    for th in np.linspace(-audits.AUDIT_RADIUS, audits.AUDIT_RADIUS, 7):
        g = (2 / n) * ((X[:, 0] * th - y) @ X[:, 0])
        g2 = (2 / n) * ((X2[:, 0] * th - y2) @ X2[:, 0])
        assert abs(audits.AUDIT_RADIUS * (g - g2)) == pytest.approx(4 * audits.AUDIT_RADIUS / n)
    assert 4 * audits.AUDIT_RADIUS / n / score_sensitivity(n, audits.AUDIT_RADIUS) == pytest.approx(1 / 1.1)


def test_no_composition_mutant_spends_the_whole_epsilon_each_step():
    cal = calibrate(LassoConfig(epsilon=1.0, delta=1e-6, radius=audits.AUDIT_RADIUS, steps=3), (10, 1))
    bad = AUD["lasso/three-steps"].mutant.override(cal)
    assert cal.params["eps0"] == pytest.approx(1 / 3)                       # basic composition at T = 3
    assert 2 * bad.sensitivity / bad.constant == pytest.approx(1.0)         # ε₀ = ε under the mutant


def test_sequence_codes_round_trip():
    v = np.array([[0, 1, 1], [1, 0, 0]])
    assert audits.sequence_code(v, 2).tolist() == [6, 1]
    ev = audits.sequence_events(3)(None, None, 1.0, 0.0)(audits.sequence_code(v, 2))
    assert ev.shape == (2, 8 + 6) and ev[0, 6] and ev[1, 1]

"""The KNG audits are declared as data (dpcore/kng/audits.py) and run by tests/test_contract.py; here:
their shape, the paper's eq. (3) refusal, and the slow tier (10x samples, fresh printed seeds)."""
import secrets

import numpy as np
import pytest

from dpcore import kng, registry
from dpcore.audit import Audit, Mutant, run_audit
from dpcore.kng.audits import AUDITS
from dpcore.kng.calibration import mechanism_calibration
from dpcore.mechanism import Calibration


def test_every_kng_mechanism_has_a_declared_audit_with_an_override_mutant():
    names = {m.name for m in registry.mechanisms().values() if m.topic == "kng"}
    assert len(names) == 11 and names == {a.mechanism for a in AUDITS}
    cal = mechanism_calibration(kng.make("median", mechanism="kng", epsilon=1.0, bounds=(0, 1)), 1)
    for a in AUDITS:
        assert isinstance(a, Audit) and isinstance(a.mutant, Mutant) and a.id.startswith("kng/")
        broken = a.mutant.override(cal)
        assert isinstance(broken, Calibration) and broken != cal  # a calibration override, not a patch


def test_mutant_runs_through_the_release_code_with_the_broken_calibration():
    aud = next(a for a in AUDITS if a.id == "kng/median-kng")
    ok, bad = run_audit(aud, n=2000), run_audit(aud, n=2000, mutant=True)
    assert ok.outputs[0].shape == (2000,) and not np.array_equal(ok.outputs[0], bad.outputs[0])


def test_paper_eq3_is_refused_by_the_api():
    with pytest.raises(ValueError, match="NOT ε-DP"):
        kng.sample("quantile", np.zeros(3), mechanism="kng", epsilon=1.0, tau=0.9, bounds=(0, 1), constants="paper")


@pytest.mark.slow
@pytest.mark.parametrize("aud", [a for a in AUDITS if a.n_samples >= 200_000], ids=lambda a: a.id)
def test_slow_exact_audits_fresh_seeds(aud):
    """The exact-sampler audits at 10x the samples with a fresh (printed) seed."""
    seed = secrets.randbits(32)
    print(f"seed {seed}")
    n = min(10 * aud.n_samples, 1_000_000)  # the release path caps a call at 1e6 draws
    ok, bad = run_audit(aud, n=n, rng=seed), run_audit(aud, n=n, rng=seed, mutant=True)
    print(ok.result.details, bad.result.details)
    assert not ok.result.rejected and bad.result.rejected

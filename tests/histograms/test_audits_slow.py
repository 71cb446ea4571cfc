"""The declared histogram audits at 10× samples with fresh seeds (printed), by hand: ``pytest -m slow``."""
import numpy as np
import pytest

from dpcore.audit import run_audit
from dpcore.registry import audits

pytestmark = pytest.mark.slow
HIST = [a for a in audits().values() if a.topic == "histograms"]


@pytest.mark.parametrize("aud", HIST, ids=[a.id for a in HIST])
def test_audit_at_10x_samples_fresh_seed(aud):
    seed = int(np.random.SeedSequence().entropy % 2**32)
    print(f"{aud.id}: seed {seed}")
    n = min(10 * aud.n_samples, 2_000_000)
    ok = run_audit(aud, n=n, rng=seed)
    assert not ok.result.rejected, f"seed {seed}: " + ok.result.details
    bad = run_audit(aud, n=n, rng=seed + 1, mutant=True)
    assert bad.result.rejected, f"seed {seed + 1}: " + bad.result.details

"""Audits beyond the contract test: the ℓ1-diameter variant is (correctly) not rejected; the noise step of
the projection mechanism is audited on its own."""
import dataclasses

import pytest

from dpcore import query_release
from dpcore.query_release.release._common import sample_outputs
from dpcore.audit import Mutant, run_audit
from dpcore.query_release import _central as C
from dpcore.query_release.audits import l1_diameter
from dpcore.query_release.declare import AUDITS_CENTRAL
from dpcore.query_release._workloads import Marginals


def _audit(key):
    return next(a for a in AUDITS_CENTRAL if a.id == f"query_release/{key}")


@pytest.mark.stat
def test_l1_diameter_variant_is_not_rejected_because_it_adds_more_noise():
    aud = dataclasses.replace(_audit("gaussian"), mutant=Mutant("ℓ1 diameter", "σ from the ℓ1 diameter", l1_diameter))
    assert not run_audit(aud, mutant=True).result.rejected


@pytest.mark.stat
def test_projection_noise_step_audit_and_mutant():
    base = _audit("projection")

    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = query_release.configs.ProjectionConfig(Marginals(3, 2), C.rho_for_approx(epsilon, delta))
        return sample_outputs(data, cfg, n, rng, override=override, stage="noisy")

    aud = dataclasses.replace(base, id="query_release/projection-noise", sampler=sampler, n_samples=100_000)
    assert not run_audit(aud).result.rejected
    assert run_audit(aud, mutant=True).result.rejected

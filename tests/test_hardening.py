"""Every registered mechanism declares the sampler of each random step (MechanismSpec.noise); every integer-valued
step is drawn by an exact sampler (dpcore.exact); the declarations agree with what the example release does."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore import registry
from dpcore.exact import SAMPLER_KINDS

SPECS = registry.mechanisms()


@pytest.mark.parametrize("name", list(SPECS))
def test_every_mechanism_declares_its_samplers(name):
    spec = SPECS[name]
    assert spec.noise, f"{name}: MechanismSpec.noise is empty; declare every random step and its sampler kind"
    for step in spec.noise:
        assert step.kind in SAMPLER_KINDS
        if step.integer:                  # no exceptions left (issue 36: the sparse sampler's count is exact)
            assert step.kind == "exact-discrete", f"{name}: integer-valued step {step.what!r} is drawn by {step.kind}"


@pytest.mark.parametrize("name", list(SPECS))
def test_declared_mcmc_matches_the_example_release(name):
    spec = SPECS[name]
    data, kw = spec.example()
    r = spec.release(data, spec.make(**kw), rng=np.random.default_rng(0))
    if r.diagnostics.mcmc is not None:
        assert any(s.kind == "mcmc" for s in spec.noise), f"{name} ran MCMC but declares no 'mcmc' step"
    kinds = {s.kind for s in spec.noise}
    truth = np.asarray(spec.nonprivate(data, spec.make(**kw)), dtype=float)
    v = np.asarray(r.value, dtype=float) if spec.compare is None else np.asarray(spec.compare(r.value), dtype=float)
    if kinds == {"exact-discrete"} and np.all(truth == np.round(truth)):     # integer statistic, integer noise
        assert np.all(v == np.round(v)), f"{name}: an exact integer release is not an integer"
    if kinds == {"grid-discrete"}:                                           # a public grid, exact noise on it
        grid = r.calibration.params["grid"]
        assert np.all(v / grid == np.round(v / grid)), f"{name}: a grid release is off its grid γ = {grid}"

def test_unhardened_lists_every_float_and_mcmc_step_and_nothing_exact():
    rows = registry.unhardened()
    names = {n for n, _, _ in rows}
    assert "noise/gaussian" in names and "kng/quantile_regression-kng" in names
    assert "noise/laplace" not in names and "noise/gaussian-zcdp" not in names       # hardened by default (grid)
    assert "query_release/gaussian" not in names                                      # hardened by default (grid)
    mean_kng = [what for n, what, _ in rows if n == "kng/mean-kng"]                 # grid for ℓ1 / d = 1: only the
    assert len(mean_kng) == 1 and "ℓ2 or ℓ∞ with d ≥ 2" in mean_kng[0]              # K-norm ℓ2/ℓ∞ case is listed
    assert all(kind in ("float", "mcmc") for _, _, kind in rows)
    assert not any(n == "histograms/laplace" for n, _, _ in rows)      # every step of it is exact
    assert any("timing" in s for s in registry.EVERY_MECHANISM_UNHARDENED)

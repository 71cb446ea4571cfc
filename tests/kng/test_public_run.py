"""Issue 29 items 4–5: what a KNG release shows while and after it runs is a function of public inputs only.

Item 4: the progress a release reports (the page writes it beside the button) — on D the exact rejection sampler
gives the draw, on D′ (same n, same Θ, θ̂ far outside Θ) the MCMC fallback does; the (done, total) sequence the
caller sees must be the same. Item 5: whether the MCMC chains mixed is a function of the data: the release always
publishes the last state under the approximate claim, and the mixing verdict goes to the non-private diagnostics.
"""
from __future__ import annotations

import numpy as np
import pytest

from dpcore import kng


def _calls(data, **kw):
    seen: list[tuple[int, int]] = []
    r = kng.sample("linear_regression", data, mechanism="kng", epsilon=1e3, B=0.05, size=1, rng=4, n_sweeps=1000,
                   progress=lambda done, total: seen.append((done, total)), **kw)
    return r, seen


def _shown(calls):
    return [c for i, c in enumerate(calls) if i == 0 or c != calls[i - 1]]


def test_progress_of_a_release_does_not_say_which_sampler_ran():
    """Before: (1, 1) on the exact branch, (…, 1000) sweeps on the fallback (the page printed "1 of 1" vs
    "1000 of 1000")."""
    X, y = np.ones((200, 1)), np.ones(200)
    fallback, a = _calls((X, y))
    exact, b = _calls((X, 0.01 * y))
    assert fallback.diagnostics.values["sampler"] == "MCMC (fallback)"
    assert exact.diagnostics.values["sampler"] == "exact rejection sampler"
    # what a user sees: the successive states of the bar (a repeated call redraws the same bar: it is a point where
    # a newer rerun may stop the work, and its count is timing, like the run's duration)
    a, b = _shown(a), _shown(b)
    assert a and a == b, f"progress differs on neighbouring data: {a} vs {b}"
    assert a[-1][0] == a[-1][1]                      # it ends at its public total


def test_unmixed_chains_still_release_the_last_state_under_the_approximate_claim():
    """Before: ``released`` False, values NaN and a "withheld: the chains have not mixed" note — a data-dependent
    event beside the release. After: released, finite; the verdict is in the diagnostics only."""
    x = np.random.default_rng(15).normal(size=(200, 2))
    r = kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=2, rng=3, n_sweeps=10)
    d = r.diagnostics.mcmc
    assert not d.mixed()                                            # the chains did not mix
    assert r.released and np.isfinite(r.value).all() and not r.notes_of("withheld")
    assert "not mixed" in str(r.diagnostics.values["chains mixed (non-private)"])
    assert any("whether or not the chains mixed" in n.text for n in r.notes)
    assert r.cost == r.calibration.cost(2) and r.cost.total_epsilon == pytest.approx(2.0)
    mixed = kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=2, rng=3, n_sweeps=2000)
    assert mixed.diagnostics.mcmc.mixed() and mixed.notes == r.notes and mixed.released == r.released

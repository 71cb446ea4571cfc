"""dpcore.audit.explore: the audit page's presets, edits, chunked run (same harness) and summaries."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.audit import run_audit
from dpcore.audit import explore as X
from dpcore.errors import Cancelled, DPValueError
from dpcore.registry import audits

LAP = audits()["noise/laplace"]


def test_one_chunk_is_run_audit_exactly():
    a, b = X.run(LAP, n=5000, rng=3), run_audit(LAP, n=5000, rng=3)
    assert a.result == b.result
    np.testing.assert_array_equal(a.outputs[0], b.outputs[0])


@pytest.mark.stat
def test_chunked_run_passes_the_mechanism_and_rejects_the_mutant():
    seen = []
    ok = X.run(LAP, n=100_000, chunks=5, progress=lambda d, t: seen.append((d, t)) or True)
    assert seen == [(20_000 * i, 100_000) for i in range(1, 6)]
    assert not ok.result.rejected and ok.outputs[0].shape == (100_000,)
    bad = X.run(LAP, n=100_000, chunks=5, mutant=True)
    assert bad.result.rejected and bad.result.epsilon_lower_bound > LAP.epsilon


def test_progress_false_cancels():
    with pytest.raises(Cancelled):
        X.run(LAP, n=10_000, chunks=4, progress=lambda d, t: d < 5000)


def test_cap_and_bad_claims_are_refused():
    with pytest.raises(DPValueError, match="lower n"):
        X.run(LAP, n=X.sample_cap(LAP) + 1)
    with pytest.raises(DPValueError, match="sample size"):
        X.run(LAP, n=10)
    with pytest.raises(DPValueError, match="epsilon"):
        X.run(LAP, n=2000, epsilon=float("nan"))


@pytest.mark.parametrize("aid", sorted(audits()))
def test_presets_are_neighbouring_and_the_table_round_trips(aid):
    a = audits()[aid]
    declared = X.differing(a.datasets)
    for name, pair in X.presets(a).items():
        assert set(X.differing(pair)) <= set(declared), name        # only the declared records differ
        back = X.apply_table(a, X.pair_table(a, pair))
        for got, want in zip(back, pair):
            for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                assert g.dtype == w.dtype and g.shape == w.shape
                np.testing.assert_array_equal(g, w)


def test_edits_are_validated():
    qa = audits()["query_release/gaussian"]            # integer codes of the universe
    t = X.pair_table(qa, qa.datasets)
    t.loc[1, "value"] = 2.5
    with pytest.raises(DPValueError, match="whole numbers"):
        X.apply_table(qa, t)
    t = X.pair_table(LAP, LAP.datasets)
    t.loc[0, "value"] = np.nan
    with pytest.raises(DPValueError, match="record 0"):
        X.apply_table(LAP, t)


def test_summary_overlay_and_events():
    r = X.run(LAP, n=20_000)
    s = X.summarize(r)
    assert isinstance(s.overlay, pd.DataFrame)
    width = (s.overlay.bin_right - s.overlay.bin_left).to_numpy()
    assert 0.95 < float((s.overlay["density_D"] * width).sum()) <= 1.0 + 1e-12
    assert s.events["event"].iloc[0] == r.result.worst_event and s.missing == (0.0, 0.0)


@pytest.mark.slow
@pytest.mark.parametrize("aid", sorted(audits()))
def test_the_page_defaults_pass_every_mechanism_and_reject_every_mutant(aid):
    """What a class sees on the audit page with its defaults (declared n, sidebar seed 0, 10 chunks)."""
    a = audits()[aid]
    assert not X.run(a, chunks=10, rng=0).result.rejected
    assert X.run(a, chunks=10, rng=0, mutant=True).result.rejected

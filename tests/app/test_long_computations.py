"""Long computations: a newer rerun interrupts a sweep mid-way and the session keeps either the old or the
new result, never a mix (issue 14).

In a real server a newer rerun stops the running script at its next Streamlit call — the progress bar's
update between blocks — by raising Streamlit's ``StopException``/``RerunException`` (BaseExceptions, so no
``except Exception`` in app code swallows them). Here the progress callback the page hands to dpcore is
wrapped to raise that same exception after two blocks, i.e. at exactly that point.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.testing.v1 import AppTest

import dpcore.experiments as E
from dpcore import privacy as P

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.app
EXP = "kng-median"
SUBMIT = f"FormSubmitter:evn_form_{EXP}-Run simulation"


def _consistent(stored) -> None:
    """The stored (settings, frame) pair belongs together: same experiment, ε, x grid, replicates, seed."""
    (exp_id, eps, xs, reps, _options, methods, seed), frame = stored
    assert exp_id == EXP and frame.attrs["seed"] == seed and frame.attrs["reps"] == reps
    assert set(frame["method"]) == set(methods)
    assert sorted(set(frame["n"])) == sorted(xs) and set(frame["rep"]) == set(range(reps))
    assert np.allclose(frame["epsilon"], eps) and (frame["seed"] == seed).all()
    per_cell = frame.groupby(["method", "n"]).size()          # every (method, n) cell complete: no half-sweep
    assert (per_cell == reps).all() and len(per_cell) == len(xs) * len(frame.attrs["methods"])


def test_an_interrupted_sweep_leaves_the_old_result_whole_and_the_next_run_stores_the_new_one(monkeypatch):
    from ui import cache as _cached
    _cached.experiment_frame.clear()      # shared across sessions (issue 21): this test needs the sweep to run
    at = AppTest.from_file(str(ROOT / "pages" / "error_vs_n.py"), default_timeout=90)
    at.run()
    assert not at.exception
    old = at.session_state["evn_results"][EXP]
    _consistent(old)

    real, seen = E.run_experiment, []

    def interrupted(*args, progress=None, **kwargs):
        def newer_rerun_arrives(done, total):
            seen.append((done, total))
            if done >= 2:
                raise StopException()  # what st.progress raises when a newer rerun is queued
            return progress(done, total)
        return real(*args, progress=newer_rerun_arrives, **kwargs)

    monkeypatch.setattr(E, "run_experiment", interrupted)
    at.select_slider(key=f"evn_eps_{EXP}").set_value(0.1)
    at.button(key=SUBMIT).click()
    at.run()
    assert seen and seen[-1][0] == 2 < seen[-1][1]           # stopped mid-way, blocks still to do
    assert at.session_state["evn_results"][EXP] is old          # the old result, untouched
    _consistent(at.session_state["evn_results"][EXP])

    monkeypatch.setattr(E, "run_experiment", real)              # the newer rerun itself runs to the end
    at.button(key=SUBMIT).click()
    at.run()
    assert not at.exception
    new = at.session_state["evn_results"][EXP]
    assert new is not old and new[0][1] == 0.1
    _consistent(new)


def test_an_interrupted_release_is_neither_cached_nor_charged():
    """The release rules store a result only after compute() returns: an interruption in between leaves the
    cache and the ledger exactly as they were (the previous release of another key stays whole)."""
    s = P.ReleaseSession()
    s.open_dataset("ab" * 32, n=100)

    def req(eps):
        return P.ReleaseRequest(key=("fp", "mean", eps), label=f"mean, ε = {eps}", kind=P.USER,
                                randomness=P.randomness_for(P.USER), bounds=P.check_bounds({"x": "declared"}),
                                dataset="ab" * 32, cost=P.PrivacyCost.pure(eps))

    first = s.run(req(1.0), lambda rng: {"value": 0.5, "parts": [1, 2]}, submitted=True,
                  cost_of=lambda r: P.PrivacyCost.pure(1.0))
    partial = {"value": None, "parts": []}

    def compute(rng):
        partial["parts"].append(1)       # half-written work lives only in the computation
        raise StopException()

    with pytest.raises(StopException):
        s.run(req(2.0), compute, submitted=True, cost_of=lambda r: P.PrivacyCost.pure(2.0))
    assert s.cached(req(2.0)) is None and len(s) == 1 and len(s.ledger) == 1
    assert s.cached(req(1.0)) is first.result and first.result == {"value": 0.5, "parts": [1, 2]}

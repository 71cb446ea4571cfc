"""Results shared across sessions: simulations on public synthetic data with a public seed (issue 21).

Every session used to recompute its page's default simulation although its inputs are all public (the
settings and the sidebar's seed): Query release's lab, the Error vs n sweep and the certified-bounds study
took 1.5–5 s each per new session. Here they are ``st.cache_data`` functions, global to the server process
and bounded (``max_entries``), keyed on their public parameters only.

Rules (checked by tests/app/test_cached_public.py, over the signatures):

- every cached function of the app lives in this module (the page scripts define none);
- each parameter is a public scalar, string, tuple or frozen public config (a dataclass of those) — never a
  ``Dataset``, a frame or an array, so a user's data cannot reach the cache; ``_progress`` (a callback,
  left out of the cache key by Streamlit's leading underscore) is the only other parameter allowed;
- each sets ``max_entries``.

``st.cache_data`` returns a fresh copy on every hit (pickled), so a session cannot change what another sees.
The progress bar only moves on the computation itself; a hit returns at once. Its updates are drawn outside
Streamlit's element recording (:func:`_live`): they belong to this run, not to the cached result.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import in_cached_function

from dpcore import experiments as _experiments
from dpcore import density, query_release, single_parameter
from dpcore.density import figures as density_figures

Progress = Callable[[int, int], bool] | None
MAX_ENTRIES = 32          # per function; a few MB each at the pages' caps


def _live(progress: Progress) -> Progress:
    """``progress`` with its bar updates kept out of the cache's recorded elements: Streamlit records every
    element drawn inside a cached function to replay it on a hit, and refuses one drawn on a slot created
    outside (``CacheReplayClosureError``). A bar update is this run's, so it is drawn as if outside."""
    if progress is None:
        return None

    def callback(done: int, total: int) -> bool:
        token = in_cached_function.set(False)
        try:
            return progress(done, total)
        finally:
            in_cached_function.reset(token)
    return callback


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def lab_result(config: query_release.LabConfig, seed: int, _progress: Progress = None) -> query_release.LabResult:
    """:func:`dpcore.query_release.run_lab` on its public synthetic data with the sidebar's seed."""
    return query_release.run_lab(config, rng=seed, progress=_live(_progress))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def experiment_frame(experiment: str, xs: tuple | None, reps: int, epsilon: float | None, seed: int,
                     methods: tuple | None, options: tuple, max_seconds: float | None = None,
                     _progress: Progress = None) -> pd.DataFrame:
    """:func:`dpcore.experiments.run_experiment` in-process (``jobs=1``) on synthetic data; ``options`` is a
    tuple of (name, value) pairs (the figure's options and grouping). Looked up through the module at call
    time, so a test may replace ``dpcore.experiments.run_experiment``."""
    return _experiments.run_experiment(experiment, xs=xs, reps=reps, epsilon=epsilon, seed=seed, jobs=1,
                                       progress=_live(_progress), methods=methods, max_seconds=max_seconds,
                                       **dict(options))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def eigen_bounds_study(ns: tuple, d: int, epsilon: float, delta: float, reps: int, seed: int,
                       share: float = 0.5, draws: int = 200) -> pd.DataFrame:
    """:func:`dpcore.single_parameter.eigen_bounds_vs_n` (simulated robust-regression data)."""
    return single_parameter.eigen_bounds_vs_n(list(ns), d, epsilon=epsilon, delta=delta, share=share, reps=reps,
                                      draws=draws, rng=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def svm_demo(n: int, lam: float, bandwidth: float, epsilon: float, delta: float, seed: int) -> dict:
    """:func:`dpcore.density.svm_demo` (synthetic two-class data): the density page's SVM tab drew it on every
    rerun (0.3–3 s; issue 18's widget sweep)."""
    return density.svm_demo(n, lam=lam, bandwidth=bandwidth, epsilon=epsilon, delta=delta, rng=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def kde_exponents(epsilon: float, delta: float) -> pd.DataFrame:
    """:func:`dpcore.density.figures.exponents_by_dimension` (closed forms of public parameters only)."""
    return density_figures.exponents_by_dimension(epsilon=epsilon, delta=delta)

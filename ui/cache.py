"""Results shared across sessions: simulations on public synthetic data with a public seed (issue 21).

Every session used to recompute its page's default simulation although its inputs are all public (the
settings and the sidebar's seed): Query release's lab, the Error vs n sweep and the certified-bounds study
took 1.5–5 s each per new session; so did the default views of the LASSO, sparse-histogram and density pages
(a simulated table or mixture, its release at the sidebar's seed, the trials and the public figures' numbers).
Here they are ``st.cache_data`` functions, global to the server process
and bounded (``max_entries``), keyed on their public parameters only. The server's garbage-collection helpers
(also process-wide, also public) are :mod:`ui.server`.

Rules (checked by tests/app/test_cached_public.py, over the signatures):

- every cached function of the app lives in this module or ui.server (the page scripts define none);
- each parameter is a public scalar, string, tuple or frozen public config (a dataclass of those) — never a
  ``Dataset``, a frame or an array, so a user's data cannot reach the cache; ``_progress`` (a callback,
  left out of the cache key by Streamlit's leading underscore) is the only other parameter allowed;
- each sets ``max_entries``.

A release is cached here only on *simulated* data, where it is not charged and is a pure function of public
inputs: the simulation's parameters, the config and the 128-bit entropy of its fixed-seed stream
(:func:`entropy`, which refuses anything but a fixed seed on simulated data). A release on a user's data or a
built-in example (recorded in the ledger) never passes through this module.

``st.cache_data`` returns a fresh copy on every hit (pickled), so a session cannot change what another sees.
The progress bar only moves on the computation itself; a hit returns at once. Its updates are drawn outside
Streamlit's element recording (:func:`_live`): they belong to this run, not to the cached result.

Must never: hold a user's data, a frame or array read from it, or a charged release (the rules above).
"""
from __future__ import annotations

import copyreg
import types
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import in_cached_function

from dpcore import density, histograms, lasso, query_release, single_parameter
from dpcore import experiments as _experiments
from dpcore import privacy as P
from ui.workspace import release_session

# A Release, a Dataset and a SparseCounts hold read-only mappings (types.MappingProxyType), which pickle cannot copy;
# st.cache_data pickles every result (a fresh copy per hit), so teach pickle to copy one as a plain dict wrapped
# again. Registered once per process (copyreg's table is keyed by type: re-registering is a no-op).
def _read_only(mapping: dict) -> types.MappingProxyType:
    return types.MappingProxyType(mapping)


copyreg.pickle(types.MappingProxyType, lambda m: (_read_only, (dict(m),)))


Progress = Callable[[int, int], bool] | None
MAX_ENTRIES = 32          # per function; a few MB each at the pages' caps
MAX_LARGE = 4             # per function holding a simulated table (up to ~50 MB each at CACHE_CELLS)
CACHE_CELLS = 2_000_000   # a simulated LASSO table is shared only up to n·p cells (16 MB a copy); beyond, per session


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


def entropy(req: P.ReleaseRequest) -> int:
    """The 128-bit entropy of the stream :meth:`dpcore.privacy.ReleaseSession.run` gives ``req``'s compute — a
    function of the public key and the sidebar's seed. Only for a release on simulated data (never charged):
    anything else is refused, so a charged release cannot reach a shared cache."""
    if req.kind != P.SIMULATED or req.randomness.mode != "fixed" or req.charge.charged:
        raise ValueError(f"a {req.kind} release ({req.randomness.mode} randomness) is never shared across sessions")
    return int(req.randomness.entropy(release_session().full_key(req)))


def _stream(entropy: int) -> np.random.Generator:
    """The Generator :meth:`dpcore.privacy.Randomness.generator` makes from ``entropy`` (same numbers)."""
    return np.random.default_rng(np.random.SeedSequence(entropy))


# -- Private LASSO: the simulated sparse regression -------------------------------------------------------
@st.cache_data(max_entries=MAX_LARGE, show_spinner=False)
def _lasso_simulation(n: int, p: int, s: int, seed: int) -> tuple:
    ds, truth = lasso.simulated_dataset(n, p, s, rng=seed)
    return ds, truth, lasso.prepare_design(ds, "y", list(ds.numeric_columns[:-1]))


def lasso_simulation(n: int, p: int, s: int, seed: int) -> tuple:
    """(ds, θ*, design) of :func:`dpcore.lasso.simulated_dataset` ``(n, p, s, rng=seed)`` (the page's call) and its
    design (y on x1..xp); shared when n·p ≤ :data:`CACHE_CELLS`, else computed for this session."""
    if n * p <= CACHE_CELLS:
        return _lasso_simulation(n, p, s, seed)
    ds, truth = lasso.simulated_dataset(n, p, s, rng=seed)
    return ds, truth, lasso.prepare_design(ds, "y", list(ds.numeric_columns[:-1]))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def _lasso_release(n: int, p: int, s: int, seed: int, config: lasso.LassoConfig, entropy: int,
                   _progress: Progress = None):
    design = _lasso_simulation(n, p, s, seed)[2]
    return lasso.release((design.X, design.y), config, rng=_stream(entropy), diagnostics=True,
                         progress=_live(_progress))


def lasso_release(n: int, p: int, s: int, seed: int, config: lasso.LassoConfig, entropy: int,
                  progress: Progress = None):
    """:func:`dpcore.lasso.release` (with its diagnostics) on :func:`lasso_simulation`'s design, drawn from the
    stream of ``entropy`` (:func:`entropy`)."""
    if n * p <= CACHE_CELLS:
        return _lasso_release(n, p, s, seed, config, entropy, _progress=progress)
    design = lasso_simulation(n, p, s, seed)[2]
    return lasso.release((design.X, design.y), config, rng=_stream(entropy), diagnostics=True, progress=progress)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def _lasso_reference_fits(n: int, p: int, s: int, seed: int, config: lasso.LassoConfig, entropy: int
                          ) -> pd.DataFrame:
    rel = _lasso_release(n, p, s, seed, config, entropy)
    return lasso.reference_fits(_lasso_simulation(n, p, s, seed)[2], config.radius, released=rel.value,
                                intercept=config.intercept)


def lasso_reference_fits(n: int, p: int, s: int, seed: int, config: lasso.LassoConfig, entropy: int
                         ) -> pd.DataFrame:
    """:func:`dpcore.lasso.reference_fits` of :func:`lasso_release` on the simulated design."""
    if n * p <= CACHE_CELLS:
        return _lasso_reference_fits(n, p, s, seed, config, entropy)
    rel = lasso_release(n, p, s, seed, config, entropy)
    return lasso.reference_fits(lasso_simulation(n, p, s, seed)[2], config.radius, released=rel.value,
                                intercept=config.intercept)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Simulating releases on the public design…")
def lasso_outlook(config: lasso.LassoConfig, n: int, p: int) -> lasso.Outlook:
    """:func:`dpcore.lasso.outlook` (public: a config, n and p; seeded) — what to expect before the click."""
    return lasso.outlook(config, n, p)


@st.cache_data(max_entries=1, show_spinner=False)
def lasso_gaussian_width_figure() -> tuple:
    """:func:`dpcore.lasso.plots.gaussian_width_figure` (public constants only; 15 numerical integrals)."""
    from dpcore.lasso.plots import gaussian_width_figure

    return gaussian_width_figure()


# -- Sparse histograms: the simulated table ---------------------------------------------------------------
@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def sparse_table(p: int, q: int, n: int, seed: int) -> histograms.SparseCounts:
    """:func:`dpcore.histograms.sparse_table` ``(p, q, n, rng=seed)`` (the page's call)."""
    return histograms.sparse_table(p, q, n, rng=seed)


@st.cache_data(max_entries=MAX_LARGE, show_spinner=False)
def histogram_draw(p: int, q: int, n: int, table_seed: int, config: histograms.ThresholdConfig, seed: int):
    """The page's draw on :func:`sparse_table`: :func:`dpcore.histograms.laplace_and_threshold_release` when
    ``config.sampler`` is dense, else the thresholded release alone (``rng=seed``; not charged: simulated)."""
    table = sparse_table(p, q, n, table_seed)
    draw = histograms.laplace_and_threshold_release if config.sampler == "dense" else \
        histograms.release.threshold.release
    return draw(table, config, rng=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def histogram_trials(p: int, q: int, n: int, table_seed: int, epsilon: float, reps: int, seed: int
                     ) -> pd.DataFrame:
    """:func:`dpcore.histograms.figures.trials_frame` on :func:`sparse_table` (``rng=seed``)."""
    from dpcore.histograms.figures import trials_frame

    return trials_frame(sparse_table(p, q, n, table_seed), epsilon, reps, rng=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def rdp_demo(p: int, q: int, n: int, epsilon: float, seed: int):
    """:func:`dpcore.histograms.rdp_demo` ``(p, q, n, epsilon, rng=seed)``."""
    return histograms.rdp_demo(p, q, n, epsilon, rng=seed)


# -- Density: the simulated mixture and the SVM demo ------------------------------------------------------
@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def mixture_dataset(n: int, d: int, seed: int):
    """:func:`dpcore.density.mixture_dataset` ``(n, d, rng=seed)`` (the page's call; n ≤ 10⁵ there)."""
    return density.mixture_dataset(n, d, rng=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def density_release(n: int, d: int, seed: int, config: density.CompareConfig, entropy: int,
                    _progress: Progress = None):
    """:func:`dpcore.density.compare_release` on :func:`mixture_dataset`'s columns, from the stream of
    ``entropy`` (:func:`entropy`)."""
    ds = mixture_dataset(n, d, seed)
    x = density.unit_cube_columns(ds, list(ds.numeric_columns))[0]
    return density.compare_release(x, config, rng=_stream(entropy), progress=_live(_progress))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def density_reference(n: int, d: int, seed: int, config: density.CompareConfig, bandwidth: float | None
                      ) -> np.ndarray:
    """:func:`dpcore.density.nonprivate_reference` of :func:`mixture_dataset`'s columns (public simulation)."""
    ds = mixture_dataset(n, d, seed)
    x = density.unit_cube_columns(ds, list(ds.numeric_columns))[0]
    return density.nonprivate_reference(x, config, bandwidth)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def svm_demo(n: int, lam: float, bandwidth: float, epsilon: float, delta: float, seed: int) -> dict:
    """:func:`dpcore.density.svm_demo` on its synthetic two-class data (``rng=seed``)."""
    return density.svm_demo(n, lam=lam, bandwidth=bandwidth, epsilon=epsilon, delta=delta, rng=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def density_exponents(epsilon: float, delta: float) -> pd.DataFrame:
    """:func:`dpcore.density.figures.exponents_by_dimension` (closed forms)."""
    from dpcore.density import figures

    return figures.exponents_by_dimension(epsilon=epsilon, delta=delta)


@st.cache_resource(max_entries=MAX_ENTRIES, show_spinner=False)
def preview_laws(items: tuple, public: tuple) -> tuple:
    """(laws, figure, frame): dpcore.preview.previews — the error law of each ``(label, (registry name, config))``
    of ``items`` at the public shape ``public`` (``(("n", n), ("d", d), …)``) — and its figure and table
    (dpcore.viz.preview.preview_figure). Its inputs are public — method labels, frozen configs (ε, bounds declared
    public, settings), n and d, never data (the public-surface tests check the picture is the same on
    neighbouring datasets) — and it is seeded, so every session may share one result. A ``cache_resource`` (the
    laws hold their quantile functions, which pickle cannot copy): every session gets the same objects, which
    nothing changes (an ErrorLaw is frozen; the figure and the table are only read: ui.plot draws a copy of the
    figure's JSON).
    """
    return preview(items, public)


def preview(items: tuple, public: tuple) -> tuple:
    """What :func:`preview_laws` shares, computed without any cache: for a session whose configs may carry
    bounds filled from its data (ui.preview), which must not key a shared cache."""
    from dpcore import preview as PV
    from dpcore.viz.preview import preview_figure

    laws = tuple(PV.previews(dict(items), **dict(public)))
    return (laws, *preview_figure(laws))


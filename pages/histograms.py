"""Sparse private histograms (Hall 2012, Part 1): Laplace in every cell vs hard thresholding.

Thin page: widgets → a ThresholdConfig → the release rules → ONE dpcore call
(histograms.laplace_and_threshold_release: one noisy draw, released as is and thresholded) → figures
from dpcore.histograms.plots; repeated trials and error vs p are simulations on public tables.
"""
# nav: title="Sparse histograms" icon=":material/bar_chart:" order=150 paper="http://reports-archive.adm.cs.cmu.edu/anon/ml2011/abstracts/12-113.html" topic="Hall (2012): Laplace noise in every cell spoils a sparse histogram (error ∝ p); hard thresholding at (2/ε) log p brings it to ∝ q log p, with a sampler that never touches the empty cells."
import numpy as np
import streamlit as st

from dpcore import export, histograms, privacy
from dpcore.data import builtin_dataset, literal
from dpcore.histograms import RDP_GUARANTEE, column_histogram
from dpcore.histograms import plots
from dpcore.histograms.figures import bound_shapes, trials_frame
from dpcore.viz.experiments import error_vs_x_figure
import ui

SOURCES = ("Synthetic sparse table", "Wine (built-in): cultivar × binned alcohol", "Dataset from the Data page")
ui.persist(h_source=SOURCES[0], h_log2p=16, h_q=histograms.NLCS_Q, h_n=histograms.NLCS_N, h_reps=20, h_cols=None,
           h_p=0, h_noise="geometric")
ss = st.session_state

st.title("Sparse private histograms")
ui.share_link("histograms")
st.markdown(plots.PAGE_INTRO)
source = st.radio("Data", SOURCES, horizontal=True, key="h_source")
c1, c2, c3 = st.columns(3)
with c1:
    eps = ui.epsilon_input(key="h_eps", typed=True)
noise = c2.radio("Noise", histograms.NOISES, horizontal=True, key="h_noise",
                 format_func={"laplace": "Laplace (float)", "geometric": "two-sided geometric (integer, exact)"}.get)
labels, ds = None, None
if source == SOURCES[0]:
    log2p = c3.slider("p = 2^k cells", 8, 30, key="h_log2p")
    k1, k2 = st.columns(2)
    q = k1.number_input("q (occupied cells)", 1, 100_000, key="h_q")
    n = k2.number_input("n (records)", 1, 10_000_000, key="h_n")
    with ui.errors_shown():
        sim = (2**log2p, min(q, 2**log2p), max(n, q), ui.current_seed("h-table", log2p, q, n))   # public: shared
        src = export.simulated(histograms.sparse_table, *sim[:3], target="table", rng=sim[3])
        table = ui.cache.sparse_table(*sim)
    st.caption(plots.synthetic_caption(log2p, table))
else:
    if source == SOURCES[1]:
        src = export.loaded(builtin_dataset, "wine")
        ds, cols, modes, bins = src.load(), ["target", "alcohol"], {"target": "integers", "alcohol": "bins"}, \
            {"alcohol": 8}
    else:
        ds = ui.require_dataset()
        cols, modes, bins = ui.histogram_modes(ds)
    p_decl = c3.number_input("p (declared domain size; 0 = the number of levels)", 0, 2**24, key="h_p")
    with ui.errors_shown():
        ct = column_histogram(ds, cols, modes=modes, bins=bins, p=p_decl or None)
        table, labels = ct.counts, ct.labels
        cfg = histograms.ThresholdConfig(eps, table.p, noise=noise, sampler="dense")
        req = ui.request((ds.fingerprint(), "histograms/pair", tuple(cols), tuple(modes.items()), tuple(bins.items()),
                          cfg), privacy.release_label("Histogram (Laplace + thresholded)", data=ds.name, columns=cols,
                                                      epsilon=eps), ds, cols,
                         bounded=[c for c in cols if modes[c] == "bins"],
                         not_dp=[f"{c}: categories read from the data" for c in ct.from_data],
                         cost=histograms.calibrate_threshold(cfg, histograms.data_shape(table)).cost(1))
    with ui.nonprivate("The domain read from the data") if ct.from_data else st.container():   # p is a count of it
        st.caption(ct.domain_caption({c: modes[c] for c in cols}))

st.subheader("One release: Laplace vs thresholded (same draw, one ε)")
ui.accuracy_preview({"Laplace in every cell": ("histograms/laplace", histograms.ThresholdConfig(eps, table.p, noise=noise)),
                     "Thresholded": ("histograms/threshold", histograms.ThresholdConfig(eps, table.p, noise=noise))},
                    key="h", n=int(table.n), requests=req if ds is not None else None,
                    q=int(table.q) if ds is None else None)   # q: public only on the simulated table
if ds is None:
    seed, dense = ui.current_seed("h-draw", table.p, eps, noise), table.p <= histograms.MAX_DENSE_CELLS // 4
    cfg = histograms.ThresholdConfig(eps, table.p, noise=noise, **({"sampler": "dense"} if dense else {}))
    draw = histograms.laplace_and_threshold_release if dense else histograms.release.threshold.release
    ui.export_code(lambda: export.histogram_script(src, release=draw, dense=dense, config=cfg,
                                                   stream=export.seed_stream(seed)), "histograms")
    if dense:
        rel = ui.cache.histogram_draw(*sim, cfg, seed)
    else:
        rel = None
        st.caption(f"p = {table.p:,} is too large to draw p Laplace values here; the thresholded release below uses "
                   "the sparse sampler (cost O(q + F)), and the Laplace error appears in the trials from its exact law.")
        thr = ui.cache.histogram_draw(*sim, cfg, seed)
else:
    clicked, slot = ui.release_button("Release", key="h_go", requests=req)
    out = ui.run_release(req, lambda rng: histograms.laplace_and_threshold_release(table, cfg, rng=rng),
                         submitted=clicked)
    if out is None:
        st.stop()
    ui.show_outcome(out, button="Release")
    rel = out.result if out.ready else None
    if rel is not None:
        ui.export_code(lambda: export.histogram_script(
            src if source == SOURCES[1] else export.from_dataset(ds, cols), release=histograms.laplace_and_threshold_release,
            column_histogram=histograms.column_histogram, config=cfg, stream=ui.stream(req), columns=cols, modes=modes, bins=bins, p=p_decl or None), "histograms")
if rel is not None:
    st.caption("  \n".join(map(literal, [rel.calibration.statement(), *rel.notes_of("info")])))
    truth = table.to_dense() if (ds is None or ds.is_demo) and table.p <= 2**20 else None
    cf = plots.cells_frame(labels, truth, rel.value.laplace, np.asarray(rel.value.threshold))
    names = [str(c) for c in cols] if ds is not None else []
    ui.plot(plots.cells_figure(cf, axis_title=" × ".join(names) or "cell"), cf, "histogram_release")
    if ds is not None:       # the released counts as a table, by level of each column (true counts: demo data only)
        counts = plots.counts_table(cf, names, getattr(labels, "levels", None))
        st.dataframe(counts, hide_index=True, width="stretch")
        ui.download_csv(counts, "histogram_released_counts.csv", "Download the released counts (CSV)",
                        key="h_counts_csv")
    ui.metrics({"Laplace: cells released ≠ 0": f"{int((rel.value.laplace != 0).sum()):,}",
                "Thresholded: cells released ≠ 0": f"{rel.value.threshold.nnz:,}"})
    with ui.nonprivate("Errors of this release (uses the true counts)"):
        st.dataframe({k: [f"{v:,.4g}"] for k, v in rel.diagnostics.values.items()}, hide_index=True)
        st.caption(literal(" ".join(ct.notes)) if ds is not None else "")
elif ds is None:
    st.metric("Thresholded: cells released ≠ 0", f"{thr.value.nnz:,}")
    st.caption(f"τ = {thr.value.tau:.4g}. " + literal(" ".join(thr.notes_of("warning"))))
if ds is not None and not ds.is_demo:
    st.stop()                                     # repeated trials need the true counts: public tables only

st.subheader("Error over repeated releases (simulation on this public table)")
reps = st.slider("replicates", 5, 50, key="h_reps")
trials_seed = ui.current_seed("h-trials", table.p, eps, reps)
frame = ui.cache.histogram_trials(*sim, eps, reps, trials_seed) if ds is None else trials_frame(table, eps, reps,
                                                                                               rng=trials_seed)
shapes = bound_shapes(table.p, table.q, eps)
ui.plot(plots.error_box_figure(frame, n=table.n, bounds=shapes), frame, "histogram_trials")
st.caption(plots.TRIALS_NOTE)
fp_exp = (table.p - table.q) / (2 * table.p)
ui.plot(plots.false_positive_figure(frame, expected=fp_exp), frame[["method", "rep", "false_positives"]],
        "histogram_false_positives")

if ds is None:
    st.subheader("Error vs p (fixed q, n; simulation)")
    xs = tuple(2**k for k in range(8, 31, 2) if 2**k >= table.q)
    with ui.errors_shown(stop=False):
        run = dict(xs=xs, reps=2, epsilon=eps, seed=ui.current_seed("h-p"), jobs=1, q=table.q, n=table.n,
                   methods=["laplace", "threshold", "oracle-threshold", "all-zeros"])
        fp = ui.cache.experiment_frame("hall-histogram-p", xs, 2, float(eps), run["seed"], tuple(run["methods"]),
                                     (("q", int(table.q)), ("n", int(table.n))))      # shared: public inputs
        ui.plot(error_vs_x_figure(fp), fp, "histogram_error_vs_p")
        ui.export_code(export.experiment_script("hall-histogram-p", **run), "figure_hall-histogram-p")
        st.caption("Laplace grows like p (beyond 2^20 its ℓ1 error is drawn from its exact law Gamma(p, 2/ε)); the "
                   "thresholded release like log p. Full figure: `python -m dpcore reproduce hall-histogram-p`.")
    st.subheader("Random DP: no noise on the empty cells (NOT ε-DP)")
    d = ui.cache.rdp_demo(table.p, table.q, table.n, eps, ui.current_seed("h-rdp", table.p, table.q, table.n, eps))
    ui.metrics({"γ bound from the simulated population P": f"{d.gamma:.3g}",
                "singleton cells (each one exposes a person)": f"{d.singleton_cells:,} of {d.occupied_cells:,}"})
    st.dataframe({"ℓ1 error": d.errors}, width="content")
    st.caption(RDP_GUARANTEE + " Population: the q cells with Dirichlet(0.3) probabilities, all other cells structural "
               "zeroes; an iid sample of n. γ uses the true P: an illustration, never a release.")

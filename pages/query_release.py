"""Query release lab: projection, coarse projection, chaining, PMW and local protocols on a public universe.

Thin page: widgets → a workload declaration and a LabConfig → dpcore.query_release.run_lab (public
synthetic data, not charged) → dpcore.query_release.plots figures; and one release of w-way marginals on
the Data page's columns through a declared public schema (dpcore.query_release.release_marginals,
through the release path). Reference: Błasiok, Bun, Nikolov & Steinke (2019).
"""
# nav: title="Query release" icon=":material/query_stats:" order=120 paper="https://arxiv.org/abs/1811.03763" topic="Answer many linear queries under zCDP or local DP: projection, coarse projection and chaining adapt to the workload's geometry."
import pandas as pd
import streamlit as st

from dpcore import export, privacy, query_release
from dpcore.data import literal
from dpcore.query_release import plots
import ui

ss = st.session_state
METHODS = query_release.LAB_METHODS

st.title("Query release lab")
st.markdown(query_release.LAB_INTRO)
ui.persist(qr_d=6, qr_w=2, qr_N=128, qr_k=64, qr_U=256, qr_ck=500, qr_r=0.05, qr_data=query_release.DATASETS[2],
           qr_nmax=1000, qr_reps=4, qr_rw=2, qr_rrho=0.1, qr_kind="marginals", qr_rho=0.5, qr_eps=1.0, qr_alpha=0.1,
           qr_methods=["gaussian", "projection", "coarse", "chaining", "local-projection"])
ui.share_link("query_release")

spec = ui.workload_picker()
with ui.errors_shown():
    wl = spec.build()
st.caption(f"{wl.name}: |X| = {wl.size:,} points, k = {wl.k:,} queries, exact diam₂(X) = {wl.diam2:.4g}.")

with st.form("qr_form"):
    f1, f2, f3, f4 = st.columns(4)
    dataset = f1.selectbox("Dataset (synthetic)", query_release.DATASETS, key="qr_data")
    rho = f2.number_input("ρ (zCDP, central)", 0.001, 100.0, format="%.3f", key="qr_rho")
    eps = f3.number_input("ε (local, ε-LDP)", 0.01, 20.0, key="qr_eps")
    alpha = f4.number_input("target α (RMS)", 0.005, 1.0, format="%.3f", key="qr_alpha")
    methods = st.multiselect("Methods", METHODS, format_func=plots.method_label, key="qr_methods")
    g1, g2 = st.columns(2)
    n_max = g1.select_slider("largest n", [100, 1000, 10_000, 100_000], key="qr_nmax")
    reps = g2.slider("replicates per n", 2, 30, key="qr_reps")
    run = st.form_submit_button("Run simulation", type="primary")
conv = query_release.approx_guarantee(rho, 1e-6)
st.caption(f"ρ = {rho:g}-zCDP ⇒ (ε, δ = 10⁻⁶)-DP with ε = {conv['epsilon_tight']:.3g} (tight conversion) or "
           f"{conv['epsilon_simple']:.3g} (simple ρ + 2√(ρ ln 1/δ)). Simulations on public synthetic data with the "
           "sidebar's seed: not releases, not charged.")

with ui.errors_shown():
    cfg = query_release.LabConfig.up_to(spec, n_max=n_max, alpha=alpha, dataset=dataset, rho=rho, epsilon=eps,
                                        methods=tuple(methods), reps=reps)
key = (cfg, ui.current_seed("query_release"))
if run or ss.get("qr_result", (None,))[0] != key:
    bar = st.empty()
    with ui.errors_shown():
        ss["qr_result"] = (key, ui.cache.lab_result(cfg, key[1], ui.progress(bar, "lab")))   # shared: public inputs
    bar.empty()
res = ss["qr_result"][1]
if ss["qr_result"][0] == key:
    ui.export_code(lambda: export.lab_script(query_release.run_lab, cfg, key[1]), "query_release_lab")

t1, t2, t3, t4, t5 = st.tabs(["RMS error vs n", "Worst-case error vs n", "Packing profile", "Sample complexity",
                              "Answers"])
with t1:
    ui.plot(plots.error_vs_n_figure(res.errors, alpha=alpha, floor=res.floor), res.errors, "query_release_errors")
    st.caption("Expected: Gaussian ∝ n⁻¹; projection ∝ n^−1/2 while the noise leaves the hull; coarse and chaining "
               "flatten at ≤ α/2; local projection's bound ∝ n^−1/4, the local raw average ∝ n^−1/2.")
with t2:
    ui.plot(plots.error_vs_n_figure(res.errors, metric="max", alpha=alpha), res.errors, "query_release_max_errors")
with t3:
    ui.plot(plots.packing_profile_figure(res.profile, res.geometry["w(X)"] / wl.k ** 0.5), res.profile,
            "query_release_profile")
    st.caption(f"w(X) ≈ {res.geometry['w(X)']:.4g} ± {res.geometry['w(X) s.e.']:.2g} (Monte Carlo). The greedy "
               "size s(t) satisfies sep(X, 2t) ≤ s(t) ≤ sep(X, t): within a factor 2 in scale of the paper's sep₂.")
with t4:
    ui.plot(plots.sample_complexity_figure(res.complexity), res.complexity, "query_release_sample_complexity")
    st.caption("Empirical n*(α): bisection on n with all records at one extreme point. The explicit bounds carry "
               "our constants (the paper states them up to absolute constants).")
with t5:
    ui.plot(plots.answers_figure(res.answers), res.answers, "query_release_answers")

st.subheader("Release marginals of your data")
ds = ui.get_dataset()
if ds is None:
    st.info("Load a dataset on the **Data** page to release its marginals.")
    st.stop()
st.markdown("Declare a **public schema**: each column becomes one bit (numbers: value > threshold; text: value in "
            "the listed categories). Every other value — other categories, missing cells — maps to 0: no row is "
            "dropped, and nothing about the schema is read from the data.")
cols = st.multiselect("Columns (at most 12)", list(ds.frame.columns), max_selections=12, key="qr_cols")
rules = ui.schema_rules(ds, cols)
if rules is None:
    st.stop()
r1, r2, r3 = st.columns(3)
w = r1.number_input("marginal order w", 1, 3, key="qr_rw")
method = r2.selectbox("mechanism", ("projection", "gaussian", "coarse", "chaining", "pmw"),
                      format_func=plots.method_label, key="qr_rm")
rho_r = r3.number_input("ρ of this release", 0.001, 100.0, format="%.3f", key="qr_rrho",
                        help="ρ-zCDP; the budget counts it as (ε, δ) at δ = 1e-6 (ρ = 0.1 ⇒ ε ≈ 2.1), as the "
                             "button shows.")
if not rules:
    st.stop()
with ui.errors_shown():
    numeric = [r.column for r in rules if r.threshold is not None]
    req = ui.request((ds.fingerprint(), "query_release/marginals", tuple(rules), w, method, rho_r, alpha),
                     privacy.release_label(f"{w}-way marginals ({plots.method_label(method)})", data=ds.name,
                                           columns=cols, details={"ρ": rho_r}), ds, numeric, cost=privacy.PrivacyCost.zcdp(rho_r))
try:    # the release names a bad schema (w > columns) on its click; the preview is then left out
    ui.accuracy_preview({plots.method_label(method): (f"query_release/{method}",
                                                      query_release.marginals_config(len(rules), w, method, rho=rho_r,
                                                                               alpha=alpha))},
                        key="qr", n=len(ds.frame))
except ValueError:
    pass
clicked, slot = ui.release_button("Release", key="qr_go", requests=req)
out = ui.run_release(req, lambda rng: query_release.release_marginals(ds.frame, tuple(rules), w, method, rho=rho_r,
                                                                      alpha=alpha, rng=rng), submitted=clicked)
if out is None:
    st.stop()
ui.show_outcome(out, button="Release")
if out.ready and out.result.released:
    rel = out.result
    ui.export_code(lambda: export.marginals_script(export.from_dataset(ds, numeric), release=query_release.release_marginals,
                                                   rules=rules, w=w, method=method, rho=rho_r, alpha=alpha,
                                                   stream=ui.stream(req)),
                   "query_release_marginals")
    frame = pd.DataFrame({"query": query_release.marginal_labels(cols, w), "released answer": rel.value})
    st.dataframe(frame, hide_index=True)
    ui.download_csv(frame, "query_release_marginals.csv")
    st.caption(rel.calibration.statement())
    for note in rel.notes:
        st.caption(literal(note.text))

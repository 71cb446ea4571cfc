"""Certified eigenvalue bounds and single-parameter release (Asi, Duchi & Talwar 2025).

Thin page: widgets → a validated FunctionalConfig → the release rules → ONE call to
dpcore.single_parameter.functional.release (Algorithm 5); the other tabs are simulations on synthetic
data (single_parameter.eigen_bounds_vs_n, the declared figures), never releases. Plots: dpcore.single_parameter.plots.
"""
# nav: title="Certified eigenvalue bounds" icon=":material/verified:" order=130 paper="https://arxiv.org/abs/2503.17252" topic="Asi, Duchi & Talwar (2025): privately certified bounds on the Hessian's extreme eigenvalues, then one coefficient released with noise at its local sensitivity (propose-test-release)."
import numpy as np
import streamlit as st

from dpcore import export, privacy, single_parameter
from dpcore.data import literal, sentence
from dpcore.single_parameter import (FunctionalConfig, breast_cancer_dataset, budget_split, calibrate_functional,
                                     check_functional_data, coefficient_units, diabetes_dataset, floor_sentence,
                                     functional, preparation_note, prepare_xy, simulated_dataset)
from dpcore.single_parameter.plots import bounds_vs_n_figure
import ui
from ui.links import EIGEN_SOURCES

SOURCES = EIGEN_SOURCES         # (declared beside the page's links)
SPLITS = single_parameter.SPLIT_LABELS
ui.persist(sp_source=SOURCES[0], sp_n=20_000, sp_d=5, sp_delta=1e-5, sp_share=0.5, sp_rho=0.01, sp_radius=1.0,
           sp_split="quarters", sp_assume_lam=0.01, sp_intercept=True, sp_cov_d=5, sp_cov_reps=4,
           sp_cov_ns=[1000, 5000, 20_000, 100_000], **{f"sp_loss_{s}": "robust" if s == SOURCES[2] else "logistic"
                                                      for s in SOURCES[1:]})
ss = st.session_state

st.title("Certified eigenvalue bounds")
ui.share_link("eigenvalues")
st.markdown(single_parameter.PAGE_INTRO)

tab_rel, tab_cov, tab_n, tab_eps = st.tabs(["Release ⟨v, θ⟩", "Certified bounds as n grows", "Error vs n",
                                            "Error vs ε"])

with tab_rel:
    source = st.radio("Data", SOURCES, horizontal=True, key="sp_source")
    c1, c2, c3 = st.columns(3)
    if source == SOURCES[0]:
        n = c1.select_slider("n (rows)", [500, 2000, 5000, 20_000, 100_000], key="sp_n")
        d = c2.number_input("d (covariates)", 1, 20, key="sp_d")
        src = export.simulated(simulated_dataset, int(n), int(d), rng=ui.current_seed("sp-sim", n, d))
        ds = src.load()
        y_col, x_cols, loss, intercept, geometry, radius, rho = "y", list(ds.numeric_columns[:-1]), "robust", \
            False, "l2-ball", 1.0, 0.0
        st.caption(single_parameter.simulated_domain_caption(sentence(ds.provenance)))
    else:
        src = (export.loaded(breast_cancer_dataset) if source == SOURCES[1] else export.loaded(diabetes_dataset)
               if source == SOURCES[2] else None)
        ds = src.load() if src else ui.require_dataset()
        y_col, x_cols = ui.model_columns(ds, source, "sp", c1, c2)   # no widget default beside its state
        loss = c3.radio("Loss", ["logistic", "robust"], horizontal=True, key=f"sp_loss_{source}",
                        format_func={"logistic": "logistic (y = ±1)", "robust": "robust regression"}.get)
        intercept = c3.checkbox("Intercept", key="sp_intercept")
        geometry = c1.radio("Covariate domain after dividing each x by its public bound", ["hypercube", "l2-ball"],
                            key=ui.kept("sp_geometry"), format_func={"hypercube": "hypercube [−r, r]^d",
                                                            "l2-ball": "ℓ2 ball ‖x‖₂ ≤ r"}.get)
        radius = c2.number_input("covariate radius r (public)", min_value=1e-6, key="sp_radius", format="%g")
        rho = c3.number_input("ridge ρ ≥ 0", min_value=0.0, key="sp_rho", format="%g",
                              help="ℓ2 regularisation; ρ ≥ λ_c certifies by itself (at the price of bias).")
        st.caption(f"{sentence(ds.provenance)} {preparation_note(loss == 'robust')}")
    f1, f2, f3 = st.columns(3)
    with f1:
        eps = ui.epsilon_input(key="sp_eps", typed=True)
    delta = f2.number_input("δ", min_value=1e-12, max_value=0.5, key="sp_delta", format="%g")
    split_name = f3.radio("Budget split of (ε, δ) over (λ̂, Λ̂, Gaussian step, variance test)", list(SPLITS),
                          format_func=SPLITS.get, key="sp_split", help=single_parameter.SPLIT_HELP)
    share = f3.slider("share of (ε, δ) for the bounds (λ̂, Λ̂)", 0.1, 0.9, key="sp_share",
                      help=single_parameter.SHARE_HELP) if split_name == "custom" else 0.5
    split = budget_split(split_name, share)
    names = (["intercept"] if intercept and source != SOURCES[0] else []) + list(x_cols)
    coord = st.selectbox("Target coordinate v = e_j", range(len(names)), format_func=lambda j: names[j],
                         key=ui.kept(f"sp_coord_{source}_{len(names)}"))
    with ui.errors_shown():
        use_int = intercept and source != SOURCES[0]
        scale_y = loss == "robust" and source != SOURCES[0]
        X, y = prepare_xy(ds, y_col, x_cols, intercept=use_int, scale_response=scale_y)
        units = (coefficient_units(ds, y_col, x_cols, intercept=use_int, scale_response=scale_y, loss=loss)
                 if source != SOURCES[0] else None)
        cfg = FunctionalConfig(epsilon=eps, delta=delta, coordinate=int(coord), eps_split=split, delta_split=split,
                               loss=loss, radius=radius, geometry=geometry, rho=rho)
        check_functional_data((X, y), cfg, response=y_col)
        req = ui.request((ds.fingerprint(), "single_parameter/functional", y_col, tuple(x_cols), intercept, scale_y,
                          cfg),
                         privacy.release_label(f"⟨v, θ⟩ = {names[coord]} by propose-test-release", data=ds.name, response=y_col,
                                               columns=x_cols, epsilon=eps, details={"δ": delta}), ds, [y_col, *x_cols],
                         cost=calibrate_functional(cfg, X.shape).cost(1))
    st.caption(floor_sentence(cfg, len(y), X.shape[1]))        # public: n, d, the loss and the domain only
    ui.accuracy_preview({"Algorithm 5 (propose-test-release)": ("single_parameter/functional", cfg)}, key="sp",
                        n=len(y), d=X.shape[1])
    clicked, slot = ui.release_button("Release ⟨v, θ⟩", key="sp_go", requests=req)
    out = ui.run_release(req, lambda rng: functional.release((X, y), cfg, rng=rng), submitted=clicked)
    if out is not None:
        ui.show_outcome(out, button="Release ⟨v, θ⟩")
    if out is not None and out.ready:
        r = out.result
        ui.export_code(lambda: export.functional_script(
            src or export.from_dataset(ds, [y_col, *x_cols]), prepare_xy=prepare_xy, release=functional.release,
            y_column=y_col,
            x_columns=x_cols, intercept=use_int, scale_response=scale_y, config=cfg, stream=ui.stream(req)), "eigenvalues")
        if np.isfinite(r.value):
            st.success(f"**Released** ⟨v, θ⟩ = {r.value:.6g} (coordinate {literal(names[coord])}).")
            if units is not None:
                a, b, meaning = units[int(coord)]
                st.caption(f"In the columns' units: ⟨v, θ⟩ = {a + b * r.value:.6g} ({literal(meaning)}; a public "
                           "rescaling of the released value by the bounds).")
        else:
            st.warning(f"**⊥ — abstained.** {literal(' '.join(r.notes_of('withheld')))}")
            ui.certify_panel(cfg, len(y), X.shape[1])
        for t in r.notes_of("output") + r.notes_of("info") + r.notes_of("warning"):
            st.caption(literal(t))  # public rules and restated noised statistics only (clipping counts are diagnostics)
        st.caption("Guarantee: " + r.calibration.statement())
        ui.eigen_truth(r, len(y))

with tab_cov:
    st.caption(single_parameter.COVERAGE_CAPTION)
    k1, k2, k3 = st.columns(3)
    cd = k1.number_input("d", 1, 20, key="sp_cov_d")
    reps = k2.number_input("datasets per n", 1, 20, key="sp_cov_reps")
    ns = k3.multiselect("n", [500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000], key="sp_cov_ns")
    with ui.errors_shown(stop=False):
        study = ui.cache.eigen_bounds_study(tuple(ns), int(cd), float(eps), float(delta), int(reps),  # shared: public
                                          ui.current_seed("sp-cov", tuple(ns), cd, reps, eps, delta))
        ui.plot(*bounds_vs_n_figure(study, delta=delta), "certified_eigenvalue_bounds")
        ui.export_code(lambda: export.figure_script(
            "Certified eigenvalue bounds vs n (simulation)", single_parameter.eigen_bounds_vs_n, [int(v) for v in ns],
            int(cd), epsilon=float(eps), delta=float(delta), share=0.5, reps=int(reps), draws=200,
            rng=ui.current_seed("sp-cov", tuple(ns), cd, reps, eps, delta), show="print(result)"), "figure_eigen_bounds")
        st.caption(f"Empirical coverage: P(λ̂ ≤ λ_min) = {study['coverage_min'].min():.4f} and P(Λ̂ ≥ λ_max) = "
                   f"{study['coverage_max'].min():.4f} at worst (each guaranteed ≥ 1 − {delta / 2:g}).")

for tab, exp_id, key in ((tab_n, "single-parameter", "sp_run_n"), (tab_eps, "single-parameter-eps", "sp_run_eps")):
    with tab:
        st.caption("Simulation (synthetic data, not charged): a few replicates of the declared figure "
                   f"`{exp_id}`; the full version is `python -m dpcore reproduce {exp_id}` (and the Error vs n page).")
        frame = ui.simulation_button(exp_id, key=key, run=dict(
            reps=3, seed=ui.current_seed(exp_id), jobs=1, epsilon=None if exp_id.endswith("eps") else eps,
            xs=(1000, 5000, 20_000, 100_000) if exp_id == "single-parameter" else None))
        if frame is not None:
            st.caption(single_parameter.abstention_caption(frame.groupby("method")["abstained"].mean().to_dict()))

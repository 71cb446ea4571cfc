"""Private LASSO by private Frank–Wolfe (Talwar, Thakurta & Zhang 2015).

Thin page: widgets → a validated LassoConfig and a Design (public bounds → [−1, 1]) → the release rules →
ONE call to dpcore.lasso.release; the other tabs run the declared figures on synthetic data (not charged).
Shared pickers and panels: ui.models; the page's texts: dpcore.lasso.
"""
# nav: title="Private LASSO" icon=":material/linear_scale:" order=140 paper="https://proceedings.neurips.cc/paper_files/paper/2015/hash/52d080a3e172c33fd6886a37e7288491-Abstract.html" topic="Talwar, Thakurta & Zhang (2015): LASSO by Frank–Wolfe on the ℓ1 ball, each step choosing a vertex with the exponential mechanism — excess risk Õ(1/(nε)^(2/3)), only log p."
import pandas as pd
import streamlit as st

from dpcore import export, lasso, privacy
from dpcore.data import literal
from dpcore.lasso.plots import gaussian_width_figure, risk_vs_n_figure
import ui

SOURCES = ("Simulated sparse regression", "Diabetes (built-in)", "Dataset from the Data page")
ss = st.session_state
ui.persist(lasso_source=SOURCES[0], lasso_n=20_000, lasso_p=50, lasso_s=5, lasso_delta=1e-6, lasso_radius=1.0,
           lasso_T=100, lasso_sel="exponential", lasso_comp="zcdp", lasso_steps_rule="Theorem 2.5", lasso_c=0.05,
           lasso_intercept=None, lasso_view="Release")
VIEWS = ("Release", "Teaching view (not private)")
st.title("Private LASSO")
ui.share_link("lasso")
st.markdown(lasso.PAGE_INTRO)
tab_rel, tab_n, tab_p = st.tabs(["Release θ", "Excess risk vs n", "Excess risk vs p"])

with tab_rel:
    source = st.radio("Data", SOURCES, horizontal=True, key="lasso_source", on_change=lambda: ss.__setitem__(
        "lasso_intercept", ss["lasso_source"] != SOURCES[0]))  # real columns: an intercept by default
    c1, c2, c3 = st.columns(3)
    truth, sim = None, None
    with ui.errors_shown():
        if source == SOURCES[0]:
            n = c1.select_slider("n (rows)", [200, 1000, 5000, 20_000, 50_000], key="lasso_n")
            p = c2.number_input("p (covariates; p ≫ n allowed)", 1, lasso.MAX_P, key="lasso_p")
            s = c3.number_input("s (non-zeros of the true θ)", 0, 50, key="lasso_s")
            sim = (int(n), int(p), int(min(s, p)), ui.current_seed("lasso-sim", n, p, s))   # public: shared
            src = export.simulated(lasso.simulated_dataset, *sim[:3], rng=sim[3], target="ds, truth")
            ds, truth, design = ui.cache.lasso_simulation(*sim)
            y_col, x_cols = "y", list(ds.numeric_columns[:-1])
        else:
            src = export.loaded(lasso.diabetes_dataset) if source == SOURCES[1] else None
            ds = src.load() if src else ui.require_dataset()
            y_col, x_cols = ui.model_columns(ds, source, "lasso", c1, c2)
        st.caption(literal(ds.provenance))
        if sim is None:
            design = lasso.prepare_design(ds, y_col, x_cols)
    f1, f2, f3, f4 = st.columns([1.7, 1, 1, 1])  # ε has a slider and a typed box side by side: room for both labels
    with f1:
        eps = ui.epsilon_input(key="lasso_eps", typed=True)
    delta = f2.number_input("δ", min_value=1e-15, max_value=0.5, key="lasso_delta", format="%g")
    radius = f3.number_input("radius r of the ℓ1 ball", min_value=1e-3, max_value=1e3, key="lasso_radius", format="%g")
    steps = ui.lasso_steps(f4)
    if ss.get("lasso_intercept") is None:   # default: an intercept on real columns, none on the centred simulation
        ss["lasso_intercept"] = source != SOURCES[0]
    intercept = st.checkbox("Intercept (centre at private means: 10 % of ε)", key="lasso_intercept",
                            help=lasso.INTERCEPT_HELP)
    g1, g2 = st.columns(2)
    sel = g1.radio("Per-step mechanism", lasso.SELECTIONS, key="lasso_sel", horizontal=True,
                   format_func={"exponential": "exponential (Gumbel)", "laplace": "Laplace noisy-min"}.get)
    comp = g2.radio("Composition over the T steps", lasso.COMPOSITIONS, key="lasso_comp", horizontal=True,
                    format_func={"zcdp": "zCDP", "advanced": "advanced composition"}.get)
    user = privacy.data_kind(ds) == privacy.USER
    teaching = user and st.radio("View", VIEWS, horizontal=True, key="lasso_view", help=lasso.VIEW_HELP) == VIEWS[1]
    with ui.errors_shown():
        cfg = lasso.LassoConfig(epsilon=eps, delta=delta, radius=radius, selection=sel, composition=comp,
                                intercept=bool(intercept), **steps)
        cal = lasso.calibrate(cfg, design.X.shape)
        req = ui.request((ds.fingerprint(), "lasso/private-fw", y_col, tuple(x_cols), cfg, teaching),
                         privacy.release_label("Private LASSO θ" + " (teaching view)" * teaching, data=ds.name,
                                               response=y_col, columns=x_cols, epsilon=eps,
                                               details={"δ": delta, "T": cal.params["steps"]}),
                         ds, [y_col, *x_cols], cost=cal.cost(1), teaching=teaching)
    st.table(pd.DataFrame(lasso.accounting(cal), columns=["accounting (public)", "value"])
             .set_index("accounting (public)"))
    ui.lasso_outlook(cfg, *design.X.shape)
    ui.accuracy_preview({"Private Frank–Wolfe": ("lasso/private-fw-intercept" if cfg.intercept else "lasso/private-fw",
                                                 cfg)}, key="lasso", n=design.X.shape[0], d=design.X.shape[1])
    button = "Show the teaching view" if teaching else "Release θ"
    clicked, slot = ui.release_button(button, key="lasso_go", requests=req)
    out = ui.run_release(req, lambda rng: ui.cache.lasso_release(*sim, cfg, ui.cache.entropy(req),
                                                               ui.progress(slot, "Frank–Wolfe steps")) if sim else
                         lasso.release((design.X, design.y), cfg, rng=rng, diagnostics=not user or teaching,
                                       progress=ui.progress(slot, "Frank–Wolfe steps")), submitted=clicked)
    if out is not None:
        ui.show_outcome(out, button=button)
    if out is not None and out.ready:
        ui.export_code(lambda: export.lasso_script(
            src or export.from_dataset(ds, [y_col, *x_cols]), prepare_design=lasso.prepare_design,
            release=lasso.release, y_column=y_col, x_columns=x_cols, config=cfg, stream=ui.stream(req),
            diagnostics=privacy.data_kind(ds) != privacy.USER), "lasso")
        ui.lasso_outcome(out.result, cfg, design, names=(["intercept"] if cfg.intercept else []) + list(x_cols),
                         y_col=y_col, truth=truth, sim=sim, req=req, user=user, teaching=teaching)

for tab, exp_id, key in ((tab_n, "lasso", "lasso_run_n"), (tab_p, "lasso-p", "lasso_run_p")):
    with tab:
        if exp_id == "lasso-p":
            st.markdown(lasso.WIDTH_TEXT)
            ui.plot(*ui.cache.lasso_gaussian_width_figure(), "lasso_gaussian_width")
            ui.export_code(lambda: export.figure_script("Gaussian width of C vs p", gaussian_width_figure,
                                                        show="print(result[1])"), "figure_gaussian_width")
        st.caption(f"Simulation (synthetic sparse regression, not charged): a few replicates of the declared figure "
                   f"`{exp_id}`; the full version is `python -m dpcore reproduce {exp_id}`.")
        kw = dict(methods=("p=100",), xs=(1000, 10_000, 100_000)) if exp_id == "lasso" else dict(xs=(10, 100, 1000),
                                                                                                 n=20_000)
        if ui.simulation_button(exp_id, key=key, run=dict(**kw, reps=2, seed=ui.current_seed(exp_id), jobs=1,
                                                          epsilon=eps), progress_label="replicates",
                                figure=risk_vs_n_figure if exp_id == "lasso" else None) is not None:
            st.caption(lasso.RISK_VS_N_CAPTION)

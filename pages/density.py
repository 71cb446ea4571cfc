"""Private density estimation (Hall 2012 thesis; Hall, Rinaldo & Wasserman 2013).

Thin page: widgets → a validated dpcore.density.CompareConfig → the release rules → ONE call to
dpcore.density.compare_release; the other tabs are simulations on synthetic data (the declared
figures hall-kde / hall-knorm, the SVM sweep), never releases on the user's data. Plots: dpcore.density.plots.
"""
# nav: title="Private density estimation" icon=":material/area_chart:" order=151 paper="https://jmlr.org/papers/v14/hall13a.html" topic="Hall (2012), Hall, Rinaldo & Wasserman (2013): a private KDE by adding a Gaussian-process path (RKHS sensitivity), Fourier coefficients with Laplace or K-norm noise, and a private kernel SVM."
import streamlit as st

from dpcore import density, export, privacy
from dpcore.data import builtin_dataset, literal, sentence
from dpcore.density import plots
import ui

SOURCES = ("Simulated mixture", "Wine (built-in)", "Dataset from the Data page")
ui.persist(dn_svm_n=500, dn_svm_lam=0.01, dn_svm_h=0.15, dn_source=SOURCES[0], dn_n=2000, dn_d=1, dn_h=0.05, dn_grid=128, dn_delta=1e-6, dn_draws=1, dn_k=8,
           dn_knorm_k=2, dn_methods=list(density.METHODS), dn_methods_user=["fourier-laplace"], dn_eps_h=0.0)
st.title("Private density estimation")
ui.share_link("density")
st.markdown("A kernel density estimate (KDE) released three ways: **GP** — add a Gaussian-process path whose "
            "covariance is the kernel itself, calibrated to the KDE's RKHS sensitivity √2/(n(2πh²)^(d/2)) "
            "((ε, δ)-DP); **Fourier + Laplace** — Laplace noise on each Fourier coefficient (ε-DP); **K-norm** — "
            "noise shaped like the Carathéodory orbitope, the convex hull of the coefficients' moment curve (ε-DP, "
            "d = 1). Data are rescaled to [0, 1]^d by their public bounds. *The slides write the privacy "
            "parameters as (α, β); this page writes them (ε, δ).*")
tab_est, tab_mise, tab_svm = st.tabs(["Estimates", "MISE vs n", "Kernel SVM"])

with tab_est:
    source = st.radio("Data", SOURCES, horizontal=True, key="dn_source")
    c1, c2, c3, c4 = st.columns(4)
    truth, sim = None, None
    if source == SOURCES[0]:
        n = c1.select_slider("n (records)", [200, 500, 2000, 10_000, 100_000], key="dn_n")
        d = c2.radio("d", [1, 2], horizontal=True, key="dn_d")
        sim = (int(n), int(d), ui.current_seed("dn-sim", n, d))          # public: shared across sessions
        src = export.simulated(density.mixture_dataset, *sim[:2], rng=sim[2])
        ds = ui.cache.mixture_dataset(*sim)
        cols = list(ds.numeric_columns)
        st.caption(sentence(ds.provenance) + " Simulated data: not charged to the ledger.")
    else:
        src = export.loaded(builtin_dataset, "wine") if source == SOURCES[1] else None
        ds = src.load() if src else ui.require_dataset()
        cand = ui.bounded_columns(ds)
        key = ui.kept(f"dn_cols_{source}")
        cols = st.multiselect("Column(s): 1 or 2", ui.offered(key, cand, cand[:1]), max_selections=2, key=key)
        d = len(cols)
    h = c3.number_input("bandwidth h (public, on [0, 1])", key="dn_h", format="%g", step=0.01)
    grid = c4.number_input("grid points per axis", key="dn_grid", step=16)
    eps = ui.epsilon_input(key="dn_eps", typed=True)   # a row of its own: in a quarter column it read "ε (type d)"
    f2, f3, f4 = st.columns(3)
    delta = f2.number_input("δ (GP only)", min_value=1e-12, max_value=0.5, key="dn_delta", format="%g")
    draws = f3.number_input("draws per method", 1, 100, key="dn_draws", help="With several draws the band shows "
                            "10–90 % over them; each draw is a release (charged on your data).")
    k = f4.number_input("Fourier truncation k", 1, 200, key="dn_k")
    opts = list(density.METHODS) if d == 1 else ["gp", "fourier-laplace"]      # K-norm: d = 1 only
    mine = source != SOURCES[0]   # real data (charged): one method by default, so a click costs ε
    mkey = "dn_methods_user" if mine else "dn_methods"
    methods = st.multiselect("Methods", ui.offered(mkey, opts, ["fourier-laplace"] if mine else opts), key=mkey,
                             format_func=plots.method_label)
    st.caption("Each method and each draw is a release at the ε above (GP also uses δ): a click costs "
               "ε × methods × draws, shown on its button. On real data the page starts with one method and one draw.")
    b1, b2 = st.columns(2)
    knorm_k = b1.slider("K-norm truncation k (exact rejection sampler; slow above 3)", 1, 4, key="dn_knorm_k")
    eps_h = b2.number_input("ε for a private bandwidth (0 = use the public h above)", 0.0, 10.0, key="dn_eps_h",
                            format="%g", help="h from the rule of thumb on private quartiles; charged in addition.")
    with ui.errors_shown():
        cfg = density.CompareConfig(epsilon=eps, delta=delta, bandwidth=h, grid=int(grid), d=max(int(d), 1),
                                    k=int(k), knorm_k=int(knorm_k), draws=int(draws), methods=tuple(methods),
                                    bandwidth_epsilon=float(eps_h))
        x, clipped, bounds = density.unit_cube_columns(ds, cols)
        costs = density.comparison_costs(cfg, len(x))
        req = ui.request((ds.fingerprint(), "density/compare", tuple(cols), cfg),
                         privacy.release_label("Private density estimates", data=ds.name, columns=cols, epsilon=eps,
                                               draws=int(draws), details={"h": float(h), "methods": ", ".join(methods)}),
                         ds, cols, cost=costs)
    ui.accuracy_preview({plots.method_label(m): (density.DENSITY_NAMES[m], c) for m, c in cfg.configs().items()},
                        key="dn", n=len(x), bounds=tuple(map(tuple, bounds)))
    clicked, slot = ui.release_button("Release estimates", key="dn_go", requests=req)
    out = ui.run_release(req, lambda rng: ui.cache.density_release(*sim, cfg, ui.cache.entropy(req),
                                                                 ui.progress(slot, "methods")) if sim else
                         density.compare_release(x, cfg, rng=rng, progress=ui.progress(slot, "methods")),
                         submitted=clicked)
    if out is not None:
        ui.show_outcome(out, button="Release estimates")
    if out is not None and out.ready:
        comp = out.result
        ui.export_code(lambda: export.density_script(
            src or export.from_dataset(ds, cols), unit_cube_columns=density.unit_cube_columns,
            compare_release=density.compare_release, columns=cols, config=cfg, stream=ui.stream(req)), "density")
        lab = [f"{c} (public bounds [{lo:g}, {hi:g}])" for c, (lo, hi) in zip(cols, bounds)]   # the column's units
        public = privacy.data_kind(ds) != "user"
        ref = {}
        if source == SOURCES[0] and cfg.d == 1:
            ref["truth"] = density.mixture(1).pdf(comp.grid[:, None])
        if public:      # demo data: the non-private KDE is shown beside the release (teaching view)
            ref["nonprivate"] = ui.cache.density_reference(*sim, cfg, comp.h) if sim else \
                density.nonprivate_reference(x, cfg, comp.h)
        ui.plot(*plots.comparison_figure(comp, reference=ref, axis_labels=lab, bounds=bounds),
                "density_estimates" if cfg.d == 1 else "density_estimates_2d")
        st.caption(plots.units_caption(comp.h if comp.h is not None else float(h), cols, bounds))
        if comp.bandwidth is not None:
            st.caption(f"**Private bandwidth** h = {comp.h:.4g} — " + comp.bandwidth.calibration.statement())
        for m, r in comp.releases.items():
            st.caption(f"**{plots.method_label(m)}** — " + literal(r.calibration.statement() + " " + " ".join(r.notes_of("info"))))
            for t in r.notes_of("approximate"):
                st.warning(literal(t))
        if not public:
            with ui.nonprivate("The non-private KDE and clipping (computed from the data)"):
                reference = {"nonprivate": density.nonprivate_reference(x, cfg, comp.h)}
                ui.plot(*plots.comparison_figure(comp, reference=reference, axis_labels=lab, bounds=bounds),
                        "density_nonprivate")
                st.caption(f"{clipped} record(s) were outside the public bounds and were clipped.")

with tab_mise:
    st.caption("Simulation on the synthetic mixture (not a release, nothing is charged): the declared figure "
               "`hall-kde` with a few replicates at the ε and δ above; the full version is "
               "`python -m dpcore reproduce hall-kde` (add `--mode exact --d 6` for closed forms in d = 6).")
    ui.simulation_button("hall-kde", key="dn_run_mise", progress_label="MISE sweep", name="hall_kde", run=dict(
        xs=(200, 1000, 5000, 20_000), reps=3, seed=ui.current_seed("hall-kde"), jobs=1, epsilon=eps, delta=delta))
    ex = ui.cache.density_exponents(float(eps), float(delta))      # shared: public parameters only
    ui.plot(*plots.exponents_figure(ex), "hall_kde_exponents")
    st.caption("Exponents from the closed-form MISE (n = 10⁴ … 10⁶): the non-private term (Marron–Wand) plus "
               "the exact expected noise terms. Theory lines ignore log factors, which are large for Laplace.")

with tab_svm:
    st.caption("Simulation on synthetic two-class data (not charged): a kernel SVM without intercept (hinge loss, "
               "Gaussian kernel) released with GP noise of RKHS sensitivity 1/(λn) + 2√(g/λ) (g: the solver's "
               "public duality-gap bound).")
    s1, s2, s3 = st.columns(3)
    sn = s1.select_slider("n (training)", [200, 500, 1000, 2000], key="dn_svm_n")
    lam = s2.number_input("λ (public)", min_value=1e-5, max_value=10.0, format="%g", key="dn_svm_lam")
    sh = s3.number_input("kernel width h", min_value=0.01, max_value=1.0, format="%g", key="dn_svm_h")
    with ui.errors_shown(stop=False):
        demo = ui.cache.svm_demo(int(sn), float(lam), float(sh), float(eps), float(delta),   # shared: public inputs
                               ui.current_seed("svm", sn))
        ui.plot(*plots.svm_figure(demo["grid"], demo["fields"], demo["X"], demo["y"]), "svm_boundary")
        st.caption(demo["statement"])
        ui.export_code(lambda: export.figure_script(
            "Private kernel SVM (simulation)", density.svm_demo, int(sn), lam=float(lam), bandwidth=float(sh),
            epsilon=float(eps), delta=float(delta), rng=ui.current_seed("svm", sn),
            show='print(result["statement"]); print(result["fields"])'), "figure_svm")
        if st.button("Accuracy vs ε", key="dn_svm_acc"):
            acc = density.accuracy_vs_epsilon(int(sn), lam=lam, bandwidth=sh, delta=delta, reps=3,
                                              rng=ui.current_seed("svm-acc", sn))
            ui.plot(*plots.accuracy_figure(acc), "svm_accuracy")

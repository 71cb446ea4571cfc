"""KNG explorer: private estimates by KNG, the exponential mechanism and objective perturbation.

Thin page: widgets → dpcore.kng.problem_data / dpcore.kng.sample (one call per mechanism, each a
release recorded in the session's ledger through ui.release) → dpcore.viz_kng figures and tables.
Reference: Reimherr & Awan (2019), "KNG: The K-Norm Gradient Mechanism"; spec/kng.md.
"""
import hashlib

import streamlit as st

from dpcore import kng
from dpcore.viz import kng as viz
from pages import _components as ui

ss = st.session_state
PROBLEMS = {"mean": "Mean", "median": "Median (geometric median for ≥ 2 columns)", "quantile": "Quantile",
            "linear_regression": "Linear regression", "quantile_regression": "Quantile regression"}
MECHS = ("kng", "exponential", "objective_perturbation")
NORMS = {"linf": "ℓ∞", "l2": "ℓ2", "l1": "ℓ1"}
REG = ("linear_regression", "quantile_regression")


def _tag(*names) -> str:
    """Short stable tag of column names: widget keys that reset when the dataset's columns change."""
    return hashlib.sha256(repr(names).encode("utf-8", "surrogatepass")).hexdigest()[:10]


st.title("KNG explorer")
st.markdown("The **K-norm gradient mechanism** samples θ with density ∝ exp(−ε‖∇ℓ(θ; D)‖_K / (2Δ)): "
            "it favours points where the gradient of the loss is small, i.e. near the non-private estimate. "
            "Compare it with the exponential mechanism (density ∝ exp(−εℓ/(2Δ_ℓ))) and, for linear regression, "
            "objective perturbation. Each draw is one release costing ε.")

c1, c2 = st.columns(2)
problem = c1.selectbox("Problem", list(PROBLEMS), format_func=PROBLEMS.get, key="kng_problem")
source = c2.radio("Data", ["Built-in simulation", "Dataset from the Data page"], horizontal=True, key="kng_source")
simulated = source == "Built-in simulation"
if simulated:
    s1, s2 = st.columns(2)
    n_sim = s1.select_slider("n (rows)", [10, 100, 1000, 10_000, 100_000], value=1000, key="kng_sim_n")
    d_sim = s2.number_input("Coefficients d (with intercept)" if problem in REG else "Columns", 1 if problem not in REG
                            else 2, 12, 2 if problem in REG else 1, key=f"kng_sim_d_{problem in REG}")
    sim_seed = ui.current_seed("kng-sim", problem in REG, n_sim, d_sim)
    ds = kng.simulated_dataset(problem, n_sim, d_sim, rng=sim_seed)
    st.caption(ds.provenance + " Synthetic data: these draws are not charged to the privacy ledger; "
               "on your own data (Data page) every draw costs ε and is recorded.")
else:
    ds = ui.require_dataset()
bounded = [c for c in ds.numeric_columns if c in ds.bounds]
if not bounded:
    st.info("Declare public bounds for numeric columns on the **Data** page first.")
    st.stop()
intercept, y_col = True, None
if problem in REG:
    r1, r2, r3 = st.columns([2, 3, 1])
    y_col = r1.selectbox("Response y", bounded, index=len(bounded) - 1, key="kng_y")
    options = [c for c in bounded if c != y_col]
    xs = r2.multiselect("Predictors x", options, default=options, key=f"kng_x_{_tag(y_col, *options)}")
    intercept = r3.checkbox("Intercept", True, key="kng_intercept")
elif problem == "quantile":
    xs = [st.selectbox("Column", bounded, key="kng_col")]
else:
    xs = st.multiselect("Columns (one per coordinate of θ)", bounded, default=bounded[:1],
                        key=f"kng_cols_{_tag(*bounded)}")
try:
    pdata = kng.problem_data(ds.frame, ds.bounds, problem, xs, y_column=y_col, intercept=intercept)
except ValueError as exc:
    ui.show_error(exc)
    st.stop()
d = len(pdata.names)
if pdata.note:
    st.caption(pdata.note)

with st.form("kng_form"):
    f1, f2, f3 = st.columns(3)
    with f1:
        mechs = st.multiselect("Mechanisms", MECHS, default=["kng", "exponential"], format_func=viz.label,
                               key="kng_mechs")
        norm = st.radio("Norm ‖·‖_K of KNG", list(NORMS), format_func=NORMS.get, horizontal=True, key="kng_norm")
        eps = ui.epsilon_input(key="kng_eps")
    with f2:
        params = dict(pdata.params)
        if problem in ("quantile", "quantile_regression"):
            params["tau"] = st.number_input("τ (quantile level)", value=0.5, step=0.05, format="%g", key="kng_tau")
        if problem in REG:
            params["B"] = st.number_input("B (‖θ‖₁ ≤ B, scaled units)", value=1.0, step=0.5, format="%g",
                                          key="kng_B")
        if d == 1 and problem != "mean" or problem == "quantile":
            lo0, hi0 = params["bounds"]
            b1, b2 = st.columns(2)
            params["bounds"] = (b1.number_input("lower bound", value=float(lo0), format="%g", key="kng_lo"),
                                b2.number_input("upper bound", value=float(hi0), format="%g", key="kng_hi"))
        constants = st.radio("Constants", ["calibrated", "paper"], horizontal=True, key="kng_constants",
                             help="calibrated: the exact sensitivities (spec §3); paper: the paper's printed "
                                  "constants (refused where they are not private).")
    with f3:
        draws = st.number_input("Draws per mechanism", 1, 2000, 100, key="kng_draws",
                                help="Each draw costs ε; the release of all draws costs draws·ε.")
        sweeps = st.select_slider("MCMC sweeps", [200, 500, 1000, 2000, 5000, 10_000], value=1000, key="kng_sweeps",
                                  help="Per chain (one chain per draw); used by the MCMC-sampled mechanisms only.")
    submitted = st.form_submit_button("Release private estimates", type="primary")
    st.caption("Many draws show each mechanism's distribution; a real release would publish one draw (cost ε). "
               "The seed is set in the sidebar.")
if problem in ("quantile", *REG):  # the other problems have no printed constants
    params["constants"] = constants
if not (submitted or simulated or ss.get("kng_ran")):
    st.info("Set the parameters and press **Release private estimates** (each release is recorded in the ledger).")
    st.stop()
ss["kng_ran"] = True

seed = ui.current_seed("kng", problem, pdata.names, norm, eps, draws, sweeps)
scope = (ds.fingerprint(), problem, pdata.names, norm, eps, tuple(sorted((k, repr(v)) for k, v in params.items())),
         int(draws), int(sweeps), seed)
try:
    theta_hat = kng.nonprivate_estimate(pdata.data, kng.make(problem, mechanism="kng", epsilon=eps, norm=norm, **params))
except ValueError as exc:
    ui.show_error(exc)
    st.stop()
results = {}
bar = st.progress(0.0, text="Sampling…")
for i, m in enumerate(mechs):
    key = (*scope, m)
    def progress(done, total, i=i):  # noqa: E306
        bar.progress((i + done / total) / len(mechs), text=f"{viz.label(m)}: sweep {done} of {total}")
    try:
        results[m] = ui.release(key, f"{viz.label(m)} {problem} ({d}-D), ε={eps:g} × {draws}",
                                compute=lambda key=key, m=m: kng.sample(problem, pdata.data, mechanism=m, epsilon=eps,
                                                                        norm=norm, size=int(draws), rng=ui.rng_for(key),
                                                                        progress=progress, **params,
                                                                        **({} if m == "objective_perturbation"
                                                                           else {"n_sweeps": int(sweeps)})),
                                cost_of=lambda r: r.cost, synthetic=simulated)
    except ValueError as exc:
        st.error(f"{viz.label(m)}: {exc}", icon=":material/warning:")
    else:
        for text in results[m].notes_of("withheld"):
            st.warning(f"{viz.label(m)}: {text}")
bar.empty()

st.subheader("Non-private estimate θ̂ (not private — shown for comparison only)")
st.dataframe({nm: [float(v)] for nm, v in zip(pdata.names, theta_hat)}, hide_index=True)
clipped = max((r.diagnostics.values["clipped records"] for r in results.values()), default=0)
if clipped:
    st.caption(f"Non-private diagnostic: {clipped} record(s) were clipped to the public bounds.")
shown = results
if not any(r.released for r in shown.values()):
    st.stop()

st.subheader("Private draws and the densities they come from")
st.caption("Densities are computed from the data to show what each mechanism samples from: a teaching view, "
           "not part of any release.")
lo, hi = viz.plot_window(shown, theta_hat)
dens_args = dict(epsilon=eps, norm=norm, params=params)
if d == 1:
    dens = {m: viz.density_1d(problem, pdata.data, m, lo=lo[0], hi=hi[0], **dens_args)
            for m, r in shown.items() if r.released}
    ui.plot(*viz.figure_1d(shown, theta_hat, pdata.names[0], dens), "kng_draws")
else:
    v1, v2, v3 = st.columns(3)
    i = v1.selectbox("x axis", range(d), format_func=lambda k: pdata.names[k], key="kng_ci")
    j = v2.selectbox("y axis", [k for k in range(d) if k != i], format_func=lambda k: pdata.names[k], key="kng_cj")
    cm = v3.selectbox("Density of", [m for m in shown if shown[m].released], format_func=viz.label, key="kng_cm")
    contour = viz.density_2d(problem, pdata.data, cm, centre=theta_hat, coords=(i, j), lo=lo, hi=hi, **dens_args)
    ui.plot(*viz.figure_2d(shown, theta_hat, pdata.names, (i, j), contour, cm), "kng_draws_2d")
    st.caption("Contour: the density over the two chosen coordinates with the others held at θ̂, "
               "normalised on the grid.")
    if d >= 3:
        ui.plot(*viz.pairs_figure(shown, pdata.names), "kng_pairs")

st.subheader("Comparison")
table = viz.comparison_frame(shown, theta_hat)
st.dataframe(table, hide_index=True, width="stretch")
ui.download_csv(table, "kng_comparison.csv", key="kng_comparison_csv")
diag = viz.diagnostics_frame(shown)
if len(diag):
    st.markdown("**MCMC diagnostics** (computed from the data: non-private, never part of a release)")
    st.dataframe(diag, hide_index=True, width="stretch")
    st.caption("Each draw is the last state of its own chain, started at the centre of Θ. A draw is withheld "
               "when max R-hat > 1.05 or min ESS < 100. " + kng.MCMC_NOTE + ".")
with st.expander("Privacy statement", expanded=False):
    for m, r in shown.items():
        st.markdown(f"**{viz.label(m)}** — {r.cost.describe()}")
        st.caption(r.calibration.statement())

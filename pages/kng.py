"""KNG explorer (Reimherr & Awan 2019): widgets → kng configs → release rules (ui → dpcore.privacy) → the
registered mechanism's calibrate and release, per mechanism → dpcore.kng.plots. User data: a non-private
teaching view, or a release (value only)."""
# nav: title="KNG explorer" icon=":material/insights:" order=100 paper="https://arxiv.org/abs/1905.09436" topic="The K-norm gradient mechanism (KNG) vs the exponential mechanism vs objective perturbation: private means, medians, quantiles, linear and quantile regression."
import numpy as np
import pandas as pd
import streamlit as st

from dpcore import data as dpdata
from dpcore import export as X
from dpcore import kng, registry
from dpcore import privacy
from dpcore.kng import plots
import ui

ss = st.session_state
PROBLEMS = {"mean": "Mean", "median": "Median (geometric median for ≥ 2 columns)", "quantile": "Quantile",
            "linear_regression": "Linear regression", "quantile_regression": "Quantile regression"}
NORMS = {"linf": "ℓ∞", "l2": "ℓ2", "l1": "ℓ1"}
REG = ("linear_regression", "quantile_regression")
SIM, MINE, TEACH, RELEASE = "Built-in simulation", "Dataset from the Data page", "Teaching view (not private)", "Release"
ui.persist(kng_problem="mean", kng_source=SIM, kng_sim_n=1000, kng_sim_d=1, kng_y=None, kng_x=None, kng_col=None,
           kng_cols=None, kng_intercept=True, kng_view=TEACH, kng_mechs_t=["kng", "exponential"], kng_mechs_r=["kng"],
           kng_norm="linf",
           kng_eps=1.0, kng_eps_typed=1.0, kng_tau=0.5, kng_B=1.0, kng_constants="calibrated", kng_draws_t=100,
           kng_draws_tq=plots.QR_TEACH_DRAWS, kng_draws_r=1, kng_sweeps=1000)

st.title("KNG explorer")
ui.share_link("kng")
st.markdown(plots.PAGE_INTRO)
c1, c2 = st.columns(2)
problem = c1.selectbox("Problem", list(PROBLEMS), format_func=PROBLEMS.get, key="kng_problem")
source = c2.radio("Data", [SIM, MINE], horizontal=True, key="kng_source")
if source == SIM:
    s1, s2 = st.columns(2)
    n_sim = s1.select_slider("n (rows)", [10, 100, 1000, 10_000, 100_000], key="kng_sim_n")
    lo_d, hi_d = 2 if problem in REG else 1, kng.max_simulated_d(problem)    # the simulator's own limits
    ss["kng_sim_d"] = min(max(int(ss["kng_sim_d"]), lo_d), hi_d)
    d_sim = s2.number_input("Coefficients d (with intercept)" if problem in REG else "Columns", lo_d, hi_d,
                            key="kng_sim_d")
    with ui.errors_shown():
        src = X.simulated(kng.simulated_dataset, problem, n_sim, d_sim, rng=ui.current_seed())
        ds, kind = src.load(), privacy.SIMULATED
else:
    kind = privacy.data_kind(ds := ui.require_dataset())
y_col, xs, intercept = ui.regression_columns("kng", ui.bounded_columns(ds), problem, REG)
used = xs + ([y_col] if y_col else [])
with ui.errors_shown():  # n = number of rows, always: a missing cell takes its column's public imputation value
    cols = dpdata.public_columns(ds, used)
    pdata = kng.problem_data(pd.DataFrame(np.asarray(cols.values), columns=used), ds.bounds, problem, xs,
                             y_column=y_col, intercept=intercept)
d, demo = len(pdata.names), kind != privacy.USER
teaching = st.radio("View", [TEACH, RELEASE], horizontal=True, key="kng_view", help=(
    "Teaching view: densities, many draws, θ̂ and diagnostics computed from the data — NOT private. Release: "
    "one private draw by default; only the released value and the public calibration are shown. On built-in "
    "and simulated data both are free.")) == TEACH
f1, f2, f3 = st.columns(3)
with f1:
    kept_m = ui.per_view("kng_mechs", "kng_mechs_t" if teaching else "kng_mechs_r")  # release view: one mechanism
    mechs = st.multiselect("Mechanisms", ui.offered("kng_mechs", kng.MECHANISMS, ["kng"]), format_func=plots.label,
                           key="kng_mechs", on_change=kept_m,
                           help="Each selected mechanism releases its own draws, each at the ε below.")
    norm = st.radio("Norm ‖·‖_K", list(NORMS), format_func=NORMS.get, horizontal=True, key="kng_norm") if d > 1 else "linf"
    eps = ui.epsilon_input(key="kng_eps", typed=True)
with f2:
    params = dict(pdata.params)
    if problem in ("quantile", "quantile_regression"):
        params["tau"] = st.number_input("τ (quantile level)", step=0.05, format="%g", key="kng_tau")
    if problem in REG:
        params["B"] = st.number_input("B: bound on ‖θ‖₁ in scaled units", step=0.5, format="%g", key="kng_B")
        st.caption(plots.scaled_units_note(params["y_bound"], ds.bounds, xs, y_col))
    if problem in ("quantile", *REG):
        params["constants"] = st.radio("Constants", ["calibrated", "paper"], horizontal=True, key="kng_constants",
                                       help="The exact sensitivities, or the paper's printed ones (where private).")
with f3:
    kept = ui.per_view("kng_draws", ("kng_draws_tq" if problem == "quantile_regression" else "kng_draws_t")
                       if teaching else "kng_draws_r")
    draws = st.number_input("Draws per mechanism", 1, 2000, key="kng_draws", on_change=kept)
    sweeps = st.select_slider("MCMC sweeps per chain", [200, 500, 1000, 2000, 5000, 10_000], key="kng_sweeps")
cfgs, reqs = {}, {}


def spec(mechanism: str):
    """The registered mechanism (its calibrate and release) of ``mechanism`` for the chosen problem."""
    return registry.mechanism(f"kng/{problem}-{mechanism}")


details = {"τ": params.get("tau"), "B": params.get("B"), "norm": NORMS[norm] if d > 1 else None}
for m in mechs:
    try:
        cfgs[m] = kng.make(problem, mechanism=m, epsilon=eps, norm=norm, size=int(draws), **params,
                           **({} if m == "objective_perturbation" else {"n_sweeps": int(sweeps)}))
        calibration = spec(m).calibrate(cfgs[m], spec(m).data_shape(pdata.data))  # public: known before the click
        label = privacy.release_label(f"{plots.label(m)}, {problem.replace('_', ' ')}" + " (teaching view)" * teaching,
                                      data=ds.name or source, columns=xs, response=y_col or None, epsilon=eps, draws=int(draws),
                                      details=details)
        reqs[m] = ui.request((ds.fingerprint(), problem, pdata.names, cfgs[m]), label, ds, used, teaching=teaching,
                             kind=kind, cost=calibration.cost(cfgs[m].size))
    except ValueError as exc:
        ui.show_error(ValueError(f"{plots.label(m)}: {exc}"))
with ui.errors_shown():  # the mechanisms of one click together stay within one release's work cap (public)
    kng.check_interaction(pdata.data, [cfgs[m] for m in reqs])
if not mechs:
    st.info("Choose at least one mechanism.")
if not reqs:
    st.stop()
if problem in ("median", "quantile") and d == 1:      # the mechanism's floor at any ε: a rule, not the data's gap
    st.caption(kng.MEDIAN_FLOOR_NOTE)
ui.accuracy_preview({plots.label(m): (f"kng/{problem}-{m}", cfgs[m]) for m in reqs}, key="kng", n=ds.n_rows, d=d,
                    intercept=intercept, requests=list(reqs.values()), designs=problem in REG,
                    **({"box": tuple(ds.bounds[c] for c in xs), "y_box": ds.bounds[y_col]} if problem in REG else {}))
button = "Show the teaching view" if teaching and not demo else "Release"
clicked, slot = ui.release_button(button, key="kng_go", requests=list(reqs.values()))
results = {}
for m, req in reqs.items():
    out = ui.run_release(req, lambda rng, c=cfgs[m], m=m: spec(m).release(
        pdata.data, c, rng=rng, progress=ui.progress(slot, f"{plots.label(m)}: sweeps")), submitted=clicked)
    if out is not None and out.ready:
        results[m] = out.result
        for text in out.result.notes_of("withheld"):
            st.warning(f"{plots.label(m)}: {dpdata.literal(text)}", icon=":material/block:")
if out is not None:
    ui.show_outcome(out, button=button)
if not results:
    st.stop()
ui.export_code(lambda: X.kng_script(
    src if source == SIM else X.from_dataset(ds, used), problem_data=kng.problem_data,
    release={m: spec(m).release for m in results},
    problem=problem, columns=used, xs=xs, y_column=y_col, intercept=intercept,
    configs={m: cfgs[m] for m in results}, streams={m: ui.stream(reqs[m]) for m in results},
    labels={m: plots.label(m) for m in results}), "kng")
if not teaching:  # the release: released values and the public calibration, nothing else from the data
    ui.kng_released(results, pdata.names)
    st.stop()
ui.kng_teaching(problem, pdata, results, cfgs, demo=demo, epsilon=eps, norm=norm, params=params, parts=cols.parts)

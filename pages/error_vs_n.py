"""Error vs n: Monte-Carlo sweeps of estimation error against sample size (KNG paper, Figs 1–2).

Thin page over dpcore.experiments: widgets → run_experiment (in-process, progress bar between
tasks) → dpcore.viz_experiments figure, tables and CSV. The runs use synthetic data only: they
never touch the session's dataset and are not releases (no ledger entry).
"""
import math

import streamlit as st

from dpcore.experiments import REGISTRY, fit_slopes, run_experiment, summarize
from dpcore.viz.experiments import error_vs_n_figure
from pages import _components as ui

RESULTS_KEY = "evn_results"          # session_state: experiment id -> (settings key, frame)
DEFAULT_ID = "kng-median"

st.title("Error vs n")
st.markdown(
    "How fast does each mechanism's error shrink as the sample grows? Each run simulates data at "
    "several sample sizes n, fits every method on the same data, and plots log10 of the mean error "
    "against log10 n. A slope of −1/2 is the usual statistical rate; a private method whose curve "
    "merges with the non-private one adds noise that is negligible for large n."
)
st.info("These are **simulations on synthetic data**: they never use your uploaded data and are "
        "not releases, so nothing is added to the privacy ledger.", icon=":material/science:")

ids = list(REGISTRY)
exp_id = st.selectbox("Experiment", ids, index=ids.index(DEFAULT_ID) if DEFAULT_ID in ids else 0,
                      format_func=lambda i: REGISTRY[i].title, key="evn_experiment")
exp = REGISTRY[exp_id]
st.caption(exp.description)
limits, quick = exp.app_limits, exp.quick

with st.form(f"evn_form_{exp_id}"):
    eps = ui.epsilon_input(key=f"evn_eps_{exp_id}", default=exp.default_epsilon)
    max_n = min(exp.axis.hi, int(limits.get("max_x", 10**6)))
    decades = [10**k for k in range(1, 9) if exp.axis.lo <= 10**k <= max_n]
    qns = [n for n in quick.get("x", exp.axis.values) if n in decades] or decades[:3]
    lo, hi = st.select_slider("Range of n (powers of 10)", options=decades, value=(qns[0], qns[-1]),
                              format_func=lambda v: f"{v:,}", key=f"evn_ns_{exp_id}")
    max_reps = int(limits.get("max_reps", 50))
    reps = st.slider("Replicates per n", 2, max_reps, min(int(quick.get("reps", 10)), max_reps),
                     key=f"evn_reps_{exp_id}", help=f"Capped at {max_reps} to keep the run interactive; the "
                     f"paper uses {exp.default_reps} (run `python -m dpcore reproduce {exp.id}`).")
    options = {}
    if "sweeps" in exp.options:
        cap = int(limits.get("max_sweeps", exp.options["sweeps"]))
        options["sweeps"] = st.slider("MCMC sweeps", 50, cap, min(int(quick.get("sweeps", cap)), cap), step=50,
                                      key=f"evn_sweeps_{exp_id}",
                                      help=f"One sweep updates every coordinate once; the paper uses "
                                           f"{exp.options['sweeps']:,}.")
    if "constants" in exp.options:
        options["constants"] = st.radio(
            "Constants", ("paper", "calibrated"), horizontal=True, key=f"evn_constants_{exp_id}",
            help="'paper': the constants printed in the paper (reproduces its figure); 'calibrated': the "
                 "exact sensitivities of the spec (less noise where the paper is loose).")
    submitted = st.form_submit_button("Run simulation", type="primary")

ns = tuple(n for n in decades if lo <= n <= hi)
# Grouping only (never changes results): about four blocks of replicates, so that the progress bar moves.
grouping = {"block": max(1, -(-reps // 4))} if "block" in exp.options else {}
seed = ui.current_seed("error-vs-n", exp_id, eps, ns, reps, tuple(sorted(options.items())))
settings = (exp_id, eps, ns, reps, tuple(sorted(options.items())), seed)
results = st.session_state.setdefault(RESULTS_KEY, {})
stored = results.get(exp_id)

if submitted or stored is None:
    bar = st.progress(0.0, text="Starting…")

    def progress(done: int, total: int) -> bool:
        bar.progress(done / total if total else 1.0, text=f"{done} of {total} blocks done")
        return True

    try:
        frame = run_experiment(exp_id, ns=ns, reps=reps, epsilon=eps, seed=seed, jobs=1,
                               progress=progress, **options, **grouping)
    except ValueError as exc:
        bar.empty()
        ui.show_error(exc)
        st.stop()
    bar.empty()
    stored = results[exp_id] = (settings, frame)

settings_shown, frame = stored
if settings_shown != settings:
    st.caption("The settings changed: press **Run simulation** to update the results below.")

ui.plot(error_vs_n_figure(frame), frame, f"{exp_id}_error_vs_n")   # figure + CSV of every replicate
st.caption(exp.caption + f" Error bars: ±1.96 Monte-Carlo standard errors over {frame.attrs['reps']} "
           f"replicates; slopes fitted over the top three decades of n. Run time "
           f"{frame.attrs['elapsed_s']:.1f} s, seed {frame.attrs['seed']}.")
if exp.paper_protocol_note:
    st.warning(exp.paper_protocol_note, icon=":material/warning:")

left, right = st.columns(2)
with left:
    st.markdown("**Fitted slopes** of log10(mean error) on log10 n")
    slopes = fit_slopes(frame)
    slopes["method"] = slopes["method"].map(lambda m: exp.label(m))
    st.dataframe(slopes[["method", "slope", "se_slope", "n_min", "n_max"]], hide_index=True,
                 width="stretch")
with right:
    st.markdown("**log10(mean error)** by n (± Monte-Carlo s.e.)")
    summ = summarize(frame)
    table = summ.assign(value=[f"{m:+.3f} ± {s:.3f}" if math.isfinite(s) else f"{m:+.3f}"
                               for m, s in zip(summ["log10_mean_error"], summ["se_log10_mean_error"])])
    st.dataframe(table.pivot(index="n", columns="method", values="value"), width="stretch")
if "sweeps" in exp.options:
    with st.expander("Privacy of MCMC-sampled methods"):
        st.markdown("KNG and the exponential mechanism are ε-DP for their exact target densities; here they are "
                    "sampled by MCMC, so each draw is only approximately private. The `rhat`, `ess` and `mixed` "
                    "columns of the CSV are MCMC diagnostics computed from the (simulated) data: non-private.")

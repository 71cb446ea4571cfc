"""Error vs n: Monte-Carlo sweeps of estimation error against a figure's axis (n, ε, …).

Thin page over dpcore.experiments, generic over the registered figures and their axes: widgets
(from each figure's axis and declared options) → run_experiment (in-process, progress bar between
tasks) → dpcore.viz.experiments figure, a caption computed from the frame, tables and CSV. The
runs use synthetic data only: they never touch the session's dataset and are not releases.
"""
# nav: title="Error vs n" icon=":material/show_chart:" order=200
import math

import streamlit as st

from dpcore import export
from dpcore.experiments import describe, fit_slopes, format_number, registry, summarize
from dpcore.experiments.analysis import symbol
from dpcore.limits import BUDGET_SECONDS
from dpcore.viz.experiments import error_vs_x_figure
import ui

RESULTS_KEY = "evn_results"          # session_state: experiment id -> (settings key, frame)
DEFAULT_ID = "kng-median"
REGISTRY = registry()

st.title("Error vs n")
st.markdown(
    "How fast does each mechanism's error shrink as the sample grows (or as ε, the dimension, … "
    "changes)? Each run simulates data at several values of the figure's axis, fits every method on "
    "the same data, and plots the mean error on log–log axes. A slope of −1/2 in n is the usual "
    "statistical rate; a private method whose curve merges with the non-private one adds noise that "
    "is negligible for large n."
)
st.info("These are **simulations on synthetic data**: they never use your uploaded data and are "
        "not releases, so nothing is added to the privacy ledger.", icon=":material/science:")

ids = list(REGISTRY)
ui.persist(evn_experiment=DEFAULT_ID if DEFAULT_ID in ids else ids[0])
ui.share_link("error_vs_n")     # (before the form: a link's values are the widgets' session state when it draws)
exp_id = st.selectbox("Experiment", ids, format_func=lambda i: REGISTRY[i].title, key="evn_experiment")
exp = REGISTRY[exp_id]
axis, limits, quick = exp.axis, exp.app_limits, exp.quick
grid = axis.grid(limits.get("max_x"))
qx = [x for x in exp.quick_xs if x in grid] or list(grid[:3])
max_reps = int(limits.get("max_reps", 50))
st.caption(exp.description)


def option_default(name, default):
    """The widget's starting value: the quick run's, under the figure's cap; None: the widget's own first choice."""
    value, cap = quick.get(name, default), limits.get(f"max_{name}")
    if isinstance(default, bool) or name in exp.option_choices or not isinstance(default, (int, float)):
        return value if isinstance(default, bool) else None
    return min(value, cap or value) if isinstance(default, int) else float(value)


# The defaults live in the session state (never value=), so that a link's values, set before, are what the form draws.
ui.persist(**{f"evn_x_{exp_id}": (qx[0], qx[-1]), f"evn_reps_{exp_id}": min(int(quick.get("reps", 10)), max_reps),
              f"evn_methods_{exp_id}": list(exp.methods),
              **{f"evn_{k}_{exp_id}": option_default(k, exp.options[k]) for k in exp.app_options}})


def option_widget(name, default):
    """One widget per declared option, typed from its default (caps from the figure's app_limits)."""
    cap, key = limits.get(f"max_{name}"), f"evn_{name}_{exp_id}"
    label, help_text = symbol(name) if symbol(name) != name else name.capitalize(), exp.option_help.get(name)
    if isinstance(default, bool):
        return st.checkbox(label, key=key, help=help_text)
    if name in exp.option_choices:
        return st.radio(label, exp.option_choices[name], horizontal=True, key=key, help=help_text)
    if isinstance(default, int):
        return int(st.number_input(label, min_value=None, max_value=cap, step=1, key=key,
                                   help=(help_text or "") + (f" The paper uses {default:,}." if cap else "")))
    if isinstance(default, float):
        return float(st.number_input(label, key=key, help=help_text))
    return st.text_input(label, key=key, help=help_text)


with st.form(f"evn_form_{exp_id}"):
    eps = None
    if exp.default_epsilon is not None:
        eps = ui.epsilon_input(key=f"evn_eps_{exp_id}", default=exp.default_epsilon)
    # value= makes it a two-handled slider (Streamlit reads that from the default), so the kept pair is moved from
    # the session state into value= (the widget's identity is its key): no default-and-state warning in the log.
    lo, hi = st.select_slider(f"Range of {axis.label}", options=grid, value=st.session_state.pop(f"evn_x_{exp_id}"),
                              format_func=format_number, key=f"evn_x_{exp_id}")
    reps = st.slider(f"Replicates per {axis.name}", 2, max_reps, key=f"evn_reps_{exp_id}",
                     help=f"Capped at {max_reps} to keep the run interactive; the "
                     f"paper uses {exp.default_reps} (run `python -m dpcore reproduce {exp.id}`).")
    options = {k: option_widget(k, exp.options[k]) for k in exp.app_options}
    methods = st.multiselect("Methods", exp.methods, format_func=exp.label,
                             key=f"evn_methods_{exp_id}", help="Fewer methods, shorter run (runs over "
                             f"{BUDGET_SECONDS} s are refused before they start).") or list(exp.methods)
    submitted = st.form_submit_button("Run simulation", type="primary")

xs = tuple(x for x in grid if lo <= x <= hi)
# Grouping only (never changes results): about four blocks of replicates, so that the progress bar moves.
grouping = {"block": max(1, -(-reps // 4))} if "block" in exp.grouping_params else {}
seed = ui.current_seed("error-vs-n", exp_id, eps, xs, reps, tuple(sorted(options.items())))
settings = (exp_id, eps, xs, reps, tuple(sorted(options.items())), tuple(methods), seed)
results = st.session_state.setdefault(RESULTS_KEY, {})
stored = results.get(exp_id)

if submitted or stored is None:
    bar = st.progress(0.0, text="Starting…")

    def progress(done: int, total: int) -> bool:
        bar.progress(done / total if total else 1.0, text=f"{done} of {total} blocks done")
        return True

    try:
        frame = ui.cache.experiment_frame(exp_id, xs, reps, eps, seed, tuple(methods),   # shared: public inputs
                                        tuple(sorted({**options, **grouping}.items())),
                                        BUDGET_SECONDS, progress)   # refused up front beyond it
    except ValueError as exc:
        bar.empty()
        ui.show_error(exc)
        st.stop()
    bar.empty()
    stored = results[exp_id] = (settings, frame)

settings_shown, frame = stored
if settings_shown != settings:
    st.caption("The settings changed: press **Run simulation** to update the results below.")
else:
    ui.export_code(lambda: export.experiment_script(exp_id, xs=xs, reps=reps, epsilon=eps, seed=seed, jobs=1,
                                                    methods=methods, **options, **grouping), f"figure_{exp_id}")

ui.plot(error_vs_x_figure(frame), frame, f"{exp_id}_error_vs_{axis.name}")   # figure + CSV of every replicate
st.caption(describe(frame) + f" Error bars: ±1.96 Monte-Carlo standard errors over {frame.attrs['reps']} "
           f"replicates; slopes fitted over the top three decades. Run time {frame.attrs['elapsed_s']:.1f} s, "
           f"seed {frame.attrs['seed']}.")
st.caption(exp.caption)
if exp.paper_protocol_note:
    st.warning(exp.paper_protocol_note, icon=":material/warning:")

left, right = st.columns(2)
with left:
    st.markdown(f"**Fitted slopes** of log10(mean error) on {'log10 ' if axis.log else ''}{axis.name}")
    slopes = fit_slopes(frame)
    slopes["method"] = slopes["method"].map(exp.label)
    st.dataframe(slopes[["method", "slope", "se_slope", f"{axis.name}_min", f"{axis.name}_max"]],
                 hide_index=True, width="stretch")
with right:
    st.markdown(f"**log10(mean error)** by {axis.name} (± Monte-Carlo s.e.)")
    summ = summarize(frame)
    table = summ.assign(value=[f"{m:+.3f} ± {s:.3f}" if math.isfinite(s) else f"{m:+.3f}"
                               for m, s in zip(summ["log10_mean_error"], summ["se_log10_mean_error"])])
    st.dataframe(table.pivot(index=axis.name, columns="method", values="value"), width="stretch")

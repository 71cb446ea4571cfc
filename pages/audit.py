"""Privacy audit: watch the statistical audit of the test suite check a mechanism — and catch a broken one.

Thin page: widgets → dpcore.audit.explore.run (chunks of dpcore.audit.run_audit, the one Clopper–Pearson
harness of the test suite; progress between chunks, so a newer rerun interrupts it) → summary → figure.
Synthetic neighbouring datasets only (never the session's upload); not a release, nothing is charged.
"""
# nav: title="Privacy audit" icon=":material/fact_check:" order=210
import streamlit as st

from dpcore import export
from dpcore.audit import explore, floating_point_attack
from dpcore.registry import audits
from dpcore.privacy import PrivacyCost
from dpcore.privacy.tradeoff import reading
from dpcore.viz.audit import overlay_figure, tradeoff_figure
import ui

AUDIT_CHUNKS = 10   # parts of a run (the progress bar moves between them); they fix the numbers, so the export states it
RESULT_KEY = "audit_result"  # session_state: (settings, AuditSummary) of the last finished run, written at the end
AUDITS = audits()
ids = list(AUDITS)
DEFAULT = "noise/laplace" if "noise/laplace" in AUDITS else ids[0]  # the simplest mechanism, for a first class demo
ui.persist(audit_id=DEFAULT, audit_mutant=False)

st.title("Privacy audit")
ui.share_link("audit")
st.markdown(
    "A differential-privacy claim says: for **neighbouring** datasets D and D′ and **every** set S of outputs, "
    "P(M(D) ∈ S) ≤ e^ε · P(M(D′) ∈ S) + δ. The audit draws many outputs on D and on D′, counts how often "
    "each event S falls, and puts Clopper–Pearson confidence limits on both probabilities (Bonferroni over the "
    "events, total error 10⁻⁶). If a lower limit exceeds e^ε × the other's upper limit + δ, the samples "
    "**refute** the claim. The largest ε the samples refute is an **empirical lower bound** on the true ε: "
    "a correct mechanism keeps it below the claim; a broken one pushes it above. This is the same code the "
    "test suite runs on every mechanism.")
st.info("Runs on **synthetic neighbouring datasets** only — never on your uploaded data. An audit is not a "
        "release: nothing is added to the privacy ledger.", icon=":material/science:")

with st.expander("Floating-point attack: the textbook Laplace release leaks through the doubles (Mironov 2012)"):
    st.markdown("`x + np.random.laplace(b)` in floating point cannot reach every double, and *which* doubles it "
                "reaches depends on x. An attacker who sees one output and checks whether it is reachable from "
                "f(D′) = 1 names D (f(D) = 0) with **certainty** whenever it is not. The hardened release rounds "
                "f(D) to a public power-of-two grid and adds exact discrete Laplace noise: every grid point is "
                "reachable from both, so the same test never succeeds.")
    if st.button("Run the attack (10 000 releases per dataset, ε = 1)", key="fp_attack_go"):
        st.session_state["fp_attack_result"] = floating_point_attack(0.0, 1.0, epsilon=1.0, releases=10_000,
                                                                     rng=ui.current_seed("fp_attack"))
    fp = st.session_state.get("fp_attack_result")
    if fp is not None:
        f1, f2 = st.columns(2)
        f1.metric("naive float Laplace: certain identifications per 10 000", f"{fp.per_10000('naive'):,.0f}")
        f2.metric("hardened (grid + exact discrete Laplace)", f"{fp.per_10000('hardened'):,.0f}",
                  help=f"grid spacing γ = {fp.grid:g}; outputs γ·(⌊f/γ + ½⌋ + Z), Z exact discrete Laplace")

aid = st.selectbox("Mechanism and claim", ids, key="audit_id",
                   format_func=lambda i: f"{AUDITS[i].title}  ·  {i}")
A = AUDITS[aid]
mutant = st.toggle(f"Broken mechanism: run the declared mutant “{A.mutant.name}”", key="audit_mutant",
                   help=A.mutant.description)
if mutant:
    st.warning(f"**Broken on purpose**: {A.mutant.description}. The audit below should reject it.",
               icon=":material/bug_report:")

st.subheader("Neighbouring datasets")
presets = explore.presets(A)
preset = st.radio("Pair", list(presets), key=ui.kept(f"audit_preset::{aid}"), horizontal=True)
st.caption(f"Declared: {A.neighbours}. Only the records where D and D′ differ are shown; edit them (the "
           "others stay equal, so the pair stays neighbouring under replace-one).")
table = st.data_editor(explore.pair_table(A, presets[preset]), key=f"audit_pair::{aid}::{preset}", hide_index=True,
                       disabled=["dataset", "record"], num_rows="fixed", width="stretch")

st.subheader("Claim and sample size")
c1, c2, c3 = st.columns([2, 1, 1])
with c1:
    eps = ui.epsilon_input("claimed ε", key=f"audit_eps::{aid}", default=A.epsilon, typed=True)
if A.delta > 0:
    ui.persist(**{f"audit_delta::{aid}": float(A.delta)})   # (the default lives in the session state: a link sets it)
    delta = c2.number_input("claimed δ", min_value=0.0, max_value=0.5, format="%g", key=f"audit_delta::{aid}")
else:
    delta = 0.0
    c2.caption("Pure ε-DP claim: δ = 0.")
ui.persist(**{f"audit_n::{aid}": explore.default_samples(A)})
n = c3.number_input("samples per dataset", min_value=1, step=10_000, key=f"audit_n::{aid}",
                    help=f"At most {explore.sample_cap(A):,} here (at most {explore.PAGE_SAMPLE_FACTOR} × the test "
                         f"suite's {A.n_samples:,}, and what the time model lets run in about 30 s). More samples: a "
                         "tighter bound, a longer run.")

seed = ui.current_seed("audit", aid)
b, slot = st.columns([1, 3], vertical_alignment="center")
clicked = b.button("Run the audit", key="audit_go", type="primary", icon=":material/play_arrow:")
try:
    pair = explore.apply_table(A, table)
    settings = (aid, bool(mutant), preset, explore.pair_table(A, pair).to_json(), float(eps), float(delta), int(n), seed)
    if clicked:
        bar = slot.empty()
        run = explore.run(A, n=n, mutant=mutant, epsilon=eps, delta=delta, datasets=pair, rng=seed, chunks=AUDIT_CHUNKS,
                          progress=ui.progress(bar, "samples drawn per dataset"))
        bar.empty()
        st.session_state[RESULT_KEY] = (settings, explore.summarize(run, datasets=pair))  # one assignment: old or new
except ValueError as exc:
    ui.show_error(exc)
    st.stop()

stored = st.session_state.get(RESULT_KEY)
if stored is None:
    st.info("Press **Run the audit**.", icon=":material/touch_app:")
    st.stop()
shown, s = stored
if shown != settings:
    st.caption(f"Showing the last run ({AUDITS[shown[0]].title}"
               f"{', broken mutant' if shown[1] else ''}); the settings changed: press **Run the audit** to update.")
r = s.result
m1, m2, m3 = st.columns(3)
m1.metric("claimed ε", f"{r.epsilon:.4g}", help=f"with δ = {r.delta:g}")
m2.metric("empirical lower bound on ε", f"{r.epsilon_lower_bound:.4g}",
          delta=f"{r.epsilon_lower_bound - r.epsilon:+.3g} vs claim", delta_color="inverse",
          help="The largest ε the samples refute at confidence 1 − 10⁻⁶ (Clopper–Pearson, Bonferroni).")
m3.metric("samples per dataset", f"{r.n_samples[0]:,}", help=f"{r.n_events} events tested")
if r.rejected:
    st.error(f"**Rejected**: the samples refute ({r.epsilon:.4g}, {r.delta:g})-DP — event {r.worst_event} "
             f"({r.worst_direction}) exceeds the bound by {r.worst:+.3g} in probability.", icon=":material/gpp_bad:")
else:
    st.success(f"**Not rejected**: no event refutes ({r.epsilon:.4g}, {r.delta:g})-DP (best margin {r.worst:+.3g}). "
               "An audit can refute a claim, never prove it.", icon=":material/verified_user:")
if shown == settings:
    ui.export_code(lambda: export.audit_script(
        aid, preset=preset, edited=None if explore.pair_table(A, presets[preset]).equals(table) else pair, n=n,
        mutant=bool(mutant), epsilon=float(eps), delta=float(delta), seed=seed, chunks=AUDIT_CHUNKS), "audit")
ui.plot(*overlay_figure(s), f"audit_{shown[0].replace('/', '_')}")
if max(s.missing) > 0:
    st.caption(f"Non-numeric outputs (e.g. ⊥, abstained): {s.missing[0]:.2%} on D, {s.missing[1]:.2%} on D′ "
               "(not in the histogram; the events count them).")
st.subheader("What ε means: any adversary's error rates")
claim = PrivacyCost.approx(r.epsilon, r.delta) if r.delta > 0 else PrivacyCost.pure(r.epsilon)
st.markdown(
    "Think of an adversary who sees one output and must say whether it came from D or from D′ (is the changed "
    "person in the data?). Whatever test it uses, it has a **false-positive rate** (it accuses D when the data "
    "were D′) and a **true-positive rate** (it accuses D when they were D). The claim allows only the points "
    f"under the curve below: at ε = {r.epsilon:.3g}, δ = {r.delta:g}, {reading(claim)}; at 1 % false "
    f"accusations, {reading(claim, 0.01).split(' is ')[1]}. Each audit event is such a test; its marker is "
    "placed at the rates the samples *certify* (Clopper–Pearson limits), so a correct mechanism's markers stay "
    "under the curve and a broken one's cross it — those crossings are exactly what rejects the claim.")
ui.plot(*tradeoff_figure(s), f"audit_tradeoff_{shown[0].replace('/', '_')}")
if s.gdp_mu is not None:
    st.caption(f"This is a Gaussian mechanism: its exact curve (μ-GDP with μ = Δ/σ = {s.gdp_mu:.3g}, Dong, Roth & "
               "Su 2022) lies inside the (ε, δ) bound — the (ε, δ) claim is one point of a whole curve.")
st.markdown(f"**Events used** ({r.n_events}, fixed before sampling from D, D′ and the claim): the worst one first, "
            "then those with the largest point estimate of the privacy loss.")
st.dataframe(s.events, hide_index=True, width="stretch")
ui.download_csv(s.events, f"audit_events_{shown[0].replace('/', '_')}.csv", "Download the events (CSV)",
                key="audit_events_csv")

"""The pickers and panels the model-fitting pages share (private LASSO, certified eigenvalue bounds; issue 30).

Owns: the response/covariates picker over the columns with public bounds, the bordered public panel that states
what to expect before the click, and the LASSO page's step-rule picker, outlook and outcome view.

Must never: read the data for a public panel (the outlooks take a config, n and p only — dpcore.lasso.outlook,
dpcore.single_parameter.floor_sentence), draw a widget with both a default and a Session State value (the remembered
choice lives in the session state: ui.widgets.offered), or show a non-private number outside ui.nonprivate.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import streamlit as st

from dpcore import lasso
from dpcore.data import literal
from dpcore.lasso.plots import coefficients_figure
from ui import cache
from ui.charts import download_csv, metrics, plot
from ui.widgets import errors_shown, kept, nonprivate, offered
from ui.workspace import bounded_columns


def model_columns(ds: Any, source: str, prefix: str, c1: Any, c2: Any) -> tuple[str, list[str]]:
    """(response, covariates) picked among the columns with public bounds (at least two, else say so and stop);
    each choice remembered per data source (and per response), without a widget default beside its state."""
    cols = bounded_columns(ds)
    if len(cols) < 2:
        st.info("Declare public bounds for at least two numeric columns on the **Data** page.")
        st.stop()
    y_key = kept(f"{prefix}_y_{source}")
    y_col = c1.selectbox("Response y", offered(y_key, cols, cols[-1]), key=y_key)
    rest = [c for c in cols if c != y_col]
    x_key = kept(f"{prefix}_x_{source}_{y_col}")
    return y_col, list(c2.multiselect("Covariates x", offered(x_key, rest, rest), key=x_key))


def public_panel(title: str, lines: Sequence[str], caption: str = "") -> None:
    """A bordered panel of public statements (markdown lines) shown before the click."""
    with st.container(border=True):
        st.markdown(f"**{title}**")
        for line in lines:
            st.markdown(line)
        if caption:
            st.caption(caption)


def lasso_steps(col: Any) -> dict[str, Any]:
    """The LASSO step rule (radio ``lasso_steps_rule``; then c or T when the rule asks): LassoConfig keywords."""
    label = col.radio("Steps T", list(lasso.STEP_RULE_LABELS), key="lasso_steps_rule", help=lasso.STEP_RULE_HELP)
    rule, ask = lasso.STEP_RULE_LABELS[label]
    out: dict[str, Any] = {"step_rule": rule, "steps": None, "step_scale": None}
    if ask == "c":
        out["step_scale"] = col.number_input("c", min_value=1e-4, max_value=1e3, key="lasso_c", format="%g")
    elif ask == "T":   # dpcore names the cap
        out["steps"] = int(col.number_input("T", min_value=1, max_value=10 ** 9, key="lasso_T"))
    return out


def lasso_outlook(cfg: lasso.LassoConfig, n: int, p: int) -> None:
    """Before the click: how far the release is expected to be from the optimum, and θ = 0's risk beside it
    (dpcore.lasso.outlook on the public design; cached on its public arguments)."""
    o = cache.lasso_outlook(cfg, int(n), int(p))
    public_panel("What to expect from this release (public: from n, p, ε and the settings — no data)",
                 o.lines(cfg.intercept), "The distance depends on how the real columns correlate: on the built-in "
                 "tables it was from far below to 12× the public design's (benchmarks/lasso_eps.py); the excess "
                 "risk and the worst-case bound are the steadier guides.")


def lasso_outcome(r: Any, cfg: lasso.LassoConfig, design: Any, *, names: list[str], y_col: str, truth: Any,
                  sim: Any, req: Any, user: bool, teaching: bool) -> None:
    """A ready LASSO release: summary, coefficients in the columns' units, support recovery (simulation), then
    either the release alone (a user's data, release view) or the non-private comparison in its labelled box."""
    dv, theta = r.diagnostics.values, (r.value[1:] if cfg.intercept else r.value)
    st.success(lasso.release_summary(r.value, cfg.intercept, cfg.radius))
    units = design.user_units(r.value, cfg.intercept)
    st.dataframe(units, hide_index=True, width="stretch")
    st.caption(lasso.units_caption(cfg.intercept))
    download_csv(units, "lasso_coefficients_units.csv", key="lasso_units_csv")
    for t in r.notes_of("info"):
        st.caption(literal(t))
    if truth is not None:
        rec = lasso.support_recovery(theta, truth)
        st.caption(f"Support recovery vs the true θ (simulation, public): {rec['recovered']} of the {rec['k']} "
                   f"true non-zeros among the {rec['k']} largest |θ_j| (signs agree on {rec['signs agree']}).")
    if user and not teaching:   # your data, release view: the release only (the comparison would reveal the data)
        plot(*coefficients_figure(names, {"private_fw": r.value}), "lasso_coefficients")
        st.caption("The non-private comparison (θ*, excess risk, the risk of θ = 0, scikit-learn's fits) is in the "
                   "teaching view (View above: computed from your data, not private, recorded as not DP).")
        if design.clip_warning:
            with nonprivate("Data check"):
                st.warning(design.clip_warning)
        return
    with nonprivate("Non-private comparison (computed from the data)"):
        series = {"private_fw": r.value, "nonprivate_fw": dv["non-private Frank–Wolfe θ"],
                  "optimum": dv["constrained optimum θ*"]}
        if truth is not None:
            series["truth"] = np.r_[0.0, truth] if cfg.intercept else truth
        plot(*coefficients_figure(names, series), "lasso_coefficients")
        zero = "θ = 0 (predicting the mean)" if cfg.intercept else "θ = 0 (predicting 0)"
        metrics({"excess risk, private": f"{dv['excess risk (private)']:.4g}",
                 f"excess risk, {zero}": f"{dv['excess risk of θ = 0']:.4g}",
                 "excess risk, non-private FW": f"{dv['excess risk (non-private FW)']:.3g}",
                 "min over C of L (θ*)": f"{dv['L(θ*)']:.4g}"})
        if dv["excess risk (private)"] >= dv["excess risk of θ = 0"]:
            st.warning(f"This release fits the data worse than {zero}: at this n and ε the noise outweighs the fit.")
        st.caption(lasso.comparison_caption(dv, theta, design.X.shape, cfg))
        if design.clip_warning:
            st.warning(design.clip_warning)
        refs = cache.lasso_reference_fits(*sim, cfg, cache.entropy(req)) if sim else \
            lasso.reference_fits(design, cfg.radius, released=r.value, intercept=cfg.intercept)
        st.dataframe(refs, hide_index=True, width="stretch")
        download_csv(refs, "lasso_reference_fits.csv", key="lasso_refs_csv")
        st.caption(lasso.reference_fits_caption(y_col, cfg.intercept))


def certify_panel(cfg: Any, n: int, d: int) -> None:
    """The public panel shown on ⊥ (certified bounds): the n that would certify an assumed design, and the smallest
    λ_min that certifies at this n — functions of (ε, δ, the split, d, n, the domain) and the user's assumptions only
    (dpcore.single_parameter.certification_outlook). The cap is shown to 12 significant digits (no float noise)."""
    from dpcore.single_parameter import certification_outlook, public_cap

    ss = st.session_state
    with st.container(border=True):
        st.markdown("**What would certify** (public: computed from ε, δ, the split, d, n and the domain, and the "
                    "values you assume — never from the data)")
        cap = float(f"{public_cap(cfg, d):.12g}")   # the predictions accept the cap to a relative 1e-12
        for key in ("sp_assume_lam", "sp_assume_Lam"):       # the cap moves with d and the domain: keep inside it
            if key in ss and ss[key] > cap:
                ss[key] = cap
        ss.setdefault("sp_assume_Lam", cap)
        a1, a2 = st.columns(2)
        lam = a1.number_input("assumed λ_min of the Hessian", min_value=1e-9, max_value=cap, key="sp_assume_lam",
                              format="%g", help="Your guess of the smallest eigenvalue (e.g. from a similar public "
                                                "dataset or the design's law). The page does not use the data's.")
        lam_max = a2.number_input("assumed λ_max (default: the public cap M1 + ρ, i.e. no assumption)",
                                  min_value=1e-9, max_value=cap, key="sp_assume_Lam", format="%g")
        if lam_max < lam:
            st.info("The assumed λ_max must be at least the assumed λ_min.")
            return
        with errors_shown(stop=False):   # a cap on the prediction's recursion refuses a tiny ε (issue 18)
            lines, caption = certification_outlook(cfg, n, d, lam, lam_max)
            for line in lines:
                st.markdown(line)
            st.caption(caption)


def eigen_truth(r: Any, n_rows: int) -> None:
    """The certified-bounds page's non-private box after a release ``r``: the true eigenvalues, the public floor
    λ_c, the oracle's local sensitivity and noise, the release beside the truth, the clipping count (computed from
    the data: inside ui.nonprivate only)."""
    from dpcore.single_parameter.plots import release_figure

    dv = r.diagnostics.values
    with nonprivate("Truth and the oracle (computed from the data)"):
        metrics({"true λ_min": f"{dv['true λ_min (non-private)']:.5g}",
                 "true λ_max": f"{dv['true λ_max (non-private)']:.5g}",
                 "certification floor λ_c (public)": f"{dv['certification floor λ_c (public)']:.4g}"})
        if "⟨v, θ̂⟩ (non-private)" in dv:
            ls = dv["oracle local sensitivity LS_v (non-private)"]
            osd = dv["oracle noise sd σ(ε, δ)·LS_v (non-private)"]
            st.caption(f"⟨v, θ̂⟩ = {dv['⟨v, θ̂⟩ (non-private)']:.6g}; oracle local sensitivity LS_v = {ls:.4g}; "
                       f"the oracle (NOT private) would add noise sd σ(ε, δ)·LS_v = {osd:.4g}.")
            if np.isfinite(r.value):
                plot(*release_figure(r.value, dv["noise sd (non-private: uses LS_v)"],
                                     dv["⟨v, θ̂⟩ (non-private)"], osd), "single_parameter_release")
        if "noise sd (non-private: uses LS_v)" in dv:
            st.caption(f"noise sd used σ(ε₃, δ₃)(1 + ντ̄)·LS_v = {dv['noise sd (non-private: uses LS_v)']:.4g}.")
        st.caption(f"{dv['clipped rows']} of {n_rows} covariate rows lay outside the public domain and were "
                   "clipped to it.")
        if dv.get("degenerate design"):
            st.caption(dv["degenerate design"])

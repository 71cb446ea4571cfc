"""The non-private teaching views and release displays that the topic pages draw after a click (KNG's θ̂,
densities and diagnostics; a release's values and public calibration), moved out of the pages (issue 30).

Owns nothing in the session but the widgets it draws (their keys are the page's). Must never: show anything
computed from the data outside the non-private box (``nonprivate``) unless the data are a demo, or show a
release's data-dependent diagnostics in the release view (only its value, cost and public calibration).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import data as dpdata
from dpcore import kng
from dpcore.kng import plots
from ui.charts import download_csv, plot
from ui.widgets import nonprivate


def kng_released(results: Mapping[str, Any], names: Any) -> None:
    """The KNG page's release view: per mechanism, released or withheld, its cost, the released draws and the
    public calibration — nothing else from the data."""
    for m, r in results.items():
        st.markdown(f"**{plots.label(m)}** — {'released' if r.released else 'withheld'}; cost {r.cost.describe()}")
        if r.released:
            st.dataframe(pd.DataFrame(r.value, columns=list(names)), hide_index=True)
        st.caption(dpdata.literal(r.calibration.statement() + " " + " ".join(r.notes_of("approximate"))))


def kng_teaching(problem: str, pdata: Any, results: Mapping[str, Any], configs: Mapping[str, Any], *, demo: bool,
                 epsilon: float, norm: str, params: Mapping[str, Any], parts: Any = ()) -> None:
    """The KNG page's teaching view (NOT private on a user's data): θ̂, the draws against each mechanism's
    density (1-D; a 2-D contour of two chosen coordinates and the pairs plot otherwise), the comparison table
    and the diagnostics (of the release and of the columns' imputation, ``parts``)."""
    cfg0, d = next(iter(configs.values())), len(pdata.names)
    theta_hat = kng.nonprivate_estimate(pdata.data, cfg0)
    with nonprivate("Teaching view: θ̂, densities, draws and diagnostics") if not demo else st.container():
        st.dataframe(pd.DataFrame([theta_hat], columns=list(pdata.names)).assign(what="non-private θ̂"),
                     hide_index=True)
        if "B" in params and (l1 := np.abs(kng.prepared(pdata.data, cfg0)[1].nonprivate).sum()) > params["B"]:
            st.info(f"θ̂ lies outside the B-ball: ‖θ̂‖₁ = {l1:.3g} > B = {params['B']:g} (scaled units), so the draws "
                    "are pulled to the ball's boundary. Try a larger B.")
        released = {m: r for m, r in results.items() if r.released}
        lo, hi = plots.plot_window(released, theta_hat) if released else (theta_hat - 1 - abs(theta_hat),
                                                                          theta_hat + 1 + abs(theta_hat))
        dens = dict(epsilon=epsilon, norm=norm, params=params)
        if d == 1:
            curves = {m: plots.density_1d(problem, pdata.data, m, lo=lo[0], hi=hi[0], **dens) for m in results}
            plot(*plots.figure_1d(results, theta_hat, pdata.names[0], curves), "kng_draws")
        else:
            v1, v2, v3 = st.columns(3)
            i = v1.selectbox("x axis", range(d), format_func=lambda k: pdata.names[k], key="kng_ci")
            j = v2.selectbox("y axis", [k for k in range(d) if k != i], format_func=lambda k: pdata.names[k],
                             key="kng_cj")
            cm = v3.selectbox("Density of", list(results), format_func=plots.label, key="kng_cm")
            contour = plots.density_2d(problem, pdata.data, cm, centre=theta_hat, coords=(i, j), lo=lo, hi=hi, **dens)
            plot(*plots.figure_2d(results, theta_hat, pdata.names, (i, j), contour, cm), "kng_draws_2d")
            if d >= 3 and released:
                plot(*plots.pairs_figure(released, pdata.names), "kng_pairs")
        table = plots.comparison_frame(results, theta_hat).rename(columns=lambda c: c.replace("epsilon", "ε"))
        st.dataframe(table, hide_index=True, width="stretch")
        download_csv(table, "kng_comparison.csv", key="kng_comparison_csv")
        for frame in (plots.diagnostics_frame(results), pd.DataFrame([c.diagnostics.as_row() for c in parts])):
            if len(frame):
                st.dataframe(frame, hide_index=True, width="stretch")
        st.caption(plots.MCMC_RELEASE_NOTE)

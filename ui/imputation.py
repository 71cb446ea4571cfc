"""The Data page's view of the chosen columns once bounded: the labelled non-private diagnostics (clipped and
missing cells), and the imputation of missing cells — the midpoint of the bounds (public, free) or a private mean
of the observed cells (charged to the dataset's budget, its cost on the button), with the labelled non-private
view of what the filling does to the column's mean.

Owns the imputation widgets' keys (``data_imp_*``). Must never: show a count or a mean computed from the data
outside the labelled non-private boxes, release the private mean without the click and the budget check
(:func:`ui.release.run_release`), or put a value into a column's imputation field other than the released mean
(through :data:`ui.bounds.IMPUTE_PENDING`, on the next run).
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore import data as dpdata
from dpcore import export
from dpcore import privacy as P
from dpcore.data import impute
from ui.bounds import IMPUTE_PENDING
from ui.preview import accuracy_preview
from ui.release import release_button, request, run_release, show_outcome
from ui.share import export_code, stream
from ui.widgets import epsilon_input, nonprivate, offered, show_error

esc = dpdata.escape_markdown
JUST_KEY = "data_imp_just"


def diagnostics_panel(ds: dpdata.Dataset, columns: list[str]) -> None:
    """The non-private diagnostics of the chosen bounded columns (rows, missing → imputed, clipped)."""
    try:
        frame, messages = dpdata.diagnostics_frame(ds, columns)
    except ValueError as exc:
        return show_error(exc)
    if len(frame):
        with st.container(border=True):
            st.markdown(f"**{dpdata.NON_PRIVATE_LABEL}** (computed from the data: not private, never released)")
            st.dataframe(frame, hide_index=True, width="stretch")
            st.caption((" ".join(map(esc, messages)) + " Mechanisms use all n rows: missing cells replaced by "
                        "the imputation value, values clipped to the bounds.").strip())


def _released_mean(ds: dpdata.Dataset, col: str, eps: float, req: P.ReleaseRequest) -> float | None:
    lo, hi = ds.bounds[col]
    raw = ds.frame[col].to_numpy(dtype=float)
    button = "Release the private mean"
    clicked, _ = release_button(button, key="data_imp_go", requests=req)
    out = run_release(req, lambda rng: impute.release_mean_imputation(raw, (lo, hi), eps, rng=rng), submitted=clicked)
    if out is None:
        return None
    ss = st.session_state
    if ss.pop(JUST_KEY, None) != req.key:     # (just released: the rerun below shows it as released)
        show_outcome(out, button=button)
    if not out.ready:
        return None
    export_code(lambda: export.imputation_script(
        export.from_dataset(ds, [col]), release=impute.release_mean_imputation, column=col, bounds=(lo, hi),
        epsilon=float(eps), stream=stream(req)), "data_imputation")
    mean = float(out.result.value)
    st.success(f"**Released** private mean of {esc(col)}: {mean:.6g} (within its bounds [{lo:g}, {hi:g}]).")
    st.caption(esc(out.result.calibration.statement() + " " + " ".join(out.result.notes_of("info"))))
    if out.status == "released" and ds.impute_value(col) != mean:
        ss[IMPUTE_PENDING] = (col, mean)    # the column's imputation field takes it on the next run
        ss[JUST_KEY] = req.key
        st.rerun()
    return mean


def imputation_panel(ds: dpdata.Dataset, columns: list[str]) -> None:
    """Per column: fill missing cells with the midpoint of the bounds (public, free — the default) or with a
    private mean of the observed cells (charged to this dataset's budget, the cost on the button); then the
    labelled non-private view of what the filling does to the column's mean."""
    cols = [c for c in columns if c in ds.bounds]
    if not cols:
        return
    st.subheader("Missing cells: the midpoint or a private mean")
    st.caption("Mechanisms read all n rows (n is public): a missing cell takes its column's imputation value. The "
               "midpoint of the public bounds is free but pulls the column toward the middle of its range; a "
               "private mean of the observed cells costs ε (Laplace noise on the observed count and sum, "
               "ℓ1-sensitivity 3/2) and is then used as the imputation value.")
    c1, c2 = st.columns([2, 3], vertical_alignment="bottom")
    col = c1.selectbox("Column", offered("data_imp_col", cols, cols[0]), key="data_imp_col")
    with c2:
        eps = epsilon_input("ε for its private mean", key="data_imp_eps", typed=True)
    lo, hi = ds.bounds[col]
    try:
        cal = impute.mean_imputation_config(eps)
        req = request((ds.fingerprint(include_bounds=False), "data/impute-mean", col, (lo, hi), float(eps)),
                      P.release_label("Private mean to fill missing cells", data=ds.name, columns=[col], epsilon=eps),
                      ds, [col], cost=cal.cost(1))
    except ValueError as exc:
        show_error(exc)
        return
    accuracy_preview({"Private mean (Laplace)": ("data/impute-mean", float(eps))}, key="data_imp",
                     n=len(ds.frame), bounds=(float(lo), float(hi)))
    mean = _released_mean(ds, col, float(eps), req)
    current = ds.impute_value(col)
    st.caption(f"{esc(col)}: missing cells are filled with {current:.6g}"
               + (" (the midpoint of the bounds)." if current == (lo + hi) / 2 else "."))
    raw = ds.frame[col].to_numpy(dtype=float)
    with nonprivate(f"What filling the missing cells does to the mean of {esc(col)}"):
        fills = {"the midpoint": (lo + hi) / 2, "the current value": current}
        if mean is not None:
            fills["the private mean"] = mean
        st.dataframe(impute.imputation_effect(raw, (lo, hi), fills), hide_index=True, width="stretch")
        st.caption(f"{int(np.isnan(raw).sum())} of {len(raw):,} cells of this column are missing. Values are "
                   "clipped to the bounds, as every mechanism reads them.")

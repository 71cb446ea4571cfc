"""A declared figure run from a page: "Run the simulation" — a few replicates of a registered experiment
(dpcore.experiments) on synthetic data, its chart, its data as CSV and its export as a script.

Owns nothing in the session (the frame is drawn in the run that clicked). Must never: touch the session's dataset
or charge anything (the experiments simulate their own public data with the sidebar's seed), or run without the
click (a sweep costs seconds; the pages' default views use the shared results of ui.cache instead).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from ui.charts import plot
from ui.release import progress
from ui.share import export_code
from ui.widgets import show_error


def simulation_button(exp_id: str, *, key: str, run: dict[str, Any], progress_label: str | None = None,
                      figure: Callable[[pd.DataFrame], Any] | None = None, name: str | None = None
                      ) -> pd.DataFrame | None:
    """The button "Run the simulation" (``key``); on its click, :func:`dpcore.experiments.run_experiment`
    ``(exp_id, **run)`` in this process, then ``figure(frame)`` (default
    :func:`dpcore.viz.experiments.error_vs_x_figure`) drawn with :func:`ui.plot` under ``name`` (default
    ``exp_id``) and “Download as Python script / notebook” of the same run (``figure_<exp_id>``).

    ``progress_label``: a progress bar between tasks with this label (None: no bar). Returns the frame (the page
    adds its caption), or None before the click or when the run is refused (the error is shown)."""
    from dpcore import export
    from dpcore.experiments import run_experiment
    from dpcore.viz.experiments import error_vs_x_figure

    if not st.button("Run the simulation", key=key):
        return None
    try:
        bar = {} if progress_label is None else {"progress": progress(st.empty(), progress_label)}
        frame = run_experiment(exp_id, **bar, **run)
        plot((figure or error_vs_x_figure)(frame), frame, name or exp_id)
        export_code(export.experiment_script(exp_id, **run), f"figure_{exp_id}")
    except ValueError as exc:
        show_error(exc)
        return None
    return frame

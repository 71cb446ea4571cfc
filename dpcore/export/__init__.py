"""Export a page's release or figure as a runnable Python script or Jupyter notebook (issue 22).

:mod:`~dpcore.export.codegen` writes Python source from the live objects a page used (config
dataclasses checked to round-trip, dpcore functions by their public module); :mod:`~dpcore.export.sources`
states the dataset (simulation with its seed, built-in loader, or the path of the user's file with its
declared bounds) and the random stream; :mod:`~dpcore.export.recipes` has one script per page.
The scripts import dpcore, never streamlit.
"""
from .codegen import Assign, Call, Code, ExportError, Ref, Script, Section, literal
from .recipes import (
    audit_script,
    density_script,
    experiment_script,
    figure_script,
    functional_script,
    histogram_script,
    imputation_script,
    kng_script,
    lab_script,
    lasso_script,
    marginals_script,
)
from .sources import DataSource, Stream, from_dataset, loaded, seed_stream, simulated, stream

__all__ = ["Assign", "Call", "Code", "ExportError", "Ref", "Script", "Section", "literal", "DataSource", "Stream",
           "from_dataset", "loaded", "seed_stream", "simulated", "stream", "audit_script", "density_script", "experiment_script",
           "figure_script", "functional_script", "histogram_script", "imputation_script", "kng_script", "lab_script", "lasso_script", "marginals_script"]

"""The accuracy preview of the single-parameter mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._rng import as_generator
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, simulate, unavailable
from ._explore import prepare_xy, simulated_dataset


def error_law(name: str, spec: Any, config: Any, *, n: int, d: int, reps: Any, rng: Any, label: str,
              **shape: Any) -> ErrorLaw:
    """The functional release (Algorithm 5): simulated on a public robust-regression design."""
    if name == "single_parameter/functional":
        return _functional(config, n, d, reps, rng, label)
    return unavailable(name, label, "no accuracy preview is declared for this mechanism")


def _functional(config: Any, n: int, d: int, reps: int, rng: Any, label: str) -> ErrorLaw:
    if config.loss != "robust":
        return unavailable("single_parameter/functional", label,
                           "the public design of the preview is a robust regression; with the logistic loss "
                           "the error depends on how separable the data are")
    reps = reps or 50
    if n * d * reps > MAX_PREVIEW_WORK / 4:
        return unavailable("single_parameter/functional", label, f"{reps} simulated releases on n = {n:,} rows "
                                                                 "exceed the preview's work cap")
    g = as_generator(rng)
    ds = simulated_dataset(max(n, 2), max(d, 1), rng=g.spawn(1)[0])
    X, y = prepare_xy(ds, "y", list(ds.numeric_columns[:-1]), intercept=False, scale_response=False)
    cfg = dataclasses.replace(config, coordinate=min(config.coordinate, X.shape[1] - 1), geometry="l2-ball",
                              radius=1.0)
    return simulate("single_parameter/functional", (X, y), cfg, reps, g, measure="|⟨v, θ⟩ − ⟨v, θ̂⟩|", label=label,
                     method="single_parameter/functional",
                     basis=f"simulated: {reps} releases on a public design (robust regression, n = {n:,}, d = {d}, "
                           "covariates on the unit sphere, t₃ noise; seeded)",
                     error=lambda r, t: np.abs(r - t).max(axis=1))

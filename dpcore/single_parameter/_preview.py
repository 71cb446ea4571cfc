"""The accuracy preview of the single-parameter mechanisms: the law of the error one draw adds, from public inputs only
(declared as ``Topic.preview`` and called by :func:`dpcore.preview.preview`; no data argument)."""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._rng import as_generator
from ..preview import MAX_PREVIEW_WORK, ErrorLaw, from_samples, unavailable
from ._analysis import analyse
from ._explore import prepare_xy, simulated_dataset
from .calibration import calibrate_functional
from .release.functional import sample_functional


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
    reps = int(reps or 1000)
    if n * d * d > MAX_PREVIEW_WORK / 4 or reps > 100_000:
        return unavailable("single_parameter/functional", label, f"a public design of n = {n:,} rows and d = {d} "
                                                                 "exceeds the preview's work cap")
    g = as_generator(rng)
    ds = simulated_dataset(max(n, 2), max(d, 1), rng=g.spawn(1)[0])
    X, y = prepare_xy(ds, "y", list(ds.numeric_columns[:-1]), intercept=False, scale_response=False)
    cfg = dataclasses.replace(config, coordinate=min(config.coordinate, X.shape[1] - 1), geometry="l2-ball",
                              radius=1.0)
    # The release's own steps, vectorised over the runs: the analysis (fit, Hessian ladder) once, then
    # sample_functional — the sampler release() calls with size 1 — for all runs.
    an = analyse((X, y), cfg)
    if an.fit is None:
        return unavailable("single_parameter/functional", label, f"θ̂ is undefined on the public design: "
                                                                 f"{an.degenerate}")
    out = sample_functional(an, cfg, reps, g, calibrate_functional(cfg, X.shape))
    target = float(cfg.vector(X.shape[1]) @ an.fit.theta)
    passed = np.asarray(out["passed"], bool)
    basis = (f"simulated: {reps:,} runs of Algorithm 5 on a public design (robust regression, n = {n:,}, d = {d}, "
             "covariates on the unit sphere, t₃ noise; seeded)")
    if not passed.any():
        return unavailable("single_parameter/functional", label, f"it withheld its output (⊥) in all {reps:,} "
                                                                 f"simulated runs ({basis}): at these settings it "
                                                                 "will most likely abstain")
    return from_samples(np.abs(out["value"][passed] - target), "single_parameter/functional", label,
                        "|⟨v, θ⟩ − ⟨v, θ̂⟩|", basis, p_withheld=1.0 - passed.mean())

"""Private multiplicative weights, offline MWEM form, for worst-case error; ρ-zCDP (Hardt & Rothblum 2010;
Hardt, Ligett & McSherry 2012)."""
from __future__ import annotations

from typing import Any

from ..._rng import RNGLike, as_generator
from ...mechanism import Note, Release
from .._central import _pmw_run
from ..calibration import calibrate_pmw
from ..configs import PMWConfig
from ._common import histogram


def release(data: Any, config: PMWConfig, *, rng: RNGLike = None) -> Release:
    """Private multiplicative weights, offline MWEM form, for worst-case error (ρ-zCDP).

    T rounds (a parameter of PMW alone, never the chaining depth): select a signed query by the
    exponential mechanism, measure it with Gaussian noise, multiplicative-weights update of a
    distribution over the PUBLIC universe; release the average distribution's answers. Rate
    (RECONSTRUCTED): err_∞ ≲ R (√(ln|X|) ln(2k)/(√ρ n))^{1/2}.
    """
    wl = config.workload.build()
    hist, n = histogram(data, wl)
    answers = hist @ wl.points
    del hist
    cal = calibrate_pmw(config, (n,))
    value = _pmw_run(answers, wl.points, cal, as_generator(rng), reps=1)[0]
    notes = (Note("info", f"T = {cal.params['rounds']} rounds, each ρ/T = {cal.params['rho_per_round']:.3g}-zCDP."),)
    return Release(mechanism="query_release/pmw", value=value, cost=cal.cost(1), calibration=cal, notes=notes,
                   config=config)

"""The best adversary's ROC for a round's setting (see :mod:`dpcore.classroom.scenarios` for the derivation).

Exact (closed form) for the Laplace and Gaussian location pairs; otherwise the threshold test on a 1-D
statistic estimated from :data:`~dpcore.classroom.scenarios.ROC_DRAWS` draws of each side, at a fixed public
seed (the curve is a property of the public mechanism, not of any class's secret coins). Points of the
estimated curve are joined by straight lines: between two thresholds, a coin-flip between the two tests.
"""
from __future__ import annotations

import functools

import numpy as np
from scipy import stats

from .scenarios import _LOCATION, ROC_DRAWS, Roc, Setting, scenario

__all__ = ["best_roc", "noise_scale", "empirical_roc", "thin", "ROC_SEED", "MAX_POINTS"]

#: Public seed of the estimated curves.
ROC_SEED = 20261128


def noise_scale(setting: Setting) -> float:
    """The noise scale (Laplace b or Gaussian σ) the round's mechanism uses: the registry's calibration at the
    round's (ε, δ), with the mutant's override when it plays."""
    from .. import registry
    a = setting.audit
    spec = registry.mechanism(a.mechanism)
    fields = {"epsilon": setting.epsilon, "sensitivity": 1.0}
    if "delta" in spec.budget:
        fields["delta"] = setting.delta
    cal = spec.calibrate(spec.config(**fields), (1,))
    if setting.mutant:
        cal = a.mutant.override(cal)
    return float(cal.constant)


def _alpha_grid() -> np.ndarray:
    from ..privacy.tradeoff import ALPHA_GRID
    return np.concatenate([[0.0], ALPHA_GRID])


def _location_roc(setting: Setting, family: str) -> Roc:
    a, sc = setting.audit, scenario(setting.scenario)
    mu_in = float(np.asarray(a.datasets[sc.in_index]).reshape(-1)[0])
    mu_out = float(np.asarray(a.datasets[1 - sc.in_index]).reshape(-1)[0])
    sign = 1.0 if mu_in >= mu_out else -1.0       # say "in" for outputs beyond a threshold on the in side
    law = stats.laplace if family == "laplace" else stats.norm
    s = noise_scale(setting)
    alpha = _alpha_grid()
    t = law.isf(alpha, loc=sign * mu_out, scale=s)
    tpr = law.sf(t, loc=sign * mu_in, scale=s)
    name = "Laplace" if family == "laplace" else "Gaussian"
    return Roc(alpha, np.clip(tpr, 0.0, 1.0), f"best possible adversary (exact, {name} scale {s:.3g})", True)


def empirical_roc(s_in: np.ndarray, s_out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of the tests "say in when the statistic ≥ t" over every threshold t, from (0, 0) to (1, 1).
    NaN (⊥) counts as the lowest value."""
    s_in = np.nan_to_num(np.asarray(s_in, float), nan=-np.inf)
    s_out = np.nan_to_num(np.asarray(s_out, float), nan=-np.inf)
    t = np.unique(np.concatenate([s_in, s_out]))[::-1]
    tpr = 1.0 - np.searchsorted(np.sort(s_in), t, side="left") / len(s_in)
    fpr = 1.0 - np.searchsorted(np.sort(s_out), t, side="left") / len(s_out)
    return np.concatenate([[0.0], fpr, [1.0]]), np.concatenate([[0.0], tpr, [1.0]])


#: Most points an estimated curve keeps (the figure is sent to every dashboard refresh).
MAX_POINTS = 600


def thin(fpr: np.ndarray, tpr: np.ndarray, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """The ROC on at most ``max_points`` false-positive rates: at each FPR the highest TPR (the upper end of a
    vertical step), then linear interpolation on a grid dense near 0 — a curve with few vertices (discrete
    outputs) is returned whole."""
    u, first = np.unique(np.asarray(fpr)[::-1], return_index=True)
    top = np.asarray(tpr)[::-1][first]                      # last occurrence of each FPR = its highest TPR
    if len(u) <= max_points:
        return u, top
    grid = np.unique(np.concatenate([[0.0, 1.0], np.geomspace(1e-4, 1.0, max_points - 2)]))
    return grid, np.interp(grid, u, top)


def _estimated_roc(setting: Setting) -> Roc:
    a, sc = setting.audit, scenario(setting.scenario)
    g_in, g_out = np.random.default_rng(ROC_SEED).spawn(2)
    override = a.mutant.override if setting.mutant else None
    kw = dict(epsilon=setting.epsilon, delta=setting.delta, override=override)
    out_in = a.sampler(a.datasets[sc.in_index], ROC_DRAWS, g_in, **kw)
    out_out = a.sampler(a.datasets[1 - sc.in_index], ROC_DRAWS, g_out, **kw)
    if sc.statistic is not None:
        stat = sc.statistic
    else:
        stat = a.project or (lambda o: np.asarray(o, dtype=float).reshape(len(o), -1)[:, 0])
    s_in, s_out = np.asarray(stat(out_in), float), np.asarray(stat(out_out), float)
    fpr, tpr = empirical_roc(s_in, s_out)
    if np.trapezoid(tpr, fpr) < 0.5 and sc.statistic is None:    # orient the projection towards "in"
        fpr, tpr = empirical_roc(-s_in, -s_out)
    draws = f"{ROC_DRAWS:,}".replace(",", " ")
    if sc.statistic_is_best:
        label = f"best possible adversary (likelihood-ratio test, estimated from {draws} draws each)"
    else:
        label = f"threshold test on {a.output_label} (estimated from {draws} draws each; not proven best)"
    return Roc(*thin(fpr, tpr), label, False)


@functools.lru_cache(maxsize=32)
def best_roc(setting: Setting) -> Roc:
    """The best adversary's ROC for ``setting`` (exact for location pairs, else estimated; the label says which).
    Cached per setting (a pure function of public inputs; the estimate's seed is fixed)."""
    family = _LOCATION.get(setting.audit_id)
    return _location_roc(setting, family) if family else _estimated_roc(setting)

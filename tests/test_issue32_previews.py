"""Issue 32 §1: previews that hold on real designs.

The regression previews simulate on a public design the user shapes (default: x uniform on the declared box) and
carry their spread over several public designs in the box; each family is tested here against releases on a
NON-uniform design (x normal, sd = 1/10 of the box, the "narrow" design; the preview computed for it), with the
Kolmogorov/DKW tolerance of tests/test_preview.py plus a stated allowance for the design's own draw (the preview
and the releases see two different draws of x). The thresholded histogram's preview is its whole ℓ1 error
(suppressed occupied cells included), tested against releases on tables of its public count design. "Check the
preview" (dpcore.preview_check) runs releases on a simulated twin: its counts fall in the chance range for the
true preview and outside it for a wrong one.
"""
import dataclasses
import math

import numpy as np
import pytest

from dpcore import histograms as H
from dpcore import kng
from dpcore import preview as PV
from dpcore import preview_check as PC
from dpcore.kng import _preview as KP
from tests.test_preview import _kolmogorov, _tolerance

#: Allowance for the design's own draw: the preview's x and the releases' x are two draws of the same public
#: design (measured: Kolmogorov distance up to ≈ 0.05 between the laws on two draws at n = 400).
DESIGN_ALLOWANCE = 0.08
BOX, Y_BOX = ((10.0, 60.0),), (0.0, 400.0)          # diabetes' bmi and target bounds: x far from 0, one-sided


def _reg_cfg(problem, mechanism, eps=1.0, **kw):
    extra = {"tau": 0.5} if problem == "quantile_regression" else {}
    return kng.make(problem, mechanism=mechanism, epsilon=eps, x_bound=[1.0, 60.0], y_bound=400.0, B=3.0, **extra,
                    **kw)


def _release_errors(cfg, design, m, seed):
    big = dataclasses.replace(cfg, size=m)
    rel = kng.release_for(big)(design, big, rng=seed)
    ok = np.isfinite(rel.value).all(axis=1)
    return np.abs(rel.value[ok] - kng.nonprivate_estimate(design, cfg)).max(axis=1)


@pytest.mark.stat
@pytest.mark.parametrize("mechanism", ["kng", "exponential", "objective_perturbation"])
def test_issue32_1_linear_regression_preview_holds_on_a_nonuniform_design(mechanism):
    n, m = 400, 600
    cfg = _reg_cfg("linear_regression", mechanism)
    law = PV.preview(f"kng/linear_regression-{mechanism}", cfg, n=n, d=2, reps=1500, rng=7, box=BOX, y_box=Y_BOX,
                     design="narrow")
    assert "sd = 1/10" in law.basis and len(law.spread) >= 4
    X, y = KP.regression_design(cfg, n, 2, 99, True, design="narrow", box=BOX, y_box=Y_BOX)   # another draw
    errs = _release_errors(cfg, (X, y), m, 17)
    tol = _tolerance(law, len(errs)) + DESIGN_ALLOWANCE
    assert _kolmogorov(law, errs) <= tol, (_kolmogorov(law, errs), tol)
    lo50, hi50 = PC.spread_range(law)[:2]
    assert lo50 * 0.8 <= np.median(errs) <= hi50 * 1.2          # inside the spread shown, at ±20 %
    uniform = PV.preview(f"kng/linear_regression-{mechanism}", cfg, n=n, d=2, reps=1500, rng=7)   # the old preview
    assert _kolmogorov(uniform, errs) > tol


@pytest.mark.stat
def test_issue32_1_median_regression_preview_holds_on_a_nonuniform_design(monkeypatch):
    monkeypatch.setattr(KP, "MCMC_PREVIEW_WORK", 2e8)
    n, m = 150, 300
    cfg = _reg_cfg("quantile_regression", "kng", n_sweeps=500)
    law = PV.preview("kng/quantile_regression-kng", cfg, n=n, d=2, reps=m, rng=7, box=BOX, y_box=Y_BOX,
                     design="skewed")
    assert law.available and "Beta(2, 5)" in law.basis and len(law.spread) >= 3
    X, y = KP.regression_design(cfg, n, 2, 7, True, design="skewed", box=BOX, y_box=Y_BOX)   # the preview's x
    errs = _release_errors(cfg, (X, y), m, 17)
    tol = _tolerance(law, len(errs))
    assert _kolmogorov(law, errs) <= tol, (_kolmogorov(law, errs), tol)
    uniform = PV.preview("kng/quantile_regression-kng", cfg, n=n, d=2, reps=m, rng=7)
    assert _kolmogorov(uniform, errs) > tol


def test_issue32_1_regression_preview_is_a_function_of_public_inputs_and_shows_its_spread():
    cfg = _reg_cfg("linear_regression", "kng")
    a = PV.preview("kng/linear_regression-kng", cfg, n=300, d=2, box=BOX, y_box=Y_BOX, reps=200)
    b = PV.preview("kng/linear_regression-kng", cfg, n=300, d=2, box=BOX, y_box=Y_BOX, reps=200)
    assert a.intervals() == b.intervals()                             # seeded: the same on any dataset
    names = [name for name, _ in a.spread]
    assert names[0].startswith("x uniform on the declared bounds") and len(names) == 4
    lo50, hi50, hi90, *_ = PC.spread_range(a)
    assert lo50 < hi50 <= hi90
    assert f"median error is {lo50:.3g} to {hi50:.3g}" in a.describe()
    with pytest.raises(ValueError, match="design"):
        PV.preview("kng/linear_regression-kng", cfg, n=300, d=2, design="data")
    three = dataclasses.replace(cfg, x_bound=[1.0, 60.0, 5.0])
    c = PV.preview("kng/linear_regression-kng", three, n=300, d=3, box=BOX + ((0.0, 5.0),), y_box=Y_BOX, reps=100,
                   design="correlated", rho=0.9)
    assert "ρ = 0.9" in c.basis and any("ρ = 0.9" in name for name, _ in c.spread)


def test_issue32_1_will_most_likely_abstain_only_when_every_design_withheld():
    withheld = PV.unavailable("m", "M", "it withheld its output (⊥) in all 100 simulated releases (x): at these "
                                       "settings it will most likely abstain")
    released = PV.from_samples(np.arange(1.0, 11.0), "m", "M", "|e|", "simulated: on design B")
    mixed = PC.over_designs([("A", withheld), ("B", released)])
    assert mixed.available and "most likely abstain" not in mixed.describe()
    assert "every draw on the design 'A' was withheld" in mixed.describe()
    assert "withheld (⊥) with probability 0 to 1" in mixed.describe()
    every = PC.over_designs([("A", withheld), ("B", withheld)])
    assert not every.available and "every one of 2 public designs" in every.reason
    assert "will most likely abstain" in every.reason


@pytest.mark.stat
def test_issue32_1_threshold_preview_is_its_whole_l1_error_on_its_count_design():
    p, n, q, eps = 4096, 2000, 150, 1.0
    cfg = H.ThresholdConfig(eps, p, noise="laplace")
    law = PV.preview("histograms/threshold", cfg, n=n, q=q)
    lap = PV.preview("histograms/laplace", cfg, n=n)
    assert law.measure == lap.measure == "ℓ1 over all p cells (records)"
    assert "q = 150" in law.basis and len(law.spread) >= 3
    g = np.random.default_rng(23)
    errs = []
    for s in g.spawn(600):      # one release per table of the public count design (as the preview averages)
        table = H.sparse_table(p, q, n, rng=s.spawn(1)[0])
        rel = H.laplace_and_threshold_release(table, dataclasses.replace(cfg, sampler="dense"), rng=s)
        errs.append(np.abs(rel.value.threshold.to_dense() - table.to_dense()).sum())
    errs = np.asarray(errs)
    tol = _tolerance(law, len(errs))
    assert _kolmogorov(law, errs) <= tol, (_kolmogorov(law, errs), tol)
    empty_only = PV.threshold_l1(p, 2 / eps, (2 / eps) * math.log(p), rng=1)          # the old preview
    assert _kolmogorov(empty_only, errs) > tol
    assert float(np.median(errs)) > 10 * float(empty_only.quantile(0.5) + 1)


def _within_counts(check, level):
    return round(check.within(level) * len(check.errors))


def test_issue32_1_check_the_preview_agrees_with_an_honest_preview_and_flags_a_wrong_one():
    cfg = _reg_cfg("linear_regression", "kng")
    public = dict(n=400, d=2, box=BOX, y_box=Y_BOX, design="concentrated")
    check = PC.check_preview("kng/linear_regression-kng", cfg, reps=100, rng=np.random.SeedSequence([1, 0]), **public)
    assert check.reps == 100 and len(check.errors) + check.withheld == 100 and "drawn afresh" in check.twin
    for lv in (0.5, 0.9):
        lo, hi = check.chance_range(lv)
        assert lo <= _within_counts(check, lv) <= hi, (lv, _within_counts(check, lv), (lo, hi))
    wrong = PV.preview("kng/linear_regression-kng", dataclasses.replace(cfg, epsilon=3.0), **public)
    bad = PC.check_preview("kng/linear_regression-kng", cfg, reps=100, rng=np.random.SeedSequence([1, 0]), law=wrong,
                           **public)
    lo, hi = bad.chance_range(0.5)
    assert not lo <= _within_counts(bad, 0.5) <= hi
    assert "within the preview's 50 % error" in check.describe()
    hist = PC.check_preview("histograms/threshold", H.ThresholdConfig(1.0, 1024), n=500, reps=40, rng=3)
    assert len(hist.errors) == 40 and "tables drawn afresh" in hist.twin
    with pytest.raises(ValueError, match="no simulated twin"):
        PC.check_preview("lasso/frank-wolfe", None, n=10, rng=1)

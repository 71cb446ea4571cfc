"""AppTest of pages/eigenvalues.py: defaults (simulated data, release shown, not charged), ε changes the
output, ⊥ on a small n, the built-in breast-cancer data, user data is charged on click, simulations."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import assert_ok as _ok, page_runner, ledger as _ledger

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "eigenvalues.py")
_run = page_runner("eigenvalues.py")

pytestmark = pytest.mark.app


def _texts(at):
    return [m.value for m in at.success] + [m.value for m in at.warning] + [c.value for c in at.caption]


def test_defaults_release_on_simulated_data_and_epsilon_changes_it():
    at = _run()
    assert any("Released" in s.value for s in at.success)
    first = at.success[0].value
    assert _ledger(at).totals().n_releases == 0            # simulated: not charged
    assert any("NOT PRIVATE" in m.value.upper() for m in at.markdown)
    at.session_state["sp_eps_typed"] = 4.0
    at.run()
    _ok(at)
    assert at.success and at.success[0].value != first
    assert len(at.get("plotly_chart")) >= 2                # release figure + certified bounds vs n


def test_small_n_abstains_with_the_reason():
    at = _run(sp_n=500)
    assert any("⊥" in w.value and r"\(C1\)" in w.value for w in at.warning)   # notes are shown literally


def test_breast_cancer_builtin():
    at = _run(sp_source="Breast cancer (built-in, logistic)")
    assert not any("⊥" in w.value for w in at.warning)      # built-in real data: a release needs a click
    at.button(key="sp_go").click().run()
    _ok(at)
    assert any("⊥" in w.value for w in at.warning)          # n = 569, d = 31: nothing certifies (stated)
    at.session_state["sp_rho"] = 1.0
    at.session_state["sp_eps_typed"] = 1e6
    at.run()
    _ok(at)
    # built-in data: recorded with its cost, never counted as DP (the seed is known)
    assert _ledger(at).totals().n_releases == 0


def test_user_data_needs_a_click_and_is_charged():
    from dpcore.data import Dataset
    import ui
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, (3000, 2))
    y = np.where(g.random(3000) < 1 / (1 + np.exp(-X @ [2.0, -1.0])), 1.0, -1.0)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "label": y})
    ds = Dataset(frame, ("a", "b", "label"), {"a": (-1, 1), "b": (-1, 1), "label": (-1, 1)}, "test upload",
                 name="upload")
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state["sp_source"] = "Dataset from the Data page"
    at.run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 0
    assert any("press" in i.value for i in at.info)
    at.button(key="sp_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1
    assert at.success or any("⊥" in w.value for w in at.warning)


def test_bad_input_is_a_clear_error_not_a_traceback():
    src = "Breast cancer (built-in, logistic)"
    at = _run(sp_source=src, **{f"sp_y_{src}": "mean radius"})       # a non-binary response for logistic
    assert any("binary" in e.value for e in at.error)
    assert not at.button                                    # refused before a Release button is offered


def test_simulation_tabs_run():
    at = _run()
    at.button(key="sp_run_n").click().run()
    _ok(at)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) >= 3


# -- issue 20 item 2: certified bounds on a real table ---------------------------------------------------
DIAB = "Diabetes (built-in, robust regression)"


def _independent_diabetes_fit():
    """Robust regression of target on sex (+ intercept) on scikit-learn's raw diabetes data, mapped onto [−1, 1]
    by the declared bounds (sex [1, 2], target [0, 400]), fitted here with scipy (not dpcore): θ̂ and λ_min(H)."""
    from scipy.optimize import minimize
    from sklearn.datasets import load_diabetes
    raw = load_diabetes(scaled=False, as_frame=True).frame
    X = np.column_stack([np.ones(len(raw)), (raw["sex"].to_numpy() - 1.5) / 0.5])
    y = (raw["target"].to_numpy() - 200.0) / 200.0

    def f(th):
        t = X @ th - y
        return np.mean(np.abs(t) + 2 * np.log1p(np.exp(-np.abs(t)))), X.T @ np.tanh(t / 2) / len(y)
    th = minimize(f, np.zeros(2), jac=True, method="BFGS", options={"gtol": 1e-12}).x
    w = 0.5 / np.cosh((X @ th - y) / 2) ** 2
    return th, float(np.linalg.eigvalsh((X * w[:, None]).T @ X / len(y))[0])


def _lam_hat(at) -> float:
    import re
    for t in _texts(at):
        t = re.sub(r"\\(.)", r"\1", t)            # as read: the Markdown escapes of dpcore.data.literal removed
        m = re.search(r"λ̂ = ([0-9.eE+-]+)", t)
        if m:
            return float(m.group(1))
    raise AssertionError("no λ̂ on the page")


def test_diabetes_certifies_at_a_huge_epsilon_below_the_true_lambda_min():
    """Issue 20 item 2. Diabetes (n = 442), target on sex with an intercept, hypercube, ρ = 0, ε = 1000: the
    closed forms say n ≥ 167 suffices, and the page certifies and releases. Before: no such source, and on the
    same columns via the Data page λ_min ≈ 0 (raw-unit residuals ~100 leave h'' ≈ 0): ⊥."""
    at = _run(sp_source=DIAB, sp_eps_typed=1000.0, sp_rho=0.0, sp_geometry="hypercube",
              **{f"sp_x_{DIAB}_target": ["sex"], f"sp_coord_{DIAB}_2": 1})
    at.button(key="sp_go").click().run()
    _ok(at)
    assert any("Released" in s.value for s in at.success), _texts(at)
    theta, lam_true = _independent_diabetes_fit()
    lam_hat = _lam_hat(at)
    assert 0 < lam_hat <= lam_true and lam_hat > 0.9 * lam_true          # measured: λ_min = 0.451
    # the slope in the columns' units (target points per unit of sex) is the non-private one at ε = 1000
    import re
    unit = next(float(re.search(r"⟨v, θ⟩ = ([0-9.eE+-]+)", c.value).group(1)) for c in at.caption
                if c.value.startswith("In the columns' units"))
    assert unit == pytest.approx(theta[1] * 200 / 0.5, abs=0.5)
    assert any("mapped the same way" in c.value for c in at.caption)    # the response scaling is said


def test_diabetes_upload_at_epsilon_one_is_charged_and_says_what_would_certify():
    """Issue 20 item 2 at ε = 1 on the same table uploaded as a user's data: ⊥ (the closed forms need about
    4 900 rows for λ_min ≈ 0.45, κ ≈ 1.14), charged, and the public panel gives that n and the smallest λ_min
    certifiable at n = 442. Before: a bare "n is too small"."""
    from dpcore.data import Dataset
    from dpcore.data.builtin import builtin_dataset
    from dpcore.single_parameter import FunctionalConfig, min_lambda_to_certify, n_to_certify
    import ui
    b = builtin_dataset("diabetes")
    ds = Dataset(b.frame, b.numeric_columns, b.bounds, "diabetes.csv (uploaded)", name="diabetes.csv")
    src = "Dataset from the Data page"
    at = AppTest.from_file(PAGE, default_timeout=90)
    for k, v in {ui.DATASET_KEY: ds, "sp_source": src, f"sp_loss_{src}": "robust", "sp_rho": 0.0,
                 f"sp_x_{src}_target": ["sex"], "sp_assume_lam": 0.45, "sp_assume_Lam": 0.52}.items():
        at.session_state[k] = v
    at.run()
    _ok(at)
    at.button(key="sp_go").click().run()
    _ok(at)
    assert _ledger(at).totals().n_releases == 1                         # booked, ε = 1
    assert any("⊥" in w.value for w in at.warning)
    cfg = FunctionalConfig(epsilon=1.0, delta=1e-5, geometry="hypercube", rho=0.0)
    need = n_to_certify(cfg, 2, 0.45, 0.52)
    assert 3000 < need < 8000
    md = " ".join(m.value for m in at.markdown)
    assert f"from **n = {need:,}** rows" in md, md
    assert "at this n = 442, no λ_min ≤ λ_max = 0.52 passes" in md             # even κ = 1 needs more rows at ε = 1
    assert min_lambda_to_certify(cfg, 442, 2, 0.52) is None


def test_coverage_study_with_no_n_is_a_clear_error():
    # issue 18 widget sweep (CI tier): the "n" multiselect emptied crashed the page
    at = _run(sp_n=500, sp_d=2)
    at.multiselect(key="sp_cov_ns").set_value([])
    at.run()
    _ok(at)
    assert any("at least one n" in e.value for e in at.error), [e.value for e in at.error]

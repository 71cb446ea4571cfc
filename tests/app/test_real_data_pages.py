"""Issue 20 item 6: every topic on a real table that ships inside scikit-learn, uploaded as a user's data (kind
"user": charged, budgeted), through the page's own release path — at ε = 1 (released, its cost booked in the
ledger and in the dataset's budget) and at a huge ε (the release close to the non-private answer computed here
independently with numpy / scikit-learn). Certified bounds have theirs in test_eigenvalues_page.py
(test_diabetes_certifies_at_a_huge_epsilon_below_the_true_lambda_min, test_diabetes_upload_at_epsilon_one_...).

Public bounds: the built-in examples' (domain knowledge, dpcore/data/builtin.py), never the data's range.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import PAGES, assert_ok, charts, ledger

pytestmark = pytest.mark.app

HUGE = 1e6
MINE = "Dataset from the Data page"


def _upload(name: str):
    """The built-in table ``name`` as a user's upload, with the built-in public bounds."""
    from dpcore.data import Dataset, builtin_dataset

    b = builtin_dataset(name)
    return Dataset(b.frame.reset_index(drop=True), b.numeric_columns, dict(b.bounds), f"upload of {name}.csv",
                   name=f"{name}.csv")


def _release(page: str, ds, button: str, *, budget: float | None = None, **state) -> AppTest:
    """Run ``page`` on the upload ``ds`` with ``state``; with ``budget``, first set the dataset's total ε (a huge
    ε needs one); press ``button``; check it released and booked its cost."""
    from dpcore import privacy as P
    import ui

    at = AppTest.from_file(str(PAGES / page), default_timeout=120)
    at.session_state[ui.DATASET_KEY] = ds
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert_ok(at)
    session = at.session_state[ui.SESSION_KEY]
    acct = session.account(session.identity(ds))
    if budget is not None:      # an account from the workspace is a snapshot: its total is set through the session
        session.set_budget(acct.fingerprint, P.Budget(budget, 1e-6, n=ds.n_rows))
        at.run()
    assert ledger(at).totals().n_releases == 0
    at.button(key=button).click().run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    totals = ledger(at).totals()
    assert totals.n_releases == 1                                          # booked in the ledger, counted as DP
    spent = at.session_state[ui.SESSION_KEY].account(acct.fingerprint).spent()[0]       # a fresh read of the budget
    assert spent > 0                                                                    # and in the budget:
    if totals.basic_rho:   # a zCDP release, charged its (ε, δ) conversion by the (ε, δ) budget (issue 33)
        assert totals.basic_epsilon == 0 and totals.basic_rho > 0
    else:
        assert spent == pytest.approx(totals.basic_epsilon)
    return at


# ----------------------------------------------------------------------------------- KNG: a mean
def _kng_value(at) -> float:
    return float(at.dataframe[0].value.to_numpy().ravel()[0])


@pytest.mark.parametrize("eps", [1.0, HUGE])
def test_kng_mean_of_wine_alcohol(eps):
    ds = _upload("wine")
    at = _release("kng.py", ds, "kng_go", budget=2 * eps, kng_source=MINE, kng_problem="mean", kng_cols=["alcohol"],
                  kng_view="Release", kng_mechs_r=["kng"], kng_eps_typed=eps)
    assert ledger(at).totals().basic_epsilon == pytest.approx(eps)
    value, truth = _kng_value(at), float(ds.frame["alcohol"].mean())
    if eps == HUGE:
        assert value == pytest.approx(truth, abs=1e-3)                   # 13.00 % vol.
    else:
        assert 8.0 <= value <= 16.0                                      # inside the public bounds


# ----------------------------------------------------------------------------------- histograms
@pytest.mark.parametrize("eps", [1.0, HUGE])
def test_histogram_of_wine_cultivars(eps):
    ds = _upload("wine")
    at = _release("histograms.py", ds, "h_go", budget=2 * eps, h_source=MINE, h_cols=["target"], h_eps_typed=eps)
    table = at.dataframe[0].value
    assert list(table["target"]) == ["0", "1", "2"]                      # one cell per cultivar code
    truth = np.bincount(ds.frame["target"].astype(int), minlength=3)    # 59, 71, 48
    if eps == HUGE:
        np.testing.assert_allclose(table["Laplace (released)"], truth, atol=0.01)
        np.testing.assert_allclose(table["thresholded (released)"], truth, atol=0.01)
    else:
        assert np.abs(table["Laplace (released)"].to_numpy() - truth).max() < 40   # Laplace(2): |noise| < 40 w.p. 1 − 1e-8


# ----------------------------------------------------------------------------------- density
def _independent_kde(x: np.ndarray, lo: float, hi: float, h_unit: float, grid: np.ndarray) -> np.ndarray:
    """A Gaussian KDE written here (numpy), in the column's units: the data and h rescaled by the public bounds."""
    u, g = (x - lo) / (hi - lo), (grid - lo) / (hi - lo)
    k = np.exp(-0.5 * ((g[:, None] - u[None, :]) / h_unit) ** 2) / (h_unit * np.sqrt(2 * np.pi))
    return k.mean(axis=1) / (hi - lo)


@pytest.mark.parametrize("eps", [1.0, HUGE])
def test_density_of_wine_alcohol(eps):
    ds = _upload("wine")
    lo, hi = ds.bounds["alcohol"]
    at = _release("density.py", ds, "dn_go", budget=2 * eps, dn_source=MINE, dn_methods_user=["gp"], dn_h=0.05,
                  dn_eps_typed=eps, **{f"dn_cols_{MINE}": ["alcohol"]})
    fig = charts(at)[0]
    trace = next(t for t in fig["data"] if t.get("mode") == "lines")
    x, y = (np.asarray(v if not isinstance(v, dict) else np.frombuffer(
        __import__("base64").b64decode(v["bdata"]), dtype=v["dtype"]), dtype=float) for v in (trace["x"], trace["y"]))
    assert lo <= x.min() and x.max() <= hi                               # % vol., not [0, 1]
    ref = _independent_kde(ds.frame["alcohol"].to_numpy(float), lo, hi, 0.05, x)
    inner = (x > lo + 0.15 * (hi - lo)) & (x < hi - 0.15 * (hi - lo))   # away from the boundary treatment
    err = np.abs(y - ref)[inner].max() / ref.max()
    if eps == HUGE:
        assert err < 0.02                                                # measured ≈ 1e-3
    else:
        assert err > 0.02                                                # ε = 1 on 178 rows: visibly noisy


# ----------------------------------------------------------------------------------- query release
@pytest.mark.parametrize("rho", [0.02, 100.0])
def test_query_release_marginals_of_wine(rho):
    """ρ-zCDP: ρ = 0.02 costs ε ≈ 1.2 at δ = 1e-6 (booked); ρ = 100 (the widget's largest) is the huge-ε case."""
    ds = _upload("wine")
    state = dict(qr_nmax=100, qr_reps=2, qr_cols=["alcohol", "proline"], qr_t_alcohol=13.0, qr_t_proline=750.0,
                 qr_rw=2, qr_rm="gaussian", qr_rrho=rho)
    at = _release("query_release.py", ds, "qr_go", budget=1e4, **state)
    frame = next(d.value for d in at.dataframe if "released answer" in d.value.columns)
    a, p = ds.frame["alcohol"].to_numpy() > 13.0, ds.frame["proline"].to_numpy() > 750.0
    from dpcore.query_release import marginal_labels
    labels = marginal_labels(["alcohol", "proline"], 2)
    bits = {"alcohol": a, "proline": p}

    def truth(label: str) -> float:
        mask = np.ones(len(a), bool)
        for part in label.split(","):
            col, v = part.split("=")
            mask &= bits[col] == (v == "1")
        return float(mask.mean())
    expected = np.array([truth(lbl) for lbl in labels])
    assert list(frame["query"]) == labels
    err = np.abs(frame["released answer"].to_numpy() - expected).max()
    if rho == 100.0:
        assert err < 0.01
    else:
        assert err < 0.5 and ledger(at).totals().n_releases == 1


# ----------------------------------------------------------------------------------- LASSO
@pytest.mark.parametrize("eps", [1.0, HUGE])
def test_lasso_with_intercept_on_diabetes(eps):
    """The intercept LASSO on the diabetes upload: at a huge ε the non-zero released coefficients have the signs of
    scikit-learn's intercept Lasso on the same bounds (the same ℓ1 radius, equivalent α), fitted here."""
    from sklearn.linear_model import Lasso

    from dpcore import lasso
    ds = _upload("diabetes")
    at = _release("lasso.py", ds, "lasso_go", budget=2 * eps, lasso_source=MINE, lasso_eps_typed=eps,
                  lasso_intercept=True, lasso_steps_rule="set T", lasso_T=2000)
    released = at.dataframe[0].value
    coef = released.filter(like="units of").iloc[1:, 0].to_numpy(float)
    x_cols = [c for c in ds.numeric_columns if c != "target"]
    design = lasso.prepare_design(ds, "target", x_cols)                   # public maps into [−1, 1]
    X, y = design.X - design.X.mean(axis=0), design.y - design.y.mean()
    theta = lasso.constrained_optimum(X, y, 1.0, tol=1e-10).theta
    alpha = float(np.abs(X.T @ (X @ theta - y)).max()) / len(y)         # KKT: sklearn's equivalent penalty
    sk = Lasso(alpha=alpha, fit_intercept=True, tol=1e-10, max_iter=50_000).fit(design.X, design.y).coef_
    if eps == HUGE:
        big = np.abs(sk) > 0.05 * np.abs(sk).max()
        assert big.sum() >= 2 and (np.sign(coef[big]) == np.sign(sk[big])).all(), (coef, sk)
    else:
        assert np.isfinite(coef).all()
    assert isinstance(released, pd.DataFrame)

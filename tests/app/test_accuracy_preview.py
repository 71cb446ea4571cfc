"""Issue 22, accuracy before the click, at page level: on every releasing page, with a user's upload and
before any click, the preview (turned on) draws the error law of each selected mechanism; the picture is
the SAME on neighbouring uploads (same n and bounds, one record changed — the public-surface contract:
the preview is computed from public settings only) and it moves when ε moves."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pagetest import PAGES, assert_ok

pytestmark = pytest.mark.app

TITLE = "Expected error of one release"


def _dataset(frame: pd.DataFrame, bounds: dict, numeric=None):
    from dpcore.data import Dataset

    return Dataset(frame, tuple(numeric or frame.columns), bounds, "test upload", name="upload")


def _preview(at: AppTest) -> tuple[dict, list[str]]:
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    mine = [c for c in charts if TITLE in json.dumps(c.get("layout", {}).get("title", ""), ensure_ascii=False)]
    assert len(mine) == 1, [c.get("layout", {}).get("title") for c in charts]
    captions = [c.value for c in at.caption if "half of the time" in c.value or "no preview" in c.value]
    assert captions
    return mine[0], captions


def _run(page: str, ds, key: str, eps_key: str, eps: float, **state) -> AppTest:
    import ui

    at = AppTest.from_file(str(PAGES / page), default_timeout=180)
    at.session_state[ui.DATASET_KEY] = ds
    at.session_state[f"{key}_accuracy_preview_on"] = True
    at.session_state[eps_key] = eps
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert_ok(at)
    return at


def _kng_frame(n=80, seed=0):
    g = np.random.default_rng(seed)
    return pd.DataFrame({"age": g.uniform(20, 60, n), "income": g.uniform(0, 50, n)})


def _eigen_frame(n=5000, seed=0):
    g = np.random.default_rng(seed)
    Z = g.standard_normal((n, 3))
    X = 0.99 * Z / np.linalg.norm(Z, axis=1)[:, None]
    y = np.clip(X @ np.array([1.0, -0.5, 0.5]) + 0.3 * g.standard_t(3, n), -4, 4)
    return pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "x3": X[:, 2], "y": y})


def _lasso_frame(n=300, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-2, 2, (n, 3))
    return pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2],
                         "resp": np.clip(0.5 * X[:, 0] + 0.1 * g.standard_normal(n), -3, 3)})


def _qr_frame(n=200, seed=0):
    g = np.random.default_rng(seed)
    return pd.DataFrame({"age": g.uniform(20, 60, n), "colour": g.choice(["red", "blue"], n)})


CASES = {
    "kng": ("kng.py", lambda f: _dataset(f, {"age": (0.0, 100.0), "income": (0.0, 50.0)}), _kng_frame, "age",
            "kng", "kng_eps_typed",
            dict(kng_source="Dataset from the Data page", kng_view="Release", kng_problem="median",
                 kng_mechs_r=["kng", "exponential"], kng_cols=["age"])),
    "histograms": ("histograms.py", lambda f: _dataset(f, {"age": (0.0, 100.0)}), _kng_frame, "age", "h", "h_eps_typed",
                   dict(h_source="Dataset from the Data page", h_cols=["age"])),
    "density": ("density.py", lambda f: _dataset(f, {"age": (0.0, 100.0), "income": (0.0, 50.0)}), _kng_frame, "age",
                "dn", "dn_eps_typed", dict(dn_source="Dataset from the Data page",
                                           dn_methods_user=["gp", "fourier-laplace"])),
    "query_release": ("query_release.py", lambda f: _dataset(f, {"age": (0.0, 100.0)}, ("age",)), _qr_frame, "age",
                      "qr", "qr_rrho", dict(qr_nmax=100, qr_reps=2, qr_cols=["age", "colour"], qr_t_age=40.0,
                                            qr_c_colour="red", qr_rm="gaussian")),
    "lasso": ("lasso.py", lambda f: _dataset(f, {"a": (-2, 2), "b": (-2, 2), "c": (-2, 2), "resp": (-3, 3)}),
              _lasso_frame, "resp", "lasso", "lasso_eps_typed", dict(lasso_source="Dataset from the Data page")),
    "eigenvalues": ("eigenvalues.py", lambda f: _dataset(f, {"x1": (-1, 1), "x2": (-1, 1), "x3": (-1, 1), "y": (-4, 4)}),
                    _eigen_frame, "y", "sp", "sp_eps_typed",
                    dict(sp_source="Dataset from the Data page", sp_geometry="l2-ball", sp_intercept=False,
                         sp_rho=0.0, **{"sp_loss_Dataset from the Data page": "robust"})),
}


@pytest.mark.parametrize("page", list(CASES))
def test_preview_is_the_same_on_neighbouring_uploads_and_follows_epsilon(page):
    file, make, frame, col, key, eps_key, state = CASES[page]
    D = frame()
    Dp = D.copy()
    lo = D[col].min()
    Dp.loc[0, col] = lo - 1e-3 if page != "query_release" else 1e6   # one record changed (far out: clipped)
    eps1, eps2 = {"query_release": (0.5, 0.05), "eigenvalues": (4.0, 2.0)}.get(page, (1.0, 0.1))
    a = _run(file, make(D), key, eps_key, eps1, **state)
    b = _run(file, make(Dp), key, eps_key, eps1, **state)
    fa, ca = _preview(a)
    fb, cb = _preview(b)
    assert fa == fb and ca == cb
    assert not a.get("plotly_chart") or not any("Released" in s.value for s in a.success)   # nothing was released
    c = _run(file, make(D), key, eps_key, eps2, **state)
    fc, cc = _preview(c)
    assert cc != ca, "the preview did not follow ε"

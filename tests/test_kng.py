"""Unit tests of dpcore.kng: constants, gradients and sensitivities (brute force on tiny data),
objectives, the objective-perturbation QP, the non-private estimators, validation and the API."""
import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from dpcore import kng
from dpcore._validation import DPValueError
from dpcore.kng import _api, _exact, _problems, _targets
from dpcore.kng._calibration import ball_to_l2, calibrate, cube_to_norm, sphere_to_norm
from dpcore.norms import norm as knorm
from dpcore.privacy import PrivacyCost

NORMS = ("l1", "l2", "linf")


# ----------------------------------------------------------------------------- constants
def test_calibrated_constants_match_spec():
    eps = 1.3
    c = calibrate("quantile", "kng", eps, d=1, tau=0.9)
    assert c.sensitivity == 1.0 and c.density_constant == pytest.approx(eps / 2)
    c = calibrate("median", "kng", eps, d=1)
    assert c.sensitivity == 2.0 and c.density_constant == pytest.approx(eps / 4)
    c = calibrate("linear_regression", "kng", eps, d=12, norm="linf", B=1.0)
    assert c.sensitivity == pytest.approx(8.0) and c.density_constant == pytest.approx(eps / 16)
    # in front of ‖Σ(y − xᵀθ)x‖∞ = ‖∇ℓ‖∞/2 the calibrated constant is ε/(4(1+B)); the paper prints half
    assert 2 * c.density_constant == pytest.approx(eps / (4 * 2.0))
    p = calibrate("linear_regression", "kng", eps, d=12, norm="linf", B=1.0, constants="paper")
    assert 2 * p.density_constant == pytest.approx(eps / (8 * 2.0)) and p.loose
    e = calibrate("linear_regression", "exponential", eps, d=3, B=0.5)
    assert e.sensitivity == pytest.approx(1.5 ** 2) and e.density_constant == pytest.approx(eps / (2 * 2.25))
    o = calibrate("linear_regression", "objective_perturbation", eps, d=4, B=1.0)
    assert o.gamma == pytest.approx(8 / math.expm1(eps / 2)) and o.density_constant == pytest.approx(eps / 16)
    q = calibrate("quantile_regression", "kng", eps, d=2, tau=0.3, C_X=1.0)
    assert q.sensitivity == pytest.approx(2 * 0.7)
    qe = calibrate("quantile_regression", "exponential", eps, d=2, tau=0.5, B=1.0)
    qp = calibrate("quantile_regression", "exponential", eps, d=2, tau=0.5, B=1.0, constants="paper")
    assert qe.sensitivity == pytest.approx(1.0) and qp.sensitivity == pytest.approx(2.0)
    # Figure 2's paper KNG constant ε/(2·2(1−τ)C_X) equals the calibrated one at τ = 1/2
    assert calibrate("quantile_regression", "kng", eps, d=2, tau=0.5, constants="paper").density_constant == \
        pytest.approx(calibrate("quantile_regression", "kng", eps, d=2, tau=0.5).density_constant)
    m = calibrate("mean", "kng", eps, d=3, radius=2.0)
    assert m.sensitivity == 8.0 and m.density_constant == pytest.approx(eps / 8.0)  # Remark 4.1 on R^d


@pytest.mark.parametrize("problem", ["quantile", "quantile_regression"])
def test_paper_constants_refused_above_half(problem):
    with pytest.raises(DPValueError, match="NOT ε-DP"):
        calibrate(problem, "kng", 1.0, d=2, tau=0.75, constants="paper")
    calibrate(problem, "kng", 1.0, d=2, tau=0.25, constants="paper")  # allowed (over-private)


def test_paper_quantile_is_looser_below_half():
    p = calibrate("quantile", "kng", 1.0, d=1, tau=0.2, constants="paper")
    assert p.sensitivity == pytest.approx(1.6) and p.loose


def test_norm_ratios():
    d = 5
    rng = np.random.default_rng(0)
    corners = rng.choice([-1.0, 1.0], size=(2000, d))
    for nm in NORMS:
        assert knorm(corners, nm).max() == pytest.approx(cube_to_norm(d, nm))
        u = rng.normal(size=(20000, d))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        assert knorm(u, nm).max() <= sphere_to_norm(d, nm) + 1e-12
        v = u / knorm(u, nm)[:, None]
        assert np.linalg.norm(v, axis=1).max() <= ball_to_l2(d, nm) + 1e-12
    assert ball_to_l2(4, "linf") == 2.0 and sphere_to_norm(4, "l1") == 2.0


# ----------------------------------------------------------------------------- sensitivities by brute force
def _grad(problem, data, th, norm="linf", **kw):
    P = _problems.prepare(problem, data, "kng", norm=norm, **kw)
    return P.gradient(np.atleast_2d(th))


def _loss(problem, data, th, norm="linf", **kw):
    P = _problems.prepare(problem, data, "exponential", norm=norm, **kw)
    return P.objective(np.atleast_2d(th))


def test_quantile_and_median_gradient_sensitivity_brute_force():
    vals = [0.0, 0.3, 0.5, 1.0]
    thetas = np.linspace(0.01, 0.99, 23)[:, None]
    worst_q, worst_m = 0.0, 0.0
    for data in itertools.product(vals, repeat=3):
        base = np.array(data)
        for i, v in itertools.product(range(3), vals):
            nb = base.copy()
            nb[i] = v
            for tau in (0.2, 0.5, 0.9):
                gq = _grad("quantile", base, thetas, bounds=(0, 1), tau=tau) - \
                    _grad("quantile", nb, thetas, bounds=(0, 1), tau=tau)
                worst_q = max(worst_q, np.abs(gq).max())
            gm = _grad("median", base, thetas, bounds=(0, 1)) - _grad("median", nb, thetas, bounds=(0, 1))
            worst_m = max(worst_m, np.abs(gm).max())
    assert worst_q == pytest.approx(calibrate("quantile", "kng", 1.0, d=1).sensitivity)   # 1, attained
    assert worst_m == pytest.approx(calibrate("median", "kng", 1.0, d=1).sensitivity)     # 2, attained


@pytest.mark.parametrize("norm", NORMS)
def test_linear_regression_gradient_sensitivity_bound(norm):
    rng = np.random.default_rng(1)
    d, B = 3, 1.0
    X = rng.uniform(-1, 1, (6, d))
    y = rng.uniform(-1, 1, 6)
    delta = calibrate("linear_regression", "kng", 1.0, d=d, norm=norm, B=B).sensitivity
    dl = calibrate("linear_regression", "exponential", 1.0, d=d, norm=norm, B=B).sensitivity
    ths = kng.project_l1_ball(rng.uniform(-1, 1, (400, d)), B)
    worst, worst_l = 0.0, 0.0
    for _ in range(300):
        X2, y2 = X.copy(), y.copy()
        X2[0] = rng.choice([-1.0, 1.0], d) if rng.random() < 0.5 else rng.uniform(-1, 1, d)
        y2[0] = rng.choice([-1.0, 1.0])
        g1 = _grad("linear_regression", (X, y), ths, norm=norm, B=B)
        g2 = _grad("linear_regression", (X2, y2), ths, norm=norm, B=B)
        worst = max(worst, knorm(g1 - g2, norm).max())
        l1 = _loss("linear_regression", (X, y), ths, norm=norm, B=B) + float(y @ y)
        l2 = _loss("linear_regression", (X2, y2), ths, norm=norm, B=B) + float(y2 @ y2)
        worst_l = max(worst_l, np.abs(l1 - l2).max())
    assert worst <= delta + 1e-9 and worst > 0.5 * delta
    assert worst_l <= dl + 1e-9 and worst_l > 0.5 * dl


@pytest.mark.parametrize("norm", NORMS)
def test_quantile_regression_gradient_sensitivity_bound(norm):
    rng = np.random.default_rng(2)
    d = 2
    CX = cube_to_norm(d, norm)
    X = rng.uniform(-1, 1, (5, d))
    y = rng.uniform(-1, 1, 5)
    ths = rng.uniform(-0.5, 0.5, (300, d))
    for tau in (0.3, 0.5, 0.8):
        delta = calibrate("quantile_regression", "kng", 1.0, d=d, norm=norm, tau=tau, C_X=CX).sensitivity
        dl = calibrate("quantile_regression", "exponential", 1.0, d=d, tau=tau, B=1.0).sensitivity
        worst, worst_l = 0.0, 0.0
        for _ in range(60):
            X2, y2 = X.copy(), y.copy()
            X2[0] = rng.choice([-1.0, 1.0], d)
            y2[0] = rng.choice([-1.0, 1.0])
            g = _grad("quantile_regression", (X, y), ths, norm=norm, tau=tau) - \
                _grad("quantile_regression", (X2, y2), ths, norm=norm, tau=tau)
            worst = max(worst, knorm(g, norm).max())
            lo = _loss("quantile_regression", (X, y), ths, tau=tau) - _loss("quantile_regression", (X2, y2), ths, tau=tau)
            worst_l = max(worst_l, np.abs(lo).max())
        assert worst <= delta + 1e-9 and worst >= 0.6 * delta
        assert worst_l <= dl + 1e-9


@pytest.mark.parametrize("norm", NORMS)
def test_geometric_median_and_mean_sensitivity_bounds(norm):
    rng = np.random.default_rng(3)
    d = 3
    x = rng.uniform(-1, 1, (4, d))
    ths = rng.uniform(-1, 1, (300, d))
    delta = calibrate("median", "kng", 1.0, d=d, norm=norm).sensitivity
    worst = 0.0
    for _ in range(200):
        x2 = x.copy()
        x2[0] = rng.uniform(-1, 1, d)
        g = _grad("median", x, ths, norm=norm, bounds=(-1, 1)) - _grad("median", x2, ths, norm=norm, bounds=(-1, 1))
        worst = max(worst, knorm(g, norm).max())
    assert worst <= delta + 1e-9
    # mean: ∇ℓ(D) − ∇ℓ(D′) = −2(x₁ − x₁′): at most 4r in the record norm
    r = 1.5
    dm = calibrate("mean", "kng", 1.0, d=d, norm=norm, radius=r).sensitivity
    e = np.eye(d)[0] * r / knorm(np.eye(d)[0], norm)
    g = _grad("mean", np.vstack([e, x * 0]), ths, norm=norm, radius=r) - \
        _grad("mean", np.vstack([-e, x * 0]), ths, norm=norm, radius=r)
    assert knorm(g, norm).max() == pytest.approx(dm)


def test_gradients_match_finite_differences_of_objectives():
    rng = np.random.default_rng(4)
    X = np.c_[np.ones(30), rng.uniform(-1, 1, (30, 2))]
    y = np.clip(X @ [0.1, 0.3, -0.2] + 0.3 * rng.normal(size=30), -1, 1)
    th = rng.uniform(-0.3, 0.3, (5, 3))
    h = 1e-6
    for problem, data, kw in [("linear_regression", (X, y), {}), ("quantile_regression", (X, y), {"tau": 0.3}),
                              ("mean", X[:, 1:], {"radius": 2.0}), ("median", X[:, 1:], {"bounds": (-1, 1)})]:
        if problem in ("mean", "median"):
            t = th[:, :2]
        else:
            t = th
        g = _grad(problem, data, t, **kw)
        fd = np.stack([(_loss(problem, data, t + h * e, **kw) - _loss(problem, data, t - h * e, **kw)) / (2 * h)
                       for e in np.eye(t.shape[1])], axis=1)
        np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- 1-D exact laws
def test_quantile_loss_prefix_sums_match_direct():
    rng = np.random.default_rng(5)
    y = np.sort(rng.normal(size=50))
    t = rng.normal(size=20)
    for tau in (0.1, 0.5, 0.8):
        direct = np.array([np.sum((y - s) * (tau - (y - s <= 0))) for s in t])
        np.testing.assert_allclose(_exact.quantile_loss_at(y, t, tau), direct, rtol=1e-12, atol=1e-12)


def test_pieces_cdf_matches_numerical_integral():
    rng = np.random.default_rng(6)
    y = np.sort(np.clip(rng.normal(size=40), -2, 2))
    for P in (_exact.quantile_kng_pieces(y, -2, 2, 0.3, 0.7), _exact.quantile_exponential_pieces(y, -2, 2, 0.3, 0.7)):
        grid = np.linspace(-2, 2, 200_001)
        dens = np.exp(P.logpdf(grid))
        cdf_num = np.concatenate([[0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
        idx = np.arange(0, grid.size, 5000)
        np.testing.assert_allclose(P.cdf(grid[idx]), cdf_num[idx], atol=2e-4)
        assert P.cdf(np.array([2.0]))[0] == pytest.approx(1.0)


def test_exact_weights_in_log_space_extreme_cases():
    g = np.random.default_rng(7)
    # every observation outside [lo, hi] (clipped to hi), huge ε·n: no under/overflow
    y = np.full(100_000, 5.0)
    res = kng.sample("quantile", y, mechanism="kng", epsilon=50.0, bounds=(0.0, 1.0), size=2000, rng=g)
    s = res.samples[:, 0]
    assert np.isfinite(s).all() and s.min() >= 0 and s.max() <= 1
    assert res.clipped == 100_000 and "100000 of 100000" in res.message
    # all mass on the single gap [lo, hi): the law is uniform
    assert abs(s.mean() - 0.5) < 0.05
    r2 = kng.sample("quantile", y, mechanism="exponential", epsilon=50.0, bounds=(0.0, 1.0), size=50, rng=g)
    assert np.isfinite(r2.samples).all() and r2.samples.min() > 0.99  # ℓ pulls hard towards hi


def test_log_exprel_stable():
    x = np.array([-800.0, -1e-12, 0.0, 1e-12, 1.0, 800.0])
    out = _exact._log_exprel(x)
    assert np.isfinite(out).all()
    assert out[4] == pytest.approx(math.log(math.e - 1))
    assert out[5] == pytest.approx(800 - math.log(800), rel=1e-12)


# ----------------------------------------------------------------------------- objective perturbation QP
def test_l1_projection():
    rng = np.random.default_rng(8)
    v = rng.normal(size=(50, 6)) * 2
    p = kng.project_l1_ball(v, 1.5)
    assert np.all(np.abs(p).sum(axis=1) <= 1.5 + 1e-12)
    inside = np.abs(v).sum(axis=1) <= 1.5
    np.testing.assert_array_equal(p[inside], v[inside])
    # optimality: <v − p, w − p> ≤ 0 for feasible w
    w = kng.project_l1_ball(rng.normal(size=(50, 6)), 1.5)
    assert np.all(np.einsum("ij,ij->i", v - p, w - p) <= 1e-10)


def test_qp_exact_and_kkt_checked():
    rng = np.random.default_rng(9)
    for _ in range(40):
        d = int(rng.integers(1, 12))
        M = rng.normal(size=(d + 3, d))
        H = M.T @ M * rng.uniform(0.1, 1e4) + np.eye(d) * rng.uniform(1e-3, 10)
        g = rng.normal(size=d) * rng.uniform(0.1, 1e4)
        B = rng.uniform(0.05, 2)
        th = kng.l1_constrained_qp(H, g, B)
        assert np.abs(th).sum() <= B * (1 + 1e-12)
        # no feasible point does better
        q = lambda t: 0.5 * np.einsum("...i,ij,...j->...", t, H, t) - t @ g  # noqa: E731
        cand = kng.project_l1_ball(th + 1e-3 * rng.normal(size=(200, d)), B)
        assert np.all(q(cand) >= q(th) - 1e-9 * (1 + abs(q(th))))


def test_qp_failure_raises():
    with pytest.raises(kng.QPError):
        kng.l1_constrained_qp(np.eye(2), np.array([3.0, 1.0]), 1.0, tol=-1.0)  # impossible tolerance


# ----------------------------------------------------------------------------- non-private estimators
def test_nonprivate_quantile_regression_matches_primal_lp():
    rng = np.random.default_rng(10)
    for n, tau in [(40, 0.5), (60, 0.2), (7000, 0.8)]:
        X = np.c_[np.ones(n), rng.uniform(-1, 1, (n, 2))]
        y = X @ [0.2, -0.5, 0.3] + rng.standard_t(3, size=n) * 0.3
        th = kng.nonprivate_quantile_regression(X, y, tau)
        loss = lambda t: np.sum((y - X @ t) * (tau - (y - X @ t <= 0)))  # noqa: E731
        if n <= 100:
            c = np.r_[np.zeros(3), tau * np.ones(n), (1 - tau) * np.ones(n)]
            res = linprog(c, A_eq=np.c_[X, np.eye(n), -np.eye(n)], b_eq=y,
                          bounds=[(None, None)] * 3 + [(0, None)] * (2 * n), method="highs")
            assert loss(th) == pytest.approx(res.fun, abs=1e-9)
        else:  # Portnoy–Koenker path: same optimum as the direct dual LP
            ref = _problems._qr_dual_lp(X, y, tau, np.zeros(3))
            assert loss(th) == pytest.approx(loss(ref), abs=1e-9)
        # batched form
    Xb = rng.uniform(-1, 1, (3, 30, 2))
    yb = rng.uniform(-1, 1, (3, 30))
    assert kng.nonprivate_quantile_regression(Xb, yb, 0.5).shape == (3, 2)


def test_geometric_median_weiszfeld():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(200, 3))
    m = kng.geometric_median(x)
    f = lambda t: np.linalg.norm(x - t, axis=1).sum()  # noqa: E731
    for _ in range(50):
        assert f(m) <= f(m + 1e-3 * rng.normal(size=3)) + 1e-12
    # iterate lands on a data point that is the median (collinear odd set)
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    np.testing.assert_allclose(kng.geometric_median(pts), [1.0, 0.0], atol=1e-9)


# ----------------------------------------------------------------------------- incremental targets
@pytest.mark.parametrize("problem", ["linear_regression", "quantile_regression"])
@pytest.mark.parametrize("mechanism", ["kng", "exponential"])
def test_incremental_targets_agree_with_direct_density(problem, mechanism):
    rng = np.random.default_rng(12)
    n, d = 80, 3
    X = np.c_[np.ones(n), rng.uniform(-1, 1, (n, d - 1))]
    y = np.clip(X @ [0.1, -0.3, 0.2] + 0.3 * rng.normal(size=n), -1, 1)
    for norm in NORMS:
        p = dict(tau=0.3, B=1.0, constants="calibrated")
        P = _problems.prepare(problem, (X, y), mechanism, norm=norm, tau=0.3, B=1.0)
        cal = _api._calibrate(P, mechanism, 1.0, norm, p)
        if problem == "linear_regression":
            T = _targets.LinearRegressionTarget(P.data["A"][None], P.data["b"][None], mechanism,
                                                cal.density_constant, norm)
        else:
            T = _targets.QuantileRegressionTarget(P.data["X"][None], P.data["y"][None], 0.3, mechanism,
                                                  cal.density_constant, norm)
        C = 4
        th = rng.uniform(-0.3, 0.3, (C, d))
        st, lp = T.init(th)
        np.testing.assert_allclose(lp, _api._logpdf(P, cal, mechanism, th), atol=1e-10)
        for it in range(100):
            j = it % d
            delta = rng.normal(size=C) * 0.05
            lpn, pend = T.propose(st, th, j, delta)
            thn = th.copy()
            thn[:, j] += delta
            ref = _api._logpdf(P, cal, mechanism, thn)
            inside = np.abs(thn).sum(axis=1) <= 1.0
            assert np.all(np.isfinite(ref) == inside)
            np.testing.assert_allclose(lpn[inside], ref[inside], atol=1e-9)
            acc = rng.random(C) < 0.5
            st = T.commit(st, j, delta, acc, pend)
            th[acc] = thn[acc]


# ----------------------------------------------------------------------------- API
def test_result_fields_cost_and_statement():
    y = np.random.default_rng(13).normal(size=300)
    r = kng.sample("median", y, mechanism="kng", epsilon=0.5, bounds=(-4, 4), size=7, rng=1)
    assert r.samples.shape == (7, 1) and r.exact and r.diagnostics is None and r.released
    assert isinstance(r.cost, PrivacyCost) and r.cost.epsilon == pytest.approx(3.5)
    assert r.cost.neighbours == "replace-one" and "7 independent draws" in r.cost.note
    assert "replace one record" in r.statement and "Δ = 2" in r.statement
    assert r.sensitivity == 2.0 and r.density_constant == pytest.approx(0.125)
    assert r.nonprivate[0] == pytest.approx(np.median(y))
    npv = kng.sample("median", y, mechanism="nonprivate", epsilon=None, bounds=(-4, 4), size=2)
    assert npv.cost is None and "NOT private" in npv.message


def test_mcmc_result_is_labelled_approximate():
    x = np.random.default_rng(14).normal(size=(100, 2))
    r = kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=1, rng=2, n_sweeps=400)
    assert not r.exact and r.diagnostics is not None
    assert r.diagnostics.n_chains == _api.MIN_CHAINS  # extra chains for diagnostics only
    assert "approximately private" in r.cost.note and "approximately private" in r.statement
    assert r.samples.shape == (1, 2)


def test_unmixed_chains_are_withheld_but_charged():
    x = np.random.default_rng(15).normal(size=(200, 2))
    r = kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=2, rng=3, n_sweeps=10)
    assert not r.released and np.isnan(r.samples).all() and "withheld" in r.message
    assert r.cost.epsilon == pytest.approx(2.0)


def test_same_seed_same_release_and_chain_independence():
    y = np.random.default_rng(16).normal(size=500)
    a = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=5, rng=9)
    b = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=5, rng=9)
    np.testing.assert_array_equal(a.samples, b.samples)
    c = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=5, rng=10)
    assert not np.array_equal(a.samples, c.samples)


def _reg_data(n=300, d=3, seed=17):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.uniform(-1, 1, (n, d - 1))]
    y = np.clip(X @ np.array([0.1, -0.3, 0.2])[:d] + 0.2 * rng.normal(size=n), -1, 1)
    return X, y


@pytest.mark.parametrize("problem,data,kw", [
    ("mean", np.random.default_rng(0).uniform(-1, 1, (200, 2)), {"radius": 1.0}),
    ("median", np.random.default_rng(0).normal(size=501), {"bounds": (-5, 5)}),
    ("quantile", np.random.default_rng(0).normal(size=500), {"bounds": (-5, 5), "tau": 0.25}),
    ("linear_regression", _reg_data(), {}),
    ("quantile_regression", _reg_data(), {"tau": 0.5}),
])
def test_epsilon_to_infinity_gives_the_nonprivate_answer(problem, data, kw):
    for mech in ("kng", "exponential"):
        # ℓ∞-KNG regressions: coordinate-wise Metropolis from the centre of Θ needs ~ε√n·(distance/width)
        # tiny steps along the ridges of ‖A(θ − θ̂)‖∞, so ε stays at 1e4 there (width ~ 1e-5 already)
        eps = 1e4 if (mech == "kng" and "regression" in problem) else 1e6
        if problem == "quantile_regression" and mech == "kng":
            # ∇ℓ is piecewise constant: at large ε the law is a rough landscape of cells (log-density jumps of
            # ε/(2Δ)·|x_ij| at every residual crossing) where coordinate-wise Metropolis does not mix (the release
            # rule then withholds the draw). The *target* must still concentrate at the non-private answer.
            th_hat = kng.sample(problem, data, mechanism="nonprivate", epsilon=None, **kw).nonprivate
            far = th_hat + np.random.default_rng(1).normal(size=(200, 3)) * 0.05
            lp = kng.log_density(problem, data, np.vstack([th_hat, far]), mechanism=mech, epsilon=eps, **kw)
            assert lp[0] > np.max(lp[1:]) + 100
            continue
        r = kng.sample(problem, data, mechanism=mech, epsilon=eps, size=4, rng=5, n_sweeps=1500, **kw)
        assert r.released
        err = np.abs(r.samples - r.nonprivate).max()
        if problem in ("median", "quantile") and mech == "kng":
            # the KNG limit is uniform on the gap(s) minimising |∇ℓ|: adjacent order statistics
            ys = np.sort(data)
            k = np.searchsorted(ys, r.nonprivate[0])
            tol = ys[min(k + 2, ys.size - 1)] - ys[max(k - 2, 0)]
        else:
            tol = 1e-3
        assert err < tol, (problem, mech, err)


def test_objective_perturbation_limits_and_errors():
    X, y = _reg_data(n=2000)
    r = kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=200.0, size=3, rng=1)
    assert r.exact and np.abs(r.samples - r.nonprivate).max() < 1e-2
    with pytest.raises(DPValueError, match="linear regression only"):
        kng.sample("quantile_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0)
    with pytest.raises(DPValueError, match="not strongly convex"):
        kng.sample("quantile_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, tau=0.5)


def test_objective_perturbation_density_is_the_change_of_variables():
    X, y = _reg_data(n=50, d=2)
    th = np.array([[0.1, -0.2], [0.0, 0.3]])
    lp = kng.log_density("linear_regression", (X, y), th, mechanism="objective_perturbation", epsilon=1.0)
    P = _problems.prepare("linear_regression", (X, y), "objective_perturbation", norm="linf")
    cal = calibrate("linear_regression", "objective_perturbation", 1.0, d=2)
    b = -(P.gradient(th) + cal.gamma * th)  # the noise that produces θ
    np.testing.assert_allclose(lp, -cal.density_constant * np.abs(b).max(axis=1))


@pytest.mark.parametrize("kwargs,match", [
    (dict(problem="quantile", tau=1.2, bounds=(0, 1)), "tau"),
    (dict(problem="quantile", tau=0.0, bounds=(0, 1)), "tau"),
    (dict(problem="quantile", bounds=(1, 0)), "lower"),
    (dict(problem="quantile", bounds=None), "bounds is required"),
    (dict(problem="linear_regression", B=0.0), "B"),
    (dict(problem="linear_regression", B=-1.0), "B"),
    (dict(problem="mean"), "radius"),
    (dict(problem="quantile", bounds=(0, 1), epsilon=0.0), "epsilon"),
    (dict(problem="quantile", bounds=(0, 1), epsilon=float("nan")), "epsilon"),
    (dict(problem="quantile", bounds=(0, 1), norm="l3"), "norm"),
    (dict(problem="quantile", bounds=(0, 1), mechanism="laplace"), "mechanism"),
    (dict(problem="quantile", bounds=(0, 1), size=0), "size"),
    (dict(problem="quantile", bounds=(0, 1), colour="red"), "unknown parameter"),
    (dict(problem="quantile", bounds=(0, 1), constants="printed"), "constants"),
    (dict(problem="quantile", bounds=(0, 1), tau=0.8, constants="paper"), "NOT ε-DP"),
    (dict(problem="linear_regression", norm="l2", constants="paper"), "ℓ∞"),
    (dict(problem="median", bounds=(0, 1), sampler="exact", data2d=True), "no exact sampler"),
])
def test_invalid_inputs_give_clear_errors(kwargs, match):
    kwargs = dict(kwargs)
    problem = kwargs.pop("problem")
    data = _reg_data(50) if "regression" in problem else np.linspace(0, 1, 20)
    if kwargs.pop("data2d", False):
        data = np.random.default_rng(0).uniform(0, 1, (20, 2))
    base = dict(mechanism="kng", epsilon=1.0)
    base.update(kwargs)
    with pytest.raises(DPValueError, match=match):
        kng.sample(problem, data, **base)


def test_bad_data_messages():
    with pytest.raises(DPValueError, match="non-finite"):
        kng.sample("median", np.array([1.0, np.nan]), mechanism="kng", epsilon=1.0, bounds=(0, 1))
    with pytest.raises(DPValueError, match="takes data=\\(X, y\\)"):
        kng.sample("linear_regression", np.ones(5), mechanism="kng", epsilon=1.0)
    with pytest.raises(DPValueError, match="rows but y has"):
        kng.sample("linear_regression", (np.ones((5, 2)), np.ones(4)), mechanism="kng", epsilon=1.0)
    with pytest.raises(DPValueError, match="1-D"):
        kng.sample("quantile", np.ones((5, 2)), mechanism="kng", epsilon=1.0, bounds=(0, 1))


def test_regression_scaling_is_post_processing():
    X, y = _reg_data(n=400)
    a = kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, rng=4, size=2)
    b = kng.sample("linear_regression", (2 * X, 10 * y), mechanism="objective_perturbation", epsilon=1.0, rng=4,
                   size=2, x_bound=2.0, y_bound=10.0)
    np.testing.assert_allclose(b.samples, a.samples * 5.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.nonprivate, a.nonprivate * 5.0, rtol=1e-9)
    c = kng.sample("linear_regression", (3 * X, y), mechanism="nonprivate", epsilon=None)
    assert c.clipped > 0 and "clipped" in c.message


def test_log_density_matches_exact_law_and_domain():
    y = np.random.default_rng(18).normal(size=60)
    t = np.linspace(-3, 3, 41)
    for mech in ("kng", "exponential"):
        lp = kng.log_density("quantile", y, t, mechanism=mech, epsilon=1.0, bounds=(-3, 3), tau=0.4)
        P = _problems.prepare("quantile", y, mech, norm="linf", bounds=(-3, 3), tau=0.4)
        cal = _api._calibrate(P, mech, 1.0, "linf", dict(tau=0.4, B=1.0, constants="calibrated"))
        exact = kng.exact_pieces(P, cal, mech).logpdf(t)
        diff = lp - exact
        assert np.ptp(diff[np.isfinite(diff)]) < 1e-9  # equal up to the normalising constant
    out = kng.log_density("quantile", y, [4.0], mechanism="kng", epsilon=1.0, bounds=(-3, 3))
    assert out[0] == -np.inf
    with pytest.raises(DPValueError, match="shape"):
        kng.log_density("linear_regression", _reg_data(30), np.zeros((2, 5)), mechanism="kng", epsilon=1.0)


def test_mean_sampler_is_the_knorm_mechanism():
    x = np.random.default_rng(19).uniform(-0.5, 0.5, (100, 2))  # inside the unit ℓ2 ball: no clipping
    r = kng.sample("mean", x, mechanism="kng", epsilon=2.0, radius=1.0, norm="l2", size=3, rng=7)
    from dpcore.noise import knorm_noise
    from dpcore._rng import as_generator
    expect = x.mean(axis=0) + knorm_noise(2, 100 * 2.0 / 2.0, "l2", 3, as_generator(7))
    np.testing.assert_allclose(r.samples, expect)


def test_suffstats_batch_contract():
    rng = np.random.default_rng(20)
    R, n, d = 3, 500, 2
    X = np.c_[np.ones((R * n, 1)), rng.uniform(-1, 1, (R * n, 1))].reshape(R, n, d)
    y = np.clip(np.einsum("rnd,d->rn", X, [0.2, -0.4]) + 0.2 * rng.normal(size=(R, n)), -1, 1)
    A = np.einsum("rni,rnj->rij", X, X)
    b = np.einsum("rni,rn->ri", X, y)
    gens = [np.random.default_rng(i) for i in range(R)]
    res = kng.sample_linear_regression_suffstats(A, b, n, mechanism="kng", epsilon=1.0, n_sweeps=400, rng=gens)
    assert res.theta.shape == (R, d) and res.nonprivate.shape == (R, d)
    assert res.replicate_rhat.shape == (R, d) and res.mixed.shape == (R,)
    assert res.diagnostics.n_chains == R and "approximately private" in res.cost.note
    # chain r depends only on rng[r]: replicate 1 alone gives the same draw
    solo = kng.sample_linear_regression_suffstats(A[1:2], b[1:2], n, mechanism="kng", epsilon=1.0, n_sweeps=400,
                                                  rng=[np.random.default_rng(1)])
    np.testing.assert_allclose(solo.theta[0], res.theta[1], rtol=1e-12, atol=1e-14)
    op = kng.sample_linear_regression_suffstats(A, b, np.full(R, n), mechanism="objective_perturbation",
                                                epsilon=1.0, rng=5)
    assert op.diagnostics is None and np.all(np.abs(op.theta).sum(axis=1) <= 1 + 1e-12)
    npv = kng.sample_linear_regression_suffstats(A, b, n, mechanism="nonprivate", epsilon=None)
    assert npv.cost is None and np.allclose(npv.theta, npv.nonprivate)
    with pytest.raises(DPValueError, match="init"):
        kng.sample_linear_regression_suffstats(A, b, n, mechanism="kng", epsilon=1.0, rng=1, init=np.zeros((2, 2)))
    qr = kng.sample_quantile_regression_batch(X, y, tau=0.5, mechanism="exponential", epsilon=1.0, n_sweeps=200,
                                              rng=gens, init=np.zeros((R, d)))
    assert qr.theta.shape == (R, d) and "caller-supplied" in qr.note
    with pytest.raises(DPValueError, match="rescale"):
        kng.sample_quantile_regression_batch(2 * X, y, tau=0.5, mechanism="exponential", epsilon=1.0, rng=1)
    with pytest.raises(DPValueError, match="objective_perturbation"):
        kng.sample_quantile_regression_batch(X, y, tau=0.5, mechanism="objective_perturbation", epsilon=1.0, rng=1)


@pytest.mark.parametrize("mechanism", ["kng", "exponential"])
def test_banded_quantile_regression_target_is_exact(mechanism):
    """The band (only residuals near zero can cross) gives the same log densities and the same chains."""
    from dpcore.mcmc import metropolis_within_gibbs

    rng = np.random.default_rng(21)
    n = 3000
    X = np.c_[np.ones(n), rng.uniform(-1, 1, n)]
    y = np.clip(0.1 - 0.3 * X[:, 1] + 0.2 * rng.normal(size=n), -1, 1)
    P = _problems.prepare("quantile_regression", (X, y), mechanism, norm="linf", tau=0.3)
    cal = _api._calibrate(P, mechanism, 1.0, "linf", dict(tau=0.3, B=1.0, constants="calibrated"))
    T = _targets.BandedQuantileRegressionTarget(X[None], y[None], 0.3, mechanism, cal.density_constant, "linf", 100)
    C = 4
    th = rng.uniform(-0.3, 0.3, (C, 2))
    st, lp = T.init(th)
    for it in range(300):  # large moves (exact fallback) then small ones (band, occasional re-basing)
        j = it % 2
        delta = rng.normal(size=C) * (0.1 if it < 40 else 1e-3)
        lpn, pend = T.propose(st, th, j, delta)
        thn = th.copy()
        thn[:, j] += delta
        ref = _api._logpdf(P, cal, mechanism, thn)
        ok = np.isfinite(ref)
        np.testing.assert_allclose(lpn[ok], ref[ok], atol=1e-8)
        acc = rng.random(C) < 0.5
        st = T.commit(st, j, delta, acc, pend)
        th[acc] = thn[acc]
    plain = _targets.QuantileRegressionTarget(X[None], y[None], 0.3, mechanism, cal.density_constant, "linf")
    runs = [metropolis_within_gibbs(None, np.zeros((3, 2)), n_sweeps=150, rng=[np.random.default_rng(i) for i in range(3)],
                                    step_size=0.1, l1_radius=1.0, incremental=tgt).final
            for tgt in (plain, _targets.BandedQuantileRegressionTarget(X[None], y[None], 0.3, mechanism,
                                                                      cal.density_constant, "linf", 100))]
    np.testing.assert_allclose(runs[0], runs[1], rtol=0, atol=1e-12)


def _qr_problem(n, seed, mechanism, tau=0.3):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.uniform(-1, 1, n)]
    y = np.clip(0.1 - 0.3 * X[:, 1] + 0.2 * rng.normal(size=n), -1, 1)
    P = _problems.prepare("quantile_regression", (X, y), mechanism, norm="linf", tau=tau)
    cal = _api._calibrate(P, mechanism, 1.0, "linf", dict(tau=tau, B=1.0, constants="calibrated"))
    return X, y, P, cal


class _CountingBox(_targets.BoxBandedQuantileRegressionTarget):
    """Counts re-basings and exact (outside-the-box) evaluations, to check each branch is exercised."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.n_rebased = self.n_full = self.n_sliced = 0

    def _rebase(self, st, rows, theta, H):
        self.n_rebased += len(rows)
        return super()._rebase(st, rows, theta, H)

    def propose(self, st, theta, j, delta):
        lp, pend = super().propose(st, theta, j, delta)
        self.n_full += int(pend[2].sum())
        self.n_sliced += int(((delta != 0) & ~pend[2]).sum())
        return lp, pend


@pytest.mark.parametrize("mechanism", ["exponential", "kng"])
@pytest.mark.parametrize("shared", [True, False])
def test_box_banded_quantile_regression_target_is_exact(mechanism, shared):
    """Bisection slices of the sorted box band give the exact log densities: moves inside the box, moves
    that leave it (re-basing), moves larger than a fresh box (exact fallback), zero moves, refreshes."""
    n, C = 5000, 4
    data = [_qr_problem(n, 30 + (0 if shared else c), mechanism) for c in range(1 if shared else C)]
    X = np.stack([d[0] for d in data])
    y = np.stack([d[1] for d in data])
    T = _CountingBox(X, y, 0.3, mechanism, data[0][3].density_constant, "linf", refresh=60)
    rng = np.random.default_rng(31)
    th = rng.uniform(-0.3, 0.3, (C, 2))
    st, lp = T.init(th)
    for it in range(600):
        j = it % 2
        scale = 0.1 if it < 40 else (1e-2 if it < 300 else 1e-3)
        delta = rng.normal(size=C) * scale * np.where(rng.random(C) < 0.03, 30.0, 1.0)  # a few outliers
        delta[rng.random(C) < 0.1] = 0.0                                                # rejected proposals
        lpn, pend = T.propose(st, th, j, delta)
        thn = th.copy()
        thn[:, j] += delta
        ref = np.array([_api._logpdf(data[0 if shared else c][2], data[0][3], mechanism, thn[c:c + 1])[0]
                        for c in range(C)])
        ok = np.isfinite(ref)
        np.testing.assert_allclose(lpn[ok], ref[ok], rtol=0, atol=1e-8)
        acc = rng.random(C) < 0.5
        st = T.commit(st, j, delta, acc, pend)
        th[acc] = thn[acc]
    assert T.n_rebased > 20 and T.n_full > 0 and T.n_sliced > 1000
    assert 0 < st["cnt"].max() < n  # the band is a proper subset of the records


@pytest.mark.parametrize("mechanism", ["exponential", "kng"])
def test_box_banded_target_gives_the_plain_chain(mechanism):
    """Same Markov chain as the plain O(n) target (n = 5000; adaptive burn-in, then fixed steps): the same
    accept decisions, hence the same trace up to rounding."""
    from dpcore.mcmc import metropolis_within_gibbs

    X, y, P, cal = _qr_problem(5000, 32, mechanism)
    box = _CountingBox(X[None], y[None], 0.3, mechanism, cal.density_constant, "linf")
    plain = _targets.QuantileRegressionTarget(X[None], y[None], 0.3, mechanism, cal.density_constant, "linf")
    runs = [metropolis_within_gibbs(None, np.zeros((3, 2)), n_sweeps=600, rng=[np.random.default_rng(i) for i in range(3)],
                                    step_size=0.1, l1_radius=1.0, incremental=tgt, keep_trace=True)
            for tgt in (plain, box)]
    assert box.n_sliced > 0.9 * 3 * 2 * 600 * 0.9 and box.n_rebased < 0.1 * 3 * 2 * 600
    np.testing.assert_array_equal(runs[0].diagnostics.acceptance_per_coord, runs[1].diagnostics.acceptance_per_coord)
    np.testing.assert_allclose(runs[0].trace, runs[1].trace, rtol=0, atol=1e-12)
    np.testing.assert_allclose(runs[0].final, runs[1].final, rtol=0, atol=1e-12)


def test_quantile_regression_target_choice_and_batch_equivalence(monkeypatch):
    X, y, _, _ = _qr_problem(_targets.BOX_MIN_N, 33, "exponential")
    pick = lambda n, mech: type(_targets.quantile_regression_target(  # noqa: E731
        np.zeros((1, n, 2)), np.zeros((1, n)), 0.5, mech, 1.0, "linf"))
    assert pick(_targets.BOX_MIN_N, "exponential") is _targets.BoxBandedQuantileRegressionTarget
    assert pick(_targets.BOX_MIN_N - 1, "exponential") is _targets.QuantileRegressionTarget
    assert pick(10_000, "kng") is _targets.BandedQuantileRegressionTarget
    R = 3
    Xb, yb = np.broadcast_to(X, (R,) + X.shape), np.broadcast_to(y, (R,) + y.shape)
    kw = dict(tau=0.5, mechanism="exponential", epsilon=1.0, n_sweeps=300, init=np.zeros((R, 2)))
    fast = kng.sample_quantile_regression_batch(Xb, yb, rng=[np.random.default_rng(i) for i in range(R)], **kw)
    monkeypatch.setattr(_targets, "BOX_MIN_N", 10**9)
    slow = kng.sample_quantile_regression_batch(Xb, yb, rng=[np.random.default_rng(i) for i in range(R)], **kw)
    np.testing.assert_allclose(fast.theta, slow.theta, rtol=0, atol=1e-12)
    assert fast.diagnostics.acceptance == slow.diagnostics.acceptance


@pytest.mark.parametrize("mechanism", ["kng", "exponential"])
def test_geometric_median_incremental_target(mechanism):
    rng = np.random.default_rng(22)
    x = rng.normal(size=(200, 3))
    for norm in NORMS:
        P = _problems.prepare("median", x, mechanism, norm=norm, bounds=(-4, 4))
        cal = _api._calibrate(P, mechanism, 1.0, norm, dict(tau=0.5, B=1.0, constants="calibrated"))
        T = _targets.GeometricMedianTarget(P.data["x"], mechanism, cal.density_constant, norm, refresh=3)
        C = 4
        th = rng.uniform(-1, 1, (C, 3))
        st, lp = T.init(th)
        for it in range(120):
            j = it % 3
            delta = rng.normal(size=C) * 0.1
            lpn, pend = T.propose(st, th, j, delta)
            thn = th.copy()
            thn[:, j] += delta
            np.testing.assert_allclose(lpn, _api._logpdf(P, cal, mechanism, thn), atol=1e-9)
            acc = rng.random(C) < 0.5
            st = T.commit(st, j, delta, acc, pend)
            th[acc] = thn[acc]

"""The KNG problems' building blocks: exact 1-D laws, the objective-perturbation QP, the non-private
estimators and the incremental MCMC targets (which must give exactly the direct log density)."""
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from dpcore import kng
from dpcore.kng import _estimators, _exact, _targets
from tests.kng._helpers import NORMS, prep


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
        q = lambda t, H=H, g=g: 0.5 * np.einsum("...i,ij,...j->...", t, H, t) - t @ g  # noqa: E731
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
        loss = lambda t, X=X, y=y, tau=tau: np.sum((y - X @ t) * (tau - (y - X @ t <= 0)))  # noqa: E731
        if n <= 100:
            c = np.r_[np.zeros(3), tau * np.ones(n), (1 - tau) * np.ones(n)]
            res = linprog(c, A_eq=np.c_[X, np.eye(n), -np.eye(n)], b_eq=y,
                          bounds=[(None, None)] * 3 + [(0, None)] * (2 * n), method="highs")
            assert loss(th) == pytest.approx(res.fun, abs=1e-9)
        else:  # Portnoy–Koenker path: same optimum as the direct dual LP
            ref = _estimators._qr_dual_lp(X, y, tau, np.zeros(3))
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
        kw = {"tau": 0.3} if problem == "quantile_regression" else {}
        prob, P, cal, _ = prep(problem, (X, y), mechanism, norm=norm, B=1.0, **kw)
        if problem == "linear_regression":
            T = _targets.LinearRegressionTarget(P.data["A"][None], P.data["b"][None], mechanism,
                                                cal.constant, norm)
        else:
            T = _targets.QuantileRegressionTarget(P.data["X"][None], P.data["y"][None], 0.3, mechanism,
                                                  cal.constant, norm)
        C = 4
        th = rng.uniform(-0.3, 0.3, (C, d))
        st, lp = T.init(th)
        np.testing.assert_allclose(lp, prob.log_density(P, cal, th), atol=1e-10)
        for it in range(100):
            j = it % d
            delta = rng.normal(size=C) * 0.05
            lpn, pend = T.propose(st, th, j, delta)
            thn = th.copy()
            thn[:, j] += delta
            ref = prob.log_density(P, cal, thn)
            inside = np.abs(thn).sum(axis=1) <= 1.0
            assert np.all(np.isfinite(ref) == inside)
            np.testing.assert_allclose(lpn[inside], ref[inside], atol=1e-9)
            acc = rng.random(C) < 0.5
            st = T.commit(st, j, delta, acc, pend)
            th[acc] = thn[acc]


@pytest.mark.parametrize("mechanism", ["kng", "exponential"])
def test_banded_quantile_regression_target_is_exact(mechanism):
    """The band (only residuals near zero can cross) gives the same log densities and the same chains."""
    from dpcore.mcmc import metropolis_within_gibbs

    rng = np.random.default_rng(21)
    n = 3000
    X = np.c_[np.ones(n), rng.uniform(-1, 1, n)]
    y = np.clip(0.1 - 0.3 * X[:, 1] + 0.2 * rng.normal(size=n), -1, 1)
    prob, P, cal, _ = prep("quantile_regression", (X, y), mechanism, tau=0.3)
    T = _targets.BandedQuantileRegressionTarget(X[None], y[None], 0.3, mechanism, cal.constant, "linf", 100)
    C = 4
    th = rng.uniform(-0.3, 0.3, (C, 2))
    st, lp = T.init(th)
    for it in range(300):  # large moves (exact fallback) then small ones (band, occasional re-basing)
        j = it % 2
        delta = rng.normal(size=C) * (0.1 if it < 40 else 1e-3)
        lpn, pend = T.propose(st, th, j, delta)
        thn = th.copy()
        thn[:, j] += delta
        ref = prob.log_density(P, cal, thn)
        ok = np.isfinite(ref)
        np.testing.assert_allclose(lpn[ok], ref[ok], atol=1e-8)
        acc = rng.random(C) < 0.5
        st = T.commit(st, j, delta, acc, pend)
        th[acc] = thn[acc]
    plain = _targets.QuantileRegressionTarget(X[None], y[None], 0.3, mechanism, cal.constant, "linf")
    runs = [metropolis_within_gibbs(None, np.zeros((3, 2)), n_sweeps=150, rng=[np.random.default_rng(i) for i in range(3)],
                                    step_size=0.1, l1_radius=1.0, incremental=tgt).final
            for tgt in (plain, _targets.BandedQuantileRegressionTarget(X[None], y[None], 0.3, mechanism,
                                                                      cal.constant, "linf", 100))]
    np.testing.assert_allclose(runs[0], runs[1], rtol=0, atol=1e-12)


def _qr_problem(n, seed, mechanism, tau=0.3):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.uniform(-1, 1, n)]
    y = np.clip(0.1 - 0.3 * X[:, 1] + 0.2 * rng.normal(size=n), -1, 1)
    prob, P, cal, _ = prep("quantile_regression", (X, y), mechanism, tau=tau)
    return X, y, (prob, P), cal


def _logpdf(pp, cal, th):
    prob, P = pp
    return prob.log_density(P, cal, th)


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
    T = _CountingBox(X, y, 0.3, mechanism, data[0][3].constant, "linf", refresh=60)
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
        ref = np.array([_logpdf(data[0 if shared else c][2], data[0][3], thn[c:c + 1])[0]
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
    box = _CountingBox(X[None], y[None], 0.3, mechanism, cal.constant, "linf")
    plain = _targets.QuantileRegressionTarget(X[None], y[None], 0.3, mechanism, cal.constant, "linf")
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
        prob, P, cal, _ = prep("median", x, mechanism, norm=norm, bounds=(-4, 4))
        T = _targets.GeometricMedianTarget(P.data["x"], mechanism, cal.constant, norm, refresh=3)
        C = 4
        th = rng.uniform(-1, 1, (C, 3))
        st, lp = T.init(th)
        for it in range(120):
            j = it % 3
            delta = rng.normal(size=C) * 0.1
            lpn, pend = T.propose(st, th, j, delta)
            thn = th.copy()
            thn[:, j] += delta
            np.testing.assert_allclose(lpn, prob.log_density(P, cal, thn), atol=1e-9)
            acc = rng.random(C) < 0.5
            st = T.commit(st, j, delta, acc, pend)
            th[acc] = thn[acc]


# ----------------------------------------------------------------------------- the problem objects' shape
_SMALL = {"mean": (np.random.default_rng(0).uniform(-1, 1, (20, 2)), {"radius": 1.5}),
          "median": (np.random.default_rng(0).uniform(-1, 1, (20, 2)), {"bounds": (-1, 1)}),
          "quantile": (np.random.default_rng(0).uniform(-1, 1, 20), {"bounds": (-1, 1), "tau": 0.3}),
          "linear_regression": (None, {}), "quantile_regression": (None, {"tau": 0.4})}


@pytest.mark.parametrize("name", list(kng.PROBLEMS))
def test_every_problem_object_fills_the_template(name):
    from tests.kng._helpers import reg_data

    data, kw = _SMALL[name]
    data = reg_data(30, d=2) if data is None else data
    prob = kng.problem(name)
    assert prob.name == name and prob.config.problem == name
    for mech in prob.config.mechanisms:
        cfg = kng.make(name, mechanism=mech, epsilon=1.0, size=3, **kw)
        prob, P, cal = kng.prepared(data, cfg)
        th = np.tile(P.centre, (5, 1)) + 0.01
        assert prob.gradient(P, th).shape == (5, P.d) and prob.objective(P, th).shape == (5,)
        assert np.isfinite(prob.log_density(P, cal, th)).all()
        draw = prob.exact_sampler(cfg, P.d)
        if draw is not None:
            out = draw(P, cal, 3, np.random.default_rng(1))
            out = getattr(out, "values", out)  # an ExactDraws (rejection sampler that may fall back) or an array
            assert out.shape == (3, P.d)
        else:  # MCMC: either an incremental target or the direct log density, and a positive step cap
            prob.incremental_target(P, cal, cfg)
            assert prob.step_cap(P) > 0 and prob.target_width(P, cal, cfg) > 0

"""The public API of dpcore.kng: the release result (values, cost, calibration, notes, non-private
diagnostics kept apart), the name-based facade and its refusals, limits, log densities, batches."""
import dataclasses

import numpy as np
import pytest

from dpcore import kng
from dpcore._rng import as_generator
from dpcore._validation import DPValueError
from dpcore.kng.release import _engine as _release
from dpcore.mechanism import Diagnostics, Release
from dpcore.noise import knorm_noise
from dpcore.privacy import PrivacyCost
from tests.kng._helpers import calibrate, nonprivate, prep, reg_data

PROBLEM_DATA = {
    "mean": (np.random.default_rng(0).uniform(-1, 1, (200, 2)), {"radius": 1.0}),
    "median": (np.random.default_rng(0).normal(size=501), {"bounds": (-5, 5)}),
    "quantile": (np.random.default_rng(0).normal(size=500), {"bounds": (-5, 5), "tau": 0.25}),
    "linear_regression": (reg_data(), {}),
    "quantile_regression": (reg_data(), {"tau": 0.5}),
}


# ----------------------------------------------------------------------------- the release
def test_release_fields_cost_and_statement():
    y = np.random.default_rng(13).normal(size=300)
    r = kng.sample("median", y, mechanism="kng", epsilon=0.5, bounds=(-4, 4), size=7, rng=1)
    assert isinstance(r, Release) and r.mechanism == "kng/median-kng"
    assert r.value.shape == (7, 1) and r.diagnostics.mcmc is None and r.released
    assert isinstance(r.cost, PrivacyCost) and r.cost.epsilon == pytest.approx(0.5) and r.cost.count == 7
    assert r.cost.total_epsilon == pytest.approx(3.5) and r.cost.neighbours == "replace-one"
    assert "Δ = 2" in r.calibration.statement() and "replace-one" in r.calibration.statement()
    assert r.calibration.sensitivity == 2.0 and r.calibration.constant == pytest.approx(0.125)
    assert nonprivate(r)[0] == pytest.approx(np.median(y))
    assert r.notes_of("info") and not r.notes_of("withheld")


@pytest.mark.parametrize("problem,mechanism", [(p, m) for p in PROBLEM_DATA for m in kng.problem(p).config.mechanisms])
def test_release_cost_is_the_calibrations_cost_of_size_draws(problem, mechanism):
    data, kw = PROBLEM_DATA[problem]
    mcmc = {} if mechanism == "objective_perturbation" else {"n_sweeps": 50}
    r = kng.sample(problem, data, mechanism=mechanism, epsilon=0.8, size=3, rng=2, **kw, **mcmc)
    assert r.cost == r.calibration.cost(3) and r.size == 3
    assert r.calibration.mechanism == r.mechanism == f"kng/{problem}-{mechanism}"


@pytest.mark.parametrize("problem", list(PROBLEM_DATA))
def test_non_private_diagnostics_are_not_in_the_public_fields(problem):
    """θ̂, clipping counts and R-hat/ESS live only in the Diagnostics object, never beside the release."""
    data, kw = PROBLEM_DATA[problem]
    r = kng.sample(problem, data, mechanism="kng", epsilon=1.0, size=2, rng=3, n_sweeps=60, **kw)
    assert isinstance(r.diagnostics, Diagnostics)
    sampler_keys = {"sampler", "rejection sampler: proposals", "rejection sampler: acceptance rate",
                    "rejection sampler: draws from uniform-on-Θ proposals", "chains mixed (non-private)"}
    assert set(r.diagnostics.values) - sampler_keys == {"non-private estimate", "clipped records"}
    theta_hat = nonprivate(r)
    public = {f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.name not in ("diagnostics", "config")}
    text = repr(public)
    assert "clipped" not in text and "R-hat" not in text.replace("R-hat > 1.05", "")
    for v in public.values():  # no public field holds the non-private estimate
        if isinstance(v, np.ndarray) and v.size:
            assert not np.any(np.all(np.isclose(v.reshape(-1, theta_hat.size), theta_hat, rtol=0, atol=1e-12), axis=1))
    assert not any("clipped" in n.text or "θ̂" in n.text for n in r.notes)


def test_clipping_is_counted_only_in_the_diagnostics():
    y = np.full(50, 5.0)
    r = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(0.0, 1.0), size=3, rng=1)
    assert r.diagnostics.values["clipped records"] == 50
    assert not any("50" in n.text for n in r.notes)


def test_mcmc_release_is_labelled_approximate():
    x = np.random.default_rng(14).normal(size=(100, 2))
    r = kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=1, rng=2, n_sweeps=400)
    assert r.diagnostics.mcmc is not None
    assert r.diagnostics.mcmc.n_chains == _release.MIN_CHAINS  # extra chains for diagnostics only
    assert "approximately private" in r.cost.note and r.notes_of("approximate")
    assert r.value.shape == (1, 2)


def test_unmixed_chains_are_released_and_charged_the_verdict_only_in_the_diagnostics():
    """Issue 29 item 5 (was: withheld): the draw is released whether or not the chains mixed; the verdict names
    only the criterion that failed and sits in the non-private diagnostics."""
    x = np.random.default_rng(15).normal(size=(200, 2))
    r = kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=2, rng=3, n_sweeps=10)
    assert r.released and np.isfinite(r.value).all() and not r.notes_of("withheld")
    text = r.diagnostics.values["chains mixed (non-private)"]
    assert "R-hat > 1.05" in text or "ESS < 100" in text
    d = r.diagnostics.mcmc
    for number in (f"{d.max_rhat:.3g}", f"{d.min_ess:.3g}"):
        assert number not in text  # the verdict names the criterion; the values are in the diagnostics table
    assert r.cost.total_epsilon == pytest.approx(2.0) and r.cost == r.calibration.cost(2)


def test_mixing_text_names_each_failed_criterion():
    from dpcore.mcmc import MCMCDiagnostics

    def diag(rhat, ess):
        return MCMCDiagnostics(0.4, np.array([0.4]), np.array([rhat]), np.array([ess]), 4, 100, 50)
    assert "R-hat > 1.05" in _release.mixing_text(diag(1.2, 500)) and "ESS" not in _release.mixing_text(diag(1.2, 500))
    assert "ESS < 100" in _release.mixing_text(diag(1.0, 50)) and "R-hat" not in _release.mixing_text(diag(1.0, 50))
    both = _release.mixing_text(diag(1.2, 50))
    assert "R-hat > 1.05" in both and "ESS < 100" in both
    assert _release.mixing_text(diag(1.0, 500)) == "mixed"


def test_same_seed_same_release_and_chain_independence():
    y = np.random.default_rng(16).normal(size=500)
    a = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=5, rng=9)
    b = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=5, rng=9)
    np.testing.assert_array_equal(a.value, b.value)
    c = kng.sample("quantile", y, mechanism="kng", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=5, rng=10)
    assert not np.array_equal(a.value, c.value)


def test_release_of_a_config_equals_the_facade():
    y = np.random.default_rng(16).normal(size=50)
    cfg = kng.QuantileConfig(mechanism="exponential", epsilon=1.0, bounds=(-4, 4), tau=0.3, size=4)
    np.testing.assert_array_equal(kng.release_for(cfg)(y, cfg, rng=5).value,
                                  kng.sample("quantile", y, mechanism="exponential", epsilon=1.0, bounds=(-4, 4),
                                             tau=0.3, size=4, rng=5).value)
    assert kng.nonprivate_estimate(y, cfg)[0] == pytest.approx(np.quantile(y, 0.3, method="inverted_cdf"))
    with pytest.raises(TypeError, match="KNG configs"):
        kng.release_for({"epsilon": 1.0})


def test_override_replaces_the_calibration():
    y = np.random.default_rng(1).normal(size=40)
    cfg = kng.make("median", mechanism="kng", epsilon=1.0, bounds=(-3, 3), size=2)
    r = kng.release_for(cfg)(y, cfg, rng=1, override=lambda c: c.replace(constant=c.constant * 2))
    assert r.calibration.constant == pytest.approx(0.5) and r.cost == r.calibration.cost(2)


def test_mean_sampler_is_the_knorm_mechanism():
    x = np.random.default_rng(19).uniform(-0.5, 0.5, (100, 2))  # inside the unit ℓ2 ball: no clipping
    r = kng.sample("mean", x, mechanism="kng", epsilon=2.0, radius=1.0, norm="l2", size=3, rng=7)
    expect = x.mean(axis=0) + knorm_noise(2, 100 * 2.0 / 2.0, "l2", 3, as_generator(7))
    np.testing.assert_allclose(r.value, expect)


def test_exact_weights_in_log_space_extreme_cases():
    g = np.random.default_rng(7)
    # every observation outside [lo, hi] (clipped to hi), huge ε·n: no under/overflow
    y = np.full(100_000, 5.0)
    res = kng.sample("quantile", y, mechanism="kng", epsilon=50.0, bounds=(0.0, 1.0), size=2000, rng=g)
    s = res.value[:, 0]
    assert np.isfinite(s).all() and s.min() >= 0 and s.max() <= 1
    assert res.diagnostics.values["clipped records"] == 100_000
    # all mass on the single gap [lo, hi): the law is uniform
    assert abs(s.mean() - 0.5) < 0.05
    r2 = kng.sample("quantile", y, mechanism="exponential", epsilon=50.0, bounds=(0.0, 1.0), size=50, rng=g)
    assert np.isfinite(r2.value).all() and r2.value.min() > 0.99  # ℓ pulls hard towards hi


@pytest.mark.parametrize("problem", list(PROBLEM_DATA))
def test_epsilon_to_infinity_gives_the_nonprivate_answer(problem):
    data, kw = PROBLEM_DATA[problem]
    for mech in ("kng", "exponential"):
        # ℓ∞-KNG regressions: coordinate-wise Metropolis from the centre of Θ needs ~ε√n·(distance/width)
        # tiny steps along the ridges of ‖A(θ − θ̂)‖∞, so ε stays at 1e4 there (width ~ 1e-5 already)
        eps = 1e4 if (mech == "kng" and "regression" in problem) else 1e6
        if problem == "quantile_regression" and mech == "kng":
            # ∇ℓ is piecewise constant: at large ε the law is a rough landscape of cells (log-density jumps of
            # ε/(2Δ)·|x_ij| at every residual crossing) where coordinate-wise Metropolis does not mix (the release
            # rule then withholds the draw). The *target* must still concentrate at the non-private answer.
            th_hat = kng.nonprivate_estimate(data, kng.make(problem, mechanism=mech, epsilon=eps, **kw))
            far = th_hat + np.random.default_rng(1).normal(size=(200, 3)) * 0.05
            lp = kng.log_density(problem, data, np.vstack([th_hat, far]), mechanism=mech, epsilon=eps, **kw)
            assert lp[0] > np.max(lp[1:]) + 100
            continue
        r = kng.sample(problem, data, mechanism=mech, epsilon=eps, size=4, rng=5, n_sweeps=1500, **kw)
        assert r.released
        err = np.abs(r.value - nonprivate(r)).max()
        if problem in ("median", "quantile") and mech == "kng":
            # the KNG limit is uniform on the gap(s) minimising |∇ℓ|: adjacent order statistics
            ys = np.sort(data)
            k = np.searchsorted(ys, nonprivate(r)[0])
            tol = ys[min(k + 2, ys.size - 1)] - ys[max(k - 2, 0)]
        else:
            tol = 1e-3
        assert err < tol, (problem, mech, err)


def test_objective_perturbation_limits_and_errors():
    X, y = reg_data(n=2000)
    r = kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=200.0, size=3, rng=1)
    assert r.diagnostics.mcmc is None and np.abs(r.value - nonprivate(r)).max() < 1e-2
    with pytest.raises(DPValueError, match="linear regression only"):
        kng.sample("quantile_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0)
    with pytest.raises(DPValueError, match="not strongly convex"):
        kng.sample("quantile_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, tau=0.5)
    with pytest.raises(DPValueError, match="n_sweeps does not apply to objective perturbation"):
        kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, n_sweeps=100)


def test_objective_perturbation_density_is_the_change_of_variables():
    X, y = reg_data(n=50, d=2)
    th = np.array([[0.1, -0.2], [0.0, 0.3]])
    lp = kng.log_density("linear_regression", (X, y), th, mechanism="objective_perturbation", epsilon=1.0)
    prob, P, _, _ = prep("linear_regression", (X, y), "objective_perturbation")
    cal = calibrate("linear_regression", "objective_perturbation", 1.0, d=2)
    b = -(prob.gradient(P, th) + cal.params["gamma"] * th)  # the noise that produces θ
    np.testing.assert_allclose(lp, -cal.constant * np.abs(b).max(axis=1))


# ----------------------------------------------------------------------------- refusals
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
    (dict(problem="quantile", bounds=(0, 1), mechanism="nonprivate"), "mechanism"),
    (dict(problem="quantile", bounds=(0, 1), size=0), "size"),
    (dict(problem="quantile", bounds=(0, 1), colour="red"), "'colour' does not apply to problem 'quantile'"),
    (dict(problem="quantile", bounds=(0, 1), constants="printed"), "constants"),
    (dict(problem="quantile", bounds=(0, 1), tau=0.8, constants="paper"), "NOT ε-DP"),
    (dict(problem="linear_regression", norm="l2", constants="paper"), "ℓ∞"),
    (dict(problem="median", bounds=(0, 1), sampler="exact", data2d=True), "no exact sampler"),
    (dict(problem="median", bounds=(0, 1), n_sweeps=1), "n_sweeps"),
    (dict(problem="median", bounds=(0, 1), n_sweeps=100, burn_in=100), "burn_in"),
])
def test_invalid_inputs_give_clear_errors(kwargs, match):
    kwargs = dict(kwargs)
    problem = kwargs.pop("problem")
    data = reg_data(50) if "regression" in problem else np.linspace(0, 1, 20)
    if kwargs.pop("data2d", False):
        data = np.random.default_rng(0).uniform(0, 1, (20, 2))
    base = dict(mechanism="kng", epsilon=1.0)
    base.update(kwargs)
    with pytest.raises(DPValueError, match=match):
        kng.sample(problem, data, **base)


@pytest.mark.parametrize("problem,params,names", [
    ("median", {"radius": 5}, ["radius"]),
    ("median", {"radius": 5, "B": 3, "x_bound": 9}, ["radius", "B", "x_bound"]),
    ("mean", {"tau": 0.3}, ["tau"]),
    ("quantile", {"C_X": 1.0}, ["C_X"]),
    ("linear_regression", {"tau": 0.5, "bounds": (0, 1)}, ["tau", "bounds"]),
    ("quantile_regression", {"radius": 1.0}, ["radius"]),
    ("mean", {"constants": "paper"}, ["constants"]),
])
def test_facade_refuses_irrelevant_parameters_naming_them_and_the_problem(problem, params, names):
    data = reg_data(30) if "regression" in problem else np.linspace(0, 1, 20)
    base = {"median": {"bounds": (0, 1)}, "mean": {"radius": 1.0}, "quantile": {"bounds": (0, 1)}}.get(problem, {})
    with pytest.raises(DPValueError) as err:
        kng.sample(problem, data, mechanism="kng", epsilon=1.0, **base, **params)
    msg = str(err.value)
    assert f"problem {problem!r}" in msg and "not apply" in msg
    for name in names:
        assert repr(name) in msg


def test_configs_are_frozen_hashable_values():
    cfg = kng.make("quantile_regression", mechanism="kng", epsilon=1.0, x_bound=np.array([1.0, 2.0]), tau=0.3)
    assert cfg.x_bound == (1.0, 2.0) and hash(cfg) == hash(dataclasses.replace(cfg))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.epsilon = 2.0


def test_bad_data_messages():
    with pytest.raises(DPValueError, match="non-finite"):
        kng.sample("median", np.array([1.0, np.nan]), mechanism="kng", epsilon=1.0, bounds=(0, 1))
    with pytest.raises(DPValueError, match="takes data=\\(X, y\\)"):
        kng.sample("linear_regression", np.ones(5), mechanism="kng", epsilon=1.0)
    with pytest.raises(DPValueError, match="rows but y has"):
        kng.sample("linear_regression", (np.ones((5, 2)), np.ones(4)), mechanism="kng", epsilon=1.0)
    with pytest.raises(DPValueError, match="1-D"):
        kng.sample("quantile", np.ones((5, 2)), mechanism="kng", epsilon=1.0, bounds=(0, 1))
    with pytest.raises(DPValueError, match="not a tuple"):
        kng.sample("median", (np.ones(5), np.ones(5)), mechanism="kng", epsilon=1.0, bounds=(0, 1))


def test_regression_scaling_is_post_processing():
    X, y = reg_data(n=400)
    a = kng.sample("linear_regression", (X, y), mechanism="objective_perturbation", epsilon=1.0, rng=4, size=2)
    b = kng.sample("linear_regression", (2 * X, 10 * y), mechanism="objective_perturbation", epsilon=1.0, rng=4,
                   size=2, x_bound=2.0, y_bound=10.0)
    np.testing.assert_allclose(b.value, a.value * 5.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(nonprivate(b), nonprivate(a) * 5.0, rtol=1e-9)
    c = kng.sample("linear_regression", (3 * X, y), mechanism="objective_perturbation", epsilon=1.0, rng=1)
    assert c.diagnostics.values["clipped records"] > 0


def test_log_density_matches_exact_law_and_domain():
    y = np.random.default_rng(18).normal(size=60)
    t = np.linspace(-3, 3, 41)
    for mech in ("kng", "exponential"):
        lp = kng.log_density("quantile", y, t, mechanism=mech, epsilon=1.0, bounds=(-3, 3), tau=0.4)
        exact = kng.exact_pieces(y, kng.make("quantile", mechanism=mech, epsilon=1.0, bounds=(-3, 3), tau=0.4))
        diff = lp - exact.logpdf(t)
        assert np.ptp(diff[np.isfinite(diff)]) < 1e-9  # equal up to the normalising constant
    out = kng.log_density("quantile", y, [4.0], mechanism="kng", epsilon=1.0, bounds=(-3, 3))
    assert out[0] == -np.inf
    with pytest.raises(DPValueError, match="shape"):
        kng.log_density("linear_regression", reg_data(30), np.zeros((2, 5)), mechanism="kng", epsilon=1.0)


# ----------------------------------------------------------------------------- batches (simulations)
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
    assert "per replicate" in res.cost.note and res.cost == res.calibration.cost(1)
    # chain r depends only on rng[r]: replicate 1 alone gives the same draw
    solo = kng.sample_linear_regression_suffstats(A[1:2], b[1:2], n, mechanism="kng", epsilon=1.0, n_sweeps=400,
                                                  rng=[np.random.default_rng(1)])
    np.testing.assert_allclose(solo.theta[0], res.theta[1], rtol=1e-12, atol=1e-14)
    op = kng.sample_linear_regression_suffstats(A, b, np.full(R, n), mechanism="objective_perturbation",
                                                epsilon=1.0, rng=5)
    assert op.diagnostics is None and np.all(np.abs(op.theta).sum(axis=1) <= 1 + 1e-12)
    assert "per replicate" in op.cost.note and op.cost.epsilon == 1.0
    with pytest.raises(DPValueError, match="mechanism"):
        kng.sample_linear_regression_suffstats(A, b, n, mechanism="nonprivate", epsilon=1.0)
    with pytest.raises(DPValueError, match="init"):
        kng.sample_linear_regression_suffstats(A, b, n, mechanism="kng", epsilon=1.0, rng=1, init=np.zeros((2, 2)))
    qr = kng.sample_quantile_regression_batch(X, y, tau=0.5, mechanism="exponential", epsilon=1.0, n_sweeps=200,
                                              rng=gens, init=np.zeros((R, d)))
    assert qr.theta.shape == (R, d) and "caller-supplied" in qr.note and "per replicate" in qr.cost.note
    with pytest.raises(DPValueError, match="rescale"):
        kng.sample_quantile_regression_batch(2 * X, y, tau=0.5, mechanism="exponential", epsilon=1.0, rng=1)
    with pytest.raises(DPValueError, match="objective_perturbation"):
        kng.sample_quantile_regression_batch(X, y, tau=0.5, mechanism="objective_perturbation", epsilon=1.0, rng=1)


def test_batch_override_scales_the_constant():
    A = np.broadcast_to(np.eye(2) * 10, (3, 2, 2))
    b = np.zeros((3, 2))
    res = kng.sample_linear_regression_suffstats(A, b, 10, mechanism="kng", epsilon=1.0, n_sweeps=20, rng=1,
                                                 override=lambda c: c.replace(constant=c.constant * 4))
    assert res.density_constant == pytest.approx(4 * calibrate("linear_regression", "kng", 1.0, d=2).constant)


# ----------------------------------------------------------------------------- from a table
def test_problem_data_keeps_n_and_imputes_the_public_value():
    """Issue 8 §3: one person's row with a missing cell must not change n (nor the calibration that uses it)."""
    import pandas as pd

    from dpcore.data import Dataset

    full = pd.DataFrame({"age": [30.0, 40.0, 50.0, 60.0], "bmi": [20.0, 25.0, 30.0, 35.0]})
    holey = full.copy()
    holey.loc[2, "age"] = np.nan
    bounds = {"age": (0.0, 100.0), "bmi": (10.0, 60.0)}
    a = kng.problem_data(full, bounds, "mean", ["age"])
    b = kng.problem_data(holey, bounds, "mean", ["age"])
    assert a.n == b.n == 4 and b.data.shape == (4,) and b.data[2] == 50.0  # the midpoint of (0, 100)
    assert b.imputed == {"age": 1} and a.imputed == {"age": 0}
    ds = Dataset(holey, ("age", "bmi"), bounds, "test", imputes={"age": 45.0}, bound_sources={"bmi": "from data"})
    r = kng.problem_data(ds, None, "linear_regression", ["age"], y_column="bmi")
    assert r.data[0][2, 1] == 45.0 and r.n == 4 and r.bounds_from_data == ("bmi",)
    assert not hasattr(r, "note")  # no count of imputed rows to print beside a release


def test_calibration_and_cost_are_known_before_the_release():
    cfg = kng.make("linear_regression", mechanism="kng", epsilon=0.5, size=3, n_sweeps=50)
    cal = kng.calibrate_for(cfg)(cfg, (60, 2))
    r = kng.release_for(cfg)(reg_data(60, d=2), cfg, rng=1)
    assert cal == r.calibration.replace(note=cal.note) and r.cost.total_epsilon == cal.cost(3).total_epsilon

"""Privacy audits of every KNG mechanism, declared as data (run by the test suite and the audit page).

Each audit gives two neighbouring datasets (replace one record, moved to the boundary of the
public domain where the sensitivity is attained), a vectorised sampler that runs the real
release code with an optional calibration ``override``, events fixed in advance and a
:class:`~dpcore.audit.Mutant` — a plausible calibration bug given as an override, never a patch of
module state — that the same audit, same seed, must reject.

Exact samplers are audited at 200 000–400 000 draws; MCMC samplers (one chain per draw,
vectorised) at 20 000–40 000 chains, where only a gross mutant is refutable (their law is close
to, not equal to, the target). Linear regression's release path samples exactly
(:mod:`dpcore.kng._exact_regression`, audited by ``*-exact``); its MCMC audits keep auditing the
batched chains the simulations and the fallback use.
"""
from __future__ import annotations

from typing import Any, Callable, cast

import numpy as np

from ..audit import Audit, Mutant, halfline_events, llr_events
from ..norms import norm as knorm
from . import _api
from ._batch import sample_linear_regression_suffstats, sample_quantile_regression_batch

__all__ = ["AUDITS"]


def _scale(factor: float) -> Callable:
    return lambda c: c.replace(constant=c.constant * factor)


def _release_sampler(problem: str, **params: Any) -> Callable[..., np.ndarray]:
    """Outputs of the release (``kng.release_for(cfg)``) (size = n draws; 1-D problems as a vector)."""
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = _api.make(problem, epsilon=epsilon, size=n, **params)
        out = _api.release_for(cfg)(data, cfg, rng=rng, override=override).value
        return out[:, 0] if out.shape[1] == 1 else out
    return sampler


def _halflines(thresholds, projection=None):
    return lambda a, b, eps, dlt: halfline_events(thresholds, projection)


# ----------------------------------------------------------------------------- exact samplers
def _quantile_events(a, b, eps, dlt):
    """Likelihood-ratio events of the claimed (calibrated) laws, and half-lines."""
    laws = [_api.exact_pieces(D, _api.make("quantile", mechanism="kng", epsilon=eps, tau=0.9, bounds=(0, 1)))
            for D in (a, b)]
    # thresholds strictly inside (−ε, ε): the sets {LLR = ±ε} split by rounding would audit floating point
    ev = llr_events(laws[0].logpdf, laws[1].logpdf, np.linspace(-0.95, 0.95, 9) * eps)
    half = halfline_events(np.linspace(0.05, 0.95, 10))
    return lambda x: np.concatenate([ev(x), half(x)], axis=1)


def _mean_events(name: str, r: float):
    def events(a, b, eps, dlt):
        rate = len(a) * eps / (2 * r)  # the claimed law exp(−(nε/(2r))‖θ − x̄‖_K)
        ma, mb = a.mean(axis=0), b.mean(axis=0)
        # thresholds strictly inside (−ε, ε): on {LLR = ε} (positive mass for ℓ∞) rounding of x̄ + z picks
        # different float subsets under D and D′ — a floating-point artefact (Mironov 2012), not the math
        return llr_events(lambda x: -rate * knorm(x - ma, name), lambda x: -rate * knorm(x - mb, name),
                          np.linspace(-0.95, 0.95, 11) * eps)
    return events


def _grid_mean_events(a, b, eps, dlt):
    """Likelihood-ratio events of the claimed grid law (norm ℓ1, d = 2): P(θ = γk) ∝ exp(−(ε/Δ_g)‖k − r(x̄)‖₁)."""
    from .calibration import calibrate_location

    cfg = _api.make("mean", mechanism="kng", epsilon=eps, radius=1.0, norm="l1")
    cal = calibrate_location(cfg, a.shape)
    gamma, rate = cal.params["grid"], eps / cal.params["grid_sensitivity"]
    ra, rb = (np.floor(m.mean(axis=0) / gamma + 0.5) for m in (a, b))
    return llr_events(lambda x: -rate * np.abs(x / gamma - ra).sum(axis=1),
                      lambda x: -rate * np.abs(x / gamma - rb).sum(axis=1), np.linspace(-0.95, 0.95, 11) * eps)


def _mean_pair(r: float = 1.0, n: int = 10):
    D = np.zeros((n, 2))
    D[0] = [r, 0.0]
    Dp = D.copy()
    Dp[0] = [-r, 0.0]
    return D, Dp


def _mean_audit(name: str, noise: str = "auto") -> Audit:
    grid = name == "l1" and noise != "float"
    what = ("on a public grid, exact discrete Laplace (noise='grid')" if grid else
            "the K-norm mechanism" + (", float (noise='float')" if name == "l1" else ""))
    return Audit(
        id=f"kng/mean-kng-{name}" + ("-float" if noise == "float" else ""), mechanism="kng/mean-kng",
        title=f"KNG mean ({name} norm): {what}",
        datasets=_mean_pair(), neighbours="record 0 moves from (r, 0) to (−r, 0), r = 1 (n = 10)",
        sampler=_release_sampler("mean", mechanism="kng", radius=1.0, norm=name, noise=noise),
        events=_grid_mean_events if grid else _mean_events(name, 1.0),
        epsilon=1.0, mutant=Mutant("half scale", "K-norm noise at half the calibrated scale (density constant × 2)",
                                   _scale(2.0)),
        n_samples=200_000, seed=31, output_label="θ (2-D)")


AUDITS_EXACT = (
    Audit(id="kng/median-kng", mechanism="kng/median-kng", title="KNG median on Θ = [0, 1]",
          datasets=(np.array([0.0, 0.0, 0.8, 0.8]), np.array([1.0, 0.0, 0.8, 0.8])),
          neighbours="record 0 moves from 0 to 1 (the ends of the public interval)",
          sampler=_release_sampler("median", mechanism="kng", bounds=(0.0, 1.0)),
          events=_halflines(np.linspace(0.05, 0.95, 19)), epsilon=1.0,
          mutant=Mutant("Remark 4.1 shortcut", "ε/Δ instead of ε/(2Δ) on a bounded Θ, where Remark 4.1 does not "
                        "apply (density constant × 2)", _scale(2.0)),
          n_samples=200_000, seed=11, output_label="θ"),
    Audit(id="kng/quantile-kng", mechanism="kng/quantile-kng", title="KNG quantile τ = 0.9 (Smith's mechanism)",
          datasets=(np.array([0.05, 0.2, 0.5, 0.5]), np.array([0.05, 0.2, 0.5, 0.0])),
          neighbours="record 3 moves from 0.5 to 0 (the lower end of the public interval)",
          sampler=_release_sampler("quantile", mechanism="kng", tau=0.9, bounds=(0.0, 1.0)),
          events=_quantile_events, epsilon=1.0,
          mutant=Mutant("paper eq. (3)", "the paper's printed sensitivity Δ = 2(1 − τ) = 0.2 instead of 1 "
                        "(density constant ε/(2·0.2))",
                        lambda c: c.replace(sensitivity=0.2, constant=cast(float, c.epsilon) / (2 * 0.2))),
          n_samples=200_000, seed=21, output_label="θ"),
    _mean_audit("l2"),
    _mean_audit("linf"),
    _mean_audit("l1"),
    _mean_audit("l1", "float"),
    Audit(id="kng/mean-exponential", mechanism="kng/mean-exponential",
          title="Exponential mechanism for the mean on Θ = [−1, 1] (exact truncated normal)",
          datasets=(np.array([1.0]), np.array([-1.0])),
          neighbours="the one record moves from 1 to −1 (n = 1: Δ_ℓ = (2r)² is attained at θ = ∓1)",
          sampler=_release_sampler("mean", mechanism="exponential", radius=1.0),
          events=_halflines([-0.95, -0.9, -0.8, -0.6, 0.6, 0.8, 0.9, 0.95]), epsilon=1.0,
          mutant=Mutant("radius for diameter", "Δ_ℓ = r² instead of (2r)² (density constant × 4)", _scale(4.0)),
          n_samples=200_000, seed=71, output_label="θ"),
    Audit(id="kng/median-exponential", mechanism="kng/median-exponential",
          title="Exponential mechanism for the median, ℓ = Σ|x − θ| on [0, 1], Δ_ℓ = 1",
          datasets=(np.array([0.0, 1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0])),
          neighbours="record 0 moves from 0 to 1",
          sampler=_release_sampler("median", mechanism="exponential", bounds=(0.0, 1.0)),
          events=_halflines([0.05, 0.1, 0.2, 0.3, 0.5]), epsilon=1.0,
          mutant=Mutant("missing factor 2", "c = ε/Δ_ℓ instead of ε/(2Δ_ℓ)", _scale(2.0)),
          n_samples=400_000, seed=41, output_label="θ"),
    Audit(id="kng/quantile-exponential", mechanism="kng/quantile-exponential",
          title="Exponential mechanism for the quantile τ = 1/2 on [0, 1] (where Δ_ℓ = max(τ, 1−τ)(hi − lo) is tight)",
          datasets=(np.array([0.0, 1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0])),
          neighbours="record 0 moves from 0 to 1",
          sampler=_release_sampler("quantile", mechanism="exponential", tau=0.5, bounds=(0.0, 1.0)),
          events=_halflines([0.05, 0.1, 0.2, 0.3, 0.5]), epsilon=1.0,
          mutant=Mutant("missing factor 2", "c = ε/Δ_ℓ instead of ε/(2Δ_ℓ)", _scale(2.0)),
          n_samples=400_000, seed=81, output_label="θ"),
)


# ----------------------------------------------------------------------------- regressions (MCMC, objective perturbation)
def _linear_sampler(mechanism: str, sweeps: int):
    def sampler(data, n, rng, *, epsilon, delta, override):
        X, y = data
        A = np.broadcast_to(X.T @ X, (n,) + (X.shape[1],) * 2)
        b = np.broadcast_to(X.T @ y, (n, X.shape[1]))
        kw: dict[str, Any] = ({} if mechanism == "objective_perturbation"
                              else {"n_sweeps": sweeps, "replicate_diagnostics": False})
        return sample_linear_regression_suffstats(A, b, len(y), mechanism=mechanism, epsilon=epsilon, B=1.0,
                                                  rng=rng, override=override, **kw).theta
    return sampler


def _qr_sampler(mechanism: str, sweeps: int, tau: float):
    def sampler(data, n, rng, *, epsilon, delta, override):
        X, y = data
        Xb = np.broadcast_to(X, (n,) + X.shape)
        yb = np.broadcast_to(y, (n,) + y.shape)
        npv = np.zeros((n, X.shape[1]))  # not used by the sampler (simulations' error curves only)
        return sample_quantile_regression_batch(Xb, yb, tau=tau, mechanism=mechanism, epsilon=epsilon, B=1.0,
                                                C_X=1.0, n_sweeps=sweeps, rng=rng, nonprivate=npv,
                                                replicate_diagnostics=False, override=override).theta
    return sampler


def _fitted_pair(n: int = 50):
    """n records x = (1, 1), y = 1: the fit sits on the boundary of Θ = {‖θ‖₁ ≤ 1}; D′ flips one response.

    With n = 1 the law of the fitted value spreads over all of [−1, 1], where the exponential
    mechanism's privacy loss (ε/2)·θ₁+θ₂ reaches ±ε/2 (and its mutant's ±2ε)."""
    X = np.ones((n, 2))
    y = np.ones(n)
    yp = y.copy()
    yp[0] = -1.0
    return (X, y), (X, yp)


def _op_pair(n: int = 50):
    X = np.ones((n, 1))
    y = np.zeros(n)
    y[0] = 1.0
    yp = y.copy()
    yp[0] = -1.0
    return (X, y), (X, yp)


def _intercept_pair(y: list, yp: list):
    X = np.ones((len(y), 1))
    return (X, np.array(y)), (X, np.array(yp))


_FITTED = np.array([1.0, 1.0])  # project on θ₁ + θ₂, the fitted value at x = (1, 1)

AUDITS_REGRESSION = (
    Audit(id="kng/linear_regression-kng", mechanism="kng/linear_regression-kng",
          title="KNG linear regression (MCMC), d = 2, projected on the fitted value at x = (1, 1)",
          datasets=_fitted_pair(), neighbours="one response flips from y = 1 to y = −1 (n = 50, x ≡ (1, 1))",
          sampler=_linear_sampler("kng", 200),
          events=_halflines([0.9, 0.95, 0.97, 0.98, 0.99, 0.995], _FITTED), epsilon=1.0,
          mutant=Mutant("constant × 4", "density constant 4ε/(2Δ) (gross: an MCMC law is only close to its "
                        "target)", _scale(4.0)),
          n_samples=40_000, seed=51, output_label="θ₁ + θ₂", project=lambda out: out @ _FITTED),
    Audit(id="kng/linear_regression-exponential", mechanism="kng/linear_regression-exponential",
          title="Exponential mechanism for linear regression (MCMC), d = 2, projected on the fitted value",
          datasets=_fitted_pair(1), neighbours="the one response flips from y = 1 to y = −1 (n = 1, x = (1, 1))",
          sampler=_linear_sampler("exponential", 200),
          events=_halflines([-0.95, -0.9, -0.8, 0.8, 0.9, 0.95], _FITTED), epsilon=1.0,
          mutant=Mutant("constant × 4", "Δ_ℓ = (1 + B)²/4: density constant × 4", _scale(4.0)),
          n_samples=40_000, seed=91, output_label="θ₁ + θ₂", project=lambda out: out @ _FITTED),
    Audit(id="kng/linear_regression-objective_perturbation", mechanism="kng/linear_regression-objective_perturbation",
          title="Objective perturbation (exact QP), d = 1, x ≡ 1",
          datasets=_op_pair(),
          neighbours="record 0's response moves from y = 1 to y = −1 (all others 0; n = 50)",
          sampler=_linear_sampler("objective_perturbation", 0),
          events=_halflines(np.r_[-np.array([0.4, 0.2, 0.1, 0.08, 0.06, 0.04, 0.02]),
                                  np.array([0.02, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4])]),
          epsilon=1.0,
          # in d = 1 the attainable shift of 2Xᵀy is 4 = Δ/2, so the calibrated mechanism's real loss is ε/4:
          # a mutant is refutable only once its loss exceeds ε
          mutant=Mutant("noise rate × 8", "noise b drawn with 8× the calibrated rate (loss 2ε)", _scale(8.0)),
          n_samples=40_000, seed=61, output_label="θ"),
    Audit(id="kng/quantile_regression-kng", mechanism="kng/quantile_regression-kng",
          title="KNG quantile regression (MCMC), intercept only (d = 1), τ = 1/2",
          datasets=_intercept_pair([-1.0, -1.0, 0.6, 0.6], [1.0, -1.0, 0.6, 0.6]),
          neighbours="record 0's response moves from −1 to 1 (x ≡ 1, Θ = [−1, 1])",
          sampler=_qr_sampler("kng", 200, 0.5),
          events=_halflines(np.linspace(-0.9, 0.9, 10)), epsilon=1.0,
          mutant=Mutant("constant × 2", "ε/Δ instead of ε/(2Δ) (density constant × 2)", _scale(2.0)),
          n_samples=40_000, seed=101, output_label="θ"),
    Audit(id="kng/quantile_regression-exponential", mechanism="kng/quantile_regression-exponential",
          title="Exponential mechanism for quantile regression (MCMC), intercept only (d = 1), τ = 1/2",
          datasets=_intercept_pair([-1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]),
          neighbours="record 0's response moves from −1 to 1 (x ≡ 1, Θ = [−1, 1])",
          sampler=_qr_sampler("exponential", 100, 0.5),
          events=_halflines([-0.97, -0.95, -0.9, -0.8, -0.5, 0.0]), epsilon=1.0,
          mutant=Mutant("missing factor 2", "c = ε/Δ_ℓ instead of ε/(2Δ_ℓ)", _scale(2.0)),
          n_samples=200_000, seed=111, output_label="θ"),
)

# ----------------------------------------------------------------------------- exact linear regression
def _intercept_lr_pair(n: int, y_rest: float = 0.2):
    """x ≡ 1 (d = 1), n records; record 0's response moves from 1 to −1 (the ends of its public range)."""
    X = np.ones((n, 1))
    y = np.full(n, y_rest)
    y[0] = 1.0
    yp = y.copy()
    yp[0] = -1.0
    return (X, y), (X, yp)


AUDITS_EXACT_REGRESSION = (
    Audit(id="kng/linear_regression-kng-exact", mechanism="kng/linear_regression-kng",
          title="KNG linear regression, exact sampler (K-norm law mapped back, rejection on Θ), x ≡ 1",
          datasets=_intercept_lr_pair(10),
          neighbours="record 0's response moves from y = 1 to y = −1 (x ≡ 1, n = 10, Θ = [−1, 1])",
          sampler=_release_sampler("linear_regression", mechanism="kng", B=1.0),
          events=_halflines(np.linspace(-0.9, 0.9, 19)), epsilon=1.0,
          # the gradient 2(nθ − Σy) shifts by 4 = Δ/2 here (the most a record moves it in d = 1), so the
          # calibrated law's real loss is ≤ ε/2 and half-lines see about half of a mutant's: only a mutant
          # whose loss is several ε is refutable (measured: × 4 reaches 0.97ε, not rejected)
          mutant=Mutant("Δ without its factors 2", "Δ = (1 + B)·κ/2 instead of 4(1 + B)·κ (forgets the 2 of "
                        "∇ℓ = 2(Aθ − b), the 2 of replace-one and the 2 of the residual range): density "
                        "constant × 8", _scale(8.0)),
          n_samples=200_000, seed=121, output_label="θ"),
    Audit(id="kng/linear_regression-exponential-exact", mechanism="kng/linear_regression-exponential",
          title="Exponential mechanism for linear regression, exact sampler (restricted Gaussian), n = 1",
          datasets=_intercept_lr_pair(1),
          neighbours="the one response moves from y = 1 to y = −1 (x = 1, Θ = [−1, 1]: Δ_ℓ = (1 + B)² is "
                     "attained at θ = ∓1)",
          sampler=_release_sampler("linear_regression", mechanism="exponential", B=1.0),
          events=_halflines([-0.95, -0.9, -0.8, -0.6, 0.6, 0.8, 0.9, 0.95]), epsilon=1.0,
          # by symmetry the normalisers of D and D′ agree: the calibrated loss is ε/2 (4cθ at θ = 1), so a
          # mutant must lose ≥ 2ε to be refuted (measured: × 2 reaches 0.81ε, not rejected)
          mutant=Mutant("residual half-range", "Δ_ℓ = ((1 + B)/2)² instead of (1 + B)²: density constant × 4",
                        _scale(4.0)),
          n_samples=200_000, seed=131, output_label="θ"),
)

AUDITS = AUDITS_EXACT + AUDITS_REGRESSION + AUDITS_EXACT_REGRESSION

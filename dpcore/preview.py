"""Accuracy before the click: the law of the error a mechanism will add, from public quantities only.

A user choosing ε wants to see what it buys before spending it (ViP, Nanayakkara et al. 2022). For each
mechanism a page can release, :func:`preview` returns an :class:`ErrorLaw`: the distribution of the error
``‖released − non-private answer‖`` (in a stated measure) as a function of the calibration, n, the public
bounds and the chosen parameters — **never of the data**: no function here takes the user's data.

* **Exact** where the noise law is known and does not depend on the data: Laplace (|noise| ~ Exp(b); the
  ℓ1 error of p cells ~ Gamma(p, b)), the two-sided geometric, Gaussian (half-normal; the ℓ∞ and ℓ2 norms
  of d draws; the RMS of k draws ~ σ√(χ²_k/k)), the K-norm mechanism (‖noise‖_K ~ Gamma(d, scale): Hardt &
  Talwar 2010; Reimherr & Awan 2019, Remark 4.1), and the exponential mechanism's 1-D law over the
  quantile/median's pieces on a public design (its CDF is exact; quantiles by bisection).
* **Monte Carlo of an exact, data-free law** where the noise is additive and known but its norm has no closed
  form: the two-sided geometric, thresholding's empty cells, the GP-KDE's Gaussian process and the
  Fourier/Laplace coefficients (the release's own noise samplers, no dataset involved).
* **By simulation on a public design** otherwise: the mechanism's own release function (through
  :mod:`dpcore.registry`), or its vectorised sampler where it has one (private Frank–Wolfe on the design's
  sufficient statistics, Algorithm 5's ``sample_functional``, the query releases' ``sample_outputs``), run
  ``reps`` times on a synthetic dataset built from the public shape (n, d, the bounds) with a fixed seed; the
  design is named in :attr:`ErrorLaw.basis`, because the error on the user's data depends on how the data
  spread (that is exactly what a preview may not look at).

Everything is deterministic for given arguments (seeded), so the picture is the same on neighbouring
datasets (the public-surface contract); pages cache it by its public arguments.

>>> law = preview("kng/mean-kng", {"epsilon": 1.0, "norm": "linf", "bounds": (0.0, 1.0), "noise": "float"}, n=100, d=1)
>>> law.exact, round(float(law.quantile(0.5)), 5)          # |θ − x̄| ~ Exp(2r/(nε)), r = 1/2
(True, 0.00693)
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

import numpy as np
from scipy import stats

from ._rng import as_generator
from ._validation import check_int
from .errors import DPValueError

__all__ = ["ErrorLaw", "LEVELS", "DEFAULT_REPS", "MAX_PREVIEW_WORK", "laplace_abs", "laplace_l1", "geometric_l1",
           "gaussian_norm", "gaussian_rms", "knorm_radius", "exponential_pieces", "threshold_l1", "from_samples",
           "unavailable", "preview", "previews", "evenly_spread", "simulate", "norm_of", "mean_imputation"]

#: The probabilities of the intervals drawn: the error is at most q(0.5) half the time, q(0.9) nine times in ten.
LEVELS = (0.5, 0.9)
#: Releases simulated for a preview that has no exact law (seeded).
DEFAULT_REPS = 400
#: Largest simulated work (public units: n × draws; for Frank–Wolfe n·p² once for the design's Gram plus T·p per
#: run) a preview runs; beyond it the preview says it is unavailable instead of keeping the page waiting.
MAX_PREVIEW_WORK = 4e8


@dataclass(frozen=True, eq=False)
class ErrorLaw:
    """The law of the error one draw of a mechanism adds, in ``measure``.

    Attributes
    ----------
    method : str
        The mechanism's key on its page (e.g. ``"kng"``) or registry name.
    label : str
        Plain-words name.
    measure : str
        What is measured, with units (e.g. ``"|θ − θ̂| (units of the column)"``).
    basis : str
        How the law was obtained: ``"exact: …"`` with the law, or ``"simulated: … releases on …"``.
    exact : bool
        True when the law is exact (no Monte Carlo error, no assumed design).
    dist : scipy frozen distribution or None
        The exact law of the (non-negative) error, when it has a closed form.
    samples : ndarray or None
        Sorted simulated errors (``reps`` of them), when it has not.
    cdf_fn, ppf_fn : callables or None
        An exact CDF (and optionally quantile function) given directly (e.g. the exponential mechanism's pieces).
    p_withheld : float
        Probability that the mechanism withholds its output (⊥); the error law is then of the released draws.
    reason : str
        Non-empty when no preview is available (why, in words).
    """

    method: str
    label: str
    measure: str = ""
    basis: str = ""
    exact: bool = False
    dist: Any = None
    samples: Optional[np.ndarray] = None
    cdf_fn: Optional[Callable[[np.ndarray], np.ndarray]] = None
    ppf_fn: Optional[Callable[[np.ndarray], np.ndarray]] = None
    p_withheld: float = 0.0
    reason: str = ""
    upper: float = field(default=math.inf)
    #: ``((design, law), …)``: the same mechanism's law on each public design of the spread (the first: this one's).
    spread: tuple = ()

    @property
    def available(self) -> bool:
        return not self.reason

    def quantile(self, q: Any) -> np.ndarray:
        """The error that is not exceeded with probability ``q`` (array-like in (0, 1))."""
        q = np.asarray(q, dtype=float)
        if not self.available:
            return np.full(q.shape, np.nan)
        if self.dist is not None:
            return np.asarray(self.dist.ppf(q), dtype=float)
        if self.samples is not None:
            return np.quantile(self.samples, q, method="inverted_cdf")
        if self.ppf_fn is not None:
            return np.asarray(self.ppf_fn(q), dtype=float)
        return _invert(self.cdf, q, self.upper)

    def cdf(self, t: Any) -> np.ndarray:
        """P(error ≤ t)."""
        t = np.asarray(t, dtype=float)
        if self.dist is not None:
            return np.asarray(self.dist.cdf(t), dtype=float)
        if self.samples is not None:
            return np.searchsorted(self.samples, t, side="right") / len(self.samples)
        if self.cdf_fn is not None:
            return np.asarray(self.cdf_fn(t), dtype=float)
        return np.full(t.shape, np.nan)

    def intervals(self) -> dict[float, float]:
        """``{0.5: q50, 0.9: q90}``: the error is in [0, q] with that probability."""
        return {lv: float(v) for lv, v in zip(LEVELS, self.quantile(LEVELS))}

    def mc_tolerance(self, alpha: float = 1e-6) -> float:
        """The DKW half-width of this law's own CDF (0 when exact): sup|F̂ − F| ≤ it w.p. ≥ 1 − alpha."""
        if self.samples is None:
            return 0.0
        return math.sqrt(math.log(2.0 / alpha) / (2.0 * len(self.samples)))

    def describe(self) -> str:
        """One sentence: the 50 % and 90 % bounds and how they were obtained (public)."""
        if not self.available:
            return f"{self.label}: no preview — {self.reason}"
        iv = self.intervals()
        head = (f"{self.label}: error {self.measure} ≤ {iv[0.5]:.3g} half of the time, ≤ {iv[0.9]:.3g} nine times "
                f"in ten")
        if self.p_withheld:
            head += f"; withheld (⊥) with probability ≈ {self.p_withheld:.2g}"
        from .preview_check import spread_text

        return f"{head} ({self.basis}){spread_text(self)}."



def _invert(cdf: Callable[[np.ndarray], np.ndarray], q: np.ndarray, upper: float) -> np.ndarray:
    """Quantiles of a non-negative law from its CDF by bisection on [0, upper]."""
    hi = upper if math.isfinite(upper) else 1.0
    while math.isfinite(hi) and float(cdf(np.asarray(hi))) < float(np.max(q)) and hi < 1e300:
        hi *= 2.0
    lo_a, hi_a = np.zeros(q.shape), np.full(q.shape, hi)
    for _ in range(80):
        mid = (lo_a + hi_a) / 2.0
        below = cdf(mid) < q
        lo_a, hi_a = np.where(below, mid, lo_a), np.where(below, hi_a, mid)
    return hi_a


# -- exact laws --------------------------------------------------------------------------------------------
def laplace_abs(scale: float, *, method: str = "laplace", label: str = "Laplace", measure: str = "|noise|",
                what: str = "") -> ErrorLaw:
    """|Laplace(b)| ~ Exponential(scale b): exact."""
    return ErrorLaw(method, label, measure, f"exact: |Laplace(b = {scale:.4g})| ~ Exponential(b){what}", True,
                    dist=stats.expon(scale=float(scale)))


def laplace_l1(p: int, scale: float, *, method: str = "laplace", label: str = "Laplace in every cell") -> ErrorLaw:
    """ℓ1 error of p independent Laplace(b) cells: Gamma(p, b), exact."""
    return ErrorLaw(method, label, "ℓ1 over all p cells (records)",
                    f"exact: the sum of p = {p:,} |Laplace(b = {scale:.4g})| is Gamma(p, b)", True,
                    dist=stats.gamma(a=int(p), scale=float(scale)))


def geometric_l1(p: int, epsilon_over_delta: float, *, reps: int = DEFAULT_REPS * 10, rng: Any = 0,
                 method: str = "laplace", label: str = "two-sided geometric in every cell") -> ErrorLaw:
    """ℓ1 error of p two-sided geometric cells (P(X = k) ∝ α^|k|, α = e^{−ε/Δ}): K ~ Binomial(p, 2α/(1+α))
    non-zero cells, each |X| = 1 + Geometric(1 − α) failures, so ℓ1 = K + NegBin(K, 1 − α). Monte Carlo of
    this exact law (data-free, seeded)."""
    a = math.exp(-float(epsilon_over_delta))
    g = as_generator(rng)
    k = g.binomial(int(p), 2 * a / (1 + a), size=reps)
    l1 = k + np.where(k > 0, g.negative_binomial(np.maximum(k, 1), 1 - a), 0)
    return from_samples(l1.astype(float), method, label, "ℓ1 over all p cells (records)",
                        f"Monte Carlo of the exact law ({reps:,} draws, data-free): K ~ Binomial(p, 2α/(1+α)), "
                        f"ℓ1 = K + NegBin(K, 1 − α), α = {a:.4g}")


def gaussian_norm(sigma: float, d: int = 1, norm: str = "linf", *, method: str = "gaussian",
                  label: str = "Gaussian", reps: int = DEFAULT_REPS * 10, rng: Any = 0,
                  what: str = "", unit: str = "error") -> ErrorLaw:
    """‖Z‖ for Z ~ N(0, σ² I_d): ℓ∞ exact (P(max|Z_j| ≤ t) = (2Φ(t/σ) − 1)^d), ℓ2 exact (σ·χ_d); ℓ1 by Monte
    Carlo of the exact law (data-free)."""
    d = int(d)
    s = float(sigma)
    if d == 1 or norm == "linf":
        cdf = (lambda t: np.clip(2 * stats.norm.cdf(np.asarray(t) / s) - 1, 0, 1) ** d)
        ppf = (lambda q: s * stats.norm.ppf((1 + np.asarray(q) ** (1.0 / d)) / 2))
        return ErrorLaw(method, label, f"‖{unit}‖∞" if d > 1 else f"|{unit}|",
                        f"exact: Gaussian noise, σ = {s:.4g}" + (f", max of {d} coordinates" if d > 1 else "") + what,
                        True, cdf_fn=cdf, ppf_fn=ppf)
    if norm == "l2":
        return ErrorLaw(method, label, f"‖{unit}‖₂", f"exact: σ·χ_{d}, σ = {s:.4g}{what}", True,
                        dist=stats.chi(df=d, scale=s))
    z = np.abs(as_generator(rng).normal(0.0, s, size=(reps, d))).sum(axis=1)
    return from_samples(z, method, label, f"‖{unit}‖₁", f"Monte Carlo of the exact law ({reps:,} draws, data-free), "
                        f"σ = {s:.4g}{what}")


def gaussian_rms(sigma: float, k: int, *, method: str = "gaussian", label: str = "Gaussian") -> ErrorLaw:
    """RMS over k queries of N(0, σ²) noise: σ·√(χ²_k / k), exact."""
    k = int(k)
    return ErrorLaw(method, label, f"RMS over the k = {k} answers",
                    f"exact: σ·√(χ²_k/k), σ = {sigma:.4g}", True, dist=stats.chi(df=k, scale=float(sigma) / math.sqrt(k)))


def knorm_radius(d: int, scale: float, norm: str = "linf", *, method: str = "kng", label: str = "K-norm",
                 what: str = "", unit: str = "noise") -> ErrorLaw:
    """‖noise‖_K for density ∝ exp(−‖z‖_K / scale) on ℝ^d: Gamma(d, scale), exact (the Gamma(d + 1) radius
    times a uniform point of the unit ball, whose norm is Beta(d, 1))."""
    name = {"linf": "∞", "l2": "₂", "l1": "₁"}.get(norm, norm)
    return ErrorLaw(method, label, f"‖{unit}‖{name}" if d > 1 else f"|{unit}|",
                    f"exact: ‖noise‖_K ~ Gamma(d = {d}, scale {scale:.4g}){what}", True,
                    dist=stats.gamma(a=int(d), scale=float(scale)))


def exponential_pieces(cdf_theta: Callable[[np.ndarray], np.ndarray], centre: float, width: float, *,
                       method: str, label: str, basis: str) -> ErrorLaw:
    """|θ − centre| for a 1-D θ whose CDF is known exactly (the exponential mechanism / KNG over the pieces
    of a public design): P(|θ − c| ≤ t) = F(c + t) − F(c − t); quantiles by bisection on [0, width]."""
    def cdf(t):
        t = np.asarray(t, dtype=float)
        return np.clip(cdf_theta(centre + t) - cdf_theta(centre - t), 0.0, 1.0)
    return ErrorLaw(method, label, "|θ − θ̂| (units of the column)", basis, True, cdf_fn=cdf, upper=float(width))


def threshold_l1(p: int, scale: float, tau: float, *, noise: str = "laplace", reps: int = DEFAULT_REPS * 10,
                 rng: Any = 0, method: str = "threshold", label: str = "thresholded") -> ErrorLaw:
    """ℓ1 error of hard thresholding on the EMPTY cells, as if all p were empty (the part of its error that does
    not depend on the data): F ~ Binomial(p, e^{−τ/b}/2) false positives, each τ + Exp(b) (memoryless), so
    ℓ1 = Fτ + Gamma(F, b). Monte Carlo of that exact law (data-free). The occupied cells add at most
    τ + |noise| each (not included: their number q is data)."""
    g = as_generator(rng)
    if noise == "geometric":   # P(Z > τ) = a^m/(1 + a), m = ⌊τ⌋ + 1; a survivor is m + Geometric(1 − a) failures
        a, m = math.exp(-1.0 / scale), math.floor(tau) + 1
        f = g.binomial(int(p), a ** m / (1 + a), size=reps)
        l1: np.ndarray = (f * m + np.where(f > 0, g.negative_binomial(np.maximum(f, 1), 1 - a), 0)).astype(float)
    else:
        f = g.binomial(int(p), 0.5 * math.exp(-tau / scale), size=reps)
        l1 = f * tau + np.where(f > 0, g.gamma(np.maximum(f, 1), scale), 0.0)
    return from_samples(l1, method, label, "ℓ1 over the empty cells (false positives)",
                        f"Monte Carlo of the exact law ({reps:,} draws, data-free): F ~ Binomial(p, e^(−τ/b)/2), "
                        f"ℓ1 = Fτ + Gamma(F, b), τ = {tau:.4g}; each occupied cell adds at most τ + |noise|")


def from_samples(errors: np.ndarray, method: str, label: str, measure: str, basis: str, *,
                 p_withheld: float = 0.0) -> ErrorLaw:
    """An empirical law from simulated errors (sorted copy kept)."""
    e = np.sort(np.asarray(errors, dtype=float).ravel())
    if e.size == 0:
        return unavailable(method, label, "every simulated release was withheld (⊥)")
    return ErrorLaw(method, label, measure, basis, False, samples=e, p_withheld=float(p_withheld))


def unavailable(method: str, label: str, reason: str) -> ErrorLaw:
    return ErrorLaw(method, label, reason=reason)


# -- public designs ------------------------------------------------------------------------------------------
def evenly_spread(n: int, lo: float, hi: float) -> np.ndarray:
    """n values spread evenly over [lo, hi] (the midpoints of n equal cells), shape (n, 1): the public design
    of the 1-D median/quantile previews (an assumption, said on the page)."""
    return (lo + (np.arange(int(n)) + 0.5) / int(n) * (hi - lo))[:, None]


def simulate(name: str, design: Any, config: Any, reps: int, rng: Any, *, measure: str, label: str, method: str,
              basis: str, error: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> ErrorLaw:
    """Run the registered mechanism ``name`` ``reps`` times on the public ``design`` (a simulated dataset, never the user's) (one call with size = reps
    when its config has a ``size``, else reps calls) and measure each draw against its non-private answer."""
    from . import registry

    spec = registry.mechanism(name)
    target = np.asarray(spec.nonprivate(design, config), dtype=float)
    g = as_generator(rng)
    fields = {f.name for f in dataclasses.fields(config)}
    if "size" in fields:
        rel = spec.release(design, dataclasses.replace(config, size=int(reps)), rng=g)
        rows = np.asarray(spec.compare(rel.value) if spec.compare else rel.value, dtype=float).reshape(int(reps), -1)
        released = np.isfinite(rows).all(axis=1)
    else:
        vals = []
        for s in g.spawn(int(reps)):
            r = spec.release(design, config, rng=s)
            vals.append(np.asarray(spec.compare(r.value) if spec.compare else r.value, dtype=float).ravel())
        rows = np.vstack(vals)
        released = np.isfinite(rows).all(axis=1)
    errs = error(rows[released], target.ravel()[None, :])
    if not released.any():
        return unavailable(method, label, f"it withheld its output (⊥) in all {reps} simulated releases ({basis}): "
                                          "at these settings it will most likely abstain")
    return from_samples(errs, method, label, measure, basis, p_withheld=1.0 - released.mean())


def mean_imputation(epsilon: float, *, n: int, bounds: tuple[float, float], reps: int | None = None, rng: Any = 0,
                    label: str = "Private mean (Laplace)") -> ErrorLaw:
    """The Data page's private mean that fills a column's missing cells (:mod:`dpcore.data.impute`: Laplace on the
    observed count and centred sum, Δ₁ = 3/2), simulated on the public design of ``n`` observed cells spread evenly
    over the public ``bounds`` — how many cells are missing, and where the values lie, are data, so not used."""
    from .data import impute

    lo, hi = map(float, bounds)
    n = check_int(n, "n", lo=1)
    reps = DEFAULT_REPS * 10 if reps is None else check_int(reps, "reps", lo=1)
    design = evenly_spread(n, lo, hi)[:, 0]
    target = float(np.clip(design, lo, hi).mean())
    # The release's own steps, vectorised over reps: its statistics once, its Laplace step, its post-processing.
    noisy = impute.laplace_statistics(np.tile(impute._statistics(design, (lo, hi)), (reps, 1)),
                                      impute.mean_imputation_config(epsilon), as_generator(rng))
    errs = np.abs(impute._mean_from_noisy(noisy, (lo, hi)) - target)
    return from_samples(errs, "data/impute-mean", label, "|mean − observed mean|",
                        f"simulated: {reps} releases on n = {n:,} observed cells spread evenly over [{lo:g}, {hi:g}] "
                        "(a public design; missing cells would make it noisier)")


# -- the dispatch ----------------------------------------------------------------------------------------------
def norm_of(diff: np.ndarray, norm: str) -> np.ndarray:
    if norm == "l2":
        return np.sqrt((diff ** 2).sum(axis=1))
    if norm == "l1":
        return np.abs(diff).sum(axis=1)
    return np.abs(diff).max(axis=1)


def preview(name: str, config: Any, *, n: int, d: int = 1, reps: int | None = None, rng: Any = 0,
            label: str | None = None, **shape: Any) -> ErrorLaw:
    """The law of the error one draw of the registered mechanism ``name`` adds, from public inputs only.

    Parameters
    ----------
    name : str
        A registry name (:func:`dpcore.registry.mechanisms`), e.g. ``"kng/mean-kng"``.
    config : config object or Mapping
        The mechanism's config (a Mapping is built with the spec's ``make``).
    n, d : int
        Public shape: rows and dimension of the released statistic.
    reps, rng : simulation size (default: per family, 50–400) and seed (only used without an exact law).
        Measured on this 2-core machine (shared): exact laws < 0.1 s; simulated ones mostly < 1 s — private
        Frank–Wolfe at the LASSO page's defaults (n = 20 000, p = 50, T ≈ 1 100) 0.45 s (0.6 s with the intercept),
        query release at d = 6, w = 2 about 0.5 s for 200 projections, Algorithm 5 0.04 s for 1 000 runs; the
        K-norm KDE (k = 3) 1–4 s for 100 draws of its rejection sampler (grid 128–256).
    **shape
        Further public quantities some mechanisms need (``p``, ``k`` …; see the source of each branch).

    Notes
    -----
    There is deliberately no ``data`` argument.
    """
    from . import registry

    if name == "data/impute-mean":       # the Data page's private mean (a shared mechanism, not a topic's)
        return mean_imputation(config, n=n, bounds=shape["bounds"], reps=reps, rng=rng,
                               **({"label": label} if label else {}))
    spec = registry.mechanism(name)
    if isinstance(config, Mapping):
        kw = dict(config)
        if name.startswith("kng/"):
            kw.setdefault("mechanism", name.rsplit("-", 1)[1])
        config = spec.make(**kw)
    n = check_int(n, "n", lo=1)
    label = label or spec.title
    hook = _topic_preview(spec.topic)
    if hook is None:
        return unavailable(name, label, "no accuracy preview is declared for this mechanism")
    return hook(name, spec, config, n=n, d=int(d), reps=reps, rng=rng, label=label, **shape)


def _topic_preview(topic: str) -> Optional[Callable[..., ErrorLaw]]:
    """The topic's declared preview (``Topic.preview``): each topic knows the law of its own noise."""
    from . import registry

    return next((t.preview for t in registry.topics() if t.name == topic), None)


def previews(items: Mapping[str, tuple[str, Any]], **public: Any) -> list[ErrorLaw]:
    """Several previews sharing the public shape: ``{label: (registry name, config)}``; a DPValueError of
    one becomes an unavailable law naming it."""
    out = []
    for label, (name, cfg) in items.items():
        try:
            out.append(preview(name, cfg, label=label, **public))
        except DPValueError as exc:
            out.append(unavailable(name, label, str(exc)))
    return out


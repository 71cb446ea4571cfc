"""Exact samplers of the discrete Laplace and discrete Gaussian laws (Canonne, Kamath & Steinke 2020).

Floating-point Laplace noise leaks through the gaps of the doubles it can produce (Mironov 2012): the set of
outputs reachable from ``x + rng.laplace(b)`` depends on ``x``. The samplers here use integer and rational
arithmetic only (Python ``int`` / :class:`fractions.Fraction`, and numpy ``int64`` where every operand provably
fits), and their only randomness is uniform integers from a ``numpy.random.Generator``'s ``integers``, which
numpy draws exactly (rejection on masked words). Their outputs are integers, so every output is reachable
from every input: no support test can tell neighbours apart.

The algorithms (CKS20, "The discrete Gaussian for differential privacy", NeurIPS 2020):

* Algorithm 1, Bernoulli(exp(−γ)) for rational γ ≥ 0: for γ ∈ [0, 1], draw A_k ~ Bernoulli(γ/k) for
  k = 1, 2, … until the first A_k = 0 and return 1 iff that k is odd (P(K > k) = γ^k/k!, so P(K odd) =
  Σ_j (−γ)^j/j! = e^{−γ}); for γ > 1, ⌊γ⌋ Bernoulli(e^{−1}) and one Bernoulli(exp(−(γ − ⌊γ⌋))), all 1.
* Algorithm 2, discrete Laplace with scale t = n/d (P(z) ∝ exp(−|z|/t) on ℤ): U uniform on {0, …, n−1}
  kept with probability exp(−U/n), V ~ Geometric(1 − e^{−1}), X = U + nV ~ Geometric(1 − e^{−1/n}),
  Y = ⌊X/d⌋ ~ Geometric(1 − e^{−d/n}); a fair sign, rejecting (−, 0); Z = ±Y.
* Algorithm 3, discrete Gaussian with variance parameter σ² = a/b (P(z) ∝ exp(−z²/(2σ²)) on ℤ):
  T = ⌊σ⌋ + 1, Y ~ discrete Laplace(T), kept with probability exp(−(|Y| − σ²/T)²/(2σ²)).

Every algorithm is vectorised over draws: all pending draws take each step together (one ``integers`` call per
step), and rejected ones retry in the next round. Bernoulli(p/q) is ``integers(0, q) < p`` when q < 2^62 and
otherwise a comparison of 62-bit chunks of a uniform with the binary expansion of p/q (exact; a tie, probability
2^−62, continues with the next chunk).

Scales given as floats are exact rationals (every double is one); :func:`rational_at_least` rounds a scale up to a
rational with a 40-bit numerator so that the integer steps stay in ``int64`` — a larger scale is more noise, so a
privacy guarantee proved for the requested scale holds for the one used (the calibrations state the one used).

Why this module is long: it is the one public face of every exact sampler (the CKS20 algorithms, the exact survivor
counts of :mod:`dpcore._binomial`, the grid releases), which share its rational-scale helpers and ``NoiseStep``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import _binomial, _inversion
from ._rng import RNGLike, as_generator
from .errors import DPValueError

__all__ = ["rational_at_least", "bernoulli_exp", "geometric", "discrete_laplace", "discrete_gaussian",
           "discrete_laplace_pmf", "discrete_gaussian_pmf", "discrete_laplace_tail", "discrete_laplace_survival",
           "discrete_laplace_survivors", "laplace_survivors", "SAMPLER_KINDS", "NoiseStep"]

Rational = Union[int, float, Fraction]

#: The sampler kinds a registered mechanism declares (``MechanismSpec.sampler``): "exact-discrete" (every random
#: integer by the exact samplers here), "grid-discrete" (a real statistic rounded to a public grid plus exact
#: discrete noise in grid units), "float" (numpy's floating-point samplers of continuous laws), "mcmc" (a Markov
#: chain run for finitely many steps: approximately private by construction).
SAMPLER_KINDS = ("exact-discrete", "grid-discrete", "float", "mcmc")

_CHUNK_BITS = 62
_CHUNK = 1 << _CHUNK_BITS
_NUMERATOR_BITS = 40


def _fraction(x: Rational, name: str) -> Fraction:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, Fraction, np.integer, np.floating)):
        raise DPValueError(f"{name} must be a positive int, float or Fraction; got {x!r}.")
    if isinstance(x, (float, np.floating)) and not math.isfinite(float(x)):
        raise DPValueError(f"{name} must be finite; got {x!r}.")
    f = Fraction(int(x)) if isinstance(x, (int, np.integer)) else Fraction(x if isinstance(x, Fraction) else float(x))
    if f <= 0:
        raise DPValueError(f"{name} must be > 0; got {x!r}.")
    return f


def rational_at_least(x: Rational, name: str = "scale") -> Fraction:
    """The smallest m·2^−k ≥ x with m of at most 41 bits (k may be negative): x rounded UP; x < 2^61.

    A noise scale rounded up only adds noise (the guarantee of the requested scale holds); the relative change is
    below 2^−39. Exact input x = a Fraction, an int or a float (every double is a rational).
    """
    f = _fraction(x, name)
    if f >= 2**61:
        raise DPValueError(f"{name} must be below 2^61 for the exact integer sampler; got {float(f):.6g}.")
    k = _NUMERATOR_BITS - (f.numerator.bit_length() - f.denominator.bit_length()) - 1
    m = -((-f.numerator * (1 << max(k, 0))) // (f.denominator * (1 << max(-k, 0))))   # ceil(f·2^k)
    return Fraction(m, 1 << k) if k >= 0 else Fraction(m * (1 << -k))


@dataclass(frozen=True)
class NoiseStep:
    """One random step of a mechanism, declared in its :class:`MechanismSpec` (``noise=``).

    Attributes
    ----------
    what : str
        The statistic the step randomises, in plain words ("cell counts", "θ").
    kind : str
        The sampler, one of :data:`dpcore.exact.SAMPLER_KINDS`: "exact-discrete", "grid-discrete", "float",
        "mcmc".
    integer : bool
        Whether the statistic is integer-valued (a count): such a step must be "exact-discrete".
    """

    what: str
    kind: str
    integer: bool = False

    def __post_init__(self) -> None:
        if self.kind not in SAMPLER_KINDS:
            raise DPValueError(f"noise step {self.what!r}: kind {self.kind!r} is unknown; use one of {SAMPLER_KINDS}.")


# -- Bernoulli trials with rational probabilities -------------------------------------------------------------
def _bernoulli(num: np.ndarray, den: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Independent Bernoulli(num_i/den_i), 0 ≤ num ≤ den, exactly (arrays of int64 or Python ints)."""
    if num.size == 0:
        return np.zeros(0, bool)
    if num.dtype != object or max(int(v) for v in den) < _CHUNK:
        return g.integers(0, den.astype(np.int64)) < num.astype(np.int64)
    scaled = num * _CHUNK                                   # object arrays: exact Python ints
    c = (scaled // den).astype(np.int64)                     # first 62 bits of num/den, in [0, 2^62]
    u = g.integers(0, _CHUNK, size=num.size, dtype=np.int64)
    out = u < c
    for i in np.flatnonzero(u == c):                         # tie (probability 2^−62): the next chunk decides
        rem = int(scaled[i]) - int(c[i]) * int(den[i])
        while True:
            rem *= _CHUNK
            ci, rem = divmod(rem, int(den[i]))
            ui = int(g.integers(0, _CHUNK, dtype=np.int64))
            if ui != ci:
                out[i] = ui < ci
                break
    return out


def _bernoulli_exp_frac(num: np.ndarray, den: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(−num/den)) for 0 ≤ num/den ≤ 1 (CKS20 Algorithm 1, first part), vectorised."""
    n = num.size
    if den.dtype != object and n and int(den.max()) >= 1 << 40:
        num, den = num.astype(object), den.astype(object)     # den·k must stay exact: Python ints
    k = np.ones(n, dtype=np.int64)
    alive = np.arange(n)
    while alive.size:
        a = _bernoulli(num[alive], den[alive] * k[alive], g)     # A ~ Bernoulli(γ/k)
        k[alive[a]] += 1
        alive = alive[a]
    return (k % 2) == 1


def _bernoulli_exp(num: np.ndarray, den: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(−num/den)) for num/den ≥ 0 (CKS20 Algorithm 1), vectorised over elements."""
    whole, frac = num // den, num % den
    out = np.ones(num.size, dtype=bool)
    todo = np.flatnonzero(whole > 0)
    left = whole[todo].astype(np.int64) if whole.dtype != object else np.array([int(w) for w in whole[todo]],
                                                                                 dtype=np.int64)
    while todo.size:                                          # ⌊γ⌋ trials of Bernoulli(e^{−1}), stop at a failure
        ok = _bernoulli_exp_frac(np.ones(todo.size, np.int64), np.ones(todo.size, np.int64), g)
        out[todo[~ok]] = False
        left = left[ok] - 1
        todo = todo[ok]
        todo, left = todo[left > 0], left[left > 0]
    rest = np.flatnonzero(out & (frac != 0))
    out[rest] = _bernoulli_exp_frac(frac[rest], den[rest], g)
    return out


def bernoulli_exp(gamma: Rational, size: int, rng: RNGLike = None) -> np.ndarray:
    """``size`` independent Bernoulli(exp(−γ)) trials, γ ≥ 0 rational, exactly (CKS20 Algorithm 1)."""
    f = Fraction(0) if gamma == 0 else _fraction(gamma, "gamma")
    g = as_generator(rng)
    num = np.full(size, f.numerator, dtype=np.int64 if f.denominator < 2**31 and f.numerator < 2**62 else object)
    den = np.full(size, f.denominator, dtype=num.dtype)
    return _bernoulli_exp(num, den, g)


# -- geometric and discrete Laplace (CKS20 Algorithm 2) -------------------------------------------------------
def _scale_parts(scale: Rational) -> tuple[int, int]:
    f = rational_at_least(scale)
    return f.numerator, f.denominator


def _geometric_n(n: int, size: int, g: np.random.Generator) -> np.ndarray:
    """``size`` draws of Geometric(1 − e^{−1/n}) on {0, 1, …} (X = U + nV of CKS20 Algorithm 2), int64."""
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        u = g.integers(0, n, size=todo.size, dtype=np.int64)
        keep = _bernoulli_exp_frac(u, np.full(todo.size, n, dtype=np.int64), g)     # Bernoulli(exp(−U/n))
        idx, u = todo[keep], u[keep]
        v = np.zeros(idx.size, dtype=np.int64)
        alive = np.arange(idx.size)
        while alive.size:                                       # V ~ Geometric(1 − e^{−1}): successes of e^{−1}
            ok = _bernoulli_exp_frac(np.ones(alive.size, np.int64), np.ones(alive.size, np.int64), g)
            alive = alive[ok]
            v[alive] += 1
        out[idx] = u + n * v
        todo = todo[~keep]
    return out


def _div(x: np.ndarray, d: int) -> np.ndarray:
    """⌊x/d⌋ for int64 x ≥ 0 and a Python int d ≥ 1 (d beyond int64 exceeds every x: 0)."""
    return x // d if d < 1 << 62 else np.zeros_like(x)


def geometric(scale: Rational, size: int, rng: RNGLike = None) -> np.ndarray:
    """``size`` exact draws of Y on {0, 1, …} with P(Y = k) = (1 − a)a^k, a = exp(−1/t), t = ``scale``; int64.

    Inversion against exact integer bounds of a^k (:mod:`dpcore._inversion`) when the table is small (t up to
    about 4 700), else Y = ⌊X/d⌋ for X ~ Geometric(1 − e^{−1/n}), t = n/d (CKS20 Algorithm 2 without the sign).
    """
    n, d = _scale_parts(scale)
    g = as_generator(rng)
    x = Fraction(d, n)
    tab = _inversion.tables(x)
    if tab is not None:
        return _inversion.geometric(x, int(size), g, tab)
    return _div(_geometric_n(n, int(size), g), d)


def discrete_laplace(scale: Rational, size: Any = None, rng: RNGLike = None) -> np.ndarray:
    """Exact draws of the discrete Laplace law P(z) = (1 − a)/(1 + a)·a^{|z|}, a = exp(−1/t), on ℤ.

    Parameters
    ----------
    scale : int, float or Fraction
        t > 0 (rounded up to a 40-bit-numerator rational, :func:`rational_at_least`).
    size : int or tuple, optional
        Output shape (None: a 0-d array).
    rng : RNGLike

    Returns
    -------
    numpy.ndarray of int64
        G1 − G2 for two exact geometric draws (inversion against exact bounds, :func:`geometric`), or, for
        scales beyond the tables, CKS20 Algorithm 2: Y = ⌊X/d⌋ with a fair sign, (−, 0) rejected. With sensitivity Δ (an integer query's
        ℓ1 sensitivity), scale t = Δ/ε gives ε-DP: the ratio of the PMFs at any z is exp((|z − c′| − |z − c|)/t)
        ≤ exp(Δ/t).
    """
    n, d = _scale_parts(scale)
    g = as_generator(rng)
    shape = () if size is None else (size,) if np.isscalar(size) else tuple(size)
    total = int(np.prod(shape, dtype=np.int64)) if shape else 1
    tab = _inversion.tables(Fraction(d, n))
    if tab is not None:            # G1 − G2 of two iid Geometric(1 − a) is the discrete Laplace law exactly
        two = _inversion.geometric(Fraction(d, n), 2 * total, g, tab)
        return (two[:total] - two[total:]).reshape(shape)
    return _discrete_laplace_cks(n, d, total, g).reshape(shape)


def _discrete_laplace_cks(n: int, d: int, total: int, g: np.random.Generator) -> np.ndarray:
    """CKS20 Algorithm 2 for scale n/d: ``total`` draws (the path for scales beyond the inversion tables)."""
    out = np.empty(total, dtype=np.int64)
    todo = np.arange(total)
    while todo.size:
        y = _div(_geometric_n(n, todo.size, g), d)
        b = g.integers(0, 2, size=todo.size, dtype=np.int64)
        ok = ~((b == 1) & (y == 0))
        out[todo[ok]] = (1 - 2 * b[ok]) * y[ok]
        todo = todo[~ok]
    return out


def discrete_laplace_tail(scale: Rational, m: np.ndarray, rng: RNGLike = None) -> np.ndarray:
    """Exact draws of (Z | Z ≥ m_i) for each integer m_i ≥ 1, Z discrete Laplace(t): m_i + Geometric (memoryless)."""
    m = np.asarray(m, dtype=np.int64)
    return m + geometric(scale, m.size, rng).reshape(m.shape)


def discrete_laplace_survival(scale: Rational, m: Any) -> np.ndarray:
    """P(Z ≥ m) = a^m/(1 + a) for integers m ≥ 0, Z discrete Laplace(t), a = exp(−1/t) (in double precision)."""
    t = float(rational_at_least(scale))
    m = np.asarray(m, dtype=float)
    return np.exp(-m / t) / (1.0 + math.exp(-1.0 / t))


def discrete_laplace_survivors(scale: Rational, m: Any, trials: int, rng: RNGLike = None) -> np.ndarray:
    """Exact draws F_i ~ Binomial(``trials``, P(Z ≥ m_i)), Z discrete Laplace(t) at the scale the samplers use.

    P(Z ≥ m) = a^m/(1 + a) = e^{−m/t}/(1 + e^{−1/t}) for integers m ≥ 0 (t = n/d rounded up as in
    :func:`discrete_laplace`, so γ = m·d/n and η = d/n are rational). The count of iid cells whose noise is ≥ m
    among ``trials`` cells (up to 2^40), drawn from the geometric gaps between successes with exact bounds
    (:mod:`dpcore._binomial`, which derives the exactness), in O(1 + F_i) expected time. Returns int64 shaped like m.
    """
    n, d = _scale_parts(scale)
    x = Fraction(d, n)
    m = np.asarray(m, dtype=np.int64)
    if m.size and int(m.min()) < 0:
        raise DPValueError(f"m must be ≥ 0 (P(Z ≥ m) = a^m/(1 + a) only there); got {int(m.min())}.")
    values, which = (m.reshape(-1)[:1], np.zeros(m.shape, np.int64)) if m.size and m.min() == m.max() else \
        np.unique(m, return_inverse=True)
    laws = [(int(v) * x, x) for v in values]
    return _binomial.binomial(trials, laws, which.reshape(m.shape), as_generator(rng))


def laplace_survivors(scale: Rational, tau: Any, trials: int, rng: RNGLike = None) -> np.ndarray:
    """Exact draws F_i ~ Binomial(``trials``, ½e^{−τ_i/b}) = Binomial(trials, P(L > τ_i)), L ~ Laplace(b), τ_i ≥ 0.

    b = ``scale`` and every τ_i are taken as the exact rationals of their values (every double is one), so p is
    exactly the Laplace survival at those values; drawn as :func:`discrete_laplace_survivors` (γ = τ/b, η = 0).
    """
    b = _fraction(scale, "scale")
    tau = np.asarray(tau, dtype=float)
    if tau.size and not (np.all(np.isfinite(tau)) and float(tau.min()) >= 0):
        raise DPValueError(f"tau must be finite and ≥ 0; got min {float(tau.min())!r}.")
    values, which = (tau.reshape(-1)[:1], np.zeros(tau.shape, np.int64)) if tau.size and tau.min() == tau.max() else \
        np.unique(tau, return_inverse=True)
    laws = [(Fraction(float(v)) / b, Fraction(0)) for v in values]
    return _binomial.binomial(trials, laws, which.reshape(tau.shape), as_generator(rng))


# -- discrete Gaussian (CKS20 Algorithm 3) ---------------------------------------------------------------------
def discrete_gaussian(sigma2: Rational, size: Any = None, rng: RNGLike = None) -> np.ndarray:
    """Exact draws of the discrete Gaussian P(z) ∝ exp(−z²/(2σ²)) on ℤ, σ² = ``sigma2`` (rational, > 0).

    CKS20 Algorithm 3: T = ⌊σ⌋ + 1, Y ~ discrete Laplace(T), accepted with probability
    exp(−(|Y| − σ²/T)²/(2σ²)) = exp(−(|Y|bT − a)²/(2abT²)) for σ² = a/b (exact integer arithmetic).
    With ℓ2 sensitivity Δ of an integer query, it is ρ-zCDP with ρ = Δ²/(2σ²) (CKS20 Theorem 4).
    ``sigma2`` is used exactly (a Fraction, an int, or a float's exact rational value).
    """
    f = _fraction(sigma2, "sigma2")
    a, b = f.numerator, f.denominator
    t = math.isqrt(a // b) + 1                               # ⌊σ⌋ + 1 (⌊√⌊σ²⌋⌋ = ⌊σ⌋)
    g = as_generator(rng)
    shape = () if size is None else (size,) if np.isscalar(size) else tuple(size)
    total = int(np.prod(shape, dtype=np.int64)) if shape else 1
    out = np.empty(total, dtype=np.int64)
    todo = np.arange(total)
    den = 2 * a * b * t * t
    while todo.size:
        y = discrete_laplace(t, todo.size, g)
        ay = np.abs(y)
        if den < 1 << 40 and int(ay.max(initial=0)) * b * t + a < 1 << 31:      # every operand fits int64 exactly
            num = (ay * (b * t) - a) ** 2
            ok = _bernoulli_exp(num, np.full(todo.size, den, dtype=np.int64), g)
        else:
            num = (ay.astype(object) * (b * t) - a) ** 2
            ok = _bernoulli_exp(num, np.full(todo.size, den, dtype=object), g)
        out[todo[ok]] = y[ok]
        todo = todo[~ok]
    return out.reshape(shape)


# -- exact PMFs ----------------------------------------------------------------------------------------------
def discrete_laplace_pmf(k: Any, scale: Rational) -> np.ndarray:
    """P(Z = k) = (1 − a)/(1 + a)·a^{|k|}, a = exp(−1/t), at the scale the sampler uses (t rounded up)."""
    t = float(rational_at_least(scale))
    a = math.exp(-1.0 / t)
    return -math.expm1(-1.0 / t) / (1.0 + a) * np.exp(-np.abs(np.asarray(k, dtype=float)) / t)


def discrete_gaussian_pmf(k: Any, sigma2: Rational) -> np.ndarray:
    """P(Z = k) = exp(−k²/(2σ²)) / Σ_j exp(−j²/(2σ²)) (the normaliser summed over |j| ≤ 40σ + 40)."""
    s2 = float(_fraction(sigma2, "sigma2"))
    j = np.arange(-int(40 * math.sqrt(s2)) - 40, int(40 * math.sqrt(s2)) + 41, dtype=float)
    norm = np.exp(-(j ** 2) / (2 * s2)).sum()
    return np.exp(-(np.asarray(k, dtype=float) ** 2) / (2 * s2)) / norm


# -- a public grid for real-valued statistics ------------------------------------------------------------------
#: Grid points per unit of min(sensitivity, noise scale): the rounding adds at most one grid unit of sensitivity,
#: so the noise scale grows by at most 1/GRID_STEPS (≤ 1.6 %), and the rounding error is ≤ b/128.
GRID_STEPS = 64


def grid_spacing(sensitivity: float, scale: float, steps: int = GRID_STEPS) -> float:
    """The public grid spacing γ = 2^⌊log2(min(Δ, b)/steps)⌋ (a power of two: k·γ is an exact double).

    ``sensitivity`` Δ and the float mechanism's noise scale ``scale`` b (Δ/ε for Laplace, σ for Gaussian) are
    public, so γ is; Δ/γ ≥ ``steps`` and b/γ ≥ ``steps``.
    """
    m = min(float(sensitivity), float(scale)) / steps
    if not (m > 0 and math.isfinite(m)):
        raise DPValueError(f"grid spacing needs a positive finite sensitivity and scale; got {sensitivity!r}, "
                           f"{scale!r}.")
    return math.ldexp(1.0, math.frexp(m)[1] - 1)


def to_grid(x: Any, gamma: float) -> np.ndarray:
    """⌊x/γ + ½⌋ computed exactly (γ a power of two, so x/γ and its fraction are exact doubles), as int64.

    Half-up rounding is monotone and 1-Lipschitz up to one unit: |r(u) − r(v)| ≤ ⌈|u − v|/γ⌉.
    """
    v = np.asarray(x, dtype=float) / gamma
    if not np.all(np.isfinite(v)) or np.any(np.abs(v) >= 2.0**62):
        raise DPValueError(f"the statistic divided by the grid spacing γ = {gamma:g} must be finite and below 2^62 "
                           "in magnitude; clamp it to public bounds first.")
    fl = np.floor(v)
    return (fl.astype(np.int64) + ((v - fl) >= 0.5)).astype(np.int64)


def grid_sensitivity_l1(sensitivity: float, gamma: float, d: int) -> int:
    """ℓ1 sensitivity in grid units of the rounded d-vector: ⌈Δ₁/γ⌉ + d − 1.

    Derivation: for neighbours, δ_i = |u_i − v_i|/γ with Σδ_i ≤ Δ₁/γ, and |r(u_i) − r(v_i)| ≤ ⌈δ_i⌉ < δ_i + 1 for
    every coordinate that moves (⌈0⌉ = 0 otherwise); the integer Σ⌈δ_i⌉ is < Δ₁/γ + d, and when d = 1 it is
    ⌈δ_1⌉ ≤ ⌈Δ₁/γ⌉. Both are covered by the integer bound ⌈Δ₁/γ⌉ + d − 1 (for d ≥ 2, Σ⌈δ_i⌉ ≤ ⌈Σδ_i⌉ + d − 1).
    """
    return int(math.ceil(float(sensitivity) / gamma)) + int(d) - 1


def grid_sensitivity_l2(sensitivity: float, gamma: float, d: int) -> float:
    """ℓ2 sensitivity in grid units of the rounded d-vector: ⌈Δ₂/γ⌉ when d = 1, else Δ₂/γ + √d.

    Derivation: r(u) − r(v) = (u − v)/γ + e with every |e_i| < 1 (two roundings of at most ½ each), so
    ‖r(u) − r(v)‖₂ ≤ ‖u − v‖₂/γ + ‖e‖₂ < Δ₂/γ + √d; in one dimension the integer |r(u) − r(v)| ≤ ⌈Δ₂/γ⌉.
    """
    return float(math.ceil(float(sensitivity) / gamma)) if int(d) == 1 else float(sensitivity) / gamma + math.sqrt(d)


def grid_laplace(value: Any, gamma: float, grid_sensitivity: int, epsilon: float, rng: RNGLike = None) -> np.ndarray:
    """γ·(r(value) + Z), Z iid discrete Laplace with scale t ≥ Δ_g/ε in grid units: ε-DP when Δ_g bounds the ℓ1
    distance of the rounded statistic r(f(D)) = ⌊f(D)/γ + ½⌋ between neighbours (the PMF ratio at any k is
    exp((‖k − r′‖₁ − ‖k − r‖₁)/t) ≤ exp(Δ_g/t) ≤ e^ε); multiplying by γ is post-processing. Exact: the output is
    on the grid γℤ whatever the data (γ a power of two: exact doubles below 2^53·γ)."""
    m = to_grid(value, gamma)
    t = Fraction(int(grid_sensitivity)) / Fraction(float(epsilon))
    return gamma * (m + discrete_laplace(t, m.shape, rng)).astype(float)


def grid_gaussian(value: Any, gamma: float, sigma2_grid: Fraction, rng: RNGLike = None) -> np.ndarray:
    """γ·(r(value) + Z), Z iid discrete Gaussian with variance parameter σ_g² (grid units): ρ-zCDP with
    ρ = Δ_g²/(2σ_g²) for the ℓ2 grid sensitivity Δ_g of the rounded statistic (CKS20 Theorem 4)."""
    m = to_grid(value, gamma)
    return gamma * (m + discrete_gaussian(sigma2_grid, m.shape, rng)).astype(float)

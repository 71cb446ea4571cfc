"""The shape every KNG problem object fills (:class:`Problem`), and the prepared data it works on.

A problem (mean, median, quantile, linear regression, quantile regression) is one object that
holds everything specific to it: data preparation (validation, clipping to the public domain,
counted), the gradient and objective of its loss, its exact samplers and its MCMC targets. The
calibration of each mechanism it supports (sensitivity derivation, paper reference) is in
:mod:`dpcore.kng.calibration`; :mod:`dpcore.kng.release._engine` runs any problem the same way.

Mechanisms (Reimherr & Awan 2019; every one pure ε-DP for its exact target law, replace-one
neighbours, n fixed):

* KNG (Thm 3.1): log f(θ) = −c‖∇ℓ(θ)‖_K, c = ε/(2Δ), Δ ≥ sup_{D~D′} ‖∇ℓ(θ; D) − ∇ℓ(θ; D′)‖_K;
* exponential mechanism (Prop. 2.2): log f(θ) = −c·ℓ(θ), c = ε/(2Δ_ℓ);
* objective perturbation (§7.2): noise b ∝ exp(−c‖b‖_K), the interior density of θ is
  exp(−c‖∇ℓ(θ) + γθ‖_K).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, cast, ClassVar, Mapping, Optional

import numpy as np

from .._validation import DPValueError, check_bounds, check_finite_array
from ..mechanism import Calibration
from ..norms import norm
from ..viz.style import NORM_LABELS
from ._objpert import project_l1_ball


@dataclass
class Prepared:
    """A validated problem instance (internal; array values are not modified after construction — the 1-D exact
    sampler reorders its own clipped copy ``data["y"]`` in place, which no order-free statistic sees)."""

    n: int
    d: int
    estimator: Callable[[], np.ndarray]     # the non-private estimate, computed on first use
    clipped: int | Callable[[], int] = 0     # or a function counting them when a page shows it
    lower: Optional[np.ndarray] = None      # box domain of θ
    upper: Optional[np.ndarray] = None
    l1_radius: Optional[float] = None       # ℓ1-ball domain of θ (regressions)
    kball: Optional[tuple] = None           # (centre, radius, norm) domain (mean, exponential)
    centre: Optional[np.ndarray] = None     # data-independent start point (centre of Θ)
    width: float = 1.0                      # public data diameter (exponential mechanism constant)
    tau: float = 0.5
    scale_out: Optional[np.ndarray] = None  # regressions: θ_original = θ_scaled · scale_out
    data: dict = field(default_factory=dict)
    _estimate: Optional[np.ndarray] = None

    def sorted_y(self) -> np.ndarray:
        """The (clipped) 1-D data sorted, computed on first use (the exact KNG sampler does not need it)."""
        if "y_sorted" not in self.data:
            self.data["y_sorted"] = np.sort(self.data["y"])
        return self.data["y_sorted"]

    @property
    def nonprivate(self) -> np.ndarray:
        """The non-private estimate on the (clipped) data the mechanism sees, scaled units — NOT private."""
        if self._estimate is None:
            self._estimate = np.asarray(self.estimator(), dtype=float).reshape(self.d)
        return self._estimate

    @property
    def scale(self) -> Any:
        """Factor from the scaled units the mechanism works in to the caller's units."""
        return 1.0 if self.scale_out is None else self.scale_out

    def in_domain(self, th: np.ndarray) -> np.ndarray:
        ok = np.ones(th.shape[0], dtype=bool)
        if self.lower is not None:
            ok &= np.all((th >= self.lower) & (th <= self.upper), axis=1)
        if self.l1_radius is not None:
            ok &= np.abs(th).sum(axis=1) <= self.l1_radius * (1 + 1e-12)
        if self.kball is not None:
            c, r, nm = self.kball
            ok &= norm(th - c, nm) <= r * (1 + 1e-12)
        return ok


#: The quantity each mechanism's density penalises: log f(θ) = −c · score(θ).
SCORES: Mapping[str, Callable[..., np.ndarray]] = MappingProxyType({
    "kng": lambda prob, P, cal, th: norm(prob.gradient(P, th), cal.params["norm"]),
    "exponential": lambda prob, P, cal, th: prob.objective(P, th),
    # objective perturbation, interior of Θ: b = −(∇ℓ(θ) + γθ), constant Jacobian
    "objective_perturbation": lambda prob, P, cal, th: norm(prob.gradient(P, th) + cal.params["gamma"] * th,
                                                             cal.params["norm"]),
})


class Problem:
    """One KNG problem: data preparation, loss, per-mechanism calibration, samplers (see module docstring).

    Subclasses set ``name``, ``title``, ``config`` and ``section``, and implement
    :meth:`prepare`, :meth:`gradient` and :meth:`objective` (each mechanism in ``config.mechanisms`` has
    its calibration in :mod:`dpcore.kng.calibration`); problems with an exact sampler override
    :meth:`exact_sampler`, and problems with a fast incremental MCMC target override
    :meth:`incremental_target`.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    config: ClassVar[Any] = object
    section: ClassVar[str] = ""

    # -- data and loss ------------------------------------------------------------------
    def prepare(self, data: Any, cfg: Any) -> Prepared:
        raise NotImplementedError

    def gradient(self, P: Prepared, th: np.ndarray) -> np.ndarray:
        """∇ℓ_n at the rows of θ (scaled units), shape (m, d)."""
        raise NotImplementedError

    def objective(self, P: Prepared, th: np.ndarray) -> np.ndarray:
        """ℓ_n at the rows of θ up to a θ-free constant, shape (m,)."""
        raise NotImplementedError

    # -- sampling ------------------------------------------------------------------------
    def exact_sampler(self, cfg: Any, d: int) -> Optional[Callable[..., np.ndarray]]:
        """``draw(P, cal, size, g, progress) -> (size, d)`` exact draws (scaled units), or None (MCMC only)."""
        return None

    def exact_may_stop(self, cfg: Any) -> bool:
        """Whether the exact sampler may give up on some data (then MCMC fills in): decided from the config only."""
        return False

    def log_density(self, P: Prepared, cal: Calibration, th: np.ndarray) -> np.ndarray:
        """Unnormalised log density of the mechanism's output at the rows of θ (scaled units); −inf outside Θ."""
        lp = -cal.constant * SCORES[cal.params["kind"]](self, P, cal, th)
        return np.where(P.in_domain(th), lp, -np.inf)

    def incremental_target(self, P: Prepared, cal: Calibration, cfg: Any) -> Any:
        """A :class:`dpcore.mcmc.IncrementalTarget` (fast moves), or None to use :meth:`log_density`."""
        return None

    def mcmc_kind(self, P: Prepared, cfg: Any) -> str:
        """Which MCMC runs: "coordinate" (:func:`dpcore.mcmc.metropolis_within_gibbs`, incremental O(1)-record
        moves) or "preconditioned" (:func:`dpcore.mcmc.preconditioned_metropolis`, full-vector moves that mix
        on ill-conditioned designs; every proposal evaluates the whole target)."""
        return "coordinate"

    def temperatures(self, P: Prepared, cfg: Any) -> tuple:
        """Inverse temperatures of the preconditioned MCMC's parallel tempering (public inputs only; (1,): none)."""
        return (1.0,)

    def mcmc_box(self, P: Prepared) -> tuple[Optional[np.ndarray], Optional[np.ndarray]]:
        """Box constraint of the chains (proposals outside it are rejected unevaluated)."""
        return P.lower, P.upper

    def move_cost(self, P: Prepared, cfg: Any) -> tuple[int, str]:
        """What one coordinate move of one chain touches, for the work budget: (count, unit)."""
        return 1, "operation(s)"

    def values_per_step(self, P: Prepared, chains: int) -> int:
        """Values held per MCMC step when a density evaluation touches every record (0: O(d) per move)."""
        return 0

    def target_width(self, P: Prepared, cal: Calibration, cfg: Any) -> float:
        """Rough width of the target law from public quantities: 2Δw/(εn) (KNG), √(2Δw/(εn)) (exponential)."""
        eps, n = cast(float, cal.epsilon), P.n
        if cfg.mechanism == "kng":
            return 2.0 * cal.sensitivity * P.width / (eps * n)
        return math.sqrt(2.0 * cal.sensitivity * P.width / (eps * n))

    def step_cap(self, P: Prepared) -> float:
        """The largest initial proposal scale: the size of Θ."""
        if P.l1_radius is not None:
            return P.l1_radius
        return float(np.max(cast(np.ndarray, P.upper) - cast(np.ndarray, P.lower)))


# ----------------------------------------------------------------------------- shared helpers
def records(data: Any, problem: str) -> np.ndarray:
    """One array of records (n,) or (n, d) as (n, d) floats."""
    if isinstance(data, tuple):
        raise DPValueError(f"problem={problem!r} takes one array of records, not a tuple (X, y).")
    x = check_finite_array(data, "data", ndim=(1, 2), min_rows=1)
    return x[:, None] if x.ndim == 1 else x


def box(bounds: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The public box (lo, hi) of a config's ``bounds`` as two arrays of length d."""
    lo, hi = bounds
    lo = np.broadcast_to(np.asarray(lo, dtype=float), (d,)).copy() if np.ndim(lo) <= 1 else None
    hi = np.broadcast_to(np.asarray(hi, dtype=float), (d,)).copy() if np.ndim(hi) <= 1 else None
    if lo is None or hi is None or lo.shape != (d,) or hi.shape != (d,):
        raise DPValueError(f"bounds lo and hi must be numbers or arrays of length d = {d}.")
    for j in range(d):
        check_bounds(lo[j], hi[j], "bounds" if d == 1 else f"bounds[{j}]")
    return lo, hi


def chunks(m: int, per_row: int, budget: int = 4_000_000):
    """Slices of ``range(m)`` holding at most ``budget`` values of ``per_row`` each."""
    step = max(1, budget // max(per_row, 1))
    for i in range(0, m, step):
        yield slice(i, min(m, i + step))


def project_to_kball(x: np.ndarray, radius: float, name: str) -> np.ndarray:
    """Project each row onto the K-ball of ``radius`` (ℓ∞: clip, ℓ2: rescale, ℓ1: Duchi et al.)."""
    if name == "linf":
        return np.clip(x, -radius, radius)
    if name == "l2":
        nr = norm(x, "l2")
        f = np.where(nr > radius, radius / np.where(nr > 0, nr, 1.0), 1.0)
        return x * f[:, None]
    return project_l1_ball(x, radius)


def cube_to_norm(d: int, name: str) -> float:
    """sup{‖x‖_K : ‖x‖∞ ≤ 1} = d^{1/p}: ℓ∞ → 1, ℓ2 → √d, ℓ1 → d (attained at a cube corner)."""
    return {"linf": 1.0, "l2": math.sqrt(d), "l1": float(d)}[name]


def sphere_to_norm(d: int, name: str) -> float:
    """sup{‖u‖_K : ‖u‖₂ ≤ 1}: ℓ2 and ℓ∞ → 1, ℓ1 → √d."""
    return {"linf": 1.0, "l2": 1.0, "l1": math.sqrt(d)}[name]


def ball_to_l2(d: int, name: str) -> float:
    """sup{‖u‖₂ : ‖u‖_K ≤ 1}: ℓ1 and ℓ2 → 1, ℓ∞ → √d."""
    return {"linf": math.sqrt(d), "l2": 1.0, "l1": 1.0}[name]


def K(name: str) -> str:
    """The norm's label (ℓ1, ℓ2, ℓ∞) for derivation texts."""
    return NORM_LABELS[name]

"""The query-release lab: one call that computes everything the page shows on public synthetic data,
and the release of 2-way (w-way) marginals on a user's categorical columns through a declared schema.

:func:`run_lab` (public synthetic datasets only, never user data): RMS and worst-case error vs n for
the chosen methods (Monte Carlo), the packing profile ln s(t), the sample complexity vs 1/α (empirical
n*(α) by bisection for the central methods, with the explicit upper bounds and the packing lower
bound), and one replicate's true/noisy/projected answers to a few queries.

:func:`release_marginals` maps a user's records to the binary universe {0,1}^d by a PUBLIC schema
(per column: a threshold for numbers, a set of categories for text; anything else, including a missing
value, goes to 0 — no row is dropped) and runs one mechanism on them.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._rng import RNGLike, as_generator, spawn
from .._validation import check_choice, check_epsilon, check_int, check_rho
from ..errors import Cancelled, DataError, DPValueError
from . import _bounds as bounds
from . import _central as central
from . import configs
from . import release as releases
from ._workloads import Marginals, WorkloadSpec, mean_point
from .figures import _local_average

__all__ = ["DATASETS", "LAB_METHODS", "WORKLOAD_KINDS", "MAX_D_HELP", "MAX_CONE_R_HELP", "LAB_INTRO", "LabConfig", "LabResult", "run_lab", "lab_dataset", "ColumnRule",
           "schema_indices", "release_marginals", "marginal_labels", "MAX_LAB_WORK"]

DATASETS = ("uniform", "one point", "two far points")
#: The lab's workload kinds, in words.
WORKLOAD_KINDS = {"marginals": "w-way marginals over {0,1}^d", "thresholds": "thresholds over [N]",
                  "signs": "random ±1 queries (public seed)", "cone": "the cone (coarse projection's example)"}
#: Why the lab's sizes stop where they do (its pickers' help).
MAX_D_HELP = ("At most 11: the packing profile and the chaining nets compare pairs of the |X| = 2^d points "
              "(work ∝ 4^d); at d = 12 the lab's time model is over the 30 s budget at any setting.")
MAX_CONE_R_HELP = ("At most 0.05: with a wider cone the Frank–Wolfe projections onto the chaining levels converge "
                   "slowly (one lab run at the defaults: r = 0.1 48 s, r = 0.2 over 150 s), which the time model "
                   "does not see.")
#: What the lab shows, in one paragraph (Błasiok, Bun, Nikolov & Steinke 2019).
LAB_INTRO = ("A workload of k linear queries over a **public** universe X ⊂ ℝᵏ; the answers on a dataset are its mean "
             "point x̄. The **projection mechanism** adds Gaussian noise (σ = diam₂(X)/(n√(2ρ))) and projects onto "
             "conv X; **coarse projection** first rounds records to an (α/2)-net; **chaining** splits X into levels "
             "at scales 2⁻ⁱ. Local versions use an ε-LDP point randomizer per party.")
CENTRAL = ("gaussian", "projection", "coarse", "chaining", "pmw")
LOCAL = ("local-average", "local-projection", "local-coarse", "local-chaining")
LAB_METHODS = CENTRAL + LOCAL
#: Cap on Σ over (method, n) of reps·n·k·levels for one lab run (protects the shared server).
MAX_LAB_WORK = 3e9
#: Cap on reps·(number of n)·(central methods)·|X|·k (the size of the projections a lab run solves).
MAX_LAB_PROJECTION_WORK = 5e8


@dataclass(frozen=True)
class LabConfig:
    """Public settings of a lab run (validated on construction)."""

    workload: WorkloadSpec
    dataset: str = "two far points"
    rho: float = 0.5
    epsilon: float = 1.0
    alpha: float = 0.1
    methods: tuple = ("gaussian", "projection", "coarse", "chaining")
    ns: tuple = (10, 100, 1000, 10_000)
    reps: int = 5
    alphas: tuple = (0.4, 0.2, 0.1, 0.05)
    complexity_reps: int = 8

    def __post_init__(self) -> None:
        configs.check_workload(self.workload)
        check_choice(self.dataset, "dataset", DATASETS)
        check_rho(self.rho)
        check_epsilon(self.epsilon)
        configs.check_alpha(self.alpha)
        if not self.methods:
            raise DPValueError("methods is empty; choose at least one method.")
        for m in self.methods:
            check_choice(m, "method", LAB_METHODS)
        if not self.ns:
            raise DPValueError("ns is empty; give at least one sample size n.")
        for n in self.ns:
            check_int(n, "n", lo=2, hi=1_000_000)
        check_int(self.reps, "reps", lo=1, hi=200)
        if not self.alphas:
            raise DPValueError("alphas is empty; give at least one α for the sample-complexity curves.")
        for a in self.alphas:
            configs.check_alpha(a)
        check_int(self.complexity_reps, "complexity_reps", lo=2, hi=200)
        object.__setattr__(self, "methods", tuple(self.methods))
        object.__setattr__(self, "ns", tuple(sorted(set(int(n) for n in self.ns))))
        object.__setattr__(self, "alphas", tuple(sorted(set(float(a) for a in self.alphas))))
        wl = self.workload.build()
        work = sum(self.reps * n * wl.k * (3 if m.endswith("chaining") else 1)
                   for m in self.methods if m.startswith("local") for n in self.ns)
        n_central = sum(1 for m in self.methods if not m.startswith("local"))
        pwork = self.reps * len(self.ns) * n_central * wl.size * wl.k
        if pwork > MAX_LAB_PROJECTION_WORK:
            raise DPValueError(f"reps × sizes × central methods × |X|·k = {pwork:,.0f} is over the cap "
                               f"{MAX_LAB_PROJECTION_WORK:,.0f}; use a smaller workload, fewer sizes n or fewer reps.")
        if work > MAX_LAB_WORK:
            raise DPValueError(f"the local methods would draw reps·n·k·levels ≈ {work:,.0f} numbers, over the cap "
                               f"{MAX_LAB_WORK:,.0f}; lower the largest n, the reps or the workload size.")
        from ._cost import check_lab
        check_lab(self)       # the time model of the whole run (issue 18): refused before anything is computed

    #: The sample sizes and target α's a lab run may sweep (:meth:`up_to` picks from these ladders).
    N_LADDER = (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)
    ALPHA_LADDER = (0.4, 0.2, 0.1, 0.05, 0.025)

    @classmethod
    def up_to(cls, workload: WorkloadSpec, *, n_max: int, alpha: float, **settings) -> "LabConfig":
        """The lab run of the Query release page: every n of :attr:`N_LADDER` up to ``n_max`` and every α of
        :attr:`ALPHA_LADDER` down to ``alpha``/2 (just ``alpha`` if none is), with the other ``settings``
        (dataset, rho, epsilon, methods, reps) as given; validated like any LabConfig."""
        return cls(workload, alpha=alpha, ns=tuple(n for n in cls.N_LADDER if n <= n_max),
                   alphas=tuple(a for a in cls.ALPHA_LADDER if a >= alpha / 2) or (alpha,), **settings)


@dataclass(frozen=True, eq=False)
class LabResult:
    """Frames for the page's figures (all computed from public synthetic data)."""

    errors: pd.DataFrame        # method, n, rep, rms, max
    profile: pd.DataFrame       # t, log_s
    complexity: pd.DataFrame    # alpha, inv_alpha, curve, kind, n
    answers: pd.DataFrame       # query, true, noisy, projected
    geometry: Mapping[str, float]
    floor: float                # the coarse/chaining rounding floor α/2


def lab_dataset(kind: str, n: int, spec: WorkloadSpec, rng: RNGLike = None) -> np.ndarray:
    """A public synthetic dataset of n universe indices: uniform, all at one extreme point, or two far points."""
    check_choice(kind, "dataset", DATASETS)
    wl = spec.build()
    c = 0.5 * (wl.points.min(axis=0) + wl.points.max(axis=0))
    far0 = int(np.argmax(((wl.points - c) ** 2).sum(axis=1)))
    if kind == "uniform":
        return as_generator(rng).integers(0, wl.size, n)
    if kind == "one point":
        return np.full(n, far0)
    far1 = int(np.argmax(((wl.points - wl.points[far0]) ** 2).sum(axis=1)))
    return np.where(np.arange(n) < n // 2, far0, far1)


def _run(method: str, data: np.ndarray, cfg: LabConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    spec = cfg.workload
    if method == "local-average":
        v = _local_average(data, spec, cfg.epsilon, rng)
        return v, v
    table = {"gaussian": (releases.gaussian.release, configs.GaussianConfig(spec, cfg.rho, sampler="float")),
             "projection": (releases.projection.release, configs.ProjectionConfig(spec, cfg.rho)),
             "coarse": (releases.coarse.release, configs.CoarseConfig(spec, cfg.rho, cfg.alpha)),
             "chaining": (releases.chaining.release, configs.ChainingConfig(spec, cfg.rho, cfg.alpha)),
             "pmw": (releases.pmw.release, configs.PMWConfig(spec, cfg.rho)),
             "local-projection": (releases.local_projection.release,
                                  configs.LocalProjectionConfig(spec, cfg.epsilon)),
             "local-coarse": (releases.local_coarse.release,
                              configs.LocalCoarseConfig(spec, cfg.epsilon, cfg.alpha)),
             "local-chaining": (releases.local_chaining.release,
                                configs.LocalChainingConfig(spec, cfg.epsilon, cfg.alpha))}
    release: Any
    release, conf = table[method]
    rel = release(data, conf, rng=rng)
    noisy = next(iter(rel.diagnostics.values.values()), rel.value) if rel.diagnostics.values else rel.value
    return rel.value, noisy


def run_lab(config: LabConfig, *, rng: RNGLike = None,
            progress: Callable[[int, int], bool] | None = None) -> LabResult:
    """Everything the query-release page plots, on public synthetic data (see the module docstring)."""
    wl = config.workload.build()
    g = as_generator(rng)
    total = len(config.ns) * len(config.methods) + 1 + len(config.alphas)   # a tick per α: a rerun stops it
    done = 0

    def tick():
        nonlocal done
        done += 1
        if progress is not None and progress(done, total) is False:
            raise Cancelled("query-release lab stopped", done=done, total=total)

    rows = []
    answers = None
    for n in config.ns:
        gens = spawn(g, config.reps + 1)
        datas = [lab_dataset(config.dataset, n, config.workload, gens[r]) for r in range(config.reps)]
        for m in config.methods:
            mg = spawn(gens[-1], config.reps)
            for r, data in enumerate(datas):
                truth = mean_point(data, wl)
                value, noisy = _run(m, data, config, mg[r])
                rows.append({"method": m, "n": n, "rep": r, "rms": float(central.rms_error(value, truth)),
                             "max": float(central.max_error(value, truth))})
                if answers is None and m != "gaussian" and n == config.ns[len(config.ns) // 2]:
                    answers = (m, truth, noisy, value)
            tick()
    geo = bounds.geometry(config.workload, draws=400)
    tick()
    comp = []
    for a in config.alphas:
        ub = bounds.upper_bounds(config.workload, a, config.rho, draws=300)
        for name, v in ub.items():
            comp.append({"alpha": a, "curve": f"{name} (upper bound)", "kind": "upper bound", "n": v})
        comp.append({"alpha": a, "curve": "lower bound", "kind": "lower bound",
                     "n": bounds.lower_bound(geo, a, config.rho)})
        if any(m.startswith("local") for m in config.methods):
            lb = bounds.local_bounds(config.workload, a, config.epsilon, draws=300)
            comp.append({"alpha": a, "curve": "local-projection (heuristic, ε-LDP)", "kind": "heuristic",
                         "n": lb["local projection"]})
            comp.append({"alpha": a, "curve": "local-average (heuristic, ε-LDP)", "kind": "heuristic",
                         "n": lb["local raw average"]})
        for m in (mm for mm in ("gaussian", "projection", "coarse", "chaining") if mm in config.methods):
            rec = int(lab_dataset("one point", 1, config.workload)[0])
            nstar = bounds.empirical_sample_complexity(m, config.workload, a, config.rho, record=rec,
                                                  reps=config.complexity_reps, n_max=10 ** 6, seed=0)
            comp.append({"alpha": a, "curve": f"{m} (empirical)", "kind": "empirical",
                         "n": float(nstar) if nstar <= 10 ** 6 else math.nan})
        tick()
    complexity = pd.DataFrame(comp)
    complexity["inv_alpha"] = 1.0 / complexity["alpha"]
    if answers is None:
        m, truth, noisy, value = config.methods[0], *(np.zeros(wl.k),) * 3
    else:
        m, truth, noisy, value = answers
    q = min(12, wl.k)
    ans = pd.DataFrame({"query": [wl.labels[j] if j < len(wl.labels) else f"q{j + 1}" for j in range(q)],
                        "true": truth[:q], "noisy": noisy[:q], "projected": value[:q], "method": m})
    return LabResult(errors=pd.DataFrame(rows), profile=pd.DataFrame({"t": geo.ts, "log_s": geo.log_s}),
                     complexity=complexity, answers=ans,
                     geometry={"k": wl.k, "|X|": wl.size, "diam2": wl.diam2, "w(X)": geo.width,
                               "w(X) s.e.": geo.width_se},
                     floor=config.alpha / 2.0)


# -- a user's categorical columns ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColumnRule:
    """Public rule mapping one column to a bit: numbers → 1[value > threshold]; text → 1[value ∈ categories].
    Every other value (other categories, unparsable or missing cells) → 0: declared here, never dropped."""

    column: str
    threshold: float | None = None
    categories: tuple = ()

    def __post_init__(self) -> None:
        if (self.threshold is None) == (not self.categories):
            raise DPValueError(f"column {self.column!r}: give either a public threshold (numbers) or a set of "
                               "public categories (text), not both or neither.")
        if self.threshold is not None and not math.isfinite(float(self.threshold)):
            raise DPValueError(f"column {self.column!r}: threshold = {self.threshold!r} must be a finite number.")


def schema_indices(frame: pd.DataFrame, rules: tuple) -> np.ndarray:
    """Universe indices in {0,1}^d (d = number of rules) of every row, by the declared public rules."""
    if not rules:
        raise DPValueError("the schema is empty; declare at least one column rule.")
    bits = np.zeros((len(frame), len(rules)), dtype=np.int64)
    for j, rule in enumerate(rules):
        if rule.column not in frame.columns:
            raise DataError(f"column {rule.column!r} is not in the data.")
        col = frame[rule.column]
        if rule.threshold is not None:
            v = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
            bits[:, j] = np.where(np.isnan(v), 0, v > float(rule.threshold))
        else:
            cats = {str(c).strip() for c in rule.categories}
            bits[:, j] = col.astype(str).str.strip().isin(cats).to_numpy() & col.notna().to_numpy()
    return Marginals.encode(bits)


def marginal_labels(columns, w: int) -> list[str]:
    """Query labels of :class:`Marginals` (len(columns), w) written with the column names ("age=1,colour=0")."""
    import re

    names = list(columns)
    return [re.sub(r"a(\d+)=", lambda m: f"{names[int(m.group(1))]}=", lbl)
            for lbl in Marginals(len(names), w).build().labels]


def release_marginals(frame: pd.DataFrame, rules: tuple, w: int, method: str, *, rho: float, alpha: float = 0.1,
                      rng: RNGLike = None):
    """One release of the w-way marginals of the binarised columns by ``method`` (a central mechanism)."""
    check_choice(method, "method", ("gaussian", "projection", "coarse", "chaining", "pmw"))
    spec = Marginals(len(rules), w)
    idx = schema_indices(frame, tuple(rules))
    cfg = {"gaussian": configs.GaussianConfig(spec, rho), "projection": configs.ProjectionConfig(spec, rho),
           "coarse": configs.CoarseConfig(spec, rho, alpha), "chaining": configs.ChainingConfig(spec, rho, alpha),
           "pmw": configs.PMWConfig(spec, rho)}[method]
    release: Any = {"gaussian": releases.gaussian.release, "projection": releases.projection.release,
                    "coarse": releases.coarse.release, "chaining": releases.chaining.release,
                    "pmw": releases.pmw.release}[method]
    return release(idx, cfg, rng=rng)


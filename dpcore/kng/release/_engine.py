"""The release engine every family's ``release(data, config, *, rng)`` runs (:mod:`dpcore.kng.release`).

Privacy statement (every private mechanism here; Reimherr & Awan 2019):

* Guarantee: pure ε-DP per draw **for the exact target law** (KNG: Thm 3.1; exponential
  mechanism: Prop. 2.2; objective perturbation: §7.2, exact constrained minimiser). Exact
  samplers (the mean, the 1-D median and quantile, objective perturbation's QP, and KNG and the
  exponential mechanism for linear regression — :mod:`dpcore.kng._exact_regression`) release
  draws from that law; MCMC draws (geometric median, quantile regression, the exponential
  mechanism for the mean in ℓ1/ℓ2 with d ≥ 2, and linear regression's fallback when its
  rejection sampler's acceptance is too low) are only approximately distributed as the target:
  "ε-DP for the exact target; the MCMC draw is approximately private" (a sampler within total
  variation η of the target for every dataset gives (ε, (1 + e^ε)η)-DP, and η is not certified).
* What is public is chosen from public inputs only (issue 17, item 6): the calibration, its note and
  the release's notes depend on the problem, the mechanism, ``sampler`` and d, never on the data.
  Linear regression with ``sampler="auto"`` (KNG and the exponential mechanism) runs the exact
  rejection sampler and lets MCMC fill the draws it cannot give within its trial budget — whether
  that happens depends on the data (θ̂ far outside Θ, XᵀX nearly singular), so it is NOT published:
  the public statement is always the weaker one that covers both branches, :data:`FALLBACK_NOTE`
  ("ε-DP for the exact target; exact rejection sampler or MCMC fallback: approximately private").
  This is sound: the draws' law is a data-dependent mixture of the exact target (rejection) and the
  MCMC chain's law, within total variation η of the exact target whenever MCMC is, so the stated
  (ε, (1 + e^ε)η) guarantee of an MCMC release covers it; the branch that ran is an internal coin of
  the mechanism and goes to the non-private diagnostics (``"sampler"``) only. We chose this over
  choosing the sampler from public quantities (the exact sampler's acceptance cannot be known
  without the data) and over releasing the branch (it is not a DP statistic: its probability is
  not bounded by e^ε across neighbours). Fixed-seed draws are unchanged: only the text moved.
  Remaining data-dependent public event: the ``released`` flag when ``sampler="exact"`` stops (an option
  of the library, not of the app's pages), or when the fallback would need more than :data:`MAX_CHAINS`
  chains (never on a page: its draws are capped below that); it is charged and said here, not hidden.
* Progress (issue 29, item 4): what ``progress(done, total)`` reports is part of the public surface (a page
  prints it beside the button). Plans with an exact sampler report a public schedule only
  (:class:`_PublicProgress`): ``(0, T)`` at the start and at every internal step, ``(T, T)`` at the end, with
  ``T`` = the planned sweeps when MCMC may run, else the draws — the same sequence whichever sampler ran.
  Pure-MCMC plans report their sweeps, a schedule fixed by ``n_sweeps`` (public).
* Mixing (issue 29, item 5; choice (a)): whether chains run on the data mixed is a function of the data.
  The release therefore ALWAYS publishes the last state of each chain, under the approximate claim, and the
  mixing verdict (R-hat, ESS) goes to the non-private diagnostics (``"chains mixed (non-private)"``). The
  guarantee: the released output is the final state Z of a chain whose law P_D is within total variation
  η_D of the exact target π_D, which is ε-DP; for any event S, P_D(S) ≤ π_D(S) + η_D
  ≤ e^ε π_D′(S) + η_D ≤ e^ε P_D′(S) + η_D + e^ε η_D′, so the release is (ε, (1 + e^ε)η)-DP with η = sup_D η_D
  — the same claim as before, now with no data-dependent withholding event outside it (withholding on
  the diagnostics was an extra output, 1 bit, not covered by any bound). η is not certified: when the
  diagnostics say the chains did not mix, η may be large and the claim weak — the notes say so before
  the click, and the verdict is shown in the non-private box. Charging: every draw is released, so every
  draw is charged (ε each, as before: nothing is charged that was not released, and nothing is released
  uncharged). We chose this over (b), a withhold decision from a mixing check on a public design of the
  same n, d and bounds: a public design's mixing says little about the data's (θ̂ and XᵀX set the target's
  shape), so (b) would withhold good draws and release bad ones while still looking like a check.
* Neighbouring relation: replace one record; n is fixed and public.
* Sensitivities: next to each problem's ``calibrate_<mechanism>`` (:mod:`dpcore.kng._location`,
  :mod:`dpcore.kng._regression`); the public calibration of a release is its family's
  ``calibrate_<family>(config, data_shape)`` (:mod:`dpcore.kng.calibration`).
* Cost: ``size`` independent draws at ε each: ``Release.cost == calibration.cost(size)``.

MCMC rules: each released draw is the last state of its own chain; chains start at the centre
of Θ (data-independent) with proposal scales from public quantities (n, ε, Δ, the public bounds)
and adapt during burn-in. Each problem chooses, from public inputs, between the coordinate-wise
chain (:func:`dpcore.mcmc.metropolis_within_gibbs`) and the preconditioned one
(:func:`dpcore.mcmc.preconditioned_metropolis`: moves along directions each chain learns from its
own burn-in, with parallel tempering on a public ladder for quantile-regression KNG), which mixes
on ill-conditioned designs. When fewer than 4 draws are requested, extra chains are run on the same
data *for the diagnostics only*: their states are discarded, never released. The diagnostics
(acceptance, split R-hat, ESS) are computed from the private data: they are non-private and kept
in :class:`dpcore.mechanism.Diagnostics`, never in the release. The release rule of an MCMC draw does
not read them (see "Mixing" above): the draw is released; "mixed" (max R-hat ≤ 1.05 and min ESS ≥ 100)
or which criterion failed is the non-private diagnostic ``"chains mixed (non-private)"``.

Work budget (checked before any work, :func:`check_work`): MCMC chains × sweeps × coordinates ×
records touched per coordinate move must stay under :data:`MAX_WORK`, and objective
perturbation's draws × d³ under :data:`MAX_QP_WORK`; a refusal names the product and the cap.
Long work reports progress: ``progress(done, total)`` is called between blocks and returning
``False`` stops it with :class:`dpcore.errors.Cancelled` (a newer page rerun, or a user).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, cast, Optional

import numpy as np

from ..._rng import RNGLike, as_generator, spawn
from ..._validation import DPValueError
from ...mcmc import MCMCDiagnostics, metropolis_within_gibbs, preconditioned_metropolis
from ...mechanism import Calibration, Diagnostics, Note, Release, lazy
from .._exact_regression import ExactDraws
from .._problem import Prepared, Problem

#: Largest number of MCMC chains per call (one per released draw).
MAX_CHAINS = 5_000
#: Cap on the values held per MCMC step for targets that touch every record per evaluation: chains × n × d.
MAX_MCMC_WORK = 30_000_000
#: Work budget of one release, checked before any work (≈ seconds on one core; see :func:`check_work`):
#: MCMC chains × sweeps × coordinates × records touched per coordinate move ...
MAX_WORK = 3e8
#: A vectorised coordinate move costs at least this many units whatever the chains (measured: ≈ 45 µs of numpy
#: overhead, the time of ≈ 3e3 units of a record-touching move).
MOVE_OVERHEAD = 3_000
#: ... and objective perturbation's draws × d³ (one exact QP per draw).
MAX_QP_WORK = 1e7
#: Release rule for MCMC draws.
RHAT_MAX, ESS_MIN = 1.05, 100.0
#: Chains run at least (extra ones for the diagnostics only).
MIN_CHAINS = 4

#: How an MCMC draw is released (issue 29, item 5): whatever the chains' diagnostics say.
LAST_STATE = ("each draw is the last state of its chain, released whether or not the chains mixed (the mixing "
              "diagnostics are non-private)")
MCMC_NOTE = "ε-DP for the exact target; the MCMC draw is approximately private; " + LAST_STATE
EXACT_NOTE = "exact sampler: ε-DP"
FALLBACK_NOTE = ("ε-DP for the exact target; drawn by an exact rejection sampler, or by MCMC where its acceptance "
                 "is too low (which one ran depends on the data and is not published): approximately private; "
                 + LAST_STATE)

Override = Optional[Callable[[Calibration], Calibration]]
Calibrate = Callable[[Any, tuple], Calibration]
#: Marker: an exact sampler stopped and no MCMC ran (the release is withheld).
_NOT_RUN = object()
Progress = Optional[Callable[[int, int], Any]]


class KNGRelease(Release):
    """A :class:`dpcore.mechanism.Release` of a KNG mechanism; ``value`` holds (size, d) draws in the
    caller's units (NaN when withheld)."""

    @property
    def samples(self) -> np.ndarray:
        """The draws (the release's ``value``), shape (size, d)."""
        return self.value


@dataclass(frozen=True)
class Plan:
    """What a release will do, decided from public inputs only (before touching the sampler)."""

    problem: Problem
    prepared: Prepared
    calibration: Calibration
    exact: Optional[Callable[..., np.ndarray]]


def plan(problem: Problem, data: Any, cfg: Any, override: Override = None,
         calibrate: Optional[Calibrate] = None) -> Plan:
    """Prepare the data, choose the sampler and calibrate with the family's ``calibrate(cfg, (n, d))`` of
    :mod:`dpcore.kng.calibration` (``override`` replaces the calibration, for audits)."""
    P = problem.prepare(data, cfg)
    draw = problem.exact_sampler(cfg, P.d)
    if cfg.sampler == "mcmc":
        draw = None
    if calibrate is None:
        from ..calibration import calibrate_for
        calibrate = calibrate_for(cfg)
    cal = calibrate(cfg, (P.n, P.d))
    if override is not None:
        cal = override(cal)
    return Plan(problem, P, cal, draw)


def release(problem: Problem, data: Any, cfg: Any, *, calibrate: Calibrate, rng: RNGLike = None,
            override: Override = None, progress: Progress = None) -> KNGRelease:
    """Draw ``cfg.size`` private estimates of ``problem`` on ``data`` (see the module docstring); the
    calibration is ``calibrate(cfg, (n, d))``, the family's function of :mod:`dpcore.kng.calibration`."""
    pl = plan(problem, data, cfg, override, calibrate)
    P, cal = pl.prepared, pl.calibration
    check_work(problem, P, cfg, pl.exact is not None)
    # non-private by-products, computed when a page reads them (the median's estimate is a second O(n) pass)
    values: dict[str, Any] = {"non-private estimate": lazy(lambda: P.nonprivate * P.scale),
                              "clipped records": lazy(P.clipped) if callable(P.clipped) else P.clipped}
    g = as_generator(rng)
    if pl.exact is not None and progress is not None:      # the public schedule (module docstring, "Progress")
        progress = _PublicProgress(progress, cfg.sweeps if cal.note.startswith(FALLBACK_NOTE) else cfg.size)
    if cal.note.startswith(FALLBACK_NOTE):
        notes = [Note("approximate", FALLBACK_NOTE)]
    else:
        notes = [Note("info", EXACT_NOTE) if pl.exact is not None else Note("approximate", MCMC_NOTE)]
    diag = None
    if pl.exact is not None:
        draws = pl.exact(P, cal, cfg.size, g, progress)
        if isinstance(draws, ExactDraws):
            draws, diag, cal, notes = _fill_missing(problem, P, cal, cfg, draws, g, progress, notes, values)
    else:
        draws, diag = draw_mcmc(problem, P, cal, cfg, cfg.size, g, progress)
        values["sampler"] = f"MCMC ({problem.mcmc_kind(P, cfg)} Metropolis)"
        if cfg.size < MIN_CHAINS:
            notes.append(Note("info", f"{MIN_CHAINS - cfg.size} extra chain(s) ran for the diagnostics only; "
                                      "their states are discarded."))
    released = diag is not _NOT_RUN            # an MCMC draw is released whether or not its chains mixed
    if diag is _NOT_RUN:
        diag = None
    elif diag is not None:
        values["chains mixed (non-private)"] = mixing_text(cast(MCMCDiagnostics, diag))
    if not released:
        draws = np.full_like(draws, np.nan)
    if isinstance(progress, _PublicProgress):
        progress.finish()
    return KNGRelease(mechanism=cal.mechanism, value=draws * P.scale, cost=cal.cost(cfg.size), calibration=cal,
                     released=released, notes=tuple(notes), diagnostics=Diagnostics(mcmc=diag, values=values),
                     config=cfg)


def _fill_missing(problem: Problem, P: Prepared, cal: Calibration, cfg: Any, ex: ExactDraws, g, progress, notes,
                  values) -> tuple:
    """Draws of an exact rejection sampler that may stop early (:mod:`dpcore.kng._exact_regression`): the
    missing ones come from the problem's MCMC on the same target (``sampler="auto"``), or the release is
    withheld (``sampler="exact"``). Which sampler ran depends on the data: it is said only in the (non-private)
    diagnostics; the calibration and the notes stay those of the plan (:data:`FALLBACK_NOTE`)."""
    values["sampler"] = "exact rejection sampler" if not ex.missing.any() else (
        "MCMC (fallback)" if ex.accepted == 0 or ex.missing.all() else "exact rejection sampler + MCMC (fallback)")
    values["rejection sampler: proposals"] = ex.trials
    values["rejection sampler: acceptance rate"] = ex.acceptance
    values["rejection sampler: draws from uniform-on-Θ proposals"] = ex.from_uniform
    draws, diag = ex.values, None
    k = int(ex.missing.sum())
    if k == 0:
        return draws, diag, cal, notes
    if cfg.sampler == "exact" or k > MAX_CHAINS:
        why = ("use sampler='auto' to fall back to MCMC" if cfg.sampler == "exact" else
               f"the MCMC fallback runs one chain per draw, at most {MAX_CHAINS}: request fewer draws")
        notes.append(Note("withheld", f"Draw withheld: the exact sampler stopped ({ex.reason}); {why}. The cost is "
                                      "still charged: the sampler ran on the data."))
        return draws, _NOT_RUN, cal, notes
    mc, diag = draw_mcmc(problem, P, cal, cfg, k, g, progress)
    draws = draws.copy()
    draws[ex.missing] = mc
    values["MCMC fallback"] = (f"{k} of {cfg.size} draw(s) from MCMC ({problem.mcmc_kind(P, cfg)} Metropolis): the "
                               f"exact rejection sampler's acceptance rate was too low ({ex.reason})"
                               + (f"; {MIN_CHAINS - k} extra chain(s) ran for the diagnostics only, their states "
                                  "discarded" if k < MIN_CHAINS else ""))
    return draws, diag, cal, notes


def mixing_text(diag: MCMCDiagnostics) -> str:
    """The non-private mixing verdict: "mixed", or which criterion failed (max R-hat > 1.05, min ESS < 100).

    A diagnostic computed from chains run on the data: shown in the non-private box only, never beside the
    release (issue 29, item 5)."""
    failed = []
    if not diag.max_rhat <= RHAT_MAX:
        failed.append(f"R-hat > {RHAT_MAX}")
    if not diag.min_ess >= ESS_MIN:
        failed.append(f"ESS < {ESS_MIN:g}")
    if not failed:
        return "mixed"
    return (f"not mixed ({' and '.join(failed)}): the released draw may be far from the exact target's law; "
            "increase the number of sweeps")


class _PublicProgress:
    """A progress callback that shows only a public schedule: ``(0, total)`` at every internal step (each
    still a point where the caller may cancel) and ``(total, total)`` at the end (module docstring)."""

    def __init__(self, progress: Callable[[int, int], Any], total: int) -> None:
        self._progress, self.total = progress, int(total)
        self._progress(0, self.total)

    def __call__(self, done: int, total: int) -> Any:
        return self._progress(0, self.total)

    def finish(self) -> None:
        self._progress(self.total, self.total)


def initial_step_rule(width, cap):
    """min(cap, max(width, cap/10)), elementwise.

    The target's width is about 2Δ·w/(εn) (KNG) or √(2Δ_ℓ·w/(εn)) (exponential), w the public data
    scale; the chains start at the centre of Θ, possibly far from the mode, where a random walk
    with steps of that width would crawl (on a cone, half the moves go downhill whatever the step,
    so the adaptation barely grows a too-small step). Starting at no less than a tenth of Θ's
    size and letting the burn-in adaptation shrink the steps (fast: ×1/17 per batch when
    nothing is accepted) reaches the mode at n = 10 and at n = 1e7 alike.
    """
    return np.minimum(cap, np.maximum(width, 0.1 * cap))


def thinning(post: int, chains: int, d: int, keep: int) -> int:
    """Thinning that keeps about ``keep`` post-burn-in states per chain and ≤ 2e7 stored values."""
    return max(1, post // keep, math.ceil(post * chains * d / 2e7))


def _n(x: float) -> str:
    return f"{int(x):,}".replace(",", " ")


def check_work(problem: Problem, P: Prepared, cfg: Any, exact: bool) -> None:
    """Refuse, before any work, a release whose work exceeds the budget (the message names the product).

    >>> from dpcore import kng
    >>> x = np.zeros((2_000, 2))  # the geometric median touches every record at every move
    >>> kng.sample("median", x, mechanism="kng", epsilon=1.0, bounds=(-1, 1), size=1_500, n_sweeps=2_000)
    Traceback (most recent call last):
    ...
    dpcore.errors.DPValueError: 1 500 chains × 2 000 sweeps × 2 coordinate(s) × 2 000 records per move = 1.2e+10 exceeds the cap 3e+08 of one release; request fewer draws or sweeps, or use fewer records.
    """
    if cfg.mechanism == "objective_perturbation":
        work = cfg.size * P.d ** 3
        if work > MAX_QP_WORK:
            raise DPValueError(f"{_n(cfg.size)} draws × d³ = {_n(P.d ** 3)} (one exact QP each) = {work:.3g} exceeds "
                               f"the cap {MAX_QP_WORK:.0e} of one release; request fewer draws.")
        return
    if exact:
        return
    work, product = mcmc_work(problem, P, cfg)
    if work > MAX_WORK:
        fewer = ", or use fewer records" if "record" in product else ""
        raise DPValueError(f"{product} = {work:.3g} exceeds the cap {MAX_WORK:.0e} of one release; request fewer "
                           f"draws or sweeps{fewer}.")


def check_total_work(items: list[tuple[Problem, Prepared, Any, bool]]) -> None:
    """Refuse, before any work, one interaction that runs several releases (a page's mechanisms) whose MCMC
    work together exceeds :data:`MAX_WORK`; the message names each release's product and the sum."""
    parts = [(cfg.mechanism, *mcmc_work(problem, P, cfg)) for problem, P, cfg, exact in items
             if not exact and cfg.mechanism != "objective_perturbation"]
    total = sum(w for _, w, _ in parts)
    if len(parts) > 1 and total > MAX_WORK:
        each = "; ".join(f"{m}: {product} = {w:.3g}" for m, w, product in parts)
        raise DPValueError(f"{each}; together {total:.3g} exceeds the cap {MAX_WORK:.0e} of one interaction; "
                           "request fewer draws or sweeps, or choose fewer mechanisms.")


def mcmc_work(problem: Problem, P: Prepared, cfg: Any) -> tuple[float, str]:
    """The work of a release's MCMC in budget units, and the product that gives it (in words).

    sweeps × coordinates × max(chains × what a move touches per chain, :data:`MOVE_OVERHEAD`).
    """
    C = max(cfg.size, MIN_CHAINS)
    per, unit = problem.move_cost(P, cfg)
    if C * per >= MOVE_OVERHEAD:
        return (float(C) * cfg.sweeps * P.d * per,
                f"{_n(C)} chains × {_n(cfg.sweeps)} sweeps × {P.d} coordinate(s) × {_n(per)} {unit} per move")
    return (float(cfg.sweeps) * P.d * MOVE_OVERHEAD,
            f"{_n(cfg.sweeps)} sweeps × {P.d} coordinate(s) × {_n(MOVE_OVERHEAD)} (the fixed cost of one vectorised "
            f"move, more than {_n(C)} chains × {_n(per)} {unit})")


def check_chains(problem: Problem, P: Prepared, size: int) -> int:
    """The number of chains (≥ :data:`MIN_CHAINS`), refusing too many up front."""
    if size > MAX_CHAINS:
        raise DPValueError(f"size = {size} MCMC draws (one chain each) exceeds the limit {MAX_CHAINS}; "
                           "request fewer draws.")
    C = max(size, MIN_CHAINS)
    work = problem.values_per_step(P, C)
    if work > MAX_MCMC_WORK:
        raise DPValueError(f"this MCMC would hold {work:,} values per step (chains × records); the limit is "
                           f"{MAX_MCMC_WORK:,}: request fewer draws or use fewer records.")
    return C


def draw_mcmc(problem: Problem, P: Prepared, cal: Calibration, cfg: Any, size: int, g: np.random.Generator,
              progress: Progress = None) -> tuple[np.ndarray, MCMCDiagnostics]:
    """``size`` chains' last states (scaled units) and the non-private diagnostics of all chains run."""
    C = check_chains(problem, P, size)
    gens = spawn(g, C)
    init = np.tile(cast(np.ndarray, P.centre), (C, 1))
    step = initial_step_rule(problem.target_width(P, cal, cfg), problem.step_cap(P))
    inc = problem.incremental_target(P, cal, cfg)
    logp = None if inc is not None else (lambda th: problem.log_density(P, cal, th))
    lower, upper = problem.mcmc_box(P)
    n_sweeps, burn = cfg.sweeps, cfg.burn
    thin = thinning(n_sweeps - burn, C, P.d, 1000)
    if problem.mcmc_kind(P, cfg) == "preconditioned":
        res = preconditioned_metropolis(lambda th: problem.log_density(P, cal, th), init, n_sweeps=n_sweeps,
                                        rng=gens, step_size=step, burn_in=burn, lower=lower, upper=upper,
                                        l1_radius=P.l1_radius, thin=thin, keep_trace=False, progress=progress,
                                        temperatures=problem.temperatures(P, cfg))
        return res.final[:size].copy(), res.diagnostics
    res = metropolis_within_gibbs(logp, init, n_sweeps=n_sweeps, rng=gens, step_size=step, burn_in=burn,
                                  lower=lower, upper=upper, l1_radius=P.l1_radius, incremental=inc,
                                  thin=thin, keep_trace=False, progress=progress)
    return res.final[:size].copy(), res.diagnostics

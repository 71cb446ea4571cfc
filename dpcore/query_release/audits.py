"""The numerics of the query-release audits: neighbouring pairs, vectorised samplers, events and mutant overrides.

Central mechanisms: N_RECORDS records at one end of a diameter of X, one moved to the other end; the sampler
is the release's own vectorised path (:func:`dpcore.query_release.release._common.sample_outputs`) at the ρ
whose (ε, δ) conversion is the audited claim; events are half-lines along the mean difference. PMW: its
transcript on the ±1 cube, where the sensitivity 2R/n of a query answer is attained. Local protocols: the
report(s) of ONE party, with the exact likelihood ratio of the point randomizer as events.
"""
from __future__ import annotations

import math

import numpy as np

from dpcore.audit import halfline_events, llr_events

from ..privacy import gaussian_sigma_zcdp
from ._central import nonprivate_answers, rho_for_approx
from ._local import _centres, _plan, report_density_ratio
from ._workloads import RandomSigns
from .configs import PMWConfig
from .release._common import LOCAL_CALIBRATE, local_reports, sample_outputs

AUDIT_EPSILON, AUDIT_DELTA = 1.0, 0.05
N_RECORDS = 5


def normalised_diameter(cal):
    """Mutant: σ from the normalised diameter diam₂/√k (the d₂ scale of the error metric) instead of diam₂."""
    return cal.replace(params={"diameter_rule": "normalised"})


def l1_diameter(cal):
    """σ from the ℓ1 diameter: NOT a privacy bug (‖v‖₁ ≥ ‖v‖₂ gives more noise); kept for the tests."""
    return cal.replace(params={"diameter_rule": "l1"})


def pair(a: int, b: int):
    return (np.full(N_RECORDS, a), np.concatenate([np.full(N_RECORDS - 1, a), [b]]))


def central_sampler(make):
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = make(rho_for_approx(epsilon, delta))
        return sample_outputs(data, cfg, n, rng, override=override)
    return sampler


def central_events(make):
    def events(d_a, d_b, epsilon, delta):
        cfg = make(rho_for_approx(epsilon, delta))
        wl = cfg.workload.build()
        ma, mb = nonprivate_answers(d_a, cfg), nonprivate_answers(d_b, cfg)
        direction = ma - mb
        sigma = gaussian_sigma_zcdp(cfg.rho, wl.diam2 / N_RECORDS) * float(np.linalg.norm(direction))
        mid = 0.5 * float((ma + mb) @ direction)
        return halfline_events(mid + sigma * np.linspace(-4.0, 4.0, 33), projection=direction)
    return events


def pmw_no_split(cal):
    """Mutant: every PMW round spends the whole ρ (the rounds' budget spent T times)."""
    return cal.replace(params={"rho_per_round": cal.rho})


CUBE = RandomSigns(4, 64, 0)            # public seed 0: all 16 sign vectors
PMW_ROUNDS = 10


def cube_pair():
    P = CUBE.build().points
    return int(np.flatnonzero((P == 1).all(axis=1))[0]), int(np.flatnonzero((P == -1).all(axis=1))[0])

CUBE_PAIR = cube_pair()


def pmw_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = PMWConfig(CUBE, rho_for_approx(epsilon, delta), rounds=PMW_ROUNDS)
    return sample_outputs(data, cfg, n, rng, override=override, stage="noisy")


def pmw_events(d_a, d_b, epsilon, delta):
    # half-lines of Σ_t m_t (every query's answer moves by 2R/n = 2/n between D and D')
    rho_t = rho_for_approx(epsilon, delta) / PMW_ROUNDS
    sigma = (2.0 / N_RECORDS) / math.sqrt(rho_t) * math.sqrt(PMW_ROUNDS)
    mid = PMW_ROUNDS * (1.0 + (N_RECORDS - 2) / N_RECORDS) / 2.0
    proj = np.concatenate([np.zeros(PMW_ROUNDS), np.ones(PMW_ROUNDS)])
    return halfline_events(mid + sigma * np.linspace(-4.0, 4.0, 33), projection=proj)


def local_sampler(make):
    def sampler(data, n, rng, *, epsilon, delta, override):
        return local_reports(int(np.asarray(data)[0]), make(epsilon), n, rng, override=override)
    return sampler


def local_events(make):
    def events(d_a, d_b, epsilon, delta):
        cfg = make(epsilon)
        plan = _plan(cfg)
        a, b = int(np.asarray(d_a)[0]), int(np.asarray(d_b)[0])
        eps = LOCAL_CALIBRATE[type(cfg)](cfg, (1,)).params["level_epsilons"]
        parts = [((P[index[a]] - c) / R, (P[index[b]] - c) / R, P.shape[1])
                 for (P, index, _, _), (c, R) in zip(plan.levels, _centres(plan))]

        def llr(out):
            tot = np.zeros(out.shape[0])
            lo = 0
            for (xa, xb, k), e in zip(parts, eps):
                tot += np.log(report_density_ratio(out[:, lo:lo + k], xa, xb, e))
                lo += k
            return tot
        return llr_events(llr, lambda out: np.zeros(out.shape[0]), np.linspace(-1.5, 1.5, 7) * epsilon)
    return events


def flip_doubled(cal):
    """Mutant: the bias probability p = e^ε/(e^ε + 1) computed for 2ε."""
    return cal.replace(params={"flip_factor": 2.0})


def levels_not_split(cal):
    """Mutant: every level's report uses the whole ε (no division among the levels)."""
    return cal.replace(params={"level_epsilons": tuple([cal.epsilon] * len(cal.params["level_epsilons"]))})

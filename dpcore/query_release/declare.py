"""Query-release topic declaration: mechanisms, audits (with mutants) and figures (read by :mod:`dpcore.registry`).

Audits of the zCDP mechanisms check the (ε, δ) claim implied by ρ-zCDP through the tight conversion
(Canonne, Kamath & Steinke 2020) at a test-friendly δ = 0.05: the sampler calibrates ρ to the claimed
(ε, δ) (:func:`~dpcore.query_release.central.rho_for_approx`). Neighbouring datasets differ by
replacing one record placed on the far end of a diameter of the public universe (where the
sensitivity diam₂/n is attained). Events are half-lines of the fixed projection onto x_D − x_D'
(the likelihood-ratio direction of the Gaussian step) or, for local reports, the exact likelihood
ratio of the randomizer.
"""
from __future__ import annotations

import math

import numpy as np

from dpcore.audit import Audit, Mutant, halfline_events, llr_events
from dpcore.mechanism import MechanismSpec, frozen_mapping
from dpcore.registry import Style, Topic

from . import central
from . import local
from .figures import EXPERIMENTS
from .geometry import decompose_workload, net_of_workload
from .workloads import Marginals, RandomSigns, Thresholds

REFERENCE = ("Błasiok, Bun, Nikolov & Steinke (2019), Towards Instance-Optimal Private Query Release, SODA; "
             "Nikolov, Talwar & Zhang (2016); Hardt & Rothblum (2010)")

_HUGE_RHO = frozen_mapping({"rho": 1e12})
_HUGE_EPS = frozen_mapping({"epsilon": 1e9})

# -- examples (small public workloads; records chosen in the finest public net so that the rounding of
# -- coarse/chaining is exact and the huge-budget release equals x̄) ---------------------------------------


def _ex_gaussian():
    return np.array([0, 3, 5, 7, 7, 1]), {"workload": Marginals(4, 2), "rho": 0.5}


def _ex_projection():
    return np.array([0, 2, 5, 5, 9, 12]), {"workload": Thresholds(16), "rho": 0.5}


def _ex_coarse():
    spec = Thresholds(16)
    net = net_of_workload(spec, 0.25)
    return net.centers[[0, 1, 1, 2, -1]].copy(), {"workload": spec, "rho": 0.5, "alpha": 0.5}


def _ex_chaining():
    spec = Thresholds(16)
    dec = decompose_workload(spec, 0.5)
    c = dec.nets[-1].centers
    return c[[0, 1, 3, 3, -1]].copy(), {"workload": spec, "rho": 0.5, "alpha": 0.5}


def _ex_pmw():
    return np.array([0, 1, 1, 3]), {"workload": Thresholds(4), "rho": 0.5}


def _ex_local(cls_kwargs):
    def ex():
        g = np.random.default_rng(7)           # public example data
        return g.choice(np.array([0, 2, 3]), size=200_000), {"workload": Thresholds(4), "epsilon": 1.0, **cls_kwargs}
    return ex


#: The projection's duality gap is computed from the noisy answers only (post-processing): a note of kind
#: "output", part of the private output.
_POST = ("notes:output",)

MECHANISMS = (
    MechanismSpec("query_release/gaussian", "Gaussian mechanism (answers + noise)", central.GaussianConfig,
                  central.gaussian_release, central.nonprivate_answers, _ex_gaussian, budget=("rho",), huge=_HUGE_RHO),
    MechanismSpec("query_release/projection", "Projection mechanism", central.ProjectionConfig,
                  central.projection_release, central.nonprivate_answers, _ex_projection, budget=("rho",), huge=_HUGE_RHO,
                  private_fields=_POST),
    MechanismSpec("query_release/coarse", "Coarse projection", central.CoarseConfig, central.coarse_release,
                  central.nonprivate_answers, _ex_coarse, budget=("rho",), huge=_HUGE_RHO,
                  private_fields=_POST),
    MechanismSpec("query_release/chaining", "Chaining mechanism", central.ChainingConfig, central.chaining_release,
                  central.nonprivate_answers, _ex_chaining, budget=("rho",), huge=_HUGE_RHO,
                  private_fields=_POST),
    MechanismSpec("query_release/pmw", "Private multiplicative weights (MWEM form)", central.PMWConfig,
                  central.pmw_release, central.nonprivate_answers, _ex_pmw, budget=("rho",), huge=_HUGE_RHO, atol=0.05),
    MechanismSpec("query_release/local-projection", "Local projection (ε-LDP)", local.LocalProjectionConfig,
                  local.local_projection_release, local.nonprivate_local, _ex_local({}), budget=("epsilon",),
                  huge=_HUGE_EPS, atol=0.02),
    MechanismSpec("query_release/local-coarse", "Local coarse projection (ε-LDP)", local.LocalCoarseConfig,
                  local.local_coarse_release, local.nonprivate_local, _ex_local({"alpha": 0.5}), budget=("epsilon",),
                  huge=_HUGE_EPS, atol=0.02),
    MechanismSpec("query_release/local-chaining", "Local chaining (ε-LDP)", local.LocalChainingConfig,
                  local.local_chaining_release, local.nonprivate_local, _ex_local({"alpha": 0.5}), budget=("epsilon",),
                  huge=_HUGE_EPS, atol=0.03),
)

# -- audits ------------------------------------------------------------------------------------------------
AUDIT_EPSILON, AUDIT_DELTA = 1.0, 0.05
N_RECORDS = 5


def normalised_diameter(cal):
    """Mutant: σ from the normalised diameter diam₂/√k (the d₂ scale of the error metric) instead of diam₂."""
    return cal.replace(params={"diameter_rule": "normalised"})


def l1_diameter(cal):
    """σ from the ℓ1 diameter: NOT a privacy bug (‖v‖₁ ≥ ‖v‖₂ gives more noise); kept for the tests."""
    return cal.replace(params={"diameter_rule": "l1"})


def _pair(a: int, b: int):
    return (np.full(N_RECORDS, a), np.concatenate([np.full(N_RECORDS - 1, a), [b]]))


def _central_sampler(make):
    def sampler(data, n, rng, *, epsilon, delta, override):
        cfg = make(central.rho_for_approx(epsilon, delta))
        return central.sample_outputs(data, cfg, n, rng, override=override)
    return sampler


def _central_events(make):
    def events(d_a, d_b, epsilon, delta):
        cfg = make(central.rho_for_approx(epsilon, delta))
        wl = cfg.workload.build()
        ma, mb = central.nonprivate_answers(d_a, cfg), central.nonprivate_answers(d_b, cfg)
        direction = ma - mb
        sigma = central.gaussian_sigma_zcdp(cfg.rho, wl.diam2 / N_RECORDS) * float(np.linalg.norm(direction))
        mid = 0.5 * float((ma + mb) @ direction)
        return halfline_events(mid + sigma * np.linspace(-4.0, 4.0, 33), projection=direction)
    return events


def _central_audit(key, title, make, pair, *, mutant=None, n_samples=200_000):
    mutant = mutant or Mutant("σ from the normalised diameter",
                              "σ computed from diam₂(X)/√k (the d₂ scale used for errors) instead of the "
                              "Euclidean diameter diam₂(X): too little noise by a factor √k.", normalised_diameter)
    return Audit(id=f"query_release/{key}", mechanism=f"query_release/{key.split(':')[0]}", title=title,
                 datasets=_pair(*pair), neighbours="one record moved to the far end of a diameter of X",
                 sampler=_central_sampler(make), events=_central_events(make), epsilon=AUDIT_EPSILON,
                 delta=AUDIT_DELTA, mutant=mutant, n_samples=n_samples, output_label="released answers")


_M32, _T4 = Marginals(3, 2), Thresholds(4)


def _pmw_no_split(cal):
    """Mutant: every PMW round spends the whole ρ (the rounds' budget spent T times)."""
    return cal.replace(params={"rho_per_round": cal.rho})


# PMW: the transcript (the noise step) on the ±1 cube, where the sensitivity 2R/n of a query answer is attained.
_CUBE = RandomSigns(4, 64, 0)            # public seed 0: all 16 sign vectors
_PMW_ROUNDS = 10


def _cube_pair():
    P = _CUBE.build().points
    return int(np.flatnonzero((P == 1).all(axis=1))[0]), int(np.flatnonzero((P == -1).all(axis=1))[0])


_CUBE_PAIR = _cube_pair()


def _pmw_sampler(data, n, rng, *, epsilon, delta, override):
    cfg = central.PMWConfig(_CUBE, central.rho_for_approx(epsilon, delta), rounds=_PMW_ROUNDS)
    return central.sample_outputs(data, cfg, n, rng, override=override, stage="noisy")


def _pmw_events(d_a, d_b, epsilon, delta):
    # half-lines of Σ_t m_t (every query's answer moves by 2R/n = 2/n between D and D')
    rho_t = central.rho_for_approx(epsilon, delta) / _PMW_ROUNDS
    sigma = (2.0 / N_RECORDS) / math.sqrt(rho_t) * math.sqrt(_PMW_ROUNDS)
    mid = _PMW_ROUNDS * (1.0 + (N_RECORDS - 2) / N_RECORDS) / 2.0
    proj = np.concatenate([np.zeros(_PMW_ROUNDS), np.ones(_PMW_ROUNDS)])
    return halfline_events(mid + sigma * np.linspace(-4.0, 4.0, 33), projection=proj)


AUDITS_CENTRAL = (
    _central_audit("gaussian", "Gaussian noise step on 2-way marginals over {0,1}³",
                   lambda rho: central.GaussianConfig(_M32, rho), (0, 7)),
    _central_audit("projection", "Projection mechanism end to end (noise + exact projection) on 2-way marginals",
                   lambda rho: central.ProjectionConfig(_M32, rho), (0, 7), n_samples=50_000),
    _central_audit("coarse", "Coarse projection end to end on thresholds over [4] (α = 1.2: net {1, 3})",
                   lambda rho: central.CoarseConfig(_T4, rho, 1.2), (0, 3), n_samples=200_000),
    _central_audit("chaining", "Chaining end to end on thresholds over [4] (α = 0.5: two active levels)",
                   lambda rho: central.ChainingConfig(_T4, rho, 0.5), (0, 3), n_samples=200_000),
    Audit(id="query_release/pmw", mechanism="query_release/pmw",
          title="PMW transcript (10 rounds: selected queries and measurements) on the ±1 cube {±1}⁴",
          datasets=_pair(*_CUBE_PAIR), neighbours="one record moved from (1,1,1,1) to (−1,−1,−1,−1)",
          sampler=_pmw_sampler, events=_pmw_events, epsilon=AUDIT_EPSILON, delta=AUDIT_DELTA,
          mutant=Mutant("rounds not charged", "each of the T rounds spends the whole ρ instead of ρ/T "
                        "(one budget spent T times)", _pmw_no_split),
          n_samples=100_000, output_label="PMW transcript"),
)


# -- local audits: the report of ONE party, exact likelihood-ratio events ---------------------------------------
def _local_sampler(make):
    def sampler(data, n, rng, *, epsilon, delta, override):
        return local.local_reports(int(np.asarray(data)[0]), make(epsilon), n, rng, override=override)
    return sampler


def _local_events(make):
    def events(d_a, d_b, epsilon, delta):
        cfg = make(epsilon)
        plan = local._plan(cfg)
        a, b = int(np.asarray(d_a)[0]), int(np.asarray(d_b)[0])
        eps = local._calibration(cfg, plan).params["level_epsilons"]
        parts = [((P[index[a]] - c) / R, (P[index[b]] - c) / R, P.shape[1])
                 for (P, index, _, _), (c, R) in zip(plan.levels, local._centres(plan))]

        def llr(out):
            tot = np.zeros(out.shape[0])
            lo = 0
            for (xa, xb, k), e in zip(parts, eps):
                tot += np.log(local.report_density_ratio(out[:, lo:lo + k], xa, xb, e))
                lo += k
            return tot
        return llr_events(llr, lambda out: np.zeros(out.shape[0]), np.linspace(-1.5, 1.5, 7) * epsilon)
    return events


def _flip_doubled(cal):
    """Mutant: the bias probability p = e^ε/(e^ε + 1) computed for 2ε."""
    return cal.replace(params={"flip_factor": 2.0})


def _levels_not_split(cal):
    """Mutant: every level's report uses the whole ε (no division among the levels)."""
    return cal.replace(params={"level_epsilons": tuple([cal.epsilon] * len(cal.params["level_epsilons"]))})


def _local_audit(key, title, make, mutant):
    return Audit(id=f"query_release/{key}", mechanism=f"query_release/{key}", title=title,
                 datasets=(np.array([0]), np.array([3])), neighbours="one party's record changed (ε-LDP)",
                 sampler=_local_sampler(make), events=_local_events(make), epsilon=1.0, delta=0.0,
                 mutant=mutant, n_samples=200_000, output_label="one party's report(s)")


_FLIP = Mutant("bias for 2ε", "the flip probability uses e^{2ε}/(e^{2ε} + 1)", _flip_doubled)
AUDITS_LOCAL = (
    _local_audit("local-projection", "Local point randomizer (thresholds over [4]), exact likelihood ratio",
                 lambda e: local.LocalProjectionConfig(_T4, e), _FLIP),
    _local_audit("local-coarse", "Local coarse report (thresholds over [4], α = 1.2)",
                 lambda e: local.LocalCoarseConfig(_T4, e, 1.2), _FLIP),
    _local_audit("local-chaining", "Local chaining reports (thresholds over [4], α = 0.5, two levels)",
                 lambda e: local.LocalChainingConfig(_T4, e, 0.5),
                 Mutant("levels not split", "each level's report spends the whole ε", _levels_not_split)),
)

TOPIC = Topic(
    name="query_release",
    title="Instance-optimal private query release",
    reference=REFERENCE,
    mechanisms=MECHANISMS,
    audits=AUDITS_CENTRAL + AUDITS_LOCAL,
    experiments=EXPERIMENTS,
    paper="Blasiok, Bun, Nikolov & Steinke, “Towards Instance-Optimal Private Query Release”, SODA 2019",
    url="https://arxiv.org/abs/1811.03763",
    styles={
        "gaussian": Style("Gaussian only", "grey"),
        "projection": Style("Projection", "blue"),
        "coarse": Style("Coarse projection", "vermillion"),
        "chaining": Style("Chaining", "bluish_green"),
        "pmw": Style("PMW (MWEM form)", "reddish_purple"),
        "local-average": Style("Local: raw average", "grey"),
        "local-projection": Style("Local projection", "blue"),
        "local-coarse": Style("Local coarse projection", "vermillion"),
        "local-chaining": Style("Local chaining", "bluish_green"),
    },
)


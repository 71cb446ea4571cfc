"""Query-release topic declaration: mechanisms, audits (with mutants) and figures (read by :mod:`dpcore.registry`).

Audits of the zCDP mechanisms check the (ε, δ) claim implied by ρ-zCDP through the tight conversion
(Canonne, Kamath & Steinke 2020) at a test-friendly δ = 0.05: the sampler calibrates ρ to the claimed
(ε, δ) (``rho_for_approx``, in :mod:`dpcore.query_release.audits`). Neighbouring datasets differ by
replacing one record placed on the far end of a diameter of the public universe (where the
sensitivity diam₂/n is attained). Events are half-lines of the fixed projection onto x_D − x_D'
(the likelihood-ratio direction of the Gaussian step) or, for local reports, the exact likelihood
ratio of the randomizer.
"""
from __future__ import annotations

import numpy as np

from dpcore.audit import Audit, Mutant
from dpcore.mechanism import MechanismSpec, NoiseStep, frozen_mapping
from dpcore.registry import Style, Topic

from . import audits
from ._central import nonprivate_answers
from ._local import nonprivate_local
from .figures import EXPERIMENTS
from ._geometry import decompose_workload, net_of_workload
from ._workloads import Marginals, Thresholds
from .calibration import (calibrate_chaining, calibrate_coarse, calibrate_gaussian, calibrate_local_chaining,
                          calibrate_local_coarse, calibrate_local_projection, calibrate_pmw, calibrate_projection)
from .configs import (ChainingConfig, CoarseConfig, GaussianConfig, LocalChainingConfig, LocalCoarseConfig,
                      LocalProjectionConfig, PMWConfig, ProjectionConfig)
from .release import chaining, coarse, gaussian, local_chaining, local_coarse, local_projection, pmw, projection
from ._preview import error_law

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
    MechanismSpec("query_release/gaussian", "Gaussian mechanism (answers + noise)", GaussianConfig,
                  gaussian.release, nonprivate_answers, _ex_gaussian, budget=("rho",), huge=_HUGE_RHO,
                  calibrate=calibrate_gaussian,
                  noise=(NoiseStep("query answers on a public grid: exact discrete Gaussian (sampler='grid', default; "
                                   "'float': numpy's normal)", "grid-discrete"),)),
    MechanismSpec("query_release/projection", "Projection mechanism", ProjectionConfig,
                  projection.release, nonprivate_answers, _ex_projection, budget=("rho",), huge=_HUGE_RHO,
                  private_fields=_POST, calibrate=calibrate_projection,
                  noise=(NoiseStep("query answers: Gaussian noise (numpy), then projection", "float"),)),
    MechanismSpec("query_release/coarse", "Coarse projection", CoarseConfig, coarse.release,
                  nonprivate_answers, _ex_coarse, budget=("rho",), huge=_HUGE_RHO,
                  private_fields=_POST, calibrate=calibrate_coarse,
                  noise=(NoiseStep("query answers: Gaussian noise (numpy), then projection", "float"),)),
    MechanismSpec("query_release/chaining", "Chaining mechanism", ChainingConfig, chaining.release,
                  nonprivate_answers, _ex_chaining, budget=("rho",), huge=_HUGE_RHO,
                  private_fields=_POST, calibrate=calibrate_chaining,
                  noise=(NoiseStep("query answers: Gaussian noise (numpy), then chaining", "float"),)),
    MechanismSpec("query_release/pmw", "Private multiplicative weights (MWEM form)", PMWConfig,
                  pmw.release, nonprivate_answers, _ex_pmw, budget=("rho",), huge=_HUGE_RHO, atol=0.05,
                  calibrate=calibrate_pmw,
                  noise=(NoiseStep("query selection and answers: exponential mechanism and Gaussian noise (float)", "float"),)),
    MechanismSpec("query_release/local-projection", "Local projection (ε-LDP)", LocalProjectionConfig,
                  local_projection.release, nonprivate_local, _ex_local({}), budget=("epsilon",),
                  huge=_HUGE_EPS, atol=0.02, calibrate=calibrate_local_projection,
                  noise=(NoiseStep("each record's report: local Gaussian/K-norm noise (float)", "float"),)),
    MechanismSpec("query_release/local-coarse", "Local coarse projection (ε-LDP)", LocalCoarseConfig,
                  local_coarse.release, nonprivate_local, _ex_local({"alpha": 0.5}), budget=("epsilon",),
                  huge=_HUGE_EPS, atol=0.02, calibrate=calibrate_local_coarse,
                  noise=(NoiseStep("each record's report: local noise (float)", "float"),)),
    MechanismSpec("query_release/local-chaining", "Local chaining (ε-LDP)", LocalChainingConfig,
                  local_chaining.release, nonprivate_local, _ex_local({"alpha": 0.5}), budget=("epsilon",),
                  huge=_HUGE_EPS, atol=0.03, calibrate=calibrate_local_chaining,
                  noise=(NoiseStep("each record's report: local noise (float)", "float"),)),
)

# -- audits (numerics in audits.py) ---------------------------------------------------------------------------


def _central_audit(key, title, make, pair, *, mutant=None, n_samples=200_000):
    mutant = mutant or Mutant("σ from the normalised diameter",
                              "σ computed from diam₂(X)/√k (the d₂ scale used for errors) instead of the "
                              "Euclidean diameter diam₂(X): too little noise by a factor √k.",
                              audits.normalised_diameter)
    return Audit(id=f"query_release/{key.replace(':', '-')}", mechanism=f"query_release/{key.split(':')[0]}", title=title,
                 datasets=audits.pair(*pair), neighbours="one record moved to the far end of a diameter of X",
                 sampler=audits.central_sampler(make), events=audits.central_events(make),
                 epsilon=audits.AUDIT_EPSILON, delta=audits.AUDIT_DELTA, mutant=mutant, n_samples=n_samples, output_label="released answers")


_M32, _T4 = Marginals(3, 2), Thresholds(4)


AUDITS_CENTRAL = (
    _central_audit("gaussian", "Gaussian noise step on 2-way marginals over {0,1}³ (public grid, exact discrete "
                   "Gaussian: sampler='grid')", lambda rho: GaussianConfig(_M32, rho), (0, 7), n_samples=100_000),
    _central_audit("gaussian:float", "Gaussian noise step on 2-way marginals over {0,1}³ (numpy's normal: "
                   "sampler='float')", lambda rho: GaussianConfig(_M32, rho, sampler="float"), (0, 7)),
    _central_audit("projection", "Projection mechanism end to end (noise + exact projection) on 2-way marginals",
                   lambda rho: ProjectionConfig(_M32, rho), (0, 7), n_samples=50_000),
    _central_audit("coarse", "Coarse projection end to end on thresholds over [4] (α = 1.2: net {1, 3})",
                   lambda rho: CoarseConfig(_T4, rho, 1.2), (0, 3), n_samples=200_000),
    _central_audit("chaining", "Chaining end to end on thresholds over [4] (α = 0.5: two active levels)",
                   lambda rho: ChainingConfig(_T4, rho, 0.5), (0, 3), n_samples=200_000),
    Audit(id="query_release/pmw", mechanism="query_release/pmw",
          title="PMW transcript (10 rounds: selected queries and measurements) on the ±1 cube {±1}⁴",
          datasets=audits.pair(*audits.CUBE_PAIR), neighbours="one record moved from (1,1,1,1) to (−1,−1,−1,−1)",
          sampler=audits.pmw_sampler, events=audits.pmw_events, epsilon=audits.AUDIT_EPSILON,
          delta=audits.AUDIT_DELTA,
          mutant=Mutant("rounds not charged", "each of the T rounds spends the whole ρ instead of ρ/T "
                        "(one budget spent T times)", audits.pmw_no_split),
          n_samples=100_000, output_label="PMW transcript"),
)


# -- local audits: the report of ONE party, exact likelihood-ratio events ---------------------------------------


def _local_audit(key, title, make, mutant):
    return Audit(id=f"query_release/{key}", mechanism=f"query_release/{key}", title=title,
                 datasets=(np.array([0]), np.array([3])), neighbours="one party's record changed (ε-LDP)",
                 sampler=audits.local_sampler(make), events=audits.local_events(make), epsilon=1.0, delta=0.0,
                 mutant=mutant, n_samples=200_000, output_label="one party's report(s)")


_FLIP = Mutant("bias for 2ε", "the flip probability uses e^{2ε}/(e^{2ε} + 1)", audits.flip_doubled)
AUDITS_LOCAL = (
    _local_audit("local-projection", "Local point randomizer (thresholds over [4]), exact likelihood ratio",
                 lambda e: LocalProjectionConfig(_T4, e), _FLIP),
    _local_audit("local-coarse", "Local coarse report (thresholds over [4], α = 1.2)",
                 lambda e: LocalCoarseConfig(_T4, e, 1.2), _FLIP),
    _local_audit("local-chaining", "Local chaining reports (thresholds over [4], α = 0.5, two levels)",
                 lambda e: LocalChainingConfig(_T4, e, 0.5),
                 Mutant("levels not split", "each level's report spends the whole ε", audits.levels_not_split)),
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
    preview=error_law,
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
    audit_seconds={
        "query_release/gaussian": 2.1e-04,
        "query_release/gaussian-float": 2.38e-05,
        "query_release/projection": 2.81e-04,
        "query_release/coarse": 1.81e-05,
        "query_release/chaining": 2.75e-05,
        "query_release/pmw": 1.30e-04,
        "query_release/local-projection": 1.21e-05,
        "query_release/local-coarse": 1.05e-05,
        "query_release/local-chaining": 1.73e-05,
    },
)


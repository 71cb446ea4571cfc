"""Privacy accounting and the release rules of a session.

* :mod:`dpcore.privacy.accounting` — notions, :class:`PrivacyCost` (per-draw numbers × count),
  conversions (ε-DP → zCDP, zCDP → (ε, δ)), composition, the analytic Gaussian mechanism.
* :mod:`dpcore.privacy.ledger` — the session's :class:`PrivacyLedger` (entries counted as DP, and
  entries that are not DP as run, listed apart).
* :mod:`dpcore.privacy.session` — the release rules every page goes through: release keys, the
  bounded release cache, what is charged, fresh OS entropy vs. seeds, bounds checks, explicit
  submit (:class:`ReleaseSession`).

Everything public in the submodules is re-exported here (``from dpcore.privacy import PrivacyCost``).
"""
from .accounting import (
    NOTIONS,
    PrivacyCost,
    analytic_gaussian_sigma,
    compose_advanced,
    compose_basic,
    compose_entry,
    approx_to_zcdp_rho,
    compose_zcdp,
    gaussian_delta,
    gaussian_sigma_zcdp,
    pure_to_zcdp,
    zcdp_delta,
    zcdp_to_approx,
    zcdp_to_approx_simple,
)
from .ledger import LedgerEntry, LedgerTotals, PrivacyLedger
from .session import (
    BUILTIN,
    BUILTIN_FIXED_SEED,
    DATA_KINDS,
    ENTROPY_BITS,
    NOT_DP_BOUNDS,
    NOT_PRIVATE_SEED,
    SIMULATED,
    TEACHING_VIEW,
    USER,
    BoundsCheck,
    Charge,
    Outcome,
    Randomness,
    ReleaseRequest,
    ReleaseSession,
    bound_sources,
    canonical_key,
    charge_rule,
    check_bounds,
    data_kind,
    randomness_for,
    release_label,
)

__all__ = [
    "BUILTIN",
    "BUILTIN_FIXED_SEED",
    "DATA_KINDS",
    "ENTROPY_BITS",
    "NOTIONS",
    "NOT_DP_BOUNDS",
    "NOT_PRIVATE_SEED",
    "SIMULATED",
    "TEACHING_VIEW",
    "USER",
    "BoundsCheck",
    "Charge",
    "LedgerEntry",
    "LedgerTotals",
    "Outcome",
    "PrivacyCost",
    "PrivacyLedger",
    "Randomness",
    "ReleaseRequest",
    "ReleaseSession",
    "analytic_gaussian_sigma",
    "bound_sources",
    "canonical_key",
    "charge_rule",
    "check_bounds",
    "compose_advanced",
    "compose_basic",
    "compose_entry",
    "approx_to_zcdp_rho",
    "compose_zcdp",
    "data_kind",
    "gaussian_delta",
    "gaussian_sigma_zcdp",
    "pure_to_zcdp",
    "randomness_for",
    "release_label",
    "zcdp_delta",
    "zcdp_to_approx",
    "zcdp_to_approx_simple",
]

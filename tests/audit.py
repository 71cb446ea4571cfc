"""Back-compat shim: the audit harness lives in :mod:`dpcore.audit` (shared with the audit page)."""
from dpcore.audit.harness import *  # noqa: F401,F403
from dpcore.audit.harness import AuditResult, audit, clopper_pearson_lower, clopper_pearson_upper  # noqa: F401
